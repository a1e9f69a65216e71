// polyhe._polyhe.Parameters: rlwe::ParametersLiteral → checked rlwe::Parameters, serialised and
// loaded under the caller's security policy.
#include <polyhe/core/error.hpp>
#include <polyhe/rlwe/serial.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "objects.hpp"

namespace polyhe::python {

rlwe::SecurityLevel parse_security(const std::string& s) {
  if (s == "128") return rlwe::SecurityLevel::bits128;
  if (s == "192") return rlwe::SecurityLevel::bits192;
  if (s == "256") return rlwe::SecurityLevel::bits256;
  if (s == "none") return rlwe::SecurityLevel::insecure_none;
  throw InvalidParameter("security: '" + s + "' is not a level (128, 192, 256, or 'none' to opt " +
                         "out of the check by name)");
}

std::string security_name(rlwe::SecurityLevel s) {
  switch (s) {
    case rlwe::SecurityLevel::bits128: return "128";
    case rlwe::SecurityLevel::bits192: return "192";
    case rlwe::SecurityLevel::bits256: return "256";
    case rlwe::SecurityLevel::insecure_none: return "none";
  }
  return "unknown";
}

void bind_parameters(nb::module_& m) {
  nb::class_<Params>(m, "Parameters",
                     "Checked RLWE parameters (rlwe::Parameters): the ring, the primes of Q and P, "
                     "dnum, the secret's distribution and the security level, with every table "
                     "built once. Immutable; objects made under two Parameters never mix.")
      .def(
          "__init__",
          [](Params* self, int log_n, std::size_t m_index, std::vector<int> q_bits,
             std::vector<std::uint64_t> q, std::vector<int> p_bits, std::vector<std::uint64_t> p,
             std::size_t dnum, std::size_t hamming_weight, const std::string& security) {
            rlwe::ParametersLiteral lit;
            lit.log_n = log_n;
            lit.m = m_index;
            lit.q_bits = std::move(q_bits);
            lit.q = std::move(q);
            lit.p_bits = std::move(p_bits);
            lit.p = std::move(p);
            lit.dnum = dnum;
            lit.hamming_weight = hamming_weight;
            lit.security = parse_security(security);
            rlwe::ParametersPtr made;
            {
              nb::gil_scoped_release release;
              made = rlwe::Parameters::create(lit);
            }
            new (self) Params{std::move(made)};
          },
          nb::arg("log_n"), nb::arg("m"), nb::arg("q_bits"), nb::arg("q"), nb::arg("p_bits"),
          nb::arg("p"), nb::arg("dnum"), nb::arg("hamming_weight"), nb::arg("security"))
      .def_prop_ro("n", [](const Params& s) { return s.ptr->n(); })
      .def_prop_ro("log_n", [](const Params& s) { return s.ptr->log_n(); })
      .def_prop_ro("m", [](const Params& s) { return s.ptr->m(); })
      .def_prop_ro("max_level", [](const Params& s) { return s.ptr->max_level(); })
      .def_prop_ro("q_primes", [](const Params& s) { return s.ptr->q_primes(); })
      .def_prop_ro("p_primes", [](const Params& s) { return s.ptr->p_primes(); })
      .def_prop_ro("dnum", [](const Params& s) { return s.ptr->dnum(); })
      .def_prop_ro("hamming_weight", [](const Params& s) { return s.ptr->hamming_weight(); })
      .def_prop_ro("security", [](const Params& s) { return security_name(s.ptr->security()); })
      .def_prop_ro("log_qp", [](const Params& s) { return s.ptr->log_qp(); })
      .def_prop_ro("hash", [](const Params& s) { return s.ptr->hash(); })
      .def("same_object", [](const Params& s, const Params& o) { return s.ptr == o.ptr; })
      .def("serialize", [](const Params& s) { return to_bytes(rlwe::serialize(*s.ptr)); })
      .def_static(
          "load",
          [](nb::handle data, const std::string& minimum) {
            const auto level = parse_security(minimum);
            const ByteInput bytes(data);
            rlwe::ParametersPtr made;
            {
              nb::gil_scoped_release release;
              made = rlwe::load_parameters(bytes.span(), level);
            }
            return Params{std::move(made)};
          },
          nb::arg("data"), nb::arg("minimum_security"));
}

}  // namespace polyhe::python
