// The C++ objects the module's parts pass to each other: the parameters and the keys are held
// through shared pointers (an evaluator or encryptor made from a key shares it; nothing is
// copied, nothing dangles); ciphertexts are bound as the value type rlwe::Ciphertext.
#pragma once

#include <polyhe/core/error.hpp>
#include <polyhe/ring/device.hpp>
#include <polyhe/rlwe/ciphertext.hpp>
#include <polyhe/rlwe/keys.hpp>
#include <polyhe/rlwe/origin.hpp>
#include <polyhe/rlwe/parameters.hpp>

#include <nanobind/stl/optional.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "bindings.hpp"

namespace polyhe::python {

struct Params {
  rlwe::ParametersPtr ptr;
};
struct SecretKey {
  std::shared_ptr<const rlwe::SecretKey> ptr;
};
struct PublicKey {
  std::shared_ptr<const rlwe::PublicKey> ptr;
};
struct KeySwitchKey {
  std::shared_ptr<const rlwe::KeySwitchKey> ptr;
};
struct GaloisKeys {
  std::shared_ptr<const rlwe::GaloisKeys> ptr;
};

/// A device (ring/device.hpp); None in Python where an argument takes one: host memory.
struct DeviceHandle {
  std::shared_ptr<Device> ptr;
};
[[nodiscard]] inline std::shared_ptr<Device> device_of(const DeviceHandle* d) {
  return d == nullptr ? nullptr : d->ptr;
}

/// "128", "192", "256" or "none" → the level (InvalidParameter naming the value otherwise).
[[nodiscard]] rlwe::SecurityLevel parse_security(const std::string& s);
/// The inverse: "128", "192", "256", "none".
[[nodiscard]] std::string security_name(rlwe::SecurityLevel s);

/// A seed from Python: None (fresh operating-system seeds) or 32 bytes; InvalidParameter naming
/// the length otherwise.
[[nodiscard]] std::optional<Seed> optional_seed(const std::optional<nb::bytes>& b);

/// The key of a null-or-key argument (None in Python: no key).
template <class Wrapper>
[[nodiscard]] auto key_of(const Wrapper* w) -> decltype(w->ptr) {
  return w == nullptr ? nullptr : w->ptr;
}

/// Binds an Encryptor's constructors, one per key type in Keys (a PublicKey: public-key
/// encryption; a SecretKey: symmetric), each the context's factory `encryptor(key, seed)`, with
/// the arguments (context, key, seed = None). Returns cls for further .def calls.
template <class Encryptor, class ContextWrapper, class... Keys>
nb::class_<Encryptor>& def_encryptor_inits(nb::class_<Encryptor>& cls) {
  (cls.def(
       "__init__",
       [](Encryptor* self, const ContextWrapper& c, const Keys& key,
          const std::optional<nb::bytes>& seed) {
         new (self) Encryptor(c.ptr->encryptor(key.ptr, optional_seed(seed)));
       },
       nb::arg("context"), nb::arg("key"), nb::arg("seed") = nb::none()),
   ...);
  return cls;
}

/// A key id from Python: b"" (none recorded) or 16 bytes; InvalidParameter naming the length
/// otherwise.
[[nodiscard]] inline rlwe::KeyId key_id_arg(const nb::bytes& b) {
  rlwe::KeyId id{};
  if (b.size() == 0) return id;
  if (b.size() != id.size()) {
    throw InvalidParameter("key id: " + std::to_string(b.size()) + " bytes, expected " +
                           std::to_string(id.size()) + " (or none)");
  }
  std::copy_n(reinterpret_cast<const std::uint8_t*>(b.c_str()), id.size(), id.begin());
  return id;
}

}  // namespace polyhe::python
