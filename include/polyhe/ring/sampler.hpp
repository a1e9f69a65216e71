// Randomness for the ring layer (docs/design.md, "Randomness"): OS seeds, their deterministic
// expansion by ChaCha20 (libsodium), and the distributions of RLWE: uniform residues, ternary and
// fixed-weight ternary secrets, the centred-binomial error, and bounded uniform flooding noise.
//
// The samplers of secret values (ternary, fixed weight, error, bounded) are constant time: no
// branch and no memory index depends on a sampled value. Their public inputs (sizes, h, bits)
// and the number of rejected draws (independent of the accepted values) may shape the control
// flow. Every sampler draws consecutive 64-bit words of its Prng (Prng::fill_u64), so a sample is
// a function of (seed, stream, position in the stream) alone.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>

#include "polyhe/ring/poly.hpp"

namespace polyhe {

inline constexpr std::size_t kSeedBytes = 32;
using Seed = std::array<std::uint8_t, kSeedBytes>;

/// A fresh seed from the operating system (libsodium randombytes_buf, i.e. getrandom). Throws
/// Error if libsodium cannot be initialised.
[[nodiscard]] Seed random_seed();

/// The deterministic expansion of a seed: the ChaCha20 keystream (RFC 8439, libsodium) keyed by
/// the 32-byte seed. The 96-bit IETF nonce is
///
///     nonce[0..4)  = high 32 bits of the 64-byte block index, little endian
///     nonce[4..12) = stream, little endian
///
/// and the 32-bit IETF block counter is the low 32 bits of the block index. Streams of one seed
/// thus never overlap, and each is 2^64 blocks long; this is the original (DJB) ChaCha20 with
/// 64-bit nonce `stream` and 64-bit block counter. Example: Prng(seed 00 01 … 1f, 0x4a000000)
/// from byte 64 on is the keystream of RFC 8439 §2.4.2.
///
/// fill, fill_u64 and next_u64 return consecutive bytes of that stream (words little endian).
/// Keystream is generated in 4 KiB blocks, or straight into large outputs. Copies continue the
/// same stream independently; the destructor wipes the key and the buffer.
class Prng {
 public:
  static constexpr std::size_t kBufferBytes = 4096;

  explicit Prng(const Seed& seed, std::uint64_t stream = 0);
  Prng(const Prng&) = default;
  Prng& operator=(const Prng&) = default;
  ~Prng();

  /// The next out.size() bytes of the stream.
  void fill(std::span<std::uint8_t> out);
  /// The next 8·out.size() bytes of the stream as little-endian words (the same as out.size()
  /// calls of next_u64, in bulk).
  void fill_u64(std::span<std::uint64_t> out);
  /// The next 8 bytes of the stream as a little-endian word.
  std::uint64_t next_u64();
  /// Moves past the next `bytes` bytes of the stream without producing them (ChaCha20 is indexed
  /// by its block counter): a copy skipped ahead reads what this object would read after
  /// `bytes` more, so disjoint stretches of one stream can be drawn on several threads.
  void skip(std::uint64_t bytes);

 private:
  void generate(std::span<std::uint8_t> out);  // whole blocks at block_, advances block_
  void refill();

  Seed key_;
  std::uint64_t stream_;
  std::uint64_t block_ = 0;         // index of the next block to generate
  std::size_t pos_ = kBufferBytes;  // next unread byte of buffer_
  std::array<std::uint8_t, kBufferBytes> buffer_{};
};

/// Where a key generator or an encryptor takes its seeds: a fresh operating-system seed per draw
/// (random_seed), or, given a master seed, the successive 32-byte blocks of Prng(master, 0)
/// (reproducible: known-answer tests, examples). next() may be called from several threads at
/// once: a mutex guards the stream (with a master seed, the order in which the calls take the
/// lock decides which seed each gets). Copies continue the same stream independently, as Prng's
/// do; copying or assigning while another thread calls next() on the target is a data race.
class SeedSource {
 public:
  explicit SeedSource(std::optional<Seed> master = std::nullopt);
  SeedSource(const SeedSource& other);
  SeedSource& operator=(const SeedSource& other);
  ~SeedSource() = default;

  /// The next seed (OS seeds: Error if libsodium cannot be initialised).
  [[nodiscard]] Seed next();

