// SlotEncoder (bgv/slots.hpp): the slot ring E (GF(p^d), or its Galois-ring lift for t = p^r),
// the hypercube of Z_m^*/<p>, the factors of Φ_m mod p as minimal polynomials of ζ^h lifted to
// Z_t, and the CRT/remainder trees over them, on FLINT.
#include "polyhe/bgv/slots.hpp"

#include <flint/fmpz.h>
#include <flint/fmpz_poly.h>
#include <flint/fmpz_poly_factor.h>
#include <flint/fq_nmod.h>
#include <flint/nmod_mat.h>
#include <flint/nmod_poly.h>
#include <flint/nmod_poly_factor.h>
#include <flint/nmod_vec.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "polyhe/arith/cyclotomic_polynomial.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/context.hpp"

namespace polyhe::bgv {

namespace {

using u64 = std::uint64_t;

/// An nmod_poly_t with its lifetime.
class Poly {
 public:
  explicit Poly(u64 t) { nmod_poly_init(p_, t); }
  Poly(const Poly& other) {
    nmod_poly_init_mod(p_, other.p_->mod);
    nmod_poly_set(p_, other.p_);
  }
  Poly& operator=(const Poly& other) {
    if (this != &other) nmod_poly_set(p_, other.p_);
    return *this;
  }
  ~Poly() { nmod_poly_clear(p_); }
  nmod_poly_struct* get() { return p_; }
  [[nodiscard]] const nmod_poly_struct* get() const { return p_; }
  [[nodiscard]] u64 coeff(slong j) const { return nmod_poly_get_coeff_ui(p_, j); }
  [[nodiscard]] slong degree() const { return nmod_poly_degree(p_); }

 private:
  nmod_poly_t p_;
};

/// An element of E with its lifetime (fq_nmod_t is an nmod_poly_t underneath).
class Elem {
 public:
  explicit Elem(const fq_nmod_ctx_struct* ctx) : ctx_(ctx) { fq_nmod_init(e_, ctx_); }
  Elem(const Elem& other) : ctx_(other.ctx_) {
    fq_nmod_init(e_, ctx_);
    fq_nmod_set(e_, other.e_, ctx_);
  }
  Elem& operator=(const Elem& other) {
    if (this != &other) fq_nmod_set(e_, other.e_, ctx_);
    return *this;
  }
  ~Elem() { fq_nmod_clear(e_, ctx_); }
  fq_nmod_struct* get() { return e_; }
  [[nodiscard]] const fq_nmod_struct* get() const { return e_; }

 private:
  const fq_nmod_ctx_struct* ctx_;
  fq_nmod_t e_;
};

/// GF(p^d) = Z_p[Y]/G as FLINT's finite-field context, with its lifetime.
class Field {
 public:
  explicit Field(const Poly& g) { fq_nmod_ctx_init_modulus(ctx_, g.get(), "Y"); }
  ~Field() { fq_nmod_ctx_clear(ctx_); }
  Field(const Field&) = delete;
  Field& operator=(const Field&) = delete;
  [[nodiscard]] const fq_nmod_ctx_struct* get() const { return ctx_; }

