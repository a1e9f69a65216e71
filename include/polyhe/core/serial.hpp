// Binary serialisation primitives: a little-endian writer, a bounds-checked reader that turns
// every short or malformed input into CorruptData, and the header every polyhe object starts with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace polyhe::serial {

/// What a serialised object is. Stored as a u16 in the header; values are never reused.
enum class Kind : std::uint16_t {
  parameters = 1,
  secret_key = 2,
  public_key = 3,
  key_switch_key = 4,  // a relinearisation key or one Galois key
  galois_keys = 5,
  plaintext = 6,
  ciphertext = 7,
  integer_plaintext = 8,  // a BFV/BGV plaintext: N coefficients mod t
};

[[nodiscard]] const char* to_string(Kind k);

/// The format version in the header of an object's bytes (CorruptData when they are too short to
/// hold one or do not start with the magic number); nothing else is checked.
[[nodiscard]] std::uint16_t format_version(std::span<const std::uint8_t> bytes);

/// "PLHE" in the first four bytes of every object.
inline constexpr std::uint32_t kMagic = 0x45484c50;  // 'P' 'L' 'H' 'E', little-endian
/// The format version this build writes. 3: ciphertexts record their origin (scheme, t, key id:
/// rlwe/origin.hpp); every other object's payload is as in version 2.
inline constexpr std::uint16_t kFormatVersion = 3;
/// The oldest version this build reads. 2: ciphertexts carry BGV's plaintext factor (version 1 had
/// none; its ciphertexts are refused by the header check, not misread). A version-2 ciphertext
/// loads with its origin unrecorded.
inline constexpr std::uint16_t kOldestFormatVersion = 2;
/// magic u32, version u16, kind u16, parameter hash u64, payload size u64.
inline constexpr std::size_t kHeaderBytes = 24;

struct Header {
  std::uint16_t version;  // kOldestFormatVersion … kFormatVersion
  Kind kind;
  std::uint64_t parameter_hash;  // Parameters::hash() of the context the object belongs to
  std::uint64_t payload_bytes;   // bytes after the header
};

/// Appends little-endian words to a byte vector.
class Writer {
 public:
  explicit Writer(std::vector<std::uint8_t>& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { le(v, 2); }
  void u32(std::uint32_t v) { le(v, 4); }
  void u64(std::uint64_t v) { le(v, 8); }
  void f64(double v);
  void bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void words(std::span<const std::uint64_t> w);
  /// The header, with payload_bytes to be patched by finish() once the payload is written.
  void header(Kind kind, std::uint64_t parameter_hash);
  /// Patches the payload size of the header written at the start of the buffer.
  void finish();

 private:
  void le(std::uint64_t v, int bytes);
  std::vector<std::uint8_t>& out_;
  std::size_t header_at_ = 0;
};

/// Reads what Writer wrote. Every read checks the remaining length first and throws CorruptData
/// naming what was being read, the offset and how many bytes were missing; nothing is trusted.
class Reader {
 public:
  /// `what` prefixes every error message ("ciphertext", "public key", …).
  Reader(std::span<const std::uint8_t> in, std::string what) : in_(in), what_(std::move(what)) {}
  std::uint8_t u8(const char* field);
  std::uint16_t u16(const char* field);
  std::uint32_t u32(const char* field);
  std::uint64_t u64(const char* field);
  double f64(const char* field);
  void bytes(std::span<std::uint8_t> out, const char* field);
  /// count words, each checked < bound (CorruptData naming the index and the bound otherwise).
  void words(std::span<std::uint64_t> out, std::uint64_t bound, const char* field);
  /// A length/count field that must lie in [lo, hi] (checked before anything is allocated).
  std::uint64_t count(const char* field, std::uint64_t lo, std::uint64_t hi);
  /// Checks magic, version (a readable one), kind (== expected) and that payload_bytes equals
  /// what remains.
  Header header(Kind expected);
  /// Throws CorruptData unless every byte has been consumed.
  void expect_end();
  [[nodiscard]] std::size_t remaining() const { return in_.size() - pos_; }
  [[nodiscard]] std::size_t offset() const { return pos_; }
  [[noreturn]] void fail(const std::string& message) const;

 private:
  void need(std::size_t n, const char* field) const;
  std::uint64_t le(int bytes, const char* field);
  std::span<const std::uint8_t> in_;
  std::string what_;
  std::size_t pos_ = 0;
};

}  // namespace polyhe::serial
