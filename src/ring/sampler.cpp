// Seeds, ChaCha20 expansion (libsodium) and the RLWE distributions. See ring/sampler.hpp for the
// stream layout and the constant-time contract.
#include "polyhe/ring/sampler.hpp"

#include <sodium.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "polyhe/arith/word.hpp"
#include "polyhe/core/config.hpp"
#include "polyhe/core/constant_time.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/core/thread_pool.hpp"

namespace polyhe {
namespace {

constexpr std::size_t kBlockBytes = 64;  // one ChaCha20 block
constexpr std::uint64_t kBlocksPerCounter = std::uint64_t{1} << 32;

void ensure_sodium() {
  static const int rc = sodium_init();  // thread-safe, idempotent; 1 = already initialised
  if (rc < 0) throw Error("libsodium: sodium_init() failed (returned -1); no randomness source");
}

/// A scratch vector of secret values, wiped before its memory is released.
template <class T>
struct SecretVector {
  explicit SecretVector(std::size_t n) : v(n) {}
  SecretVector(const SecretVector&) = delete;
  SecretVector& operator=(const SecretVector&) = delete;
  ~SecretVector() { sodium_memzero(v.data(), v.size() * sizeof(T)); }
  std::vector<T> v;
};

/// All ones iff a < b, else 0: the borrow of the 128-bit difference, no comparison instruction.
POLYHE_INLINE std::uint64_t mask_lt(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint64_t>((static_cast<u128>(a) - b) >> 64);
}

/// All ones iff x < 0 (arithmetic shift, defined in C++20).
POLYHE_INLINE std::uint64_t mask_negative(std::int64_t x) {
  return static_cast<std::uint64_t>(x >> 63);
}

/// Number of set bits, SWAR (no table, no branch; std::popcount may become a libgcc call with a
/// byte table on targets without POPCNT).
POLYHE_INLINE int popcount_ct(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
}

/// The words of a span of int64 (the signed/unsigned pair may alias), to fill with draws.
std::span<std::uint64_t> as_words(std::span<std::int64_t> s) {
  return {reinterpret_cast<std::uint64_t*>(s.data()), s.size()};
}

/// Bitonic sort, ascending, of a.size() = 2^k words, every compare-exchange branch-free; the
/// index pattern depends on the size only. Stage k merges sorted runs of k/2 into runs of k:
/// first a flip (i against the mirror k−1−i in its run), then half-cleaners of span k/4, …, 1
/// (Batcher 1968; the all-ascending form with the flip, e.g. Knuth TAOCP 5.3.4).
void bitonic_sort(std::span<std::uint64_t> a) {
  const auto cx = [](std::uint64_t& x, std::uint64_t& y) {
    const std::uint64_t t = (x ^ y) & mask_lt(y, x);  // swap iff y < x
    x ^= t;
    y ^= t;
  };
  const std::size_t n = a.size();
  for (std::size_t k = 2; k <= n; k <<= 1) {
    for (std::size_t b = 0; b < n; b += k) {
      for (std::size_t t = 0; t < k / 2; ++t) cx(a[b + t], a[b + k - 1 - t]);
    }
    for (std::size_t j = k / 4; j > 0; j >>= 1) {
      for (std::size_t b = 0; b < n; b += 2 * j) {
        for (std::size_t t = 0; t < j; ++t) cx(a[b + t], a[b + t + j]);
      }
    }
  }
}

/// The previous content of `out` is replaced: a polynomial in evaluation form becomes a fresh
/// one (zero, coefficient form) of the same context and limb count.
/// Sampling runs on the host (the samplers are libsodium's stream and constant-time host code):
/// a polynomial on a device is filled through a host copy of its shape, then uploaded.
template <class Fill>
void fill_on_host(RnsPoly& out, Fill&& fill) {
  if (!out.on_device()) {
    fill(out);
    return;
  }
  RnsPoly host(out.context(), out.limbs(), out.form());
  fill(host);
  out = host.to_device(out.device());
}

void reset_to_coefficient(RnsPoly& out) {
  if (out.form() != PolyForm::kCoefficient) out = RnsPoly(out.context(), out.limbs());
}

/// x mod q in [0, q) for |x| < 2^63 and 2 ≤ q < 2^62, constant time. With µ = ⌊(2^64 − 1)/q⌋ and
/// a = |x|, q̂ = ⌊a·µ / 2^64⌋ > a/q − a(1 + 1/q)/2^64 − 1 > a/q − 2, so a − q̂·q ∈ [0, 2q): one
/// masked correction; x < 0 maps to q − r, itself corrected from q to 0.
POLYHE_INLINE std::uint64_t reduce_signed(std::int64_t x, std::uint64_t q, std::uint64_t mu) {
  const std::uint64_t s = mask_negative(x);
  const std::uint64_t a = (static_cast<std::uint64_t>(x) ^ s) - s;
  std::uint64_t r = a - mul_hi(a, mu) * q;
  r -= q & ~mask_lt(r, q);
  std::uint64_t neg = q - r;
  neg -= q & ~mask_lt(neg, q);
  return r ^ ((r ^ neg) & s);
}

/// x mod q into dst for each x of coeffs: one masked addition each when `small` says every
/// |x| < q, else the constant-time reduction. Only `small` (decided by the caller) branches.
void write_signed(std::span<const std::int64_t> coeffs, std::uint64_t q, bool small,
                  std::span<std::uint64_t> dst) {
  if (small) {
    for (std::size_t j = 0; j < coeffs.size(); ++j) {
      const std::int64_t x = coeffs[j];
      dst[j] = static_cast<std::uint64_t>(x) + (q & mask_negative(x));
    }
  } else {
    const std::uint64_t mu = ~std::uint64_t{0} / q;
    for (std::size_t j = 0; j < coeffs.size(); ++j) dst[j] = reduce_signed(coeffs[j], q, mu);
  }
}

/// Draws into out[k, n) until every entry holds an accepted candidate: word w gives candidate
/// c = w & mask, kept iff c < bound, stored as map(c). Words are read in stream order; the write
/// index never passes the read index, so the compaction runs in place and without a branch on c.
template <class T, class Map>
void rejection_fill(Prng& prng, std::span<T> out, std::uint64_t mask, std::uint64_t bound,
                    Map map) {
  std::span<std::uint64_t> words(reinterpret_cast<std::uint64_t*>(out.data()), out.size());
  std::size_t k = 0;
  while (k < out.size()) {
    const std::size_t begin = k;
    prng.fill_u64(words.subspan(begin));
    for (std::size_t j = begin; j < out.size(); ++j) {
      const std::uint64_t c = words[j] & mask;
      out[k] = map(c);
      k += static_cast<std::size_t>(mask_lt(c, bound) & 1);
    }
  }
}

}  // namespace

// --- seeds and Prng -----------------------------------------------------------------------------

Seed random_seed() {
  ensure_sodium();
  Seed s;
  randombytes_buf(s.data(), s.size());
  return s;
}

Prng::Prng(const Seed& seed, std::uint64_t stream) : key_(seed), stream_(stream) {
  ensure_sodium();  // selects libsodium's fastest ChaCha20 implementation
}

Prng::~Prng() {
  sodium_memzero(key_.data(), key_.size());
  sodium_memzero(buffer_.data(), buffer_.size());
}

SeedSource::SeedSource(std::optional<Seed> master) {
  if (master) master_.emplace(*master, 0);
}

SeedSource::SeedSource(const SeedSource& other) {
  const std::lock_guard lock(other.mutex_);
  master_ = other.master_;
}

SeedSource& SeedSource::operator=(const SeedSource& other) {
  if (this != &other) {
    const std::scoped_lock lock(mutex_, other.mutex_);
    master_ = other.master_;
  }
  return *this;
}

Seed SeedSource::next() {
  if (!master_) return random_seed();
  Seed s;
  const std::lock_guard lock(mutex_);
  master_->fill(s);
  return s;
}

void Prng::generate(std::span<std::uint8_t> out) {
  POLYHE_DEBUG_ASSERT(out.size() % kBlockBytes == 0);
  while (!out.empty()) {
    // One call per 2^32-block stretch: the IETF counter is the low word of the block index,
    // nonce[0..4) its high word, nonce[4..12) the stream (little endian).
    const auto low = static_cast<std::uint32_t>(block_);
    const std::uint64_t blocks =
        std::min<std::uint64_t>(out.size() / kBlockBytes, kBlocksPerCounter - low);
    std::array<std::uint8_t, crypto_stream_chacha20_ietf_NONCEBYTES> nonce{};
    static_assert(crypto_stream_chacha20_ietf_NONCEBYTES == 12);
    for (int b = 0; b < 4; ++b) nonce[b] = static_cast<std::uint8_t>(block_ >> (32 + 8 * b));
    for (int b = 0; b < 8; ++b) nonce[4 + b] = static_cast<std::uint8_t>(stream_ >> (8 * b));
    const std::size_t bytes = static_cast<std::size_t>(blocks) * kBlockBytes;
    std::memset(out.data(), 0, bytes);
    crypto_stream_chacha20_ietf_xor_ic(out.data(), out.data(), bytes, nonce.data(), low,
                                       key_.data());
    block_ += blocks;
    out = out.subspan(bytes);
  }
}

void Prng::refill() {
  generate(buffer_);
  pos_ = 0;
}

void Prng::fill(std::span<std::uint8_t> out) {
  while (!out.empty()) {
    if (pos_ == kBufferBytes) {
      if (out.size() >= kBlockBytes) {  // whole blocks straight into the output
        const std::size_t whole = out.size() - out.size() % kBlockBytes;
        generate(out.first(whole));
        out = out.subspan(whole);
        continue;
      }
      refill();
    }
    const std::size_t take = std::min(out.size(), kBufferBytes - pos_);
    std::memcpy(out.data(), buffer_.data() + pos_, take);
    pos_ += take;
    out = out.subspan(take);
  }
}

void Prng::fill_u64(std::span<std::uint64_t> out) {
  fill({reinterpret_cast<std::uint8_t*>(out.data()), out.size() * sizeof(std::uint64_t)});
  if constexpr (std::endian::native == std::endian::big) {
    for (std::uint64_t& w : out) w = __builtin_bswap64(w);
  }
}

std::uint64_t Prng::next_u64() {
  std::uint64_t w;
  if (kBufferBytes - pos_ < sizeof(w)) {
    fill_u64({&w, 1});
    return w;
  }
  std::memcpy(&w, buffer_.data() + pos_, sizeof(w));
  pos_ += sizeof(w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

void Prng::skip(std::uint64_t bytes) {
  const std::uint64_t buffered = std::min<std::uint64_t>(bytes, kBufferBytes - pos_);
  pos_ += static_cast<std::size_t>(buffered);
  bytes -= buffered;
  if (bytes == 0) return;
  // The buffer is spent: the stream goes on at block_, so whole blocks are skipped by the
  // counter and the rest read past in a fresh buffer.
  block_ += bytes / kBlockBytes;
  const auto rest = static_cast<std::size_t>(bytes % kBlockBytes);
  if (rest != 0) {
    refill();
    pos_ = rest;
  }
}

// --- writing signed coefficients ----------------------------------------------------------------

void set_signed(std::span<const std::int64_t> coeffs, RnsPoly& out) {
  if (out.on_device()) {
    fill_on_host(out, [&](RnsPoly& host) { set_signed(coeffs, host); });
    return;
  }
  if (coeffs.size() != out.n()) {
    throw InvalidParameter("set_signed: " + std::to_string(coeffs.size()) +
                           " coefficients given; the ring has N = " + std::to_string(out.n()) +
                           " and they must match");
  }
  reset_to_coefficient(out);
  for (std::size_t i = 0; i < out.limbs(); ++i) {
    const std::uint64_t q = out.context()->basis().prime(i);
    const std::span<std::uint64_t> dst = out.limb(i);
    // Whether |x| < q for every coefficient (then one masked addition each), evaluated without
    // short cuts over all of them: a branch on the values' size, for public inputs (the samplers
    // of secrets choose by their public bound, set_bounded_signed).
    bool small = true;
    for (const std::int64_t x : coeffs) {
      small &= (x > -static_cast<std::int64_t>(q)) & (x < static_cast<std::int64_t>(q));
    }
    write_signed(coeffs, q, small, dst);
  }
}

namespace {

/// set_signed for secret coefficients whose public bound is known (|x| ≤ bound: 1 for ternary
/// secrets, kErrorEta for errors): one masked addition per word where bound < q, the masked
/// reduction otherwise. Only the public primes and bound choose the way, never the values.
void set_bounded_signed(std::span<const std::int64_t> coeffs, std::uint64_t bound, RnsPoly& out) {
  reset_to_coefficient(out);
  for (std::size_t i = 0; i < out.limbs(); ++i) {
    const std::uint64_t q = out.context()->basis().prime(i);
    write_signed(coeffs, q, bound < q, out.limb(i));
  }
}

}  // namespace

// --- uniform ------------------------------------------------------------------------------------

void sample_uniform(Prng& prng, RnsPoly& out) {
  if (out.on_device()) {
    fill_on_host(out, [&](RnsPoly& host) { sample_uniform(prng, host); });
    return;
  }
  for (std::size_t i = 0; i < out.limbs(); ++i) {
    const std::uint64_t q = out.context()->basis().prime(i);
    const std::uint64_t mask = (std::uint64_t{1} << bit_length(q)) - 1;  // len(q) ≤ 62
    rejection_fill(prng, out.limb(i), mask, q, [](std::uint64_t c) { return c; });
  }
}

// --- ternary ------------------------------------------------------------------------------------

void sample_ternary(Prng& prng, std::span<std::int64_t> out) {
  const std::span<std::uint64_t> words = as_words(out);
  prng.fill_u64(words);
  detail::ct_secret(words);
  for (std::size_t j = 0; j < out.size(); ++j) {
    out[j] = static_cast<std::int64_t>(mul_hi<std::uint64_t>(words[j], 3)) - 1;
  }
}

void sample_ternary(Prng& prng, RnsPoly& out) {
  if (out.on_device()) {
    fill_on_host(out, [&](RnsPoly& host) { sample_ternary(prng, host); });
    return;
  }
  SecretVector<std::int64_t> s(out.n());
  sample_ternary(prng, s.v);
  set_bounded_signed(s.v, 1, out);
}

void sample_ternary_fixed_weight(Prng& prng, std::size_t h, std::span<std::int64_t> out) {
  const std::size_t n = out.size();
  if (h > n) {
    throw InvalidParameter("sample_ternary_fixed_weight: h = " + std::to_string(h) +
                           " nonzero coefficients requested of n = " + std::to_string(n) +
                           "; h ≤ n is required");
  }
  if (n == 0) return;
  // Element = 61-bit random key (bits 2..62) | code (bits 0..1: 0 → 0, 1 → +1, 2 → −1). The
  // padding up to a power of two is all ones, above every element, so it sorts to the end.
  SecretVector<std::uint64_t> e(std::bit_ceil(n));
  const std::span<std::uint64_t> words = std::span(e.v).first(n);
  prng.fill_u64(words);
  detail::ct_secret(words);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t w = words[j];
    const std::uint64_t code = j < h ? 1 + (w & 1) : 0;  // j and h are public
    words[j] = ((w >> 3) << 2) | code;
  }
  std::fill(e.v.begin() + static_cast<std::ptrdiff_t>(n), e.v.end(), ~std::uint64_t{0});
  bitonic_sort(e.v);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t c = e.v[j] & 3;
    out[j] = static_cast<std::int64_t>(c & 1) - static_cast<std::int64_t>(c >> 1);
  }
}

void sample_ternary_fixed_weight(Prng& prng, std::size_t h, RnsPoly& out) {
  if (h > out.n()) {
    throw InvalidParameter("sample_ternary_fixed_weight: h = " + std::to_string(h) +
                           " nonzero coefficients requested of N = " + std::to_string(out.n()) +
                           "; h ≤ N is required");
  }
  if (out.on_device()) {
    fill_on_host(out, [&](RnsPoly& host) { sample_ternary_fixed_weight(prng, h, host); });
    return;
  }
  SecretVector<std::int64_t> s(out.n());
  sample_ternary_fixed_weight(prng, h, s.v);
  set_bounded_signed(s.v, 1, out);
}

// --- error --------------------------------------------------------------------------------------

void sample_error(Prng& prng, std::span<std::int64_t> out) {
  constexpr std::uint64_t kMask = (std::uint64_t{1} << kErrorEta) - 1;
  static_assert(2 * kErrorEta <= 64, "both halves come from one 64-bit draw");
  const std::span<std::uint64_t> words = as_words(out);
  prng.fill_u64(words);
  detail::ct_secret(words);
  for (std::size_t j = 0; j < out.size(); ++j) {
    const std::uint64_t w = words[j];
    out[j] = popcount_ct(w & kMask) - popcount_ct((w >> kErrorEta) & kMask);
  }
}

void sample_error(Prng& prng, RnsPoly& out) {
  if (out.on_device()) {
    fill_on_host(out, [&](RnsPoly& host) { sample_error(prng, host); });
    return;
  }
  SecretVector<std::int64_t> s(out.n());
  sample_error(prng, s.v);
  set_bounded_signed(s.v, static_cast<std::uint64_t>(kErrorEta), out);
}

void sample_encryption_noise(Prng& prng, std::span<std::int64_t> v, std::span<std::int64_t> e0,
                             std::span<std::int64_t> e1) {
  const std::size_t n = v.size();
  if (e0.size() != n || e1.size() != n) {
    throw InvalidParameter("sample_encryption_noise: v, e0 and e1 have " + std::to_string(n) +
                           ", " + std::to_string(e0.size()) + " and " + std::to_string(e1.size()) +
                           " coefficients; they must have one size");
  }
  if (overlaps(v, e0) || overlaps(v, e1) || overlaps(e0, e1)) {
    throw InvalidParameter("sample_encryption_noise: v, e0 and e1 overlap");
  }
  // 8 bytes a coefficient (sample_ternary, sample_error): the stretches start 8n and 16n bytes on.
  Prng for_e0 = prng;
  Prng for_e1 = prng;
  for_e0.skip(std::uint64_t{8} * n);
  for_e1.skip(std::uint64_t{16} * n);
  parallel_for(3, [&](std::size_t which) {
    if (which == 0) sample_ternary(prng, v);
    if (which == 1) sample_error(for_e0, e0);
    if (which == 2) sample_error(for_e1, e1);
  });
  prng.skip(std::uint64_t{16} * n);  // past e_0's and e_1's stretches too
}

// --- bounded uniform (flooding) -----------------------------------------------------------------

void sample_uniform_bounded(Prng& prng, int bits, std::span<std::int64_t> out) {
  if (bits < 1 || bits > 60) {
    throw InvalidParameter("sample_uniform_bounded: bits = " + std::to_string(bits) +
                           " is outside [1, 60]");
  }
  const std::uint64_t half = std::uint64_t{1} << bits;              // B = 2^bits
  const std::uint64_t mask = (std::uint64_t{1} << (bits + 2)) - 1;  // ≥ 2B + 1 values
  rejection_fill(prng, out, mask, 2 * half + 1, [half](std::uint64_t c) {
    return static_cast<std::int64_t>(c) - static_cast<std::int64_t>(half);
  });
}

void sample_uniform_bounded(Prng& prng, int bits, RnsPoly& out) {
  if (out.on_device()) {
    fill_on_host(out, [&](RnsPoly& host) { sample_uniform_bounded(prng, bits, host); });
    return;
  }
  SecretVector<std::int64_t> s(out.n());
  sample_uniform_bounded(prng, bits, s.v);
  // Secret from here (the rejection's count, which alone steers its loop, is independent of the
  // accepted values: docs/security.md).
  detail::ct_secret(std::span<const std::int64_t>(s.v));
  reset_to_coefficient(out);
  for (std::size_t i = 0; i < out.limbs(); ++i) {
    const std::uint64_t q = out.context()->basis().prime(i);
    const std::uint64_t mu = ~std::uint64_t{0} / q;  // public
    const std::span<std::uint64_t> dst = out.limb(i);
    for (std::size_t j = 0; j < dst.size(); ++j) dst[j] = reduce_signed(s.v[j], q, mu);
  }
}

}  // namespace polyhe
