#include "polyhe/bgv/context.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rns/bigint.hpp"

namespace polyhe::bgv {

namespace {

using u64 = std::uint64_t;

// The size of R's primes: 50 bits when Q's primes have at most 50 (so that every base conversion
// of the multiplication runs on the IFMA52 kernels: their inputs must be below 2^52), else 60.
int aux_bits(const rlwe::Parameters& params) {
  int widest = 0;
  for (u64 q : params.q_primes()) widest = std::max(widest, bit_length(q));
  return widest <= 50 ? 50 : 60;
}

// The auxiliary primes of R: NTT primes for N of aux_bits bits, none of Q ∪ P, as many as the top
// level needs, largest first (a level takes a prefix).
std::vector<u64> aux_primes(const rlwe::Parameters& params, std::size_t count) {
  std::vector<u64> taken(params.q_primes());
  taken.insert(taken.end(), params.p_primes().begin(), params.p_primes().end());
  const std::vector<u64> candidates =
      ntt_primes(aux_bits(params), params.n(), count + taken.size());
  std::vector<u64> out;
  for (u64 p : candidates) {
    if (std::find(taken.begin(), taken.end(), p) == taken.end()) out.push_back(p);
    if (out.size() == count) break;
  }
  return out;
}

// |R_l| for Q_l: bits(R_l) ≥ bits(Q_l) + bits(t) + log2(N) + 3, so that R_l > 8·t·N·Q_l: the
// tensor's coefficients (|x| ≤ N·Q_l²/2) fit Q_l·R_l, and round(t·x/Q_l) (≤ t·N·Q_l/2) is lifted
// back from R_l exactly.
std::size_t aux_count(double log2_q, int t_bits, int log_n, int prime_bits) {
  const double need = log2_q + t_bits + log_n + 3;
  return static_cast<std::size_t>(need / (prime_bits - 1)) + 1;  // each prime > 2^(bits − 1)
}

double log2_product(std::span<const u64> primes) {
  double s = 0;
  for (u64 p : primes) s += std::log2(static_cast<double>(p));
  return s;
}

}  // namespace

std::string_view to_string(Scheme scheme) {
  return scheme == Scheme::bfv ? "bfv" : "bgv";
}

Context::Context(rlwe::ParametersPtr params, std::uint64_t t, Scheme scheme)
    : params_(std::move(params)), t_(t), scheme_(scheme), coeff_(params_->n(), t) {
  const std::size_t n = params_->n();
  if (params_->power_of_two() && supports_batching(t, n)) batch_.emplace(n, t);
  for (u64 qi : params_->q_primes()) {
    if (t % qi == 0) {
      throw InvalidParameter("bgv::Context: the prime q = " + std::to_string(qi) +
                             " of the chain divides t = " + std::to_string(t) +
                             "; choose t coprime to Q");
    }
  }
  if (!params_->power_of_two() && std::gcd(t, static_cast<u64>(params_->m())) != 1) {
    throw InvalidParameter("bgv::Context: t = " + std::to_string(t) +
                           " and m = " + std::to_string(params_->m()) +
                           " share a factor; t must be coprime to m (else Phi_m mod t is not "
                           "separable: no slots, and HElib's rings assume it)");
  }
  if (scheme_ == Scheme::bfv) {
    if (!params_->power_of_two()) {
      throw InvalidParameter("bgv::Context: the ring is Phi_" + std::to_string(params_->m()) +
                             " (odd m); BFV's HPS multiplication serves x^N + 1 only: use BGV "
                             "(Scheme::bgv)");
    }
    build_bfv_tables();
  }
}

// BFV's per-level tables: Δ_l, r_l, the decryption rounder and the HPS bases and converters.
void Context::build_bfv_tables() {
  const std::size_t n = params_->n();
  const u64 t = t_.value();
  const auto& q = params_->q_primes();
  const std::size_t top = params_->max_level();
  const int r_bits = aux_bits(*params_);
  const std::size_t aux_top = aux_count(log2_product(q), t_.bits(), params_->log_n(), r_bits);
  const std::vector<u64> aux = aux_primes(*params_, aux_top);
  aux_ring_ = RingContext::create(n, aux);
  const RnsBasis r_all(aux);
  levels_.reserve(top + 1);
  for (std::size_t l = 0; l <= top; ++l) {
    const RnsBasis ql = params_->q_basis().prefix(l + 1);
    const mpz_class& big_q = big_product(ql);
    const mpz_class delta = big_q / mpz_class(std::to_string(t));
    const mpz_class r = big_q % mpz_class(std::to_string(t));
    std::vector<u64> delta_res(l + 1);
    for (std::size_t i = 0; i <= l; ++i) {
      const mpz_class d = delta % mpz_class(std::to_string(q[i]));
      delta_res[i] = std::stoull(d.get_str());
    }
    const double lq = log2_product(std::span<const u64>(q).first(l + 1));
    Level level{std::move(delta_res),
                std::stoull(r.get_str()),
                lq,
                BfvDecryptRounder(ql, t),
                aux_count(lq, t_.bits(), params_->log_n(), r_bits),
                std::nullopt,
                std::nullopt,
                std::nullopt};
    const RnsBasis rl = r_all.prefix(level.aux);
    level.q_to_r.emplace(ql, rl);
    level.r_to_q.emplace(rl, ql);
    level.scale.emplace(ql, rl, t);
    levels_.push_back(std::move(level));
  }
}

std::shared_ptr<const Context> Context::create(rlwe::ParametersPtr params, std::uint64_t t,
                                               Scheme scheme) {
  if (!params) throw InvalidParameter("bgv::Context: null parameters");
  if (scheme != Scheme::bgv && scheme != Scheme::bfv) {
    throw InvalidParameter("bgv::Context: unknown scheme " +
                           std::to_string(static_cast<int>(scheme)) +
                           " (Scheme::bgv or Scheme::bfv)");
  }
  return std::shared_ptr<const Context>(new Context(std::move(params), t, scheme));
}

std::size_t Context::n() const {
  return params_->n();
}

void Context::require_bfv(const char* what) const {
  if (scheme_ != Scheme::bfv) {
    throw InvalidParameter(std::string("bgv::Context::") + what +
                           ": these are BFV's tables (scale-invariant mode), and this is a BGV "
                           "context, which builds none; create the context with Scheme::bfv");
  }
}

const Context::Level& Context::level(std::size_t l) const {
  require_bfv("level");
  return levels_.at(l);
}

const std::shared_ptr<const RingContext>& Context::aux_ring() const {
  require_bfv("aux_ring");
  return aux_ring_;
}

const SlotEncoder& Context::slot_encoder() const {
  if (params_->power_of_two()) {
    throw InvalidParameter("slot_encoder: the ring is x^N + 1; its slots are batch_encoder()'s");
  }
  std::call_once(slots_once_, [&] { slots_ = SlotEncoder::create(params_->m(), t_.value()); });
  return *slots_;
}

Plaintext Context::encode(std::span<const std::uint64_t> values) const {
  if (params_->power_of_two()) return Plaintext{batch_encoder().encode(values)};
  return Plaintext{slot_encoder().encode(values)};
}

Plaintext Context::encode(std::span<const std::int64_t> values) const {
  if (params_->power_of_two()) return Plaintext{batch_encoder().encode(values)};
  std::vector<std::uint64_t> words(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!t_.in_signed_range(values[i])) {
      throw InvalidParameter(
          "bgv::Context::encode: signed value " + std::to_string(values[i]) + " at index " +
          std::to_string(i) + " is outside [" + std::to_string(t_.signed_min()) + ", " +
          std::to_string(t_.signed_max()) + "] (t = " + std::to_string(t_.value()) + ")");
    }
    words[i] = t_.from_signed(values[i]);
  }
  return Plaintext{slot_encoder().encode(words)};
}

std::vector<std::uint64_t> Context::decode(const Plaintext& pt) const {
  if (params_->power_of_two()) return batch_encoder().decode(pt.coeffs);
  return slot_encoder().decode(pt.coeffs);
}

std::vector<std::int64_t> Context::decode_signed(const Plaintext& pt) const {
  if (params_->power_of_two()) return batch_encoder().decode_signed(pt.coeffs);
  const std::vector<std::uint64_t> words = slot_encoder().decode(pt.coeffs);
  std::vector<std::int64_t> out(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) out[i] = t_.to_signed(words[i]);
  return out;
}

const BatchEncoder& Context::batch_encoder() const {
  if (!params_->power_of_two()) {
    throw InvalidParameter("batch_encoder: the ring is Phi_" + std::to_string(params_->m()) +
                           " (odd m); its slots (t = p^r, d = ord_m(p)) are slot_encoder()'s");
  }
  if (!batch_) check_batching(t_.value(), params_->n());  // throws, naming t and 2N
  return *batch_;
}

}  // namespace polyhe::bgv
