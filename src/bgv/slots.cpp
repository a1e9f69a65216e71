// SlotEncoder (bgv/slots.hpp): the field E = GF(t^d), the hypercube of Z_m^*/<t>, the factors of
// Φ_m mod t as minimal polynomials of ζ^h, and the CRT/remainder trees over them, on FLINT.
#include "polyhe/bgv/slots.hpp"

#include <flint/fmpz.h>
#include <flint/fq_nmod.h>
#include <flint/nmod_mat.h>
#include <flint/nmod_poly.h>
#include <flint/nmod_poly_factor.h>

#include <algorithm>
#include <numeric>
#include <string>

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

}  // namespace

struct SlotEncoder::Impl {
  explicit Impl(u64 modulus) : t(modulus) {}
  ~Impl() {
    if (ctx_ready) fq_nmod_ctx_clear(ctx);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  u64 t;
  fq_nmod_ctx_t ctx;
  bool ctx_ready = false;
  std::vector<Elem> roots;  // ζ^(h_i)
  // The product tree over the factors in slot order: level 0 the leaves F_i, the last level the
  // root (Φ_m mod t); tree[l][i] the product of its two children at level l − 1 (an odd one out
  // is carried up unchanged). crt_inverse[l][i]: left^−1 mod right for each combined pair.
  std::vector<std::vector<Poly>> tree;
  std::vector<std::vector<Poly>> crt_inverse;
  std::vector<u64> encode_matrix;  // per slot, the d×d inverse of β ↦ coefficients, row-major
};

std::shared_ptr<const SlotEncoder> SlotEncoder::create(std::size_t m, u64 t) {
  if (m % 2 == 0 || m < 3 || m > RingContext::kMaxM) {
    throw InvalidParameter("SlotEncoder: m = " + std::to_string(m) + " must be odd in [3, " +
                           std::to_string(RingContext::kMaxM) + "]");
  }
  if (t < 2 || t >= (u64{1} << 62) || !is_prime(t)) {
    throw InvalidParameter("SlotEncoder: t = " + std::to_string(t) +
                           " must be a prime below 2^62 (slots of Z_t[X]/Phi_m need a field)");
  }
  if (std::gcd(t, static_cast<u64>(m)) != 1) {
    throw InvalidParameter("SlotEncoder: t = " + std::to_string(t) +
                           " divides m = " + std::to_string(m) + "; t must be coprime to m");
  }
  const std::size_t d = order_mod(t, m);
  if (d > kMaxSlotDegree) {
    throw InvalidParameter("SlotEncoder: t = " + std::to_string(t) +
                           " has order d = " + std::to_string(d) + " mod m = " + std::to_string(m) +
                           ": slots of GF(t^d) are served up to d = " +
                           std::to_string(kMaxSlotDegree) + "; choose t with a smaller order");
  }
  return std::shared_ptr<const SlotEncoder>(new SlotEncoder(m, t));
}

SlotEncoder::~SlotEncoder() = default;

SlotEncoder::SlotEncoder(std::size_t m, u64 t)
    : m_(m), t_(t), phi_(euler_phi(m)), d_(order_mod(t, m)), impl_(std::make_unique<Impl>(t)) {
  k_ = phi_ / d_;
  Impl& im = *impl_;

  // The hypercube of Z_m^*/<t>: greedily the element of largest order n modulo the subgroup
  // built so far (smallest on ties); each step multiplies the subgroup by n. Of that element's
  // lifts g·s (s in the subgroup, all of the same order n there) the smallest with g^n ≡ 1 mod m
  // is taken: a good dimension, where σ_g rotates the slots along it with no Frobenius and
  // nothing else moving. Where no lift is good, the smallest with g^n ∈ <t> (a bad dimension as
  // HElib has them: the slots that wrap come back twisted by Frob^f), else the element itself.
  std::vector<char> in_sub(m_, 0), in_frobenius(m_, 0);
  std::vector<std::size_t> sub;
  for (std::size_t e = 0, x = 1; e < d_; ++e, x = x * (t % m_) % m_) {
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
      for (std::size_t x = 1; x != wrap && f < d_; x = x * (t % m_) % m_) ++f;
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
    for (std::size_t e = 0, x = reps_[j]; e < d_; ++e, x = x * (t % m_) % m_) {
      coset_[x] = static_cast<std::uint32_t>(j);
      coset_power_[x] = static_cast<std::uint32_t>(e);
    }
  }

  // E = Z_t[Y]/G: the first irreducible monic G of degree d whose lower coefficients are the
  // base-t digits of 1, 2, 3, … (irreducibles have density about 1/d: a short search).
  Poly g(t);
  for (u64 c = 1;; ++c) {
    nmod_poly_zero(g.get());
    nmod_poly_set_coeff_ui(g.get(), static_cast<slong>(d_), 1);
    u64 digits = c;
    for (std::size_t j = 0; j < d_; ++j) {
      nmod_poly_set_coeff_ui(g.get(), static_cast<slong>(j), digits % t);
      digits /= t;
    }
    if (nmod_poly_is_irreducible(g.get()) != 0) break;
  }
  for (slong j = 0; j <= g.degree(); ++j) field_modulus_.push_back(g.coeff(j));
  fq_nmod_ctx_init_modulus(im.ctx, g.get(), "Y");
  im.ctx_ready = true;
  const fq_nmod_ctx_struct* ctx = im.ctx;

  // ζ = (Y + c)^((t^d − 1)/m) of order exactly m, for the first c that gives one.
  fmpz_t exponent;
  fmpz_init(exponent);
  fmpz_set_ui(exponent, t);
  fmpz_pow_ui(exponent, exponent, d_);
  fmpz_sub_ui(exponent, exponent, 1);
  fmpz_divexact_ui(exponent, exponent, m_);
  Elem zeta(ctx), y(ctx), probe(ctx);
  const auto m_primes = prime_factors(m_);
  for (u64 c = 0;; ++c) {
    fq_nmod_gen(y.get(), ctx);
    if (d_ == 1) fq_nmod_zero(y.get(), ctx);
    Elem shift(ctx);
    fq_nmod_set_ui(shift.get(), c % t, ctx);
    fq_nmod_add(y.get(), y.get(), shift.get(), ctx);
    if (fq_nmod_is_zero(y.get(), ctx) != 0) continue;
    fq_nmod_pow(zeta.get(), y.get(), exponent, ctx);
    bool primitive = true;
    for (const u64 p : m_primes) {
      fq_nmod_pow_ui(probe.get(), zeta.get(), m_ / p, ctx);
      if (fq_nmod_is_one(probe.get(), ctx) != 0) primitive = false;
    }
    if (primitive) break;
  }
  fmpz_clear(exponent);
  for (std::size_t j = 0; j < d_; ++j) {
    zeta_.push_back(nmod_poly_get_coeff_ui(reinterpret_cast<const nmod_poly_struct*>(zeta.get()),
                                           static_cast<slong>(j)));
  }

  // Per slot: β = ζ^(h_i), its minimal polynomial Π_(e<d) (X − β^(t^e)), and the inverse of the
  // map (r_0, …, r_(d−1)) ↦ Σ r_j·β^j ∈ E.
  std::vector<Poly> leaves;
  leaves.reserve(k_);
  im.roots.reserve(k_);
  im.encode_matrix.resize(k_ * d_ * d_);
  nmod_mat_t mat, inv;
  nmod_mat_init(mat, static_cast<slong>(d_), static_cast<slong>(d_), t);
  nmod_mat_init(inv, static_cast<slong>(d_), static_cast<slong>(d_), t);
  for (std::size_t i = 0; i < k_; ++i) {
    Elem beta(ctx);
    fq_nmod_pow_ui(beta.get(), zeta.get(), reps_[i], ctx);
    // (X − β)(X − β^t)… with coefficients in E, lowest degree first.
    std::vector<Elem> coeffs(1, Elem(ctx));
    fq_nmod_one(coeffs[0].get(), ctx);
    Elem conj = beta, term(ctx);
    for (std::size_t e = 0; e < d_; ++e) {
      coeffs.emplace_back(ctx);
      for (std::size_t j = coeffs.size() - 1; j > 0; --j) {
        fq_nmod_mul(term.get(), coeffs[j].get(), conj.get(), ctx);
        fq_nmod_sub(coeffs[j].get(), coeffs[j - 1].get(), term.get(), ctx);
      }
      fq_nmod_mul(coeffs[0].get(), coeffs[0].get(), conj.get(), ctx);
      fq_nmod_neg(coeffs[0].get(), coeffs[0].get(), ctx);
      fq_nmod_frobenius(conj.get(), conj.get(), 1, ctx);
    }
    Poly f(t);
    for (std::size_t j = 0; j < coeffs.size(); ++j) {
      const auto* c = reinterpret_cast<const nmod_poly_struct*>(coeffs[j].get());
      if (nmod_poly_degree(c) > 0) {
        throw Error("SlotEncoder: the minimal polynomial of zeta^" + std::to_string(reps_[i]) +
                    " has a coefficient outside Z_t (internal error)");
      }
      nmod_poly_set_coeff_ui(f.get(), static_cast<slong>(j), nmod_poly_get_coeff_ui(c, 0));
    }
    leaves.push_back(f);
    // Column j of the matrix: β^j in E's basis.
    Elem power(ctx);
    fq_nmod_one(power.get(), ctx);
    for (std::size_t j = 0; j < d_; ++j) {
      const auto* pw = reinterpret_cast<const nmod_poly_struct*>(power.get());
      for (std::size_t row = 0; row < d_; ++row) {
        nmod_mat_entry(mat, static_cast<slong>(row), static_cast<slong>(j)) =
            nmod_poly_get_coeff_ui(pw, static_cast<slong>(row));
      }
      fq_nmod_mul(power.get(), power.get(), beta.get(), ctx);
    }
    if (nmod_mat_inv(inv, mat) == 0) {
      throw Error("SlotEncoder: the powers of zeta^" + std::to_string(reps_[i]) +
                  " are not a basis of GF(t^d) (internal error)");
    }
    for (std::size_t r = 0; r < d_; ++r) {
      for (std::size_t c = 0; c < d_; ++c) {
        im.encode_matrix[(i * d_ + r) * d_ + c] =
            nmod_mat_entry(inv, static_cast<slong>(r), static_cast<slong>(c));
      }
    }
    im.roots.push_back(beta);
  }
  nmod_mat_clear(mat);
  nmod_mat_clear(inv);

  // The product tree and the CRT inverses; its root must be Φ_m mod t.
  im.tree.push_back(std::move(leaves));
  while (im.tree.back().size() > 1) {
    const auto& below = im.tree.back();
    std::vector<Poly> level, inverses;
    for (std::size_t i = 0; i + 1 < below.size(); i += 2) {
      Poly prod(t), left_inv(t);
      nmod_poly_mul(prod.get(), below[i].get(), below[i + 1].get());
      if (nmod_poly_invmod(left_inv.get(), below[i].get(), below[i + 1].get()) == 0) {
        throw Error("SlotEncoder: two factors of Phi_m mod t share a root (internal error)");
      }
      level.push_back(prod);
      inverses.push_back(left_inv);
    }
    if (below.size() % 2 == 1) level.push_back(below.back());
    im.crt_inverse.push_back(std::move(inverses));
    im.tree.push_back(std::move(level));
  }
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
  // Leaves: r_i = M_i^−1·v_i, the polynomial of degree < d with r_i(β_i) = v_i.
  std::vector<Poly> level;
  level.reserve(k_);
  for (std::size_t i = 0; i < k_; ++i) {
    Poly r(t_);
    const u64* mat = im.encode_matrix.data() + i * d_ * d_;
    for (std::size_t row = 0; row < d_; ++row) {
      unsigned __int128 acc = 0;
      for (std::size_t c = 0; c < d_; ++c) {
        acc += static_cast<unsigned __int128>(mat[row * d_ + c]) * slots[i * d_ + c];
        acc %= t_;
      }
      nmod_poly_set_coeff_ui(r.get(), static_cast<slong>(row), static_cast<u64>(acc));
    }
    level.push_back(std::move(r));
  }
  // Up the tree: a = a_L + P_L·((a_R − a_L)·P_L^−1 mod P_R).
  Poly diff(t_), tmp(t_);
  for (std::size_t l = 0; l + 1 < im.tree.size(); ++l) {
    std::vector<Poly> up;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
      nmod_poly_sub(diff.get(), level[i + 1].get(), level[i].get());
      nmod_poly_mulmod(tmp.get(), diff.get(), im.crt_inverse[l][i / 2].get(),
                       im.tree[l][i + 1].get());
      nmod_poly_mul(diff.get(), tmp.get(), im.tree[l][i].get());
      nmod_poly_add(diff.get(), diff.get(), level[i].get());
      up.push_back(diff);
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
  std::vector<Poly> level(1, Poly(t_));
  nmod_poly_rem(level[0].get(), a.get(), im.tree.back().front().get());
  for (std::size_t l = im.tree.size() - 1; l-- > 0;) {
    const auto& nodes = im.tree[l];
    std::vector<Poly> down;
    down.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Poly& parent = level[i / 2];
      if (nodes.size() % 2 == 1 && i + 1 == nodes.size()) {
        down.push_back(parent);  // carried up unchanged
        continue;
      }
      Poly r(t_);
      nmod_poly_rem(r.get(), parent.get(), nodes[i].get());
      down.push_back(std::move(r));
    }
    level = std::move(down);
  }
  // Slot i = r_i(β_i) in E.
  std::vector<u64> out(k_ * d_);
  const fq_nmod_ctx_struct* ctx = im.ctx;
  Elem acc(ctx), coeff(ctx);
  for (std::size_t i = 0; i < k_; ++i) {
    fq_nmod_zero(acc.get(), ctx);
    for (slong j = level[i].degree(); j >= 0; --j) {
      fq_nmod_mul(acc.get(), acc.get(), im.roots[i].get(), ctx);
      fq_nmod_set_ui(coeff.get(), level[i].coeff(j), ctx);
      fq_nmod_add(acc.get(), acc.get(), coeff.get(), ctx);
    }
    const auto* p = reinterpret_cast<const nmod_poly_struct*>(acc.get());
    for (std::size_t c = 0; c < d_; ++c) {
      out[i * d_ + c] = nmod_poly_get_coeff_ui(p, static_cast<slong>(c));
    }
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

std::vector<u64> SlotEncoder::frobenius(std::span<const u64> value, std::size_t e) const {
  check_values(value, d_, t_, "frobenius");
  const fq_nmod_ctx_struct* ctx = impl_->ctx;
  Elem x(ctx);
  for (std::size_t c = 0; c < d_; ++c) {
    nmod_poly_set_coeff_ui(reinterpret_cast<nmod_poly_struct*>(x.get()), static_cast<slong>(c),
                           value[c]);
  }
  // d_ = ord_m(t) ≥ 1; the max only tells the analyser so.
  fq_nmod_frobenius(x.get(), x.get(), static_cast<slong>(e % std::max<std::size_t>(d_, 1)), ctx);
  std::vector<u64> out(d_);
  for (std::size_t c = 0; c < d_; ++c) {
    out[c] = nmod_poly_get_coeff_ui(reinterpret_cast<const nmod_poly_struct*>(x.get()),
                                    static_cast<slong>(c));
  }
  return out;
}

std::vector<u64> SlotEncoder::multiply(std::span<const u64> x, std::span<const u64> y) const {
  check_values(x, d_, t_, "multiply");
  check_values(y, d_, t_, "multiply");
  const fq_nmod_ctx_struct* ctx = impl_->ctx;
  Elem a(ctx), b(ctx);
  for (std::size_t c = 0; c < d_; ++c) {
    nmod_poly_set_coeff_ui(reinterpret_cast<nmod_poly_struct*>(a.get()), static_cast<slong>(c),
                           x[c]);
    nmod_poly_set_coeff_ui(reinterpret_cast<nmod_poly_struct*>(b.get()), static_cast<slong>(c),
                           y[c]);
  }
  fq_nmod_mul(a.get(), a.get(), b.get(), ctx);
  std::vector<u64> out(d_);
  for (std::size_t c = 0; c < d_; ++c) {
    out[c] = nmod_poly_get_coeff_ui(reinterpret_cast<const nmod_poly_struct*>(a.get()),
                                    static_cast<slong>(c));
  }
  return out;
}

}  // namespace polyhe::bgv
