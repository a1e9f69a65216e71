// polyhe._polyhe: the module's entry point, and the process-wide settings (CPU path, threads).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <polyhe/core/error.hpp>
#include <polyhe/core/thread_pool.hpp>
#include <polyhe/cpu/features.hpp>
#include <polyhe/version.hpp>

#include <string>
#include <vector>

#include "bindings.hpp"

namespace polyhe::python {

void bind_system(nb::module_& m) {
  m.attr("__version__") = kVersion;

  m.def(
      "cpu_path", [] { return std::string(to_string(cpu_path())); },
      "The active CPU kernel path: 'scalar', 'avx2', 'avx512' or 'ifma' (POLYHE_CPU when set, "
      "else the best this CPU supports).");
  m.def(
      "set_cpu_path",
      [](const std::string& name) {
        const auto p = parse_cpu_path(name);
        if (!p) {
          throw InvalidParameter("set_cpu_path: unknown CPU path '" + name +
                                 "' (one of scalar, avx2, avx512, ifma)");
        }
        set_cpu_path(*p);
      },
      nb::arg("name"),
      "Sets the CPU kernel path for the whole process (a path this CPU lacks is refused with the "
      "reason).");
  m.def(
      "cpu_paths",
      [] {
        std::vector<std::string> out;
        for (const CpuPath p : kAllCpuPaths) {
          if (!cpu_path_unavailable_reason(p)) out.emplace_back(to_string(p));
        }
        return out;
      },
      "The CPU paths this machine and build can run, lowest first.");
  m.def("best_cpu_path_reason", &best_cpu_path_reason,
        "Why the best path is the one it is (the CPU's and the OS's features).");
  m.def("threads", &thread_count, "The size of the default thread pool.");
  m.def(
      "set_threads", [](unsigned n) { set_thread_count(n); }, nb::arg("n"),
      "Replaces the default thread pool with one of n threads (1 ≤ n ≤ 1024).");
}

NB_MODULE(_polyhe, m) {
  m.doc() =
      "polyhe's C++ core (nanobind). Use the package `polyhe`, which checks and converts what "
      "you pass; this module takes exact types.";
  bind_errors(m);
  bind_system(m);
  bind_device(m);
  bind_arith(m);
  bind_parameters(m);
  bind_keys(m);
  bind_ckks(m);
  bind_bgv(m);
}

}  // namespace polyhe::python
