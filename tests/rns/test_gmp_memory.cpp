// GMP out of memory is std::bad_alloc, not abort() (issue 19): once polyhe has made an RnsBasis,
// GMP allocates through polyhe's throwing functions. Checked in a child process whose address
// space is capped (RLIMIT_AS), so the failing allocation is real. Not built under
// AddressSanitizer, whose shadow memory cannot live under such a cap.
#include <gmpxx.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "polyhe/rns/basis.hpp"

namespace polyhe {
namespace {

void cap_address_space(rlim_t bytes) {
  const rlimit limit{bytes, bytes};
  if (setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(4);
}

// 0: GMP threw std::bad_alloc; 1: the allocation succeeded (cap not effective); 2: another
// exception. abort() would end the child with SIGABRT instead.
[[noreturn]] void grow_past_cap() {
  const std::vector<std::uint64_t> primes = {(std::uint64_t{1} << 61) - 1};
  const RnsBasis basis(primes);  // installs the throwing functions
  cap_address_space(std::size_t{512} << 20);
  try {
    mpz_class x = 1;
    mpz_mul_2exp(x.get_mpz_t(), x.get_mpz_t(), std::uint64_t{1} << 34);  // 2 GiB of limbs
    std::_Exit(x > 0 ? 1 : 3);
  } catch (const std::bad_alloc&) {
    std::_Exit(0);
  } catch (...) {
    std::_Exit(2);
  }
}

TEST(GmpMemoryDeathTest, OutOfMemoryThrowsBadAlloc) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(grow_past_cap(), testing::ExitedWithCode(0), "");
}

// A program that installed its own GMP functions keeps them.
void* custom_allocate(std::size_t n) {
  return std::malloc(n);
}
void* custom_reallocate(void* p, std::size_t, std::size_t n) {
  return std::realloc(p, n);
}
void custom_free(void* p, std::size_t) {
  std::free(p);
}

[[noreturn]] void keep_custom_functions() {
  mp_set_memory_functions(&custom_allocate, &custom_reallocate, &custom_free);
  const std::vector<std::uint64_t> primes = {(std::uint64_t{1} << 61) - 1};
  const RnsBasis basis(primes);
  void* (*alloc)(std::size_t) = nullptr;
  mp_get_memory_functions(&alloc, nullptr, nullptr);
  std::_Exit(alloc == &custom_allocate ? 0 : 1);
}

TEST(GmpMemoryDeathTest, CallersOwnFunctionsAreKept) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(keep_custom_functions(), testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace polyhe