 private:
  mutable std::mutex mutex_;
  std::optional<Prng> master_;  // null: OS seeds (no lock taken)
};

/// Every limb i of `out` uniform in [0, q_i), independently (rejection sampling of 64-bit words
/// masked to the bit length of q_i: acceptance > 1/2; the values are public, so the variable
/// number of draws is harmless). Either form, left unchanged: uniform is uniform in both.
void sample_uniform(Prng& prng, RnsPoly& out);

// The small-polynomial samplers below come in two shapes. The span overloads write signed
// integers. The RnsPoly overloads sample N of them and write x mod q_i into every limb i (as
// set_signed, but the way chosen by the public bound of the distribution against q_i, not by the
// values); their previous content is replaced, whatever its form, and `out` ends in coefficient
// form with its context and limb count unchanged. The random words of the secret samplers
// (ternary, fixed weight, error, the kept flooding values) are marked secret for the
// constant-time validation (polyhe/core/constant_time.hpp).

/// Uniform ternary: each coefficient −1, 0 or 1 with probability 1/3, from one word w each as
/// ⌊3w / 2^64⌋ − 1 (statistical distance from exact < 2^-62 per coefficient).
void sample_ternary(Prng& prng, std::span<std::int64_t> out);
void sample_ternary(Prng& prng, RnsPoly& out);

/// Exactly h nonzero coefficients (h ≤ out.size(), resp. h ≤ N, checked; h = 0 allowed), each
/// ±1 with probability 1/2, on a uniformly random set of positions. Constant time: the vector
/// [±1 × h, 0 × (n − h)] is shuffled by sorting on random keys with a bitonic network of
/// branch-free compare-exchanges. Keys are 61 random bits per coefficient, so ties (the only
/// departure from a uniform permutation) have probability below n²/2^62 (2^-28 at n = 2^17).
void sample_ternary_fixed_weight(Prng& prng, std::size_t h, std::span<std::int64_t> out);
void sample_ternary_fixed_weight(Prng& prng, std::size_t h, RnsPoly& out);

/// η of the error distribution.
inline constexpr int kErrorEta = 21;

/// The error distribution: centred binomial with η = 21, popcount(a) − popcount(b) for two
/// independent 21-bit words a, b (one 64-bit draw per coefficient). Mean 0, variance η/2 = 10.5
/// (σ ≈ 3.24, the stand-in for the discrete Gaussian σ = 3.2 of the HE standard), support
/// [−21, 21]. Constant time (branch-free bit counting, no tables).
void sample_error(Prng& prng, std::span<std::int64_t> out);

/// Public-key encryption's randomness: v ternary, then e_0 and e_1 errors, drawn in that order
/// from prng's stream (sample_ternary, then sample_error twice: exactly those words), the three
/// stretches at once on the default pool from copies of prng skipped ahead to their starts. prng
/// ends past all three. The spans must have one size and not overlap (InvalidParameter).
void sample_encryption_noise(Prng& prng, std::span<std::int64_t> v, std::span<std::int64_t> e0,
                             std::span<std::int64_t> e1);
void sample_error(Prng& prng, RnsPoly& out);

/// Exactly uniform in [−2^bits, 2^bits] (noise flooding), 1 ≤ bits ≤ 60 (checked): candidates
/// are draws masked to bits + 2 bits, kept when below 2^(bits+1) + 1 (acceptance > 1/2). The
/// kept values are written branch-free; only the count of rejections, which is independent of
/// them, shapes the control flow. The RnsPoly overload reduces x mod q_i in constant time for any
/// q_i (|x| may exceed q_i, unlike in set_signed).
void sample_uniform_bounded(Prng& prng, int bits, std::span<std::int64_t> out);
void sample_uniform_bounded(Prng& prng, int bits, RnsPoly& out);

/// Writes x mod q_i into every limb i of `out` for the signed coefficients x = coeffs
/// (coeffs.size() must equal N, checked; |x| < 2^63): branch-free as x + (q_i & −[x < 0]) where
/// every |x| < q_i, else by a constant-time reduction (plaintexts of a modulus t > q_i). Which
/// of the two a limb takes depends on the values (one branch per limb): for public inputs; the
/// samplers of secrets choose by their public bound instead. The
/// previous content is replaced and `out` ends in coefficient form; on a device, the words are
/// made on the host and uploaded.
void set_signed(std::span<const std::int64_t> coeffs, RnsPoly& out);

}  // namespace polyhe