 private:
  fq_nmod_ctx_t ctx_;
};

/// Up to this slot degree encoding keeps each slot's powers of γ (φ(m)·d words; 8 MiB at most at
/// m ≤ 2^17): at m = 21845 (d = 16) encoding by FLINT's modular composition instead took 1.25× as
/// long.
constexpr std::size_t kPowerTableDegree = 64;

/// Ben-Or's test: g (monic, degree d ≥ 1) is irreducible iff it has no factor of degree i ≤ d/2,
/// i.e. gcd(X^(t^i) − X, g) = 1 for each such i. A random g has a small factor with high
/// probability, so a reducible one is usually rejected after a few i (FLINT's own test builds the
/// baby steps of a distinct-degree factorisation first, which dominates a search at large d).
/// The gcds are taken of products of X^(t^i) − X mod g (exact: an irreducible factor of g divides
/// a product iff it divides a term), one per i up to 4, then one per block of up to 16.
bool irreducible_ben_or(const Poly& g) {
  const slong d = g.degree();
  if (d <= 1) return d == 1;
  const u64 t = g.get()->mod.n;
  Poly x(t), h(t), diff(t), product(t), common(t), g_inv(t);
  nmod_poly_set_coeff_ui(x.get(), 1, 1);
  nmod_poly_reverse(g_inv.get(), g.get(), d + 1);
  nmod_poly_inv_series(g_inv.get(), g_inv.get(), d + 1);
  h = x;
  nmod_poly_one(product.get());
  for (slong i = 1; 2 * i <= d; ++i) {
    nmod_poly_powmod_ui_binexp_preinv(h.get(), h.get(), t, g.get(), g_inv.get());
    nmod_poly_sub(diff.get(), h.get(), x.get());
    nmod_poly_mulmod_preinv(product.get(), product.get(), diff.get(), g.get(), g_inv.get());
    if (i <= 4 || i % 16 == 0 || 2 * (i + 1) > d) {
      nmod_poly_gcd(common.get(), product.get(), g.get());
      if (common.degree() != 0) return false;
      nmod_poly_one(product.get());
    }
  }
  return true;
}

/// SplitMix64 (Steele, Lea, Flood 2014): a fixed, portable sequence of words, not randomness;
/// it only enumerates candidate field moduli.
u64 splitmix64(u64& state) {
  u64 z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The multiplicative order of a mod m (gcd(a, m) = 1).
std::size_t order_mod(u64 a, u64 m) {
  u64 x = a % m;
  std::size_t d = 1;
  while (x != 1) {
    x = x * (a % m) % m;
    ++d;
  }
  return d;
}

/// a's coefficients, now modulo t (a multiple of a's modulus).
Poly widen(const Poly& a, u64 t) {
  Poly out(t);
  for (slong j = 0; j <= a.degree(); ++j) nmod_poly_set_coeff_ui(out.get(), j, a.coeff(j));
  return out;
}

/// a's coefficients reduced modulo p (a divisor of a's modulus).
Poly narrow(const Poly& a, u64 p) {
  Poly out(p);
  for (slong j = 0; j <= a.degree(); ++j) nmod_poly_set_coeff_ui(out.get(), j, a.coeff(j) % p);
  return out;
}

/// Products modulo a monic G over Z_t: E = Z_t[Y]/G, a field for t prime, the Galois ring
/// GR(p^r, d) for t = p^r (FLINT's product with G's precomputed inverse series; no division
/// other than by G's unit leading coefficient, so any t serves).
class RingModulus {
 public:
  explicit RingModulus(const Poly& g) : g_(g), g_inv_(g.get()->mod.n) {
    nmod_poly_reverse(g_inv_.get(), g_.get(), g_.degree() + 1);
    nmod_poly_inv_series(g_inv_.get(), g_inv_.get(), g_.degree() + 1);
  }
  [[nodiscard]] const Poly& modulus() const { return g_; }
  /// out = a·b mod G (a, b reduced).
  void mul(Poly& out, const Poly& a, const Poly& b) const {
    nmod_poly_mulmod_preinv(out.get(), a.get(), b.get(), g_.get(), g_inv_.get());
  }
  /// out = a^e mod G (a reduced).
  void pow(Poly& out, const Poly& a, u64 e) const {
    nmod_poly_powmod_ui_binexp_preinv(out.get(), a.get(), e, g_.get(), g_inv_.get());
  }
  /// out = f(x) mod G (x reduced; f any length).
  void compose(Poly& out, const Poly& f, const Poly& x) const {
    nmod_poly_compose_mod(out.get(), f.get(), x.get(), g_.get());
  }
  /// a mod G.
  [[nodiscard]] Poly reduce(const Poly& a) const {
    Poly out(g_.get()->mod.n);
    nmod_poly_rem(out.get(), a.get(), g_.get());
    return out;
  }

 private:
  Poly g_;
  Poly g_inv_;
};

/// u with a·u ≡ 1 mod (f, t = p^r), from u0 with a·u0 ≡ 1 mod (f, p): Newton's iteration
/// u ← u·(2 − a·u), each step doubling the power of p that divides a·u − 1 (f monic, a reduced
/// mod f).
Poly lift_inverse(const Poly& a, const Poly& u0, const Poly& f, unsigned r) {
  const u64 t = a.get()->mod.n;
  const RingModulus ring(f);
  Poly u = widen(u0, t), au(t), two(t);
  for (unsigned precision = 1; precision < r; precision *= 2) {
    ring.mul(au, a, u);
    nmod_poly_set_coeff_ui(two.get(), 0, 2);
    nmod_poly_sub(au.get(), two.get(), au.get());
    ring.mul(u, u, au);
  }
  return u;
}

/// The monic factors of Φ_m over Z_t, t = p^r, that reduce to `local` modulo p (Φ_m mod p is
/// squarefree for p ∤ m, so they exist and are unique: Hensel's lemma), in local's order. FLINT's
/// multifactor Hensel lifting; its factors come back in the order of its tree, so each is matched
/// to its local factor by its reduction mod p.
std::vector<Poly> hensel_lift(std::size_t m, const std::vector<Poly>& local, u64 p, unsigned r,
                              u64 t) {
  const auto phi = cyclotomic_polynomial(m);
  if (local.size() == 1) {
    Poly f(t);
    for (std::size_t j = 0; j < phi.size(); ++j) {
      const u64 mag = static_cast<u64>(phi[j] < 0 ? -phi[j] : phi[j]) % t;
      nmod_poly_set_coeff_ui(f.get(), static_cast<slong>(j), phi[j] < 0 ? (t - mag) % t : mag);
    }
    return {f};
  }
  std::map<std::vector<u64>, std::size_t> index;
  for (std::size_t i = 0; i < local.size(); ++i) {
    std::vector<u64> key(static_cast<std::size_t>(local[i].degree()) + 1);
    for (std::size_t j = 0; j < key.size(); ++j) key[j] = local[i].coeff(static_cast<slong>(j));
    index.emplace(std::move(key), i);
  }
  fmpz_poly_t f;
  fmpz_poly_init(f);
  for (std::size_t j = 0; j < phi.size(); ++j) {
    fmpz_poly_set_coeff_si(f, static_cast<slong>(j), static_cast<slong>(phi[j]));
  }
  nmod_poly_factor_t factors;
  nmod_poly_factor_init(factors);
  for (const Poly& g : local) nmod_poly_factor_insert(factors, g.get(), 1);
  fmpz_poly_factor_t lifted;
  fmpz_poly_factor_init(lifted);
  fmpz_poly_hensel_lift_once(lifted, f, factors, static_cast<slong>(r));
  std::vector<Poly> out(local.size(), Poly(t));
  std::vector<char> found(local.size(), 0);
  bool ok = lifted->num == static_cast<slong>(local.size());
  for (slong i = 0; ok && i < lifted->num; ++i) {
    const fmpz_poly_struct* g = lifted->p + i;
    const slong len = fmpz_poly_length(g);
    std::vector<u64> key(static_cast<std::size_t>(len));
    Poly lifted_g(t);
    for (slong j = 0; j < len; ++j) {
      const u64 c = fmpz_fdiv_ui(g->coeffs + j, t);
      nmod_poly_set_coeff_ui(lifted_g.get(), j, c);
      key[static_cast<std::size_t>(j)] = c % p;
    }
    const auto it = index.find(key);
    ok = it != index.end() && found[it->second] == 0 && lifted_g.coeff(len - 1) == 1;
    if (ok) {
      found[it->second] = 1;
      out[it->second] = lifted_g;
    }
  }
  fmpz_poly_factor_clear(lifted);
  nmod_poly_factor_clear(factors);
  fmpz_poly_clear(f);
  if (!ok) {
    throw Error(
        "SlotEncoder: Hensel lifting did not return the factors of Phi_m mod p lifted "
        "(internal error)");
  }
  return out;
}

}  // namespace

/// a mod each leaf of a product tree (tree[0] the leaves, tree.back() the root), by the remainder
/// tree: a is reduced mod the root, then each node's residue mod its children.
std::vector<Poly> remainders(const std::vector<std::vector<Poly>>& tree, const Poly& a) {
  const u64 t = a.get()->mod.n;
  std::vector<Poly> level(1, Poly(t));
  nmod_poly_rem(level[0].get(), a.get(), tree.back().front().get());
  for (std::size_t l = tree.size() - 1; l-- > 0;) {
    const auto& nodes = tree[l];
    std::vector<Poly> down;
    down.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Poly& parent = level[i / 2];
      if (nodes.size() % 2 == 1 && i + 1 == nodes.size()) {
        down.push_back(parent);  // carried up unchanged
        continue;
      }
      Poly r(t);
      nmod_poly_rem(r.get(), parent.get(), nodes[i].get());
      down.push_back(std::move(r));
    }
    level = std::move(down);
  }
  return level;
}

struct SlotEncoder::Impl {
  Impl(const Poly& g, u64 t) : ring(g) { nmod_init(&mod, t); }

