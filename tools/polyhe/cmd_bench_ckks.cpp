// `polyhe bench ckks`: RNS-CKKS operations at one parameter set, as JSON lines or a markdown table.
#include <ostream>
#include <vector>

#include "bench_ckks.hpp"
#include "commands.hpp"
#include "polyhe/cpu/features.hpp"
#include "scheme_bench.hpp"
#include "sysinfo.hpp"
#include "text.hpp"

namespace polyhe::cli {

int cmd_bench_ckks(const BenchCkksArgs& args, std::ostream& out, std::ostream& err) {
  const BenchCkksConfig config = make_bench_ckks_config(args);
  const rlwe::ParametersPtr params = make_ckks_parameters(config);
  auto note = [&](const std::string& line) { err << "polyhe bench: " << one_line(line) << '\n'; };
  if (args.json) {
    run_bench_ckks(
        config, params,
        [&](const CkksMeasurement& cm) {
          out << ckks_json(*params, config.scale_bits, cm) << std::endl;
        },
        note);
    return 0;
  }
  out << bench_title("CKKS", config.backend, config.threads) << "\n\n"
      << ckks_parameters_line(*params, config.scale_bits) << "\n\n"
      << scheme_table_header() << std::flush;
  std::vector<CkksMeasurement> ms;
  run_bench_ckks(
      config, params,
      [&](const CkksMeasurement& cm) {
        ms.push_back(cm);
        out << scheme_table_row(cm.m, cm.level) << std::flush;
      },
      note);
  out << '\n' << ckks_table_notes(ms);
  return 0;
}

}  // namespace polyhe::cli
