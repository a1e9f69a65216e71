// polyhe._polyhe.ckks: the CKKS context (parameters, encoder, default scale), plaintexts,
// encryption, decryption and the evaluator, over numpy float64 and complex128 arrays.
#include <polyhe/ckks/bootstrap.hpp>
#include <polyhe/ckks/bootstrap_presets.hpp>
#include <polyhe/ckks/ckks.hpp>
#include <polyhe/ckks/context.hpp>
#include <polyhe/ckks/linear_transform.hpp>
#include <polyhe/ckks/polynomial.hpp>
#include <polyhe/ckks/serial.hpp>
#include <polyhe/core/error.hpp>

#include <nanobind/stl/complex.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "objects.hpp"

namespace polyhe::python {

namespace {

using cplx = std::complex<double>;

struct CkksContext {
  ckks::ContextPtr ptr;
};

}  // namespace

void bind_ckks(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("ckks", "RNS-CKKS (low level).");

  nb::class_<ckks::Plaintext>(m, "Plaintext",
                              "An encoded message: a polynomial over Q_l and its scale.")
      .def_prop_ro("level", &ckks::Plaintext::level)
      .def_prop_ro("scale", [](const ckks::Plaintext& p) { return p.scale; })
      .def_prop_ro("params", [](const ckks::Plaintext& p) { return Params{p.params}; })
      .def("serialize", [](const ckks::Plaintext& p) { return to_bytes(ckks::serialize(p)); })
      .def(
          "to_device",
          [](const ckks::Plaintext& p, const DeviceHandle* d) { return p.to_device(device_of(d)); },
          nb::arg("device").none(), nb::call_guard<Release>())
      .def(
          "is_on",
          [](const ckks::Plaintext& p, const DeviceHandle* d) {
            return p.poly.device() == device_of(d);
          },
          nb::arg("device").none())
      .def_static(
          "load",
          [](nb::handle data, const Params& params) {
            const ByteInput bytes(data);
            nb::gil_scoped_release release;
            return ckks::load_plaintext(bytes.span(), params.ptr);
          },
          nb::arg("data"), nb::arg("params"));

  nb::class_<CkksContext>(m, "Context", "The parameters, their encoder and the default scale.")
      .def(
          "__init__",
          [](CkksContext* self, const Params& params, double scale) {
            ckks::ContextPtr made;
            {
              nb::gil_scoped_release release;
              made = ckks::Context::create(params.ptr, scale);
            }
            new (self) CkksContext{std::move(made)};
          },
          nb::arg("params"), nb::arg("scale"))
      .def_prop_ro("params", [](const CkksContext& c) { return Params{c.ptr->params()}; })
      .def_prop_ro("scale", [](const CkksContext& c) { return c.ptr->scale(); })
      .def_prop_ro("slots", [](const CkksContext& c) { return c.ptr->slots(); })
      .def_prop_ro("max_level", [](const CkksContext& c) { return c.ptr->max_level(); })
      .def(
          "encode_real",
          [](const CkksContext& c, const Array1<const double>& v, std::size_t level, double scale) {
            return c.ptr->encode(std::span<const double>(v.data(), v.shape(0)), level, scale);
          },
          nb::arg("values"), nb::arg("level"), nb::arg("scale"), nb::call_guard<Release>())
      .def(
          "encode_complex",
          [](const CkksContext& c, const Array1<const cplx>& v, std::size_t level, double scale) {
            return c.ptr->encode(std::span<const cplx>(v.data(), v.shape(0)), level, scale);
          },
          nb::arg("values"), nb::arg("level"), nb::arg("scale"), nb::call_guard<Release>())
      .def("decode",
           [](const CkksContext& c, const ckks::Plaintext& pt) {
             return numpy_without_gil([&] { return c.ptr->decode(pt); });
           })
      .def("decode_real", [](const CkksContext& c, const ckks::Plaintext& pt) {
        return numpy_without_gil([&] { return c.ptr->decode_real(pt); });
      });

  nb::class_<ckks::Encryptor> encryptor(
      m, "Encryptor",
      "Encryption under a public key (or symmetric, under a secret "
      "key) of one context's parameters; safe to share between threads.");
  def_encryptor_inits<ckks::Encryptor, CkksContext, PublicKey, SecretKey>(encryptor).def(
      "encrypt", &ckks::Encryptor::encrypt, nb::arg("plaintext"), nb::call_guard<Release>());

  m.def(
      "load_ciphertext",
      [](nb::handle data, const Params& params, const nb::bytes& key) {
        const ByteInput bytes(data);
        const rlwe::KeyId id = key_id_arg(key);
        nb::gil_scoped_release release;
        return ckks::load_ciphertext(bytes.span(), params.ptr, id);
      },
      nb::arg("data"), nb::arg("params"), nb::arg("key") = nb::bytes("", 0));

  nb::class_<ckks::Decryptor>(m, "Decryptor", "Decryption with an owned secret key.")
      .def(
          "__init__",
          [](ckks::Decryptor* self, const SecretKey& sk, int flooding_bits) {
            new (self) ckks::Decryptor(sk.ptr, ckks::DecryptOptions{flooding_bits});
          },
          nb::arg("key"), nb::arg("flooding_bits") = 0)
      .def("decrypt", &ckks::Decryptor::decrypt, nb::call_guard<Release>());

  using E = ckks::Evaluator;
  using Ct = rlwe::Ciphertext;
  nb::class_<E>(m, "Evaluator", "Homomorphic operations; immutable and safe to share.")
      .def(
          "__init__",
          [](E* self, const CkksContext& ctx, const KeySwitchKey* relin, const GaloisKeys* galois) {
            new (self) E(ctx.ptr, key_of(relin), key_of(galois));
          },
          nb::arg("context"), nb::arg("relin").none(), nb::arg("galois").none())
      .def("add", &E::add, nb::call_guard<Release>())
      .def("sub", &E::sub, nb::call_guard<Release>())
      .def("negate", &E::negate, nb::call_guard<Release>())
      .def("add_plain", &E::add_plain, nb::call_guard<Release>())
      .def("sub_plain", &E::sub_plain, nb::call_guard<Release>())
      .def("add_const", &E::add_const, nb::call_guard<Release>())
      .def("multiply", &E::multiply, nb::call_guard<Release>())
      .def("multiply_relin", &E::multiply_relin, nb::call_guard<Release>())
      .def("relinearize", &E::relinearize, nb::call_guard<Release>())
      .def("multiply_plain", &E::multiply_plain, nb::call_guard<Release>())
      .def("multiply_const", &E::multiply_const, nb::arg("a"), nb::arg("c"),
           nb::arg("const_scale") = 0.0, nb::call_guard<Release>())
      .def("multiply_integer", &E::multiply_integer, nb::call_guard<Release>())
      .def("rescale", &E::rescale, nb::call_guard<Release>())
      .def("drop_to_level", &E::drop_to_level, nb::call_guard<Release>())
      .def("rotate", &E::rotate, nb::call_guard<Release>())
      .def(
          "rotate_many",
          [](const E& e, const Ct& a, const std::vector<std::int64_t>& steps) {
            return e.rotate_many(a, steps);
          },
          nb::call_guard<Release>())
      .def("conjugate", &E::conjugate, nb::call_guard<Release>())
      .def("apply_galois", &E::apply_galois, nb::call_guard<Release>())
      .def(
          "multiply_relin_rescale",
          [](const E& e, const Ct& a, const Ct& b) { return e.rescale(e.multiply_relin(a, b)); },
          nb::call_guard<Release>());

  // Polynomials of the slots: coefficients as float64 arrays, the series' own rules checked by
  // ckks::evaluate and ckks::depth.
  const auto coeffs_of = [](const Array1<const double>& c) {
    return std::vector<double>(c.data(), c.data() + c.shape(0));
  };
  m.def(
      "evaluate_chebyshev",
      [coeffs_of](const E& e, const Ct& x, const Array1<const double>& c, double a, double b,
                  double scale, std::size_t baby_steps) {
        const ckks::ChebyshevSeries p{a, b, coeffs_of(c)};
        nb::gil_scoped_release release;
        return ckks::evaluate(e, x, p, ckks::PolynomialOptions{scale, baby_steps});
      },
      nb::arg("evaluator"), nb::arg("x"), nb::arg("coeffs"), nb::arg("a"), nb::arg("b"),
      nb::arg("scale"), nb::arg("baby_steps"));
  m.def(
      "evaluate_power",
      [coeffs_of](const E& e, const Ct& x, const Array1<const double>& c, double scale,
                  std::size_t baby_steps) {
        const ckks::PowerSeries p{coeffs_of(c)};
        nb::gil_scoped_release release;
        return ckks::evaluate(e, x, p, ckks::PolynomialOptions{scale, baby_steps});
      },
      nb::arg("evaluator"), nb::arg("x"), nb::arg("coeffs"), nb::arg("scale"),
      nb::arg("baby_steps"));
  m.def(
      "chebyshev_depth",
      [coeffs_of](const Array1<const double>& c, double a, double b, std::size_t baby_steps) {
        return ckks::depth(ckks::ChebyshevSeries{a, b, coeffs_of(c)},
                           ckks::PolynomialOptions{0, baby_steps});
      },
      nb::arg("coeffs"), nb::arg("a"), nb::arg("b"), nb::arg("baby_steps"));
  m.def(
      "power_depth",
      [coeffs_of](const Array1<const double>& c, std::size_t baby_steps) {
        return ckks::depth(ckks::PowerSeries{coeffs_of(c)}, ckks::PolynomialOptions{0, baby_steps});
      },
      nb::arg("coeffs"), nb::arg("baby_steps"));
  m.def(
      "chebyshev_products",
      [coeffs_of](const Array1<const double>& c, double a, double b, std::size_t baby_steps) {
        return ckks::products(ckks::ChebyshevSeries{a, b, coeffs_of(c)},
                              ckks::PolynomialOptions{0, baby_steps});
      },
      nb::arg("coeffs"), nb::arg("a"), nb::arg("b"), nb::arg("baby_steps"));
  m.def(
      "power_products",
      [coeffs_of](const Array1<const double>& c, std::size_t baby_steps) {
        return ckks::products(ckks::PowerSeries{coeffs_of(c)},
                              ckks::PolynomialOptions{0, baby_steps});
      },
      nb::arg("coeffs"), nb::arg("baby_steps"));
  m.attr("max_degree") = ckks::kMaxDegree;

  using B = ckks::Bootstrapper;
  nb::class_<B>(m, "Bootstrapper",
                "CKKS bootstrapping: ModRaise, CoeffToSlot, EvalMod, SlotToCoeff.")
      .def(
          "__init__",
          [](B* self, const CkksContext& c, std::size_t coeff_to_slot_levels,
             std::size_t slot_to_coeff_levels, double k, bool double_angle, std::size_t sine_degree,
             int double_angles, double scale, std::size_t eval_mod_baby_steps,
             std::size_t encapsulation_weight, double message_ratio_bits,
             std::size_t arcsine_degree, std::size_t iterations, int iteration_precision_bits) {
            ckks::BootstrapConfig config;
            config.coeff_to_slot_levels = coeff_to_slot_levels;
            config.slot_to_coeff_levels = slot_to_coeff_levels;
            config.k = k;
            config.eval_mod = double_angle ? ckks::EvalMod::double_angle : ckks::EvalMod::chebyshev;
            config.sine_degree = sine_degree;
            config.double_angles = double_angles;
            config.scale = scale;
            config.eval_mod_baby_steps = eval_mod_baby_steps;
            config.encapsulation_weight = encapsulation_weight;
            config.message_ratio_bits = message_ratio_bits;
            config.arcsine_degree = arcsine_degree;
            config.iterations = iterations;
            config.iteration_precision_bits = iteration_precision_bits;
            nb::gil_scoped_release release;
            new (self) B(*c.ptr, config);
          },
          nb::arg("context"), nb::arg("coeff_to_slot_levels"), nb::arg("slot_to_coeff_levels"),
          nb::arg("k"), nb::arg("double_angle"), nb::arg("sine_degree"), nb::arg("double_angles"),
          nb::arg("scale"), nb::arg("eval_mod_baby_steps"), nb::arg("encapsulation_weight"),
          nb::arg("message_ratio_bits"), nb::arg("arcsine_degree"), nb::arg("iterations") = 1,
          nb::arg("iteration_precision_bits") = 0)
      .def_prop_ro("rotations", &B::rotations)
      .def_prop_ro("encapsulation_parameters",
                   [](const B& b) -> std::optional<Params> {
                     if (!b.encapsulation_parameters()) return std::nullopt;
                     return Params{b.encapsulation_parameters()};
                   })
      .def(
          "encapsulation_keys",
          [](const B& b, rlwe::KeyGenerator& g, const SecretKey& sk) {
            ckks::EncapsulationKeys k = b.encapsulation_keys(g, *sk.ptr);
            return std::make_pair(KeySwitchKey{rlwe::share(std::move(k.to_sparse))},
                                  KeySwitchKey{rlwe::share(std::move(k.to_dense))});
          },
          nb::arg("keygen"), nb::arg("secret_key"), nb::call_guard<Release>())
      .def(
          "bootstrap_encapsulated",
          [](const B& b, const ckks::Evaluator& ev, const ckks::Ciphertext& ct,
             const KeySwitchKey& to_sparse, const KeySwitchKey& to_dense) {
            return b.bootstrap(ev, ct, *to_sparse.ptr, *to_dense.ptr);
          },
          nb::arg("evaluator"), nb::arg("ciphertext"), nb::arg("to_sparse"), nb::arg("to_dense"),
          nb::call_guard<Release>())
      .def_prop_ro("depth", &B::depth)
      .def_prop_ro("levels_after", &B::levels_after)
      .def_prop_ro("scale", &B::scale)
      .def_prop_ro("input_scaling_bits", &B::input_scaling_bits)
      .def_prop_ro("iteration_precision_bits", &B::iteration_precision_bits)
      .def(
          "bootstrap",
          [](const B& b, const ckks::Evaluator& ev, const ckks::Ciphertext& ct) {
            return b.bootstrap(ev, ct);
          },
          nb::arg("evaluator"), nb::arg("ciphertext"), nb::call_guard<Release>())
      .def(
          "to_device", [](const B& b, const DeviceHandle* d) { return b.to_device(device_of(d)); },
          nb::arg("device").none(), nb::call_guard<Release>());
  const auto precision_of = [](bool high) {
    return high ? ckks::BootstrapPrecision::high : ckks::BootstrapPrecision::standard;
  };
  m.def(
      "max_bootstrappable_levels",
      [precision_of](int log_n, bool high) {
        return ckks::max_bootstrappable_levels(log_n, precision_of(high));
      },
      nb::arg("log_n"), nb::arg("high_precision") = false);
  m.def(
      "bootstrappable_parameters",
      [precision_of](int log_n, std::size_t levels, bool high) {
        const ckks::BootstrappableParameters p =
            ckks::bootstrappable_parameters(log_n, levels, precision_of(high));
        nb::dict boot;
        boot["coeff_to_slot_levels"] = p.config.coeff_to_slot_levels;
        boot["slot_to_coeff_levels"] = p.config.slot_to_coeff_levels;
        boot["k"] = p.config.k;
        boot["eval_mod"] =
            p.config.eval_mod == ckks::EvalMod::double_angle ? "double_angle" : "chebyshev";
        boot["encapsulation_weight"] = p.config.encapsulation_weight;
        boot["message_ratio_bits"] = p.config.message_ratio_bits;
        boot["arcsine_degree"] = p.config.arcsine_degree;
        boot["iterations"] = p.config.iterations;
        nb::dict out;
        out["q_bits"] = p.literal.q_bits;
        out["p_bits"] = p.literal.p_bits;
        out["scale"] = p.scale;
        out["bootstrapper"] = boot;
        return out;
      },
      nb::arg("log_n"), nb::arg("levels"), nb::arg("high_precision") = false);
  m.def("mod_raise", &ckks::mod_raise, nb::arg("evaluator"), nb::arg("ciphertext"),
        nb::call_guard<Release>());

  using LT = ckks::LinearTransform;
  nb::class_<LT>(m, "LinearTransform",
                 "A plaintext matrix prepared for M·x by baby-step giant-step diagonals.")
      .def_static(
          "from_matrix",
          [](const CkksContext& c, const Array2<const cplx>& matrix, bool transpose,
             std::size_t level, double scale, std::size_t baby_steps) {
            const std::span<const cplx> entries(matrix.data(), matrix.shape(0) * matrix.shape(1));
            const auto d = ckks::diagonals_of(entries, matrix.shape(0), matrix.shape(1),
                                              c.ptr->slots(), transpose);
            return LT(*c.ptr, d, level, scale, baby_steps);
          },
          nb::arg("context"), nb::arg("matrix"), nb::arg("transpose"), nb::arg("level"),
          nb::arg("scale"), nb::arg("baby_steps"), nb::call_guard<Release>())
      .def_static(
          "from_diagonals",
          [](const CkksContext& c, const Array1<const std::uint64_t>& indices,
             const Array2<const cplx>& values, std::size_t level, double scale,
             std::size_t baby_steps) {
            if (indices.shape(0) != values.shape(0)) {
              throw InvalidParameter("from_diagonals: " + std::to_string(indices.shape(0)) +
                                     " indices for " + std::to_string(values.shape(0)) +
                                     " diagonals");
            }
            ckks::Diagonals d;
            for (std::size_t i = 0; i < indices.shape(0); ++i) {
              const cplx* row = values.data() + i * values.shape(1);
              auto [it, fresh] = d.try_emplace(indices.data()[i], row, row + values.shape(1));
              if (!fresh) {
                throw InvalidParameter("from_diagonals: diagonal " +
                                       std::to_string(indices.data()[i]) + " given twice");
              }
            }
            return LT(*c.ptr, d, level, scale, baby_steps);
          },
          nb::arg("context"), nb::arg("indices"), nb::arg("values"), nb::arg("level"),
          nb::arg("scale"), nb::arg("baby_steps"), nb::call_guard<Release>())
      .def_prop_ro("rotations", &LT::rotations)
      .def_prop_ro("level", &LT::level)
      .def_prop_ro("scale", &LT::scale)
      .def_prop_ro("baby_steps", &LT::baby_steps)
      .def_prop_ro("diagonal_count", &LT::diagonal_count)
      .def("apply", &LT::apply, nb::arg("evaluator"), nb::arg("ciphertext"),
           nb::call_guard<Release>())
      .def(
          "to_device", [](const LT& t, const DeviceHandle* d) { return t.to_device(device_of(d)); },
          nb::arg("device").none(), nb::call_guard<Release>());
}

}  // namespace polyhe::python
