// `polyhe bench bfv` and `polyhe bench bgv`: the operations of an integer scheme at one parameter
// set, as JSON lines or a markdown table.
#include <ostream>
#include <vector>

#include "bench_integer.hpp"
#include "commands.hpp"
#include "polyhe/cpu/features.hpp"
#include "scheme_bench.hpp"
#include "sysinfo.hpp"
#include "text.hpp"

namespace polyhe::cli {

namespace {

int cmd_bench_integer(const BenchIntegerArgs& args, IntegerScheme scheme, std::ostream& out,
                      std::ostream& err) {
  const BenchIntegerConfig config = make_bench_integer_config(args, scheme);
  const bgv::ContextPtr ctx = make_integer_context(config);
  const rlwe::Parameters& params = *ctx->params();
  auto note = [&](const std::string& line) { err << "polyhe bench: " << one_line(line) << '\n'; };
  if (args.json) {
    for (const SkippedOp& s : config.skipped)
      note(std::string(to_string(s.op)) + " not run: " + s.why);
    run_bench_integer(
        config, ctx,
        [&](const IntegerMeasurement& im) { out << integer_json(config, params, im) << std::endl; },
        note);
    return 0;
  }
  out << bench_title(scheme_title(scheme), config.backend, config.threads) << "\n\n"
      << integer_parameters_line(config, params) << "\n\n"
      << scheme_table_header() << std::flush;
  std::vector<IntegerMeasurement> ms;
  run_bench_integer(
      config, ctx,
      [&](const IntegerMeasurement& im) {
        ms.push_back(im);
        out << scheme_table_row(im.m, im.level) << std::flush;
      },
      note);
  out << '\n' << integer_table_notes(config, ms);
  return 0;
}

}  // namespace

int cmd_bench_bfv(const BenchIntegerArgs& args, std::ostream& out, std::ostream& err) {
  return cmd_bench_integer(args, IntegerScheme::bfv, out, err);
}

int cmd_bench_bgv(const BenchIntegerArgs& args, std::ostream& out, std::ostream& err) {
  return cmd_bench_integer(args, IntegerScheme::bgv, out, err);
}

}  // namespace polyhe::cli
