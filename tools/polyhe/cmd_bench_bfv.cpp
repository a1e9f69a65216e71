// `polyhe bench bfv`: BFV operations at one parameter set, as JSON lines or a markdown table.
#include <ostream>
#include <vector>

#include "bench_bfv.hpp"
#include "commands.hpp"
#include "polyhe/cpu/features.hpp"
#include "sysinfo.hpp"
#include "text.hpp"

namespace polyhe::cli {

int cmd_bench_bfv(const BenchIntegerArgs& args, std::ostream& out, std::ostream& err) {
  const BenchIntegerConfig config = make_bench_integer_config(args, IntegerScheme::bfv);
  const bgv::ContextPtr ctx = make_bfv_context(config);
  const rlwe::Parameters& params = *ctx->params();
  auto note = [&](const std::string& line) { err << "polyhe bench: " << one_line(line) << '\n'; };
  if (args.json) {
    for (const IntegerOp op : config.skipped) {
      note(std::string(to_string(op)) + " not run: t = " + std::to_string(config.plain_modulus) +
           " does not batch");
    }
    run_bench_bfv(
        config, ctx,
        [&](const IntegerMeasurement& im) { out << integer_json(config, params, im) << std::endl; },
        note);
    return 0;
  }
  out << "BFV benchmark on " << cpu_model() << ": " << config.threads
      << (config.threads == 1 ? " thread" : " threads") << ", CPU path " << to_string(cpu_path())
      << "\n\n"
      << integer_parameters_line(config, params) << "\n\n"
      << integer_table_header() << std::flush;
  std::vector<IntegerMeasurement> ms;
  run_bench_bfv(
      config, ctx,
      [&](const IntegerMeasurement& im) {
        ms.push_back(im);
        out << integer_table_row(im) << std::flush;
      },
      note);
  out << '\n' << integer_table_notes(config, ms);
  return 0;
}

}  // namespace polyhe::cli
