// `polyhe polymul`: c = a·b mod (x^N + 1, q) for JSON on stdin, JSON on stdout.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "commands.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/polymul.hpp"
#include "polymul_input.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

NttVariant variant_named(const std::string& name) {
  if (name.empty()) return kDefaultNttVariant;
  if (auto v = parse_ntt_variant(name)) return *v;
  std::string names;
  for (NttVariant v : kAllNttVariants)
    names += (names.empty() ? "" : ", ") + std::string(to_string(v));
  throw UsageError("--variant: unknown NTT variant '" + name + "'; the variants are " + names);
}

/// The rules the arithmetic imposes, in the order a reader would check them; CorruptData or
/// InvalidParameter naming the value otherwise.
std::shared_ptr<const NttPlan<std::uint64_t>> validated_plan(const PolymulInput& in) {
  const std::size_t n = in.a.size();
  if (in.a.empty() || in.b.empty()) {
    throw CorruptData(std::string(in.a.empty() ? "a" : "b") +
                      " is empty; N must be a power of two in [2, 2^17]");
  }
  if (in.a.size() != in.b.size()) {
    throw CorruptData("a has " + std::to_string(in.a.size()) + " coefficients but b has " +
                      std::to_string(in.b.size()) + "; they must have the same length N");
  }
  if (n < 2 || !is_power_of_two(n) || n > kMaxPolymulLength) {
    throw CorruptData("N = " + std::to_string(n) +
                      " (the length of a and b) is not a power of two in [2, 2^17]");
  }
  constexpr int kMaxBits = word_bits<std::uint64_t> - 2;
  if (bit_length(in.q) > kMaxBits) {
    throw InvalidParameter("q = " + std::to_string(in.q) + " is too large: it has " +
                           std::to_string(bit_length(in.q)) + " bits, at most " +
                           std::to_string(kMaxBits) + " are supported");
  }
  auto plan = NttPlan<std::uint64_t>::create(n, in.q);  // q prime and q ≡ 1 mod 2N
  for (const auto* poly : {&in.a, &in.b}) {
    for (std::size_t i = 0; i < n; ++i) {
      if ((*poly)[i] >= in.q) {
        throw CorruptData(std::string(poly == &in.a ? "a" : "b") + "[" + std::to_string(i) +
                          "] = " + std::to_string((*poly)[i]) +
                          " is not below q = " + std::to_string(in.q));
      }
    }
  }
  return plan;
}

}  // namespace

int cmd_polymul(const PolymulOptions& opt, std::istream& in, std::ostream& out) {
  const NttVariant variant = variant_named(opt.variant);
  const PolymulInput input = read_polymul_input(in);
  const auto plan = validated_plan(input);
  plan->require(variant);
  std::vector<std::uint64_t> c(plan->n());
  if (opt.fused) {
    polymul_fused<std::uint64_t>(input.a, input.b, c, *plan, variant);
  } else {
    polymul<std::uint64_t>(input.a, input.b, c, *plan, variant);
  }
  nlohmann::json coeffs = nlohmann::json::array();
  for (std::uint64_t x : c) coeffs.push_back(std::to_string(x));
  out << nlohmann::json{{"c", std::move(coeffs)}}.dump() << '\n';
  return 0;
}

}  // namespace polyhe::cli
