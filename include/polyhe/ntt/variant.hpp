// The NTT variants: one per reduction algorithm, the lazy Harvey path, and the reference.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace polyhe {

enum class NttVariant {
  reference,          // plain radix-2, every product reduced by a double-word `%`
  shoup_lazy,         // Harvey's lazy butterflies with Shoup twiddles: the default CPU path
  shoup,              // Shoup twiddles, fully reduced butterflies
  barrett_classical,  // [GPU-Polymul, Alg. 2] in every butterfly
  barrett_dq,         // [GPU-Polymul, Alg. 3]
  barrett_alg4,       // [GPU-Polymul, Alg. 4]
  montgomery,         // [FPGA-FV, Alg. 4], twiddles in Montgomery form
  montgomery_ntt,     // [FPGA-FV, Alg. 5], twiddles in its Montgomery form
};

inline constexpr NttVariant kDefaultNttVariant = NttVariant::shoup_lazy;

inline constexpr std::array<NttVariant, 8> kAllNttVariants = {
    NttVariant::reference,         NttVariant::shoup_lazy,    NttVariant::shoup,
    NttVariant::barrett_classical, NttVariant::barrett_dq,    NttVariant::barrett_alg4,
    NttVariant::montgomery,        NttVariant::montgomery_ntt};

/// The variant's name as the CLI and the benchmark JSON spell it ("shoup-lazy", ...).
std::string_view to_string(NttVariant v);

/// The variant named `name`, or nothing.
std::optional<NttVariant> parse_ntt_variant(std::string_view name);

}  // namespace polyhe
