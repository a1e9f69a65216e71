// `polyhe bench --backend cuda`: the CUDA suite (bench_cuda.hpp) as a markdown table or as JSON
// lines, on device 0. Compiled only when polyhe has its CUDA backend.
#include <ostream>

#include "bench_cuda.hpp"
#include "commands.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/gpu_info.hpp"
#include "polyhe/core/error.hpp"
#include "text.hpp"
#include "usage.hpp"

namespace polyhe::cli {

int cmd_bench_cuda(const BenchCudaArgs& args, std::ostream& out, std::ostream& err) {
  CudaSuiteConfig config;
  config.log_ns = parse_int_list(args.log_n, "--log-n", 10, 17);
  if (!(args.min_time_s > 0 && args.min_time_s <= 600)) {
    throw UsageError("--min-time " + fixed(args.min_time_s, 3) + ": expected 0 < seconds <= 600");
  }
  config.timing.min_time_s = args.min_time_s;

  std::string why;
  if (gpus(&why).empty()) {
    throw Error("bench --backend cuda: no usable CUDA device: " + why);
  }
  std::shared_ptr<const cuda::Context> ctx;
  try {
    ctx = cuda::Context::create(0);
  } catch (const Error& e) {
    throw Error(std::string("bench --backend cuda: no usable CUDA device: ") + e.what());
  }
  const GpuInfo& gpu = ctx->info();
  auto note = [&](const std::string& line) {
    err << "polyhe bench: " << one_line(line) << std::endl;
  };
  if (args.json) {
    run_bench_cuda(
        ctx, config, [&](const CudaRow& r) { out << cuda_row_json(r) << std::endl; }, note);
    return 0;
  }
  out << "CUDA benchmark on " << gpu.name << " (compute " << gpu.compute_major << '.'
      << gpu.compute_minor << ", " << gpu.multiprocessors << " SMs, L2 "
      << ctx->l2_bytes() / (1 << 20) << " MiB): device times from CUDA events, per call (per "
      << "limb for batches); floor = max(bytes over the measured device copy rate, products "
      << "over the measured multiply rate), or the transfer floor for streamed products\n\n"
      << cuda_table_header() << std::flush;
  run_bench_cuda(
      ctx, config, [&](const CudaRow& r) { out << cuda_table_row(r) << std::flush; }, note);
  return 0;
}

}  // namespace polyhe::cli