  RingModulus ring;               // E = Z_t[Y]/G
  std::vector<Poly> roots;        // β_i = ζ^(h_i) ∈ E
  std::vector<Poly> frobenius_y;  // σ^e(Y) ∈ E for e < d: σ^e(v(Y)) = v(σ^e(Y))
  // The product tree over the factors in slot order: level 0 the leaves F_i, the last level the
  // root M = Φ_m mod t; tree[l][i] the product of its two children at level l − 1 (an odd one out
  // is carried up unchanged).
  std::vector<std::vector<Poly>> tree;
  // Per slot, the CRT weight s_i = (M/F_i)^−1 mod F_i: a = Σ_i (r_i·s_i mod F_i)·M/F_i. Kept above
  // kPowerTableDegree only (below, gamma_powers holds it).
  std::vector<Poly> weight;
  // Per slot, γ_i ∈ Z_t[X]/F_i with γ_i(β_i) = Y: the slot value v(Y) ∈ E is the residue
  // v(γ_i) mod F_i (the inverse of Z_t[X]/F_i → E, X ↦ β_i). Kept above kPowerTableDegree only.
  std::vector<Poly> gamma;
  // For d ≤ kPowerTableDegree, per slot the d×d table of γ_i^c·s_i mod F_i (row r, column c: the
  // coefficient of X^r), so that a slot's weighted residue is one matrix-vector product, not a
  // composition and a product.
  std::vector<u64> gamma_powers;
  nmod_t mod{};  // modulo t
};

std::shared_ptr<const SlotEncoder> SlotEncoder::create(std::size_t m, u64 t) {
  if (m % 2 == 0 || m < 3 || m > RingContext::kMaxM) {
    throw InvalidParameter("SlotEncoder: m = " + std::to_string(m) + " must be odd in [3, " +
                           std::to_string(RingContext::kMaxM) + "]");
  }
  const u64 p = t < (u64{1} << 62) ? prime_power(t).first : 0;
  if (p == 0) {
    throw InvalidParameter("SlotEncoder: t = " + std::to_string(t) +
                           " must be a prime or a prime power p^r below 2^62 (the slots of "
                           "Z_t[X]/Phi_m are fields or Galois rings only then)");
  }
  if (std::gcd(p, static_cast<u64>(m)) != 1) {
    throw InvalidParameter("SlotEncoder: t = " + std::to_string(t) +
                           " and m = " + std::to_string(m) + " share the prime " +
                           std::to_string(p) + "; t must be coprime to m");
  }
  const std::size_t d = order_mod(p, m);
  if (d > kMaxSlotDegree) {
    throw InvalidParameter(
        "SlotEncoder: p = " + std::to_string(p) + " has order d = " + std::to_string(d) +
        " mod m = " + std::to_string(m) + ": slots of degree d are served up to d = " +
        std::to_string(kMaxSlotDegree) + "; choose t = p^r with p of a smaller order");
  }
  return std::shared_ptr<const SlotEncoder>(new SlotEncoder(m, t));
}

SlotEncoder::~SlotEncoder() = default;

SlotEncoder::SlotEncoder(std::size_t m, u64 t) : m_(m), t_(t), phi_(euler_phi(m)) {
  std::tie(p_, r_) = prime_power(t);
  const u64 p = p_;
  d_ = order_mod(p, m);
  k_ = phi_ / d_;

  // The hypercube of Z_m^*/<p>: greedily the element of largest order n modulo the subgroup
  // built so far (smallest on ties); each step multiplies the subgroup by n. Of that element's
  // lifts g·s (s in the subgroup, all of the same order n there) the smallest with g^n ≡ 1 mod m
  // is taken: a good dimension, where σ_g rotates the slots along it with no Frobenius and
  // nothing else moving. Where no lift is good, the smallest with g^n ∈ <p> (a bad dimension as
  // HElib has them: the slots that wrap come back twisted by σ^f), else the element itself.
  std::vector<char> in_sub(m_, 0), in_frobenius(m_, 0);
  std::vector<std::size_t> sub;
  for (std::size_t e = 0, x = 1; e < d_; ++e, x = x * (p % m_) % m_) {
    in_sub[x] = 1;
    in_frobenius[x] = 1;
    sub.push_back(x);
  }
  const auto power_of = [&](std::size_t g, std::size_t n) {
    std::size_t x = 1;
    for (std::size_t e = 0; e < n; ++e) x = x * g % m_;
    return x;
  };
  while (sub.size() < phi_) {
    std::size_t best = 0, best_order = 0;
    for (std::size_t g = 2; g < m_; ++g) {
      if (in_sub[g] || std::gcd(g, m_) != 1) continue;
      std::size_t order = 1;
      for (std::size_t x = g; !in_sub[x]; x = x * g % m_) ++order;
      if (order > best_order) {
        best_order = order;
        best = g;
      }
    }
    std::size_t good = m_, twisted = m_;
    for (const std::size_t s : sub) {
      const std::size_t lift = best * s % m_;
      const std::size_t wrap = power_of(lift, best_order);
      if (wrap == 1) good = std::min(good, lift);
      if (in_frobenius[wrap] != 0) twisted = std::min(twisted, lift);
    }
    best = good < m_ ? good : (twisted < m_ ? twisted : best);
    generators_.push_back(best);
    orders_.push_back(best_order);
    wrap_frobenius_.push_back(0);
    if (good == m_) {
      const std::size_t wrap = power_of(best, best_order);
      std::size_t f = 0;
      for (std::size_t x = 1; x != wrap && f < d_; x = x * (p % m_) % m_) ++f;
      wrap_frobenius_.back() = f < d_ ? f : kNotFrobenius;
    }
    const std::vector<std::size_t> base = sub;
    for (std::size_t e = 1, ge = best; e < best_order; ++e, ge = ge * best % m_) {
      for (const std::size_t s : base) {
        const std::size_t x = s * ge % m_;
        in_sub[x] = 1;
        sub.push_back(x);
      }
    }
  }
  reps_.assign(1, 1);
  for (std::size_t r = 0; r < generators_.size(); ++r) {
    std::vector<std::size_t> next;
    next.reserve(reps_.size() * orders_[r]);
    for (const std::size_t h : reps_) {
      for (std::size_t e = 0, x = h; e < orders_[r]; ++e, x = x * generators_[r] % m_) {
        next.push_back(x);
      }
    }
    reps_ = std::move(next);
  }
  coset_.assign(m_, 0);
  coset_power_.assign(m_, 0);
  for (std::size_t j = 0; j < k_; ++j) {
    for (std::size_t e = 0, x = reps_[j]; e < d_; ++e, x = x * (p % m_) % m_) {
      coset_[x] = static_cast<std::uint32_t>(j);
      coset_power_[x] = static_cast<std::uint32_t>(e);
    }
  }

  // G mod p: the first irreducible monic G of degree d among candidates c = 1, 2, 3, …
  // (irreducibles have density about 1/d). Up to d = kPowerTableDegree candidate c's lower
  // coefficients are c's base-p digits (sparse: Y^d + Y + 2, …); above, they are d words of
  // SplitMix64 from seed c, each reduced mod p: dense candidates, since the sparse ones can miss
  // for thousands of c (Y^d + c is reducible for every c when a prime factor of d does not divide
  // p − 1) and reach the rare irreducibles more slowly. The same G, read over Z_t, defines E.
  Poly g(p);
  for (u64 c = 1;; ++c) {
    nmod_poly_zero(g.get());
    nmod_poly_set_coeff_ui(g.get(), static_cast<slong>(d_), 1);
    u64 digits = c, state = c;
    for (std::size_t j = 0; j < d_; ++j) {
      if (d_ <= kPowerTableDegree) {
        nmod_poly_set_coeff_ui(g.get(), static_cast<slong>(j), digits % p);
        digits /= p;
      } else {
        nmod_poly_set_coeff_ui(g.get(), static_cast<slong>(j), splitmix64(state) % p);
      }
    }
    if (irreducible_ben_or(g)) break;
  }
  for (slong j = 0; j <= g.degree(); ++j) field_modulus_.push_back(g.coeff(j));
  const Field field(g);
  const fq_nmod_ctx_struct* ctx = field.get();

  // In GF(p^d): ζ = (Y + c)^((p^d − 1)/m) of order exactly m, for the first c that gives one.
  fmpz_t exponent;
  fmpz_init(exponent);
  fmpz_set_ui(exponent, p);
  fmpz_pow_ui(exponent, exponent, d_);
  fmpz_sub_ui(exponent, exponent, 1);
  fmpz_divexact_ui(exponent, exponent, m_);
  Elem zeta(ctx), base(ctx), probe(ctx);
  const auto m_primes = prime_factors(m_);
  for (u64 c = 0;; ++c) {
    fq_nmod_gen(base.get(), ctx);
    if (d_ == 1) fq_nmod_zero(base.get(), ctx);
    Elem shift(ctx);
    fq_nmod_set_ui(shift.get(), c % p, ctx);
    fq_nmod_add(base.get(), base.get(), shift.get(), ctx);
    if (fq_nmod_is_zero(base.get(), ctx) != 0) continue;
    fq_nmod_pow(zeta.get(), base.get(), exponent, ctx);
    bool primitive = true;
    for (const u64 q : m_primes) {
      fq_nmod_pow_ui(probe.get(), zeta.get(), m_ / q, ctx);
      if (fq_nmod_is_one(probe.get(), ctx) != 0) primitive = false;
    }
    if (primitive) break;
  }
  fmpz_clear(exponent);

  // Per slot, β_i = ζ^(h_i) and its minimal polynomial F_i = Π_(e<d) (X − β_i^(t^e)), found as
  // the minimal polynomial of the power sums s_j = Tr(β_i^j) = Σ_e (β_i^(t^e))^j (Berlekamp–
  // Massey on 2d of them): the d conjugates are distinct and each has weight 1 in s, so the
  // sequence's minimal polynomial is F_i itself, in every characteristic. Tr(ζ^n) depends on n mod
  // m only and is Σ_j c_j·Tr(Y^j) over ζ^n's coordinates c_j: a table of m traces, one product in
  // GF(p^d) each. O(m·M(d) + φ(m)·d) in all, where the product of the d conjugates is
  // O(φ(m)·d·M(d)). These are the factors mod p; for t = p^r they are lifted below.
  nmod_t mod{};
  nmod_init(&mod, p);
  std::vector<u64> trace_y(d_);
  {
    Elem yj(ctx);
    fmpz_t tr;
    fmpz_init(tr);
    fq_nmod_one(yj.get(), ctx);
    Elem gen(ctx);
    fq_nmod_gen(gen.get(), ctx);
    for (std::size_t j = 0; j < d_; ++j) {
      fq_nmod_trace(tr, yj.get(), ctx);
      trace_y[j] = fmpz_get_ui(tr);
      fq_nmod_mul(yj.get(), yj.get(), gen.get(), ctx);
    }
    fmpz_clear(tr);
  }
  // Tr(ζ^n) for n < m: the first 2d as traces of ζ^n in E, which give ζ's minimal polynomial
  // F = Y^d + Σ f_j·Y^j (Berlekamp–Massey); the power sums of its roots then follow the recurrence
  // s_(n+d) = −Σ_j f_j·s_(n+j), d products each instead of a product in E.
  const std::size_t known = std::min(m_, 2 * d_);
  std::vector<u64> trace_zeta(m_);
  {
    Elem power(ctx);
    fq_nmod_one(power.get(), ctx);
    std::vector<u64> coords(d_);
    const int limbs = _nmod_vec_dot_bound_limbs(static_cast<slong>(d_), mod);
    for (std::size_t n = 0; n < known; ++n) {
      const auto* pw = reinterpret_cast<const nmod_poly_struct*>(power.get());
      std::fill(coords.begin(), coords.end(), u64{0});
      for (slong j = 0; j < pw->length; ++j) coords[static_cast<std::size_t>(j)] = pw->coeffs[j];
      trace_zeta[n] =
          _nmod_vec_dot(coords.data(), trace_y.data(), static_cast<slong>(d_), mod, limbs);
      fq_nmod_mul(power.get(), power.get(), zeta.get(), ctx);
    }
  }
  nmod_berlekamp_massey_t bm;
  nmod_berlekamp_massey_init(bm, p);
  if (known < m_) {
    nmod_berlekamp_massey_add_points(bm, trace_zeta.data(), static_cast<slong>(known));
    nmod_berlekamp_massey_reduce(bm);
    Poly f(p);
    nmod_poly_make_monic(f.get(), nmod_berlekamp_massey_V_poly(bm));
    if (f.degree() != static_cast<slong>(d_)) {
      nmod_berlekamp_massey_clear(bm);
      throw Error("SlotEncoder: the minimal polynomial of zeta has degree " +
                  std::to_string(f.degree()) + ", not d (internal error)");
    }
    std::vector<u64> minus_f(d_);  // −f_j
    for (std::size_t j = 0; j < d_; ++j) {
      minus_f[j] = nmod_neg(f.coeff(static_cast<slong>(j)), mod);
    }
    const int limbs = _nmod_vec_dot_bound_limbs(static_cast<slong>(d_), mod);
    for (std::size_t n = known; n < m_; ++n) {
      trace_zeta[n] = _nmod_vec_dot(trace_zeta.data() + (n - d_), minus_f.data(),
                                    static_cast<slong>(d_), mod, limbs);
    }
  }
  std::vector<Poly> local;  // F_i mod p
  local.reserve(k_);
  std::vector<u64> sums(2 * d_);
  for (std::size_t i = 0; i < k_; ++i) {
    for (std::size_t j = 0; j < 2 * d_; ++j) sums[j] = trace_zeta[reps_[i] * j % m_];
    nmod_berlekamp_massey_start_over(bm);
    nmod_berlekamp_massey_add_points(bm, sums.data(), static_cast<slong>(sums.size()));
    nmod_berlekamp_massey_reduce(bm);
    Poly f(p);
    nmod_poly_make_monic(f.get(), nmod_berlekamp_massey_V_poly(bm));
    if (f.degree() != static_cast<slong>(d_)) {
      nmod_berlekamp_massey_clear(bm);
      throw Error("SlotEncoder: the minimal polynomial of zeta^" + std::to_string(reps_[i]) +
                  " has degree " + std::to_string(f.degree()) + ", not d (internal error)");
    }
    local.push_back(std::move(f));
  }
  nmod_berlekamp_massey_clear(bm);

  // Over Z_t, t = p^r: E = Z_t[Y]/G is the Galois ring GR(p^r, d) (G stays irreducible mod p),
  // and everything found mod p lifts uniquely (for r = 1 each lift below is the identity).
  // ζ: Newton's iteration on Y^m − 1, whose roots are simple mod p (p ∤ m): with ζ^m = 1 + ε,
  // ζ ← ζ − ζ·ε/m leaves ζ^m = 1 + O(ε^2). The Frobenius σ of E (y ↦ y^p mod p) takes the lifted
  // ζ to ζ^p, the only m-th root of unity over ζ_p^p; the factors F_i = Π_e (X − σ^e(β_i)) are
  // the Hensel lifts of the factors mod p.
  impl_ = std::make_unique<Impl>(widen(g, t), t);
  Impl& im = *impl_;
  const RingModulus& ring = im.ring;
  Poly zeta_t(t);
  {
    const auto* zp = reinterpret_cast<const nmod_poly_struct*>(zeta.get());
    for (slong j = 0; j < zp->length; ++j) nmod_poly_set_coeff_ui(zeta_t.get(), j, zp->coeffs[j]);
  }
  const u64 m_inverse = inverse_mod(m_ % t, t);
  Poly power_m(t), step(t);
  for (unsigned precision = 1; precision < r_; precision *= 2) {
    ring.pow(power_m, zeta_t, m_);
    nmod_poly_set_coeff_ui(power_m.get(), 0, nmod_sub(power_m.coeff(0), 1, im.mod));
    ring.mul(step, zeta_t, power_m);
    nmod_poly_scalar_mul_nmod(step.get(), step.get(), m_inverse);
    nmod_poly_sub(zeta_t.get(), zeta_t.get(), step.get());
  }
  ring.pow(power_m, zeta_t, m_);
  if (!nmod_poly_is_one(power_m.get())) {
    throw Error("SlotEncoder: the lifted zeta is not an m-th root of unity (internal error)");
  }
  for (std::size_t j = 0; j < d_; ++j) zeta_.push_back(zeta_t.coeff(static_cast<slong>(j)));
  std::vector<Poly> leaves = r_ > 1 ? hensel_lift(m_, local, p, r_, t) : local;

  // The product tree over the factors; its root must be M = Φ_m mod t. Each factor's CRT weight
  // s_i = (M/F_i)^−1 mod F_i: M/F_i ≡ M'/F_i' mod F_i (the product rule; F_i is separable mod p),
  // so s_i = F_i'·(M' mod F_i)^−1 mod F_i, the residues of M' by the remainder tree and their
  // inverses mod p lifted by Newton's iteration. Encoding then combines weighted residues up the
  // tree with two products a node and no division: a = a_L·M_R + a_R·M_L.
  im.tree.push_back(std::move(leaves));
  while (im.tree.back().size() > 1) {
    const auto& below = im.tree.back();
    std::vector<Poly> level;
    for (std::size_t i = 0; i + 1 < below.size(); i += 2) {
      Poly prod(t);
      nmod_poly_mul(prod.get(), below[i].get(), below[i + 1].get());
      level.push_back(std::move(prod));
    }
    if (below.size() % 2 == 1) level.push_back(below.back());
    im.tree.push_back(std::move(level));
  }
  {
    const auto phi_int = cyclotomic_polynomial(m_);
    const Poly& root = im.tree.back().front();
    for (std::size_t j = 0; j < phi_int.size(); ++j) {
      const auto c = phi_int[j];
      const u64 mag = static_cast<u64>(c < 0 ? -c : c) % t;
      const u64 want = c < 0 ? (t - mag) % t : mag;
      if (root.coeff(static_cast<slong>(j)) != want || root.degree() != static_cast<slong>(phi_)) {
        throw Error("SlotEncoder: the product of the factors is not Phi_m mod t (internal error)");
      }
    }
  }
  std::vector<Poly> weights;
  weights.reserve(k_);
  {
    Poly derivative(t);
    nmod_poly_derivative(derivative.get(), im.tree.back().front().get());
    const std::vector<Poly> residues = remainders(im.tree, derivative);
    Poly inverse_p(p), factor_derivative(t);
    for (std::size_t i = 0; i < k_; ++i) {
      const Poly& f = im.tree[0][i];
      if (nmod_poly_invmod(inverse_p.get(), narrow(residues[i], p).get(), narrow(f, p).get()) ==
          0) {
        throw Error("SlotEncoder: two factors of Phi_m mod p share a root (internal error)");
      }
      const Poly inverse = lift_inverse(residues[i], inverse_p, f, r_);
      nmod_poly_derivative(factor_derivative.get(), f.get());
      Poly s_i(t);
      nmod_poly_mulmod(s_i.get(), factor_derivative.get(), inverse.get(), f.get());
      weights.push_back(std::move(s_i));
    }
  }

  // Y as a polynomial in ζ, Y = P(ζ) (ζ generates E: its degree over Z_p is ord_m(p) = d): one
  // d×d system A·P = Y over Z_t, A's columns ζ^j. A^−1 from its inverse mod p by Newton's
  // iteration X ← X·(2 − A·X). Then γ_i = P(X^(u_i)) mod F_i with u_i = h_i^−1 mod m, since
  // X^(u_i) ↦ β_i^(u_i) = ζ.
  Poly y = ring.reduce([&] {
    Poly x(t);
    nmod_poly_set_coeff_ui(x.get(), 1, 1);
    return x;
  }());  // Y reduced mod G (for d = 1 the constant −G_0)
  Poly p_of_zeta(t);
  {
    const auto n = static_cast<slong>(d_);
    nmod_mat_t a, a_p, x, ax, next, rhs, sol;
    nmod_mat_init(a, n, n, t);
    nmod_mat_init(a_p, n, n, p);
    nmod_mat_init(x, n, n, t);
    nmod_mat_init(ax, n, n, t);
    nmod_mat_init(next, n, n, t);
    nmod_mat_init(rhs, n, 1, t);
    nmod_mat_init(sol, n, 1, t);
    Poly power(t);
    nmod_poly_one(power.get());
    for (slong j = 0; j < n; ++j) {  // column j: ζ^j in E's basis
      for (slong row = 0; row < n; ++row) {
        nmod_mat_entry(a, row, j) = power.coeff(row);
        nmod_mat_entry(a_p, row, j) = power.coeff(row) % p;
      }
      ring.mul(power, power, zeta_t);
    }
    for (slong row = 0; row < n; ++row) nmod_mat_entry(rhs, row, 0) = y.coeff(row);
    const int invertible = nmod_mat_inv(a_p, a_p);
    if (invertible != 0) {
      for (slong row = 0; row < n; ++row) {
        for (slong j = 0; j < n; ++j) nmod_mat_entry(x, row, j) = nmod_mat_entry(a_p, row, j);
      }
      for (unsigned precision = 1; precision < r_; precision *= 2) {
        nmod_mat_mul(ax, a, x);
        nmod_mat_neg(ax, ax);
        for (slong j = 0; j < n; ++j) {
          nmod_mat_entry(ax, j, j) = nmod_add(nmod_mat_entry(ax, j, j), 2, im.mod);
        }
        nmod_mat_mul(next, x, ax);
        nmod_mat_swap(x, next);
      }
      nmod_mat_mul(sol, x, rhs);
      for (slong j = 0; j < n; ++j) {
        nmod_poly_set_coeff_ui(p_of_zeta.get(), j, nmod_mat_entry(sol, j, 0));
      }
    }
    nmod_mat_clear(a);
    nmod_mat_clear(a_p);
    nmod_mat_clear(x);
    nmod_mat_clear(ax);
    nmod_mat_clear(next);
    nmod_mat_clear(rhs);
    nmod_mat_clear(sol);
    Poly check(t);
    ring.compose(check, p_of_zeta, zeta_t);
    if (invertible == 0 || !nmod_poly_equal(check.get(), y.get())) {
      throw Error("SlotEncoder: the powers of zeta are not a basis of E (internal error)");
    }
  }
  // σ(Y) = σ(P(ζ)) = P(ζ^p), and σ^e(Y) = σ(Y) composed with itself e times.
  {
    Poly zeta_p(t), sigma_y(t);
    ring.pow(zeta_p, zeta_t, p);
    ring.compose(sigma_y, p_of_zeta, zeta_p);
    im.frobenius_y.push_back(y);
    for (std::size_t e = 1; e < d_; ++e) {
      Poly next(t);
      ring.compose(next, sigma_y, im.frobenius_y.back());
      im.frobenius_y.push_back(std::move(next));
    }
  }
  im.roots.reserve(k_);
  if (d_ > kPowerTableDegree) im.gamma.reserve(k_);
  Poly x_poly(t), mu(t), gamma_i(t);
  nmod_poly_set_coeff_ui(x_poly.get(), 1, 1);
  for (std::size_t i = 0; i < k_; ++i) {
    Poly beta(t);
    ring.pow(beta, zeta_t, reps_[i]);
    const Poly& f = im.tree[0][i];
    const u64 u = inverse_mod(reps_[i], m_);
    nmod_poly_powmod_ui_binexp(mu.get(), x_poly.get(), u, f.get());
    nmod_poly_compose_mod(gamma_i.get(), p_of_zeta.get(), mu.get(), f.get());
    if (d_ > kPowerTableDegree) {
      im.gamma.push_back(gamma_i);
      im.weight.push_back(std::move(weights[i]));
    } else {
      if (i == 0) im.gamma_powers.resize(k_ * d_ * d_);
      u64* table = im.gamma_powers.data() + i * d_ * d_;
      Poly power = weights[i];  // γ_i^0·s_i
      for (std::size_t c = 0; c < d_; ++c) {
        for (std::size_t r = 0; r < d_; ++r) table[r * d_ + c] = power.coeff(static_cast<slong>(r));
        nmod_poly_mulmod(power.get(), power.get(), gamma_i.get(), f.get());
      }
    }
    im.roots.push_back(std::move(beta));
  }

  exponents_ = powerful_exponents(m_);
}

std::vector<u64> SlotEncoder::factor(std::size_t slot) const {
  if (slot >= k_) {
    throw InvalidParameter("SlotEncoder::factor: slot " + std::to_string(slot) + " of " +
                           std::to_string(k_));
  }
  const Poly& f = impl_->tree[0][slot];
  std::vector<u64> out(d_ + 1);
  for (std::size_t j = 0; j <= d_; ++j) out[j] = f.coeff(static_cast<slong>(j));
  return out;
}

namespace {

void check_values(std::span<const u64> v, std::size_t want, u64 t, const char* what) {
  if (v.size() != want) {
    throw InvalidParameter(std::string("SlotEncoder::") + what + ": " + std::to_string(v.size()) +
                           " values given; " + std::to_string(want) + " expected");
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] >= t) {
      throw InvalidParameter(std::string("SlotEncoder::") + what + ": value " + std::to_string(i) +
                             " = " + std::to_string(v[i]) +
                             " is not below t = " + std::to_string(t));
    }
  }
}

}  // namespace

