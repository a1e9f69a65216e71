// `polyhe bench ntt`: the NTT benchmark as a markdown table or as JSON lines.
#include <ostream>

#include "bench_ntt.hpp"
#include "commands.hpp"
#include "sysinfo.hpp"
#include "text.hpp"

namespace polyhe::cli {

int cmd_bench_ntt(const BenchNttArgs& args, std::ostream& out, std::ostream& err) {
  const BenchNttConfig config = make_bench_ntt_config(args);
  auto note = [&](const std::string& line) { err << "polyhe bench: " << one_line(line) << '\n'; };
  if (args.json) {
    run_bench_ntt(
        config, [&](const Measurement& m) { out << measurement_json(m) << std::endl; }, note);
    return 0;
  }
  const std::size_t limbs = config.threads > 1 ? 2 * std::size_t{config.threads} : 1;
  out << "NTT benchmark on " << cpu_model() << ": " << config.threads
      << (config.threads == 1 ? " thread, " : " threads, ") << limbs
      << (limbs == 1 ? " limb" : " limbs") << " per call, times per call\n\n"
      << markdown_table_header() << std::flush;
  run_bench_ntt(
      config, [&](const Measurement& m) { out << markdown_table_row(m) << std::flush; }, note);
  return 0;
}

}  // namespace polyhe::cli
