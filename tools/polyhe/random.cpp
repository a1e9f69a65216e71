#include "random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "polyhe/core/error.hpp"

namespace polyhe::cli {

std::uint64_t os_seed() {
  std::uint64_t seed = 0;
  auto* p = reinterpret_cast<unsigned char*>(&seed);
  std::size_t got = 0;
  while (got < sizeof seed) {
    const ssize_t r = getrandom(p + got, sizeof seed - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("getrandom failed: ") + std::strerror(errno));
    }
    got += static_cast<std::size_t>(r);
  }
  return seed;
}

std::uint64_t InputRng::uniform(std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t span = hi - lo;
  if (span == ~std::uint64_t{0}) return next();
  const std::uint64_t range = span + 1;
  // Accept x below the largest multiple of `range` that fits 2^64: every residue equally likely.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % range + 1) % range;
  std::uint64_t x = next();
  while (x > limit) x = next();
  return lo + x % range;
}

}  // namespace polyhe::cli