std::vector<u64> SlotEncoder::encode(std::span<const u64> slots) const {
  check_values(slots, k_ * d_, t_, "encode");
  const Impl& im = *impl_;
  // Leaves: r_i·s_i mod F_i, where r_i = v_i(γ_i) mod F_i is the polynomial of degree < d with
  // r_i(β_i) = v_i and s_i its CRT weight.
  std::vector<Poly> level;
  level.reserve(k_);
  Poly v(t_);
  const int limbs = _nmod_vec_dot_bound_limbs(static_cast<slong>(d_), im.mod);
  for (std::size_t i = 0; i < k_; ++i) {
    Poly r(t_);
    const std::span<const u64> vi = slots.subspan(i * d_, d_);
    if (!im.gamma_powers.empty()) {
      const u64* table = im.gamma_powers.data() + i * d_ * d_;
      for (std::size_t row = 0; row < d_; ++row) {
        nmod_poly_set_coeff_ui(
            r.get(), static_cast<slong>(row),
            _nmod_vec_dot(table + row * d_, vi.data(), static_cast<slong>(d_), im.mod, limbs));
      }
    } else {
      nmod_poly_zero(v.get());
      for (std::size_t c = 0; c < d_; ++c) {
        nmod_poly_set_coeff_ui(v.get(), static_cast<slong>(c), vi[c]);
      }
      nmod_poly_compose_mod(r.get(), v.get(), im.gamma[i].get(), im.tree[0][i].get());
      nmod_poly_mulmod(r.get(), r.get(), im.weight[i].get(), im.tree[0][i].get());
    }
    level.push_back(std::move(r));
  }
  // Up the tree: a node's value is Σ over its leaves of (r_j·s_j mod F_j)·P/F_j for its product
  // P, so a = a_L·P_R + a_R·P_L; the root's is the plaintext (degree < φ(m)).
  Poly tmp(t_);
  for (std::size_t l = 0; l + 1 < im.tree.size(); ++l) {
    std::vector<Poly> up;
    up.reserve((level.size() + 1) / 2);
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
      Poly a(t_);
      nmod_poly_mul(a.get(), level[i].get(), im.tree[l][i + 1].get());
      nmod_poly_mul(tmp.get(), level[i + 1].get(), im.tree[l][i].get());
      nmod_poly_add(a.get(), a.get(), tmp.get());
      up.push_back(std::move(a));
    }
    if (level.size() % 2 == 1) up.push_back(level.back());
    level = std::move(up);
  }
  std::vector<u64> power(phi_);
  for (std::size_t j = 0; j < phi_; ++j) power[j] = level.front().coeff(static_cast<slong>(j));
  return power_to_powerful(m_, power, t_);
}

