#!/usr/bin/env bash
# Builds the tests of shared use from several threads with ThreadSanitizer (preset tsan: gcc,
# Debug at -O1, CUDA and benchmarks off; only these targets) and runs them. Fails on any
# failed test or ThreadSanitizer report (halt_on_error=1; no suppressions).
#
#   test_thread_pool       the library's pool (also with POLYHE_THREADS set, as CTest runs it)
#   test_wipe              core/wipe.hpp: per-thread scratch and the secret scope
#   test_ring_sampler      SeedSource shared by threads (the seed stream of encryptors)
#   test_ckks_concurrency  threads sharing one CKKS evaluator, encryptor, decryptor and keys
#   test_bgv_concurrency   the same for BFV and BGV
#   test_cyclic_lazy       cyclic plans' tables built on first use by several threads at once,
#                          and the index tables shared across plans
#
# The default pool gets 4 threads (POLYHE_THREADS), so that its workers run beside the test's
# own threads whatever the machine's core count. Extra arguments go to every test binary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset tsan
cmake --build --preset tsan
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export POLYHE_THREADS=4
build=build/tsan/tests
run() {
  echo "== tsan: $*"
  "$@"
}
# The pool's own tests: once as they run by default (set_thread_count's replacement of the pool
# under a running job among them), once with POLYHE_THREADS set.
run env -u POLYHE_THREADS "$build/core/test_thread_pool" "$@"
POLYHE_TEST_EXPECT_THREADS=4 run "$build/core/test_thread_pool" --gtest_filter='ThreadPoolEnvironment.*' "$@"
run "$build/core/test_wipe" "$@"
run "$build/ring/test_ring_sampler" "$@"
run "$build/ckks/test_ckks_concurrency" "$@"
run "$build/bgv/test_bgv_concurrency" "$@"
run "$build/ntt/cyclic/test_cyclic_lazy" "$@"
echo "== tsan: clean"
