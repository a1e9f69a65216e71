// `polyhe`: the command-line tool. Everything but binding the process's streams is in cli.cpp.
#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  const int status = polyhe::cli::run(args, std::cin, std::cout, std::cerr);
  errno = 0;
  std::cout.flush();
  if (!std::cout) {
    // Output that never arrived (a full disk, a closed pipe, /dev/full) is not success.
    const int error = errno;
    std::cerr << "polyhe: error: writing to standard output failed"
              << (error != 0 ? std::string(": ") + std::strerror(error) : std::string())
              << "; the output is incomplete" << std::endl;
    return polyhe::cli::kExitBadInput;
  }
  return status;
}
