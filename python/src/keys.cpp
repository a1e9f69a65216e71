// polyhe._polyhe: keys (secret, public, key-switching, Galois), key generation, the encryptor,
// the RLWE ciphertext and authenticated serialisation.
#include <polyhe/core/error.hpp>
#include <polyhe/core/serial.hpp>
#include <polyhe/ring/sampler.hpp>
#include <polyhe/rlwe/authentication.hpp>
#include <polyhe/rlwe/encryption.hpp>
#include <polyhe/rlwe/serial.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "objects.hpp"

namespace polyhe::python {

namespace {

/// 32 bytes → a Seed (InvalidParameter naming the length otherwise).
Seed seed_of(const nb::bytes& b) {
  if (b.size() != kSeedBytes) {
    throw InvalidParameter("seed: " + std::to_string(b.size()) + " bytes, expected " +
                           std::to_string(kSeedBytes));
  }
  Seed s;
  std::copy_n(reinterpret_cast<const std::uint8_t*>(b.c_str()), kSeedBytes, s.begin());
  return s;
}

rlwe::MacKey mac_key_of(const nb::bytes& b) {
  if (b.size() != rlwe::kMacKeyBytes) {
    throw InvalidParameter("MAC key: " + std::to_string(b.size()) + " bytes, expected " +
                           std::to_string(rlwe::kMacKeyBytes));
  }
  rlwe::MacKey k;
  std::copy_n(reinterpret_cast<const std::uint8_t*>(b.c_str()), k.size(), k.begin());
  return k;
}

/// A loader bound as a static method: load(data, params), the GIL released while it checks.
template <class Wrapper, class Load>
auto loader(Load load) {
  return [load](nb::handle data, const Params& params) {
    const ByteInput bytes(data);
    nb::gil_scoped_release release;
    return Wrapper{rlwe::share(load(bytes.span(), params.ptr))};
  };
}

/// to_device(device) bound on a key wrapper: a copy on the device (None: host memory), the GIL
/// released while it moves.
template <class Wrapper>
auto mover() {
  return [](const Wrapper& k, const DeviceHandle* d) {
    return Wrapper{rlwe::share(k.ptr->to_device(device_of(d)))};
  };
}

}  // namespace

std::optional<Seed> optional_seed(const std::optional<nb::bytes>& b) {
  if (!b) return std::nullopt;
  return seed_of(*b);
}

void bind_keys(nb::module_& m) {
  nb::class_<SecretKey>(m, "SecretKey", "The secret s (ternary), wiped when released.")
      .def_prop_ro("params", [](const SecretKey& k) { return Params{k.ptr->params}; })
      .def(
          "serialize", [](const SecretKey& k) { return to_bytes(rlwe::serialize(*k.ptr)); },
          "The secret key's bytes: the secret itself (the caller owns them).")
      .def_static("load", loader<SecretKey>(rlwe::load_secret_key), nb::arg("data"),
                  nb::arg("params"))
      .def("to_device", mover<SecretKey>(), nb::arg("device").none(), nb::call_guard<Release>(),
           "A copy on `device` (None: host memory).");

  nb::class_<PublicKey>(m, "PublicKey", "(b, a) = (−a·s + e, a) over Q ∪ P.")
      .def_prop_ro("params", [](const PublicKey& k) { return Params{k.ptr->params}; })
      .def("serialize", [](const PublicKey& k) { return to_bytes(rlwe::serialize(*k.ptr)); })
      .def(
          "key_id",
          [](const PublicKey& k) {
            const rlwe::KeyId id = rlwe::key_id(*k.ptr);
            return nb::bytes(reinterpret_cast<const char*>(id.data()), id.size());
          },
          "16 bytes naming the key set: BLAKE2b-128 of the public key's bytes.")
      .def_static("load", loader<PublicKey>(rlwe::load_public_key), nb::arg("data"),
                  nb::arg("params"))
      .def("to_device", mover<PublicKey>(), nb::arg("device").none(), nb::call_guard<Release>());

  nb::class_<KeySwitchKey>(m, "KeySwitchKey",
                           "A hybrid key-switching key: relinearisation (galois_element 0) or "
                           "one Galois element.")
      .def_prop_ro("params", [](const KeySwitchKey& k) { return Params{k.ptr->params}; })
      .def_prop_ro("galois_element", [](const KeySwitchKey& k) { return k.ptr->galois_element; })
      .def("serialize", [](const KeySwitchKey& k) { return to_bytes(rlwe::serialize(*k.ptr)); })
      .def_static("load", loader<KeySwitchKey>(rlwe::load_key_switch_key), nb::arg("data"),
                  nb::arg("params"))
      .def("to_device", mover<KeySwitchKey>(), nb::arg("device").none(), nb::call_guard<Release>());

  nb::class_<GaloisKeys>(m, "GaloisKeys", "Key-switching keys by Galois element.")
      .def_prop_ro("params", [](const GaloisKeys& k) { return Params{k.ptr->params}; })
      .def_prop_ro("elements",
                   [](const GaloisKeys& k) {
                     std::vector<std::uint64_t> out;
                     for (const auto& [e, key] : k.ptr->keys) out.push_back(e);
                     return out;
                   })
      .def("contains", [](const GaloisKeys& k, std::uint64_t e) { return k.ptr->contains(e); })
      .def(
          "merged",
          [](const GaloisKeys& a, const GaloisKeys& b) {
            rlwe::check_same_params(a.ptr->params, b.ptr->params, "GaloisKeys.merged");
            rlwe::GaloisKeys out = *a.ptr;
            for (const auto& [e, key] : b.ptr->keys) out.keys.emplace(e, key);
            return GaloisKeys{rlwe::share(std::move(out))};
          },
          "The keys of both (the same parameters), for every element of either.")
      .def("serialize", [](const GaloisKeys& k) { return to_bytes(rlwe::serialize(*k.ptr)); })
      .def_static("load", loader<GaloisKeys>(rlwe::load_galois_keys), nb::arg("data"),
                  nb::arg("params"))
      .def("to_device", mover<GaloisKeys>(), nb::arg("device").none(), nb::call_guard<Release>());

  m.def("galois_element_for_rotation", &rlwe::galois_element_for_rotation, nb::arg("n"),
        nb::arg("step"));
  m.def("galois_element_for_conjugation", &rlwe::galois_element_for_conjugation, nb::arg("n"));

  nb::class_<rlwe::KeyGenerator>(m, "KeyGenerator",
                                 "Key generation; a 32-byte seed makes it reproducible (tests).")
      .def(
          "__init__",
          [](rlwe::KeyGenerator* self, const Params& p, const std::optional<nb::bytes>& seed) {
            const auto s = optional_seed(seed);
            if (s) {
              new (self) rlwe::KeyGenerator(p.ptr, *s);
            } else {
              new (self) rlwe::KeyGenerator(p.ptr);
            }
          },
          nb::arg("params"), nb::arg("seed") = nb::none())
      .def(
          "secret_key",
          [](rlwe::KeyGenerator& g) { return SecretKey{rlwe::share(g.secret_key())}; },
          nb::call_guard<Release>())
      .def(
          "public_key",
          [](rlwe::KeyGenerator& g, const SecretKey& sk) {
            return PublicKey{rlwe::share(g.public_key(*sk.ptr))};
          },
          nb::call_guard<Release>())
      .def(
          "relinearization_key",
          [](rlwe::KeyGenerator& g, const SecretKey& sk) {
            return KeySwitchKey{rlwe::share(g.relinearization_key(*sk.ptr))};
          },
          nb::call_guard<Release>())
      .def(
          "galois_keys",
          [](rlwe::KeyGenerator& g, const SecretKey& sk, const std::vector<std::uint64_t>& els) {
            return GaloisKeys{rlwe::share(g.galois_keys(*sk.ptr, els))};
          },
          nb::call_guard<Release>())
      .def(
          "rotation_keys",
          [](rlwe::KeyGenerator& g, const SecretKey& sk, const std::vector<std::int64_t>& steps,
             bool conjugation) {
            return GaloisKeys{rlwe::share(g.rotation_keys(*sk.ptr, steps, conjugation))};
          },
          nb::arg("sk"), nb::arg("steps"), nb::arg("conjugation"), nb::call_guard<Release>());

  nb::class_<rlwe::Encryptor>(m, "Encryptor",
                              "Public-key or symmetric RLWE encryption; safe to share between "
                              "threads.")
      .def(
          "__init__",
          [](rlwe::Encryptor* self, const PublicKey& pk, const std::optional<nb::bytes>& seed) {
            new (self) rlwe::Encryptor(pk.ptr, optional_seed(seed));
          },
          nb::arg("key"), nb::arg("seed") = nb::none())
      .def(
          "__init__",
          [](rlwe::Encryptor* self, const SecretKey& sk, const std::optional<nb::bytes>& seed) {
            new (self) rlwe::Encryptor(sk.ptr, optional_seed(seed));
          },
          nb::arg("key"), nb::arg("seed") = nb::none());

  nb::class_<rlwe::Ciphertext>(m, "Ciphertext",
                               "An RLWE ciphertext (2 or 3 parts at one level, evaluation form) "
                               "with its CKKS scale or BGV plaintext factor.")
      .def_prop_ro("params", [](const rlwe::Ciphertext& c) { return Params{c.params()}; })
      .def_prop_ro("level", &rlwe::Ciphertext::level)
      .def_prop_ro("size", &rlwe::Ciphertext::size)
      .def_prop_ro("scale", &rlwe::Ciphertext::scale)
      .def_prop_ro("factor", &rlwe::Ciphertext::factor)
      .def_prop_ro("seeded", [](const rlwe::Ciphertext& c) { return c.seed().has_value(); })
      .def("copy", [](const rlwe::Ciphertext& c) { return rlwe::Ciphertext(c); })
      .def(
          "to_device",
          [](const rlwe::Ciphertext& c, const DeviceHandle* d) {
            return c.to_device(device_of(d));
          },
          nb::arg("device").none(), nb::call_guard<Release>(),
          "A copy on `device` (None: host memory).")
      .def(
          "is_on",
          [](const rlwe::Ciphertext& c, const DeviceHandle* d) {
            return c.device() == device_of(d);
          },
          nb::arg("device").none(), "Whether it lives on `device` (None: host memory).")
      .def(
          "serialize",
          [](const rlwe::Ciphertext& c, int scheme, std::uint64_t t, const nb::bytes& key) {
            // One buffer per thread, reused: a fresh one per call, freed after the bytes object
            // was made, left glibc's heap with both freed at its top and trimmed back to the
            // system, so that every call faulted its pages in twice (0.55–0.68 ms instead of
            // 0.04 ms for 512 KiB on an AMD EPYC). It keeps at most kKeepBytes between calls.
            constexpr std::size_t kKeepBytes = std::size_t{64} << 20;
            if (scheme < 0 || scheme > 255) {
              throw InvalidParameter("serialize: scheme tag " + std::to_string(scheme) +
                                     " is outside [0, 255]");
            }
            const rlwe::Origin origin{static_cast<rlwe::SchemeTag>(scheme), t, key_id_arg(key)};
            thread_local std::vector<std::uint8_t> buffer;
            buffer.clear();
            {
              nb::gil_scoped_release release;
              rlwe::serialize(c, buffer, origin);
            }
            nb::bytes out = to_bytes(buffer);
            if (buffer.capacity() > kKeepBytes) std::vector<std::uint8_t>().swap(buffer);
            return out;
          },
          nb::arg("scheme") = 0, nb::arg("t") = 0, nb::arg("key") = nb::bytes("", 0),
          "The ciphertext's bytes, recording its origin: scheme tag (0 unrecorded, 1 CKKS, 2 BFV, "
          "3 BGV), t (BFV/BGV) and key id (16 bytes, or b\"\": none).");

  m.def(
      "format_version",
      [](const nb::bytes& data) { return serial::format_version(byte_span(data)); },
      nb::arg("data"), "The format version in a serialised object's header.");

  m.def("generate_mac_key", [] {
    const auto k = rlwe::generate_mac_key();
    return nb::bytes(reinterpret_cast<const char*>(k.data()), k.size());
  });
  m.def(
      "authenticate",
      [](const nb::bytes& data, const nb::bytes& key) {
        return to_bytes(rlwe::authenticate(byte_span(data), mac_key_of(key)));
      },
      nb::arg("data"), nb::arg("key"));
  m.def(
      "verify",
      [](const nb::bytes& sealed, const nb::bytes& key) {
        const auto body = rlwe::verify(byte_span(sealed), mac_key_of(key));
        return nb::bytes(reinterpret_cast<const char*>(body.data()), body.size());
      },
      nb::arg("sealed"), nb::arg("key"));
}

}  // namespace polyhe::python
