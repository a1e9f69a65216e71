#include "polyhe/ntt/variant.hpp"

namespace polyhe {

std::string_view to_string(NttVariant v) {
  switch (v) {
    case NttVariant::reference: return "reference";
    case NttVariant::shoup_lazy: return "shoup-lazy";
    case NttVariant::shoup: return "shoup";
    case NttVariant::barrett_classical: return "barrett-classical";
    case NttVariant::barrett_dq: return "barrett-dq";
    case NttVariant::barrett_alg4: return "barrett-alg4";
    case NttVariant::montgomery: return "montgomery";
    case NttVariant::montgomery_ntt: return "montgomery-ntt";
  }
  return "unknown";
}

std::optional<NttVariant> parse_ntt_variant(std::string_view name) {
  for (NttVariant v : kAllNttVariants) {
    if (to_string(v) == name) return v;
  }
  return std::nullopt;
}

}  // namespace polyhe
