// The plaintext modulus and the integer encoders of BFV/BGV (see encoder.hpp for the slot layout
// and the rotation convention).
//
// Batching. For t prime with t ≡ 1 mod 2N, ζ a primitive 2N-th root of unity mod t, x^N + 1 =
// Π_{e odd < 2N} (x − ζ^e) mod t, so m ↦ (m(ζ^e))_e is the CRT isomorphism Z_t[x]/(x^N + 1) ≅
// Z_t^N. The forward negacyclic NTT with ψ = ζ computes exactly these evaluations, at index j the
// one with e = 2·br(j) + 1 (the ring's transform of the one prime t: RingContext); the slot order
// only permutes them. So
//     decode = gather ∘ NTT,   encode = INTT ∘ scatter,
// with the permutation slot i ↦ j = br((e(i) − 1)/2) built once. Both transforms take fully
// reduced input and give fully reduced output, O(N log N).
#include "polyhe/bgv/encoder.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/ring/context.hpp"

namespace polyhe::bgv {

namespace {

std::size_t bit_reverse(std::size_t x, int bits) {
  std::size_t r = 0;
  for (int b = 0; b < bits; ++b) r |= ((x >> b) & 1U) << (bits - 1 - b);
  return r;
}

bool valid_ring_degree(std::size_t n) {
  return is_power_of_two(n) && n >= RingContext::kMinN && n <= RingContext::kMaxN;
}

void check_ring_degree(const char* who, std::size_t n) {
  if (!valid_ring_degree(n)) {
    throw InvalidParameter(std::string(who) + ": N = " + std::to_string(n) +
                           " must be a power of two in [" + std::to_string(RingContext::kMinN) +
                           ", " + std::to_string(RingContext::kMaxN) + "]");
  }
}

void check_output(const char* who, std::size_t size, std::size_t n) {
  if (size != n) {
    throw InvalidParameter(std::string(who) + ": the output has " + std::to_string(size) +
                           " words; it must have N = " + std::to_string(n));
  }
}

// values.size() ≤ N and every value < t.
void check_values(const char* who, std::span<const std::uint64_t> values, std::size_t n,
                  const PlaintextModulus& t) {
  if (values.size() > n) {
    throw InvalidParameter(std::string(who) + ": " + std::to_string(values.size()) +
                           " values; at most N = " + std::to_string(n) + " fit");
  }
  const std::uint64_t q = t.value();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] >= q) {
      throw InvalidParameter(std::string(who) + ": value " + std::to_string(values[i]) +
                             " at index " + std::to_string(i) +
                             " is not below t = " + std::to_string(q));
    }
  }
}

// values.size() ≤ N and every value in [signed_min, signed_max].
void check_values(const char* who, std::span<const std::int64_t> values, std::size_t n,
                  const PlaintextModulus& t) {
  if (values.size() > n) {
    throw InvalidParameter(std::string(who) + ": " + std::to_string(values.size()) +
                           " values; at most N = " + std::to_string(n) + " fit");
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!t.in_signed_range(values[i])) {
      throw InvalidParameter(std::string(who) + ": signed value " + std::to_string(values[i]) +
                             " at index " + std::to_string(i) + " is outside [" +
                             std::to_string(t.signed_min()) + ", " +
                             std::to_string(t.signed_max()) +
                             "], the centred range of t = " + std::to_string(t.value()));
    }
  }
}

// Exactly N coefficients, each < t.
void check_coefficients(const char* who, std::span<const std::uint64_t> coeffs, std::size_t n,
                        std::uint64_t t) {
  if (coeffs.size() != n) {
    throw InvalidParameter(std::string(who) + ": " + std::to_string(coeffs.size()) +
                           " coefficients; it takes exactly N = " + std::to_string(n));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (coeffs[i] >= t) {
      throw InvalidParameter(std::string(who) + ": coefficient " + std::to_string(coeffs[i]) +
                             " at index " + std::to_string(i) +
                             " is not below t = " + std::to_string(t));
    }
  }
}

// The residue in [0, t) of a checked value.
std::uint64_t residue(std::uint64_t v, const PlaintextModulus&) {
  return v;
}
std::uint64_t residue(std::int64_t v, const PlaintextModulus& t) {
  return t.from_signed(v);
}

// A copy of values when they overlap out (the caller reads all of them after writing out).
template <class V>
std::span<const V> detach(std::span<const V> values, std::span<std::uint64_t> out,
                          std::vector<V>& storage) {
  if (!overlaps(values, out)) return values;
  storage.assign(values.begin(), values.end());
  return storage;
}

}  // namespace

// ---- PlaintextModulus --------------------------------------------------------------------------

