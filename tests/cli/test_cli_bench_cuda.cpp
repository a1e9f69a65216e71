// `polyhe bench --backend cuda` in-process: the options it refuses, its help, and — on a machine
// without a usable device, or in a build without CUDA — the one error line naming the reason.
// The suite itself needs a GPU: with a device present the no-device test skips.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyhe/backend/gpu_info.hpp"
#include "run_cli.hpp"

namespace polyhe::test {
namespace {

TEST(CliBenchCuda, WithoutADeviceIsOneErrorLineNamingCuda) {
  std::string why;
  if (!gpus(&why).empty()) GTEST_SKIP() << "a CUDA device is present: the suite would run";
  const std::string reason =
      cuda_compiled() ? "no usable CUDA device: " + why : "this polyhe was built without CUDA";
  for (const auto& args : {std::vector<std::string>{"bench", "--backend", "cuda"},
                           {"bench", "--backend", "cuda", "--json", "--log-n", "10"},
                           {"bench", "ntt", "--backend", "cuda", "--min-time", "0.01"},
                           {"bench", "--backend", "cuda", "ntt", "--json"}}) {
    const CliResult r = run_cli(args);
    SCOPED_TRACE(args.back());
    expect_bad_input(r, "bench --backend cuda: " + reason);
    EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  }
  // The scheme benchmarks, with --backend after the name or before it.
  const std::string scheme_reason =
      cuda_compiled() ? "no usable CUDA device: " + why : "this polyhe was built without CUDA";
  for (const auto& args :
       {std::vector<std::string>{"bench", "ckks", "--backend", "cuda", "--log-n", "12"},
        {"bench", "--backend", "cuda", "bfv", "--log-n", "12"},
        {"bench", "bgv", "--backend", "cuda", "--json"}}) {
    const CliResult r = run_cli(args);
    SCOPED_TRACE(args[1] + " " + args[2]);
    expect_bad_input(r, "--backend cuda: " + scheme_reason);
  }
}

TEST(CliBenchCuda, HelpNamesTheBackendOption) {
  for (const auto& args :
       {std::vector<std::string>{"bench", "--help"}, {"bench", "ntt", "--help"}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("--backend"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cuda"), std::string::npos) << r.out;
  }
}

TEST(CliBenchCuda, RefusesOptionsThatDoNotApply) {
  expect_bad_input(run_cli({"bench", "--backend", "gpu"}), "--backend");
  expect_bad_input(run_cli({"bench", "ntt", "--backend", "opencl"}), "--backend");
  expect_bad_input(run_cli({"bench", "--backend", "cuda", "cyclic"}), "only");
  expect_bad_input(run_cli({"bench", "ntt", "--backend", "cuda", "--bits", "30"}), "--bits");
  expect_bad_input(run_cli({"bench", "ntt", "--backend", "cuda", "--threads", "2"}), "--threads");
  expect_bad_input(run_cli({"bench", "--json", "ntt"}), "put it after the name");
  // Without --backend cuda, `bench` alone still wants a benchmark name.
  const CliResult r = run_cli({"bench", "--backend", "cpu"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ntt"), std::string::npos);
  if (cuda_compiled()) {
    // The suite's own arguments are checked before the device is looked for.
    expect_bad_input(run_cli({"bench", "--backend", "cuda", "--log-n", "9"}), "--log-n");
    expect_bad_input(run_cli({"bench", "--backend", "cuda", "--min-time", "0"}), "--min-time");
  }
}

}  // namespace
}  // namespace polyhe::test
