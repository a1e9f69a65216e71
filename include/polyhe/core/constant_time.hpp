// Constant-time validation with Valgrind's memcheck (docs/security.md, "Constant time"). The
// library marks secret words as undefined where they are drawn (ct_secret: the raw random words of
// the secret, error and flooding samplers) and as defined again where secret-derived data becomes
// public by design (ct_public: a public or evaluation key, a ciphertext, a decrypted plaintext).
// Run under `valgrind --tool=memcheck`, every conditional jump, table index or address computed
// from a secret between those two points is then reported as a use of an uninitialised value:
// tests/ct runs key generation, encryption and decryption of every scheme that way. Outside
// Valgrind each call is a few instructions that change nothing (memcheck's client requests).
#pragma once

#include <cstddef>
#include <span>

namespace polyhe::detail {

/// Whether this build has the annotations (memcheck.h was found when the library was compiled).
[[nodiscard]] bool ct_annotations_built() noexcept;

/// Marks `bytes` bytes at p as secret (undefined to memcheck); their values are unchanged.
void ct_secret(const void* p, std::size_t bytes) noexcept;

/// Marks `bytes` bytes at p as public again (defined to memcheck); their values are unchanged.
void ct_public(const void* p, std::size_t bytes) noexcept;

template <class T>
void ct_secret(std::span<T> s) noexcept {
  ct_secret(s.data(), s.size_bytes());
}
template <class T>
void ct_public(std::span<T> s) noexcept {
  ct_public(s.data(), s.size_bytes());
}

/// ct_public on every word of a polynomial in host memory (device memory is not memcheck's).
template <class Poly>
void ct_public_poly(const Poly& p) noexcept {
  if (!p.on_device()) ct_public(p.data());
}

}  // namespace polyhe::detail
