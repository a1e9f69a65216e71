// `polyhe info`: the build, the CPU and its features, the GPUs, and what the NTT layer serves.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/variant.hpp"
#include "polyhe/version.hpp"
#include "sysinfo.hpp"
#include "text.hpp"

namespace polyhe::cli {

namespace {

constexpr std::size_t kMaxLogN = NttPlan<std::uint64_t>::kMaxLogN;

/// Largest NTT prime on a word of `bits` bits: len(q) ≤ β − 2 (NttPlan's range).
constexpr int max_prime_bits(int word) {
  return word - 2;
}

std::string gpu_line(const GpuInfo& g) {
  return std::to_string(g.index) + ": " + g.name + " (compute " + std::to_string(g.compute_major) +
         "." + std::to_string(g.compute_minor) + ", " +
         fixed(static_cast<double>(g.global_memory_bytes) / (1ULL << 30), 1) + " GiB, " +
         std::to_string(g.multiprocessors) + " SMs)";
}

/// Where the schemes can run (`--backend` of the scheme benchmarks): the CPU always, the emulated
/// device always (for correctness), cuda with device 0's name when a GPU is usable.
std::vector<std::string> backends(const GpuReport& gpu) {
  std::vector<std::string> out = {"cpu", "cuda-emulated"};
  if (!gpu.gpus.empty()) out.push_back("cuda (device 0: " + gpu.gpus.front().name + ")");
  return out;
}

nlohmann::json info_json() {
  using nlohmann::json;
  json features = json::object();
  for (const CpuFeature& f : cpu_feature_list()) features[f.name] = f.present;
  const GpuReport gpu = gpu_report();
  json gpus = json::array();
  for (const GpuInfo& g : gpu.gpus) {
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"compute_capability",
                     std::to_string(g.compute_major) + "." + std::to_string(g.compute_minor)},
                    {"global_memory_bytes", g.global_memory_bytes},
                    {"multiprocessors", g.multiprocessors}});
  }
  json variants = json::array();
  for (NttVariant v : kAllNttVariants) variants.push_back(std::string(to_string(v)));
  json j = {
      {"version", kVersion},
      {"build_type", build_type()},
      {"compiler", compiler()},
      {"cpu",
       {{"model", cpu_model()},
        {"logical_cores", logical_cores()},
        {"features", features},
        {"kernel_path", cpu_path_line()}}},
      {"cuda", {{"compiled", gpu.cuda_compiled}, {"gpus", gpus}}},
      {"ntt",
       {{"variants", variants},
        {"default_variant", std::string(to_string(kDefaultNttVariant))},
        {"max_log_n", kMaxLogN},
        {"max_n", std::size_t{1} << kMaxLogN}}},
      {"words", json::array({{{"bits", word_bits<std::uint32_t>},
                              {"max_prime_bits", max_prime_bits(word_bits<std::uint32_t>)}},
                             {{"bits", word_bits<std::uint64_t>},
                              {"max_prime_bits", max_prime_bits(word_bits<std::uint64_t>)}}})}};
  if (gpu.gpus.empty()) j["cuda"]["why_none"] = gpu.why_none;
  j["backends"] = backends(gpu);
  return j;
}

void print_text(std::ostream& out) {
  out << "polyhe " << kVersion << '\n';
  out << "build         " << build_type() << ", " << compiler() << '\n';
  out << "cpu           " << cpu_model() << " (" << logical_cores() << " logical cores)\n";
  const auto features = cpu_feature_list();
  out << "cpu features  ";
  if (features.empty()) out << "(none checked on this architecture)";
  for (std::size_t i = 0; i < features.size(); ++i) {
    out << (i ? ", " : "") << features[i].name << (features[i].present ? " yes" : " no");
  }
  out << '\n';
  out << "cpu kernels   " << cpu_path_line() << '\n';
  const GpuReport gpu = gpu_report();
  out << "cuda          " << (gpu.cuda_compiled ? "compiled" : "not compiled") << '\n';
  if (gpu.gpus.empty()) out << "gpus          none (" << gpu.why_none << ")\n";
  for (const GpuInfo& g : gpu.gpus) out << "gpu           " << gpu_line(g) << '\n';
  out << "backends      ";
  const std::vector<std::string> b = backends(gpu);
  for (std::size_t i = 0; i < b.size(); ++i) out << (i ? ", " : "") << b[i];
  out << '\n';
  out << "ntt variants  ";
  for (std::size_t i = 0; i < kAllNttVariants.size(); ++i) {
    const NttVariant v = kAllNttVariants[i];
    out << (i ? ", " : "") << to_string(v) << (v == kDefaultNttVariant ? " (default)" : "");
  }
  out << '\n';
  out << "words         32-bit: primes up to " << max_prime_bits(32)
      << " bits; 64-bit: primes up to " << max_prime_bits(64) << " bits\n";
  out << "max N         2^" << kMaxLogN << " = " << (std::size_t{1} << kMaxLogN) << '\n';
}

}  // namespace

int cmd_info(const InfoOptions& opt, std::ostream& out) {
  if (opt.json) {
    out << info_json().dump() << '\n';
  } else {
    print_text(out);
  }
  return 0;
}

}  // namespace polyhe::cli