std::vector<u64> SlotEncoder::decode(std::span<const u64> coordinates) const {
  check_values(coordinates, phi_, t_, "decode");
  const Impl& im = *impl_;
  // Σ_j a_j·X^(e_j) has degree < m and the same residues mod every F_i | Φ_m | X^m − 1.
  Poly a(t_);
  for (std::size_t j = 0; j < phi_; ++j) {
    nmod_poly_set_coeff_ui(a.get(), static_cast<slong>(exponents_[j]), coordinates[j]);
  }
  const std::vector<Poly> level = remainders(im.tree, a);
  // Slot i = r_i(β_i) in E.
  std::vector<u64> out(k_ * d_);
  Poly value(t_);
  for (std::size_t i = 0; i < k_; ++i) {
    im.ring.compose(value, level[i], im.roots[i]);
    for (std::size_t c = 0; c < d_; ++c) out[i * d_ + c] = value.coeff(static_cast<slong>(c));
  }
  return out;
}

std::vector<SlotEncoder::SlotMove> SlotEncoder::automorphism_action(u64 g) const {
  if (std::gcd(g % m_, static_cast<u64>(m_)) != 1) {
    throw InvalidParameter("SlotEncoder::automorphism_action: g = " + std::to_string(g) +
                           " is not a unit mod m = " + std::to_string(m_));
  }
  std::vector<SlotMove> out(k_);
  for (std::size_t i = 0; i < k_; ++i) {
    const std::size_t x = static_cast<std::size_t>(g % m_) * reps_[i] % m_;
    out[i] = {coset_[x], coset_power_[x]};
  }
  return out;
}

