#include "polyhe/rlwe/encryption.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/batch.hpp"
#include "polyhe/rlwe/key_switch.hpp"

namespace polyhe::rlwe {

RnsPoly prefix(const RnsPoly& p, std::size_t limbs) {
  if (limbs == 0 || limbs > p.limbs()) {
    throw InvalidParameter("prefix: " + std::to_string(limbs) +
                           " limbs requested of a polynomial with " + std::to_string(p.limbs()));
  }
  RnsPoly out(p.context(), limbs, p.form());
  std::memcpy(out.data().data(), p.data().data(), limbs * p.n() * sizeof(std::uint64_t));
  return out;
}

Encryptor::Encryptor(const PublicKey& pk, std::optional<Seed> seed) : params_(pk.params), pk_(&pk) {
  if (seed) master_.emplace(*seed, 0);
}

Encryptor::Encryptor(const SecretKey& sk, std::optional<Seed> seed) : params_(sk.params), sk_(&sk) {
  if (seed) master_.emplace(*seed, 0);
}

Seed Encryptor::next_seed() {
  if (!master_) return random_seed();
  Seed s;
  master_->fill(s);
  return s;
}

Ciphertext Encryptor::encrypt_zero(std::size_t level) {
  if (level > params_->max_level()) {
    throw InvalidParameter("encrypt: level " + std::to_string(level) + " exceeds the top level " +
                           std::to_string(params_->max_level()));
  }
  RnsPoly zero(params_->ring(), level + 1, PolyForm::kEvaluation);
  return encrypt(zero);
}

Ciphertext Encryptor::encrypt(const RnsPoly& m_in) {
  if (m_in.context() != params_->ring()) {
    throw MismatchedContext("encrypt: the message polynomial belongs to another ring");
  }
  const std::size_t limbs = m_in.limbs();
  if (limbs > params_->q_count()) {
    throw InvalidParameter(
        "encrypt: the message has " + std::to_string(limbs) +
        " limbs; ciphertexts have at most L + 1 = " + std::to_string(params_->q_count()));
  }
  const auto& ring = params_->ring();
  const std::size_t n = params_->n();
  const auto moduli = ring->moduli(limbs);
  const std::size_t words = limbs * n;
  Ciphertext ct(params_, limbs - 1, 2);
  RnsPoly& c0 = ct[0];
  RnsPoly& c1 = ct[1];
  if (pk_ != nullptr) {
    // Over Q_l ∪ P: (v·b + e_0 + P·m, v·a + e_1), then ModDown divides by P, leaving
    // m + (v·e + e_0 + e_1·s)/P + rounding ≈ a few units of noise (SEAL's encryption). Only v is
    // transformed: the errors (and a message in coefficient form, times P) are small
    // coefficient-form addends that ModDown takes in with its own transforms.
    const QpLayout layout(*params_, limbs - 1);
    const std::size_t qp = layout.q_limbs + layout.p_limbs;
    const std::size_t big_l = params_->max_level();
    Prng prng(next_seed());
    std::vector<std::int64_t> small(n);
    const std::span<std::uint64_t> v = scratch(kScratchEncV, qp * n);
    const std::span<std::uint64_t> acc0 = scratch(kScratchAcc0, qp * n);
    const std::span<std::uint64_t> acc1 = scratch(kScratchAcc1, qp * n);
    const std::span<std::uint64_t> add0 = scratch(kScratchAdd0, qp * n);
    const std::span<std::uint64_t> add1 = scratch(kScratchAdd1, qp * n);
    auto lift = [&](std::span<std::uint64_t> out) {
      for (std::size_t i = 0; i < qp; ++i) {
        const std::uint64_t q = layout.moduli[i].value();
        std::uint64_t* limb = out.data() + i * n;
        for (std::size_t j = 0; j < n; ++j) {
          const auto x = static_cast<std::uint64_t>(small[j]);
          limb[j] = x + (q & (std::uint64_t{0} - (x >> 63)));  // x mod q for |x| < q
        }
      }
    };
    sample_ternary(prng, small);
    lift(v);
    forward_batch<std::uint64_t>(v, std::span<const NttPlan<std::uint64_t>* const>(layout.plans));
    sample_error(prng, small);
    lift(add0);
    sample_error(prng, small);
    lift(add1);
    std::fill(small.begin(), small.end(), 0);
    const auto mod_q = layout.mod_q();
    const auto mod_p = layout.mod_p();
    const bool m_coefficient = m_in.form() == PolyForm::kCoefficient;
    if (m_coefficient) {
      // P·m over Q_l (it is 0 mod P): added to e_0's Q limbs.
      const std::span<std::uint64_t> pm = scratch(kScratchConv, words);
      vec::multiply_scalar(m_in.data(), params_->p_mod_q().first(limbs), pm, mod_q);
      vec::add(add0.first(words), pm, add0.first(words), mod_q);
    }
    const std::span<std::uint64_t> vq(v.data(), words), vp(v.data() + words, layout.p_limbs * n);
    const std::size_t p_at = (big_l + 1) * n;
    for (int part = 0; part < 2; ++part) {
      const RnsPoly& key = part == 0 ? pk_->b : pk_->a;
      const std::span<std::uint64_t> acc = part == 0 ? acc0 : acc1;
      vec::multiply(vq, key.data().first(words), acc.first(words), mod_q);
      vec::multiply(vp, key.data().subspan(p_at), acc.subspan(words), mod_p);
    }
    mod_down(*params_, limbs - 1, acc0, c0, add0);
    mod_down(*params_, limbs - 1, acc1, c1, add1);
    if (!m_coefficient) c0.add(m_in);
    return ct;
  }
  RnsPoly m = m_in;
  if (m.form() == PolyForm::kCoefficient) m.to_evaluation();
  const Seed a_seed = next_seed();
  RnsPoly a(ring, limbs, PolyForm::kEvaluation);
  Prng a_prng(a_seed, kStreamCiphertextA);
  sample_uniform(a_prng, a);
  Prng e_prng(next_seed());
  RnsPoly e(ring, limbs);
  sample_error(e_prng, e);
  e.to_evaluation();
  // c0 = e + m − a·s, c1 = a.
  vec::multiply(a.data(), sk_->s.data().first(words), c0.data(), moduli);
  vec::sub(e.data(), c0.data(), c0.data(), moduli);
  vec::add(c0.data(), m.data(), c0.data(), moduli);
  c1 = std::move(a);
  ct.set_seed(a_seed);
  return ct;
}

RnsPoly decrypt_poly(const Ciphertext& ct, const SecretKey& sk) {
  check_same_params(ct.params(), sk.params, "decrypt");
  const std::size_t limbs = ct.limbs();
  const std::size_t words = limbs * ct.params()->n();
  const auto moduli = ct.params()->ring()->moduli(limbs);
  const auto s = sk.s.data().first(words);
  RnsPoly m(ct.params()->ring(), limbs, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  if (ct.size() == 3) {
    // c0 + s·(c1 + s·c2), Horner.
    vec::multiply_add(ct[2].data(), s, ct[1].data(), m.data(), moduli);
    vec::multiply_add(m.data(), s, ct[0].data(), m.data(), moduli);
  } else {
    // One pass: m = c0 + c1·s (no copy of c0 first).
    vec::multiply_add(ct[1].data(), s, ct[0].data(), m.data(), moduli);
  }
  return m;
}

Ciphertext::Ciphertext(ParametersPtr params, std::size_t level, std::size_t size, double scale)
    : Ciphertext(std::move(params), level, size, scale, RnsPoly::kForOverwrite) {
  for (RnsPoly& p : parts_) std::fill(p.data().begin(), p.data().end(), 0);
}

Ciphertext::Ciphertext(ParametersPtr params, std::size_t level, std::size_t size, double scale,
                       RnsPoly::ForOverwrite)
    : params_(std::move(params)), scale_(scale) {
  if (!params_) throw InvalidParameter("Ciphertext: null parameters");
  if (level > params_->max_level()) {
    throw InvalidParameter("Ciphertext: level " + std::to_string(level) +
                           " exceeds L = " + std::to_string(params_->max_level()));
  }
  if (size != 2 && size != 3) {
    throw InvalidParameter("Ciphertext: size " + std::to_string(size) + " is not 2 or 3");
  }
  for (std::size_t i = 0; i < size; ++i) {
    parts_.emplace_back(params_->ring(), level + 1, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  }
}

void Ciphertext::set_factor(std::uint64_t f) {
  if (f == 0) {
    throw InvalidParameter("Ciphertext: plaintext factor 0 is not invertible modulo t");
  }
  factor_ = f;
}

}  // namespace polyhe::rlwe
