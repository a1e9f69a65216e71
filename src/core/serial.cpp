#include "polyhe/core/serial.hpp"

#include <bit>
#include <cstring>
#include <string>

#include "polyhe/core/error.hpp"

namespace polyhe::serial {

const char* to_string(Kind k) {
  switch (k) {
    case Kind::parameters: return "parameters";
    case Kind::secret_key: return "secret key";
    case Kind::public_key: return "public key";
    case Kind::key_switch_key: return "key-switching key";
    case Kind::galois_keys: return "Galois keys";
    case Kind::plaintext: return "plaintext";
    case Kind::ciphertext: return "ciphertext";
    case Kind::integer_plaintext: return "BFV/BGV plaintext";
  }
  return "unknown kind";
}

void Writer::le(std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void Writer::f64(double v) {
  u64(std::bit_cast<std::uint64_t>(v));
}

void Writer::words(std::span<const std::uint64_t> w) {
  const std::size_t at = out_.size();
  out_.resize(at + 8 * w.size());
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out_.data() + at, w.data(), 8 * w.size());
  } else {
    for (std::size_t i = 0; i < w.size(); ++i) {
      for (int b = 0; b < 8; ++b) out_[at + 8 * i + b] = static_cast<std::uint8_t>(w[i] >> (8 * b));
    }
  }
}

void Writer::header(Kind kind, std::uint64_t parameter_hash) {
  header_at_ = out_.size();
  u32(kMagic);
  u16(kFormatVersion);
  u16(static_cast<std::uint16_t>(kind));
  u64(parameter_hash);
  u64(0);
}

void Writer::finish() {
  const std::uint64_t payload = out_.size() - header_at_ - kHeaderBytes;
  for (int i = 0; i < 8; ++i) {
    out_[header_at_ + 16 + i] = static_cast<std::uint8_t>(payload >> (8 * i));
  }
}

void Reader::fail(const std::string& message) const {
  throw CorruptData(what_ + ": " + message);
}

void Reader::need(std::size_t n, const char* field) const {
  if (remaining() < n) {
    fail(std::string(field) + " needs " + std::to_string(n) + " bytes at offset " +
         std::to_string(pos_) + ", only " + std::to_string(remaining()) +
         " left (truncated input)");
  }
}

std::uint64_t Reader::le(int bytes, const char* field) {
  need(static_cast<std::size_t>(bytes), field);
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t{in_[pos_ + i]} << (8 * i);
  pos_ += static_cast<std::size_t>(bytes);
  return v;
}

std::uint8_t Reader::u8(const char* field) {
  return static_cast<std::uint8_t>(le(1, field));
}
std::uint16_t Reader::u16(const char* field) {
  return static_cast<std::uint16_t>(le(2, field));
}
std::uint32_t Reader::u32(const char* field) {
  return static_cast<std::uint32_t>(le(4, field));
}
std::uint64_t Reader::u64(const char* field) {
  return le(8, field);
}
double Reader::f64(const char* field) {
  return std::bit_cast<double>(le(8, field));
}

void Reader::bytes(std::span<std::uint8_t> out, const char* field) {
  need(out.size(), field);
  std::memcpy(out.data(), in_.data() + pos_, out.size());
  pos_ += out.size();
}

void Reader::words(std::span<std::uint64_t> out, std::uint64_t bound, const char* field) {
  need(8 * out.size(), field);
  const std::uint8_t* p = in_.data() + pos_;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out.data(), p, 8 * out.size());
  } else {
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::uint64_t v = 0;
      for (int b = 0; b < 8; ++b) v |= std::uint64_t{p[8 * i + b]} << (8 * b);
      out[i] = v;
    }
  }
  std::uint64_t bad = 0;
  for (const std::uint64_t w : out) bad |= static_cast<std::uint64_t>(w >= bound);
  if (bad != 0) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i] >= bound) {
        fail(std::string(field) + "[" + std::to_string(i) + "] = " + std::to_string(out[i]) +
             " is not reduced modulo " + std::to_string(bound));
      }
    }
  }
  pos_ += 8 * out.size();
}

std::uint64_t Reader::count(const char* field, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t v = u64(field);
  if (v < lo || v > hi) {
    fail(std::string(field) + " = " + std::to_string(v) + " is outside [" + std::to_string(lo) +
         ", " + std::to_string(hi) + "]");
  }
  return v;
}

Header Reader::header(Kind expected) {
  const std::uint32_t magic = u32("magic");
  if (magic != kMagic) fail("not a polyhe object (bad magic number)");
  const std::uint16_t version = u16("format version");
  if (version < kOldestFormatVersion || version > kFormatVersion) {
    fail("format version " + std::to_string(version) + " is not supported (this build reads " +
         std::to_string(kOldestFormatVersion) + " to " + std::to_string(kFormatVersion) + ")");
  }
  const std::uint16_t kind = u16("kind");
  if (kind != static_cast<std::uint16_t>(expected)) {
    std::string got = kind >= 1 && kind <= 8 ? to_string(static_cast<Kind>(kind))
                                             : "unknown kind " + std::to_string(kind);
    fail("expected a " + std::string(to_string(expected)) + ", found a " + got);
  }
  Header h{version, expected, u64("parameter hash"), u64("payload size")};
  if (h.payload_bytes != remaining()) {
    fail("payload size " + std::to_string(h.payload_bytes) + " does not match the " +
         std::to_string(remaining()) + " bytes that follow the header");
  }
  return h;
}

std::uint16_t format_version(std::span<const std::uint8_t> bytes) {
  Reader r(bytes, "object");
  if (r.u32("magic") != kMagic) r.fail("not a polyhe object (bad magic number)");
  return r.u16("format version");
}

void Reader::expect_end() {
  if (remaining() != 0) fail(std::to_string(remaining()) + " trailing bytes after the object");
}

}  // namespace polyhe::serial
