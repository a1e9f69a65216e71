// polyhe._polyhe.bgv: BGV and BFV (BGV's scale-invariant mode): the context (parameters, t, the
// scheme, the encoders), plaintexts, encryption, decryption with the noise budget, and the
// evaluator, over numpy uint64 and int64 arrays.
#include <polyhe/bgv/bgv.hpp>
#include <polyhe/bgv/context.hpp>
#include <polyhe/bgv/serial.hpp>
#include <polyhe/bgv/slot_array.hpp>
#include <polyhe/core/error.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "objects.hpp"

namespace polyhe::python {

namespace {

struct BgvContext {
  bgv::ContextPtr ptr;
};

bgv::Scheme parse_scheme(const std::string& s) {
  if (s == "bgv") return bgv::Scheme::bgv;
  if (s == "bfv") return bgv::Scheme::bfv;
  throw InvalidParameter("scheme: '" + s + "' is not one of 'bgv', 'bfv'");
}

/// A plaintext of ctx from N coefficients each < t (InvalidParameter naming the first bad one).
bgv::Plaintext plaintext_of(const bgv::Context& ctx, std::span<const std::uint64_t> coeffs) {
  if (coeffs.size() != ctx.n()) {
    throw InvalidParameter("plaintext: " + std::to_string(coeffs.size()) +
                           " coefficients, expected N = " + std::to_string(ctx.n()));
  }
  const std::uint64_t t = ctx.t().value();
  for (std::size_t i = 0; i < coeffs.size(); ++i) {
    if (coeffs[i] >= t) {
      throw InvalidParameter("plaintext: coefficient " + std::to_string(i) + " = " +
                             std::to_string(coeffs[i]) + " is not below t = " + std::to_string(t));
    }
  }
  return bgv::Plaintext{{coeffs.begin(), coeffs.end()}};
}

}  // namespace

void bind_bgv(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("bgv", "BGV and BFV (low level).");

  nb::class_<bgv::Plaintext>(m, "Plaintext",
                             "The N coefficients of m in Z_t[x]/(x^N + 1), each in [0, t).")
      .def_prop_ro(
          "coefficients",
          [](const bgv::Plaintext& p) { return to_numpy(std::vector<std::uint64_t>(p.coeffs)); },
          nb::rv_policy::move);  // a new array that owns its words, not a view into p

  nb::class_<BgvContext>(m, "Context", "Parameters with a plaintext modulus t and a scheme.")
      .def(
          "__init__",
          [](BgvContext* self, const Params& params, std::uint64_t t, const std::string& scheme) {
            const auto s = parse_scheme(scheme);
            bgv::ContextPtr made;
            {
              nb::gil_scoped_release release;
              made = bgv::Context::create(params.ptr, t, s);
            }
            new (self) BgvContext{std::move(made)};
          },
          nb::arg("params"), nb::arg("t"), nb::arg("scheme"))
      .def_prop_ro("params", [](const BgvContext& c) { return Params{c.ptr->params()}; })
      .def_prop_ro("t", [](const BgvContext& c) { return c.ptr->t().value(); })
      .def_prop_ro("n", [](const BgvContext& c) { return c.ptr->n(); })
      .def_prop_ro("scheme",
                   [](const BgvContext& c) { return std::string(bgv::to_string(c.ptr->scheme())); })
      .def_prop_ro("batching", [](const BgvContext& c) { return c.ptr->batching(); })
      .def_prop_ro("max_level", [](const BgvContext& c) { return c.ptr->params()->max_level(); })
      .def(
          "encode_u64",
          [](const BgvContext& c, const Array1<const std::uint64_t>& v) {
            return c.ptr->encode(std::span<const std::uint64_t>(v.data(), v.shape(0)));
          },
          nb::call_guard<Release>())
      .def(
          "encode_i64",
          [](const BgvContext& c, const Array1<const std::int64_t>& v) {
            return c.ptr->encode(std::span<const std::int64_t>(v.data(), v.shape(0)));
          },
          nb::call_guard<Release>())
      .def(
          "encode_coefficients_u64",
          [](const BgvContext& c, const Array1<const std::uint64_t>& v) {
            return bgv::Plaintext{c.ptr->coefficient_encoder().encode(
                std::span<const std::uint64_t>(v.data(), v.shape(0)))};
          },
          nb::call_guard<Release>())
      .def(
          "encode_coefficients_i64",
          [](const BgvContext& c, const Array1<const std::int64_t>& v) {
            return bgv::Plaintext{c.ptr->coefficient_encoder().encode(
                std::span<const std::int64_t>(v.data(), v.shape(0)))};
          },
          nb::call_guard<Release>())
      .def(
          "plaintext",
          [](const BgvContext& c, const Array1<const std::uint64_t>& v) {
            return plaintext_of(*c.ptr, std::span<const std::uint64_t>(v.data(), v.shape(0)));
          },
          "A plaintext from its N coefficients, each < t.")
      .def("decode",
           [](const BgvContext& c, const bgv::Plaintext& pt) {
             return numpy_without_gil([&] { return c.ptr->decode(pt); });
           })
      .def("decode_signed",
           [](const BgvContext& c, const bgv::Plaintext& pt) {
             return numpy_without_gil([&] { return c.ptr->decode_signed(pt); });
           })
      .def("decode_coefficients_signed",
           [](const BgvContext& c, const bgv::Plaintext& pt) {
             return numpy_without_gil(
                 [&] { return c.ptr->coefficient_encoder().decode_signed(pt.coeffs); });
           })
      .def("serialize_plaintext",
           [](const BgvContext& c, const bgv::Plaintext& pt) {
             return to_bytes(bgv::serialize(pt, *c.ptr));
           })
      .def("load_plaintext",
           [](const BgvContext& c, nb::handle data) {
             const ByteInput bytes(data);
             nb::gil_scoped_release release;
             return bgv::load_plaintext(bytes.span(), *c.ptr);
           })
      .def(
          "load_ciphertext",
          [](const BgvContext& c, nb::handle data, const nb::bytes& key) {
            const ByteInput bytes(data);
            const rlwe::KeyId id = key_id_arg(key);
            nb::gil_scoped_release release;
            return bgv::load_ciphertext(bytes.span(), *c.ptr, id);
          },
          nb::arg("data"), nb::arg("key") = nb::bytes("", 0));

  nb::class_<bgv::Encryptor> encryptor(
      m, "Encryptor",
      "Encryption under a public key (or symmetric, under a secret key) "
      "at the top level of one context; safe to share between threads.");
  def_encryptor_inits<bgv::Encryptor, BgvContext, PublicKey, SecretKey>(encryptor).def(
      "encrypt", &bgv::Encryptor::encrypt, nb::arg("plaintext"), nb::call_guard<Release>());

  nb::class_<bgv::Decryptor>(m, "Decryptor", "Decryption and the noise budget with an owned key.")
      .def(
          "__init__",
          [](bgv::Decryptor* self, const BgvContext& ctx, const SecretKey& sk) {
            new (self) bgv::Decryptor(ctx.ptr, sk.ptr);
          },
          nb::arg("context"), nb::arg("key"))
      .def("decrypt", &bgv::Decryptor::decrypt, nb::call_guard<Release>())
      .def("noise_budget", &bgv::Decryptor::noise_budget, nb::call_guard<Release>());

  using E = bgv::Evaluator;
  nb::class_<E>(m, "Evaluator", "BGV/BFV operations; immutable and safe to share.")
      .def(
          "__init__",
          [](E* self, const BgvContext& ctx, const KeySwitchKey* relin, const GaloisKeys* galois) {
            new (self) E(ctx.ptr, key_of(relin), key_of(galois));
          },
          nb::arg("context"), nb::arg("relin").none(), nb::arg("galois").none())
      .def("add", &E::add, nb::call_guard<Release>())
      .def("sub", &E::sub, nb::call_guard<Release>())
      .def("negate", &E::negate, nb::call_guard<Release>())
      .def("add_plain", &E::add_plain, nb::call_guard<Release>())
      .def("sub_plain", &E::sub_plain, nb::call_guard<Release>())
      .def("multiply_plain", &E::multiply_plain, nb::call_guard<Release>())
      .def("multiply", &E::multiply, nb::call_guard<Release>())
      .def("relinearize", &E::relinearize, nb::call_guard<Release>())
      .def("multiply_relin", &E::multiply_relin, nb::call_guard<Release>())
      .def("rotate_rows", &E::rotate_rows, nb::call_guard<Release>())
      .def(
          "rotate_rows_many",
          [](const E& e, const rlwe::Ciphertext& a, const std::vector<std::int64_t>& steps) {
            return e.rotate_rows_many(a, steps);
          },
          nb::call_guard<Release>())
      .def("rotate_columns", &E::rotate_columns, nb::call_guard<Release>())
      .def("apply_galois", &E::apply_galois, nb::call_guard<Release>())
      .def("mod_switch_to_next", &E::mod_switch_to_next, nb::call_guard<Release>())
      .def("mod_switch_to", &E::mod_switch_to, nb::call_guard<Release>());

  using S = bgv::SlotArray;
  nb::class_<S>(m, "SlotArray",
                "The slots (GF(p^d), or GR(p^r, d) for t = p^r) of BGV over Phi_m as a hypercube "
                "(HElib's EncryptedArray): rotations, shifts, total sums, replication; safe to "
                "share.")
      .def(
          "__init__",
          [](S* self, const BgvContext& ctx) {
            nb::gil_scoped_release release;
            new (self) S(ctx.ptr);
          },
          nb::arg("context"))
      .def_prop_ro("size", &S::size)
      .def_prop_ro("dimensions", &S::dimensions)
      .def("dimension_size", &S::dimension_size)
      .def("good_dimension", &S::good_dimension)
      .def("rotate_along", &S::rotate_along, nb::call_guard<Release>())
      .def("shift_along", &S::shift_along, nb::call_guard<Release>())
      .def("rotate", &S::rotate, nb::call_guard<Release>())
      .def("shift", &S::shift, nb::call_guard<Release>())
      .def("total_sum", &S::total_sum, nb::call_guard<Release>())
      .def("replicate", &S::replicate, nb::call_guard<Release>())
      .def("rotate_along_elements", &S::rotate_along_elements)
      .def("shift_along_elements", &S::shift_along_elements)
      .def("rotate_elements", &S::rotate_elements)
      .def("shift_elements", &S::shift_elements)
      .def("total_sum_elements", &S::total_sum_elements);
}

}  // namespace polyhe::python