void check_plaintext_modulus(std::uint64_t t) {
  if (t < 2 || bit_length(t) > PlaintextModulus::kMaxBits) {
    throw InvalidParameter("plaintext modulus t = " + std::to_string(t) + " (" +
                           std::to_string(bit_length(t)) + " bits) must satisfy 2 <= t < 2^" +
                           std::to_string(PlaintextModulus::kMaxBits));
  }
}

PlaintextModulus::PlaintextModulus(std::uint64_t t) : t_(t), bits_(bit_length(t)) {
  check_plaintext_modulus(t);
}

bool PlaintextModulus::supports_batching(std::size_t n) const {
  return bgv::supports_batching(t_, n);
}

bool supports_batching(std::uint64_t t, std::size_t n) {
  if (!valid_ring_degree(n)) return false;
  if (t < 2 || bit_length(t) > PlaintextModulus::kMaxBits) return false;
  return t % (2 * static_cast<std::uint64_t>(n)) == 1 && is_prime(t);
}

namespace {

// check_batching with the caller named; returns t.
std::uint64_t require_batching(const char* who, std::uint64_t t, std::size_t n) {
  check_ring_degree(who, n);
  check_plaintext_modulus(t);
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
  std::string why;
  if (!is_prime(t)) {
    why = "t is not prime";
  } else if (t % two_n != 1) {
    why = "t mod 2N = " + std::to_string(t % two_n);
  } else {
    return t;
  }
  throw InvalidParameter(std::string(who) + ": plaintext modulus t = " + std::to_string(t) +
                         " must be a prime congruent to 1 mod 2N = " + std::to_string(two_n) +
                         " for batching (" + why +
                         "); use CoefficientEncoder for this t, or choose such a prime");
}

}  // namespace

void check_batching(std::uint64_t t, std::size_t n) {
  require_batching("check_batching", t, n);
}

// ---- CoefficientEncoder ------------------------------------------------------------------------

CoefficientEncoder::CoefficientEncoder(std::size_t n, std::uint64_t t) : n_(n), t_(t) {
  // Any ring's coefficient count: 2^k for x^N + 1, φ(m) (even, not always a power of two) for
  // Φ_m with odd m.
  if (n < RingContext::kMinN || n > RingContext::kMaxN) {
    throw InvalidParameter("CoefficientEncoder: N = " + std::to_string(n) + " is outside [" +
                           std::to_string(RingContext::kMinN) + ", " +
                           std::to_string(RingContext::kMaxN) + "]");
  }
}

namespace {

template <class V>
void encode_coefficients(const char* who, std::span<const V> values, std::span<std::uint64_t> out,
                         std::size_t n, const PlaintextModulus& t) {
  check_values(who, values, n, t);
  check_output(who, out.size(), n);
  std::vector<V> storage;
  const std::span<const V> in = detach(values, out, storage);
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = residue(in[i], t);
  std::fill(out.begin() + static_cast<std::ptrdiff_t>(in.size()), out.end(), 0);
}

}  // namespace

void CoefficientEncoder::encode(std::span<const std::uint64_t> values,
                                std::span<std::uint64_t> out) const {
  encode_coefficients("CoefficientEncoder::encode", values, out, n_, t_);
}

void CoefficientEncoder::encode(std::span<const std::int64_t> values,
                                std::span<std::uint64_t> out) const {
  encode_coefficients("CoefficientEncoder::encode", values, out, n_, t_);
}

std::vector<std::uint64_t> CoefficientEncoder::encode(std::span<const std::uint64_t> values) const {
  std::vector<std::uint64_t> out(n_);
  encode(values, out);
  return out;
}

std::vector<std::uint64_t> CoefficientEncoder::encode(std::span<const std::int64_t> values) const {
  std::vector<std::uint64_t> out(n_);
  encode(values, out);
  return out;
}

void CoefficientEncoder::decode(std::span<const std::uint64_t> coeffs,
                                std::span<std::uint64_t> out) const {
  check_coefficients("CoefficientEncoder::decode", coeffs, n_, t_.value());
  check_output("CoefficientEncoder::decode", out.size(), n_);
  if (coeffs.data() != out.data()) std::memmove(out.data(), coeffs.data(), coeffs.size_bytes());
}

void CoefficientEncoder::decode_signed(std::span<const std::uint64_t> coeffs,
                                       std::span<std::int64_t> out) const {
  check_coefficients("CoefficientEncoder::decode_signed", coeffs, n_, t_.value());
  check_output("CoefficientEncoder::decode_signed", out.size(), n_);
  std::vector<std::uint64_t> storage;
  std::span<const std::uint64_t> in = coeffs;
  if (overlaps(coeffs, out) && static_cast<const void*>(coeffs.data()) != out.data()) {
    storage.assign(coeffs.begin(), coeffs.end());
    in = storage;
  }
  for (std::size_t i = 0; i < n_; ++i) out[i] = t_.to_signed(in[i]);
}

