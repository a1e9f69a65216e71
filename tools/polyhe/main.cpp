// `polyhe`: the command-line tool. Everything but binding the process's streams is in cli.cpp.
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  const int status = polyhe::cli::run(args, std::cin, std::cout, std::cerr);
  std::cout.flush();
  return status;
}