namespace {

Poly element(std::span<const u64> value, u64 t) {
  Poly out(t);
  for (std::size_t c = 0; c < value.size(); ++c) {
    nmod_poly_set_coeff_ui(out.get(), static_cast<slong>(c), value[c]);
  }
  return out;
}

std::vector<u64> coefficients(const Poly& a, std::size_t d) {
  std::vector<u64> out(d);
  for (std::size_t c = 0; c < d; ++c) out[c] = a.coeff(static_cast<slong>(c));
  return out;
}

}  // namespace

std::vector<u64> SlotEncoder::frobenius(std::span<const u64> value, std::size_t e) const {
  check_values(value, d_, t_, "frobenius");
  Poly out(t_);
  // d_ = ord_m(p) ≥ 1; the max only tells the analyser so.
  impl_->ring.compose(out, element(value, t_),
                      impl_->frobenius_y[e % std::max<std::size_t>(d_, 1)]);
  return coefficients(out, d_);
}

std::vector<u64> SlotEncoder::multiply(std::span<const u64> x, std::span<const u64> y) const {
  check_values(x, d_, t_, "multiply");
  check_values(y, d_, t_, "multiply");
  Poly out(t_);
  impl_->ring.mul(out, element(x, t_), element(y, t_));
  return coefficients(out, d_);
}

}  // namespace polyhe::bgv
