#include "polymul_input.hpp"

#include <array>
#include <istream>
#include <nlohmann/json.hpp>
#include <string>

#include "polyhe/core/error.hpp"

namespace polyhe::cli {

namespace {

using nlohmann::json;

/// A string from the input, quoted and escaped for a one-line message, cut after 40 bytes.
std::string quote_input(std::string_view s) {
  constexpr std::size_t kMax = 40;
  const bool cut = s.size() > kMax;
  const std::string shown =
      json(std::string(s.substr(0, kMax))).dump(-1, ' ', false, json::error_handler_t::replace);
  return cut ? shown.substr(0, shown.size() - 1) + "...\"" : shown;
}

const char* const kShape = R"(expected {"q": Q, "a": [...], "b": [...]})";

/// Builds a PolymulInput from SAX events, refusing anything outside the schema at the first
/// offending event (so deep nesting or huge arrays cost nothing).
class PolymulSax final : public nlohmann::json_sax<json> {
 public:
  bool null() override { return reject("null"); }
  bool boolean(bool) override { return reject("a boolean"); }
  bool binary(binary_t&) override { return reject("binary data"); }

  bool number_integer(number_integer_t v) override {
    check_scalar_place("a number");
    if (v < 0) throw CorruptData(where() + " = " + std::to_string(v) + " is negative" + rule());
    return store(static_cast<std::uint64_t>(v));
  }
  bool number_unsigned(number_unsigned_t v) override { return store(v); }
  bool number_float(number_float_t, const string_t& text) override {
    check_scalar_place("a number");
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == string_t::npos;
    if (digits) throw CorruptData(where() + " = " + text + " exceeds 2^64 - 1");
    if (!text.empty() && text[0] == '-') {
      throw CorruptData(where() + " = " + text + " is negative" + rule());
    }
    throw CorruptData(where() + " = " + text + " is not an integer" + rule());
  }
  bool string(string_t& s) override {
    check_scalar_place("a string");
    return store(parse_decimal_u64(s, where()));
  }

  bool start_object(std::size_t) override {
    if (depth_ != 0) return reject("an object");
    depth_ = 1;
    return true;
  }
  bool key(string_t& k) override {
    const std::size_t slot = k == "q" ? 0 : k == "a" ? 1 : k == "b" ? 2 : 3;
    if (slot == 3) {
      throw CorruptData("unknown key " + quote_input(k) + "; the only keys are q, a and b");
    }
    if (seen_[slot]) throw CorruptData("duplicate key " + quote_input(k));
    seen_[slot] = true;
    key_ = slot;
    return true;
  }
  bool end_object() override {
    depth_ = 0;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ != 1 || key_ == 0) return reject("an array");
    depth_ = 2;
    current().clear();
    return true;
  }
  bool end_array() override {
    depth_ = 1;
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0) what.erase(0, what.find(']') + 1);
    throw CorruptData("malformed JSON:" + what);
  }

  PolymulInput take() {
    static constexpr std::array<const char*, 3> kNames = {"q", "a", "b"};
    for (std::size_t i = 0; i < 3; ++i) {
      if (!seen_[i]) throw CorruptData(std::string("missing key \"") + kNames[i] + "\"; " + kShape);
    }
    return std::move(input_);
  }

 private:
  std::vector<std::uint64_t>& current() { return key_ == 1 ? input_.a : input_.b; }

  /// The name of the value the next scalar event is: q, a[i] or b[i].
  std::string where() {
    if (depth_ == 2) {
      return std::string(key_ == 1 ? "a" : "b") + "[" + std::to_string(current().size()) + "]";
    }
    return key_ == 0 ? "q" : key_ == 1 ? "a" : "b";
  }
  static std::string rule() { return "; integers must be in [0, 2^64 - 1]"; }

  /// A scalar may stand only as q or as an element of a or b.
  void check_scalar_place(const char* kind) {
    if (depth_ == 0) {
      throw CorruptData(std::string("the input is ") + kind + ", not an object; " + kShape);
    }
    if (depth_ == 1 && key_ != 0) {
      throw CorruptData(where() + " must be an array of integers, not " + kind);
    }
  }
  bool reject(const char* kind) {
    if (depth_ == 0) {
      throw CorruptData(std::string("the input is ") + kind + ", not an object; " + kShape);
    }
    if (depth_ == 1 && key_ != 0) {
      throw CorruptData(where() + " must be an array of integers, not " + kind);
    }
    throw CorruptData(where() + " must be an integer (a JSON number or a decimal string), not " +
                      kind);
  }
  bool store(std::uint64_t v) {
    check_scalar_place("a number");
    if (depth_ == 1) {
      input_.q = v;
      return true;
    }
    if (current().size() == kMaxPolymulLength) {
      throw CorruptData(std::string(key_ == 1 ? "a" : "b") + " has more than " +
                        std::to_string(kMaxPolymulLength) + " coefficients; N is at most 2^17");
    }
    current().push_back(v);
    return true;
  }

  PolymulInput input_;
  std::array<bool, 3> seen_{};
  std::size_t key_ = 0;  // 0: q, 1: a, 2: b
  int depth_ = 0;        // 0: outside, 1: in the object, 2: in a or b
};

}  // namespace

std::uint64_t parse_decimal_u64(std::string_view text, std::string_view what) {
  const std::string shown = std::string(what) + " = " + quote_input(text);
  if (text.empty()) throw CorruptData(shown + " is empty; expected decimal digits");
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      throw CorruptData(shown + " is not a decimal integer (digits only, no sign or spaces)");
    }
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (~std::uint64_t{0} - digit) / 10) throw CorruptData(shown + " exceeds 2^64 - 1");
    value = value * 10 + digit;
  }
  return value;
}

PolymulInput read_polymul_input(std::istream& in) {
  // Read whole but bounded: the JSON reader keeps a token, and the whitespace before it, in
  // memory, so unbounded input would be unbounded memory.
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    if (text.size() + static_cast<std::size_t>(in.gcount()) > kMaxPolymulInputBytes) {
      throw CorruptData("the input exceeds " + std::to_string(kMaxPolymulInputBytes >> 20) +
                        " MiB; two arrays of 2^17 decimal coefficients need less than 12");
    }
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  // JSON text has no NUL byte, and nlohmann's reader would stop at one, taking what follows for
  // no input at all.
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    throw CorruptData("the input has a NUL byte at byte offset " + std::to_string(nul) +
                      "; JSON text cannot contain one");
  }
  PolymulSax sax;
  json::sax_parse(text, &sax);
  return sax.take();
}

}  // namespace polyhe::cli