std::vector<std::uint64_t> CoefficientEncoder::decode(std::span<const std::uint64_t> coeffs) const {
  std::vector<std::uint64_t> out(n_);
  decode(coeffs, out);
  return out;
}

std::vector<std::int64_t> CoefficientEncoder::decode_signed(
    std::span<const std::uint64_t> coeffs) const {
  std::vector<std::int64_t> out(n_);
  decode_signed(coeffs, out);
  return out;
}

// ---- BatchEncoder ------------------------------------------------------------------------------

BatchEncoder::BatchEncoder(std::size_t n, std::uint64_t t)
    : n_(n),
      t_(require_batching("BatchEncoder", t, n)),
      ring_(RingContext::create(n, std::vector<std::uint64_t>{t})),
      zeta_(ring_->plan(0).psi()) {
  const int log_n = std::countr_zero(n);
  const std::uint64_t mask = 2 * static_cast<std::uint64_t>(n) - 1;  // mod 2N
  const std::size_t half = n / 2;
  ntt_index_.resize(n);
  std::uint64_t e = 1;  // 5^c mod 2N
  for (std::size_t c = 0; c < half; ++c) {
    ntt_index_[c] = static_cast<std::uint32_t>(bit_reverse((e - 1) / 2, log_n));
    const std::uint64_t e_conj = (mask + 1) - e;  // 2N − e, odd
    ntt_index_[half + c] = static_cast<std::uint32_t>(bit_reverse((e_conj - 1) / 2, log_n));
    e = (e * 5) & mask;
  }
}

namespace {

template <class V>
void encode_slots(const char* who, std::span<const V> values, std::span<std::uint64_t> out,
                  const PlaintextModulus& t, std::span<const std::uint32_t> index,
                  const RingContext& ring) {
  const std::size_t n = index.size();
  check_values(who, values, n, t);
  check_output(who, out.size(), n);
  std::vector<V> storage;
  const std::span<const V> in = detach(values, out, storage);
  const std::size_t k = in.size();
  for (std::size_t i = 0; i < k; ++i) out[index[i]] = residue(in[i], t);
  for (std::size_t i = k; i < n; ++i) out[index[i]] = 0;
  ring.inverse(0, out);
}

}  // namespace

void BatchEncoder::encode(std::span<const std::uint64_t> values,
                          std::span<std::uint64_t> out) const {
  encode_slots("BatchEncoder::encode", values, out, t_, ntt_index_, *ring_);
}

void BatchEncoder::encode(std::span<const std::int64_t> values,
                          std::span<std::uint64_t> out) const {
  encode_slots("BatchEncoder::encode", values, out, t_, ntt_index_, *ring_);
}

std::vector<std::uint64_t> BatchEncoder::encode(std::span<const std::uint64_t> values) const {
  std::vector<std::uint64_t> out(n_);
  encode(values, out);
  return out;
}

std::vector<std::uint64_t> BatchEncoder::encode(std::span<const std::int64_t> values) const {
  std::vector<std::uint64_t> out(n_);
  encode(values, out);
  return out;
}

namespace {

// out[i] = convert(slot i of the polynomial with coefficients coeffs).
template <class Out, class Convert>
void decode_slots(const char* who, std::span<const std::uint64_t> coeffs, std::span<Out> out,
                  std::span<const std::uint32_t> index, const RingContext& ring, Convert convert) {
  const std::size_t n = index.size();
  check_coefficients(who, coeffs, n, ring.basis().prime(0));
  check_output(who, out.size(), n);
  std::vector<std::uint64_t> eval(coeffs.begin(), coeffs.end());  // out may alias coeffs
  ring.forward(0, eval);
  for (std::size_t i = 0; i < n; ++i) out[i] = convert(eval[index[i]]);
}

}  // namespace

void BatchEncoder::decode(std::span<const std::uint64_t> coeffs,
                          std::span<std::uint64_t> out) const {
  decode_slots("BatchEncoder::decode", coeffs, out, ntt_index_, *ring_,
               [](std::uint64_t x) { return x; });
}

void BatchEncoder::decode_signed(std::span<const std::uint64_t> coeffs,
                                 std::span<std::int64_t> out) const {
  decode_slots("BatchEncoder::decode_signed", coeffs, out, ntt_index_, *ring_,
               [this](std::uint64_t x) { return t_.to_signed(x); });
}

std::vector<std::uint64_t> BatchEncoder::decode(std::span<const std::uint64_t> coeffs) const {
  std::vector<std::uint64_t> out(n_);
  decode(coeffs, out);
  return out;
}

std::vector<std::int64_t> BatchEncoder::decode_signed(std::span<const std::uint64_t> coeffs) const {
  std::vector<std::int64_t> out(n_);
  decode_signed(coeffs, out);
  return out;
}

}  // namespace polyhe::bgv
