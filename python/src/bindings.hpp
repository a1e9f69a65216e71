// The parts of the Python module polyhe._polyhe, one per file, and what they share: the numpy
// conversions and the rule for the GIL.
//
// The low-level module mirrors the C++ API closely and takes exact types (C-contiguous numpy
// arrays of the one dtype each call names, bytes, ints); the pure-Python package around it
// (python/polyhe) checks and converts what users pass and gives the Pythonic objects. Every call
// that does real work releases the GIL (`Release` below) while it runs, touching no Python object
// meanwhile, so that threads scale; C++ exceptions become the Python exceptions of errors.cpp.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace polyhe::python {

namespace nb = nanobind;

/// nb::call_guard<Release>(): the GIL released for the whole C++ body (arguments already
/// converted, the result converted after it is taken back).
using Release = nb::gil_scoped_release;

/// A 1-D, C-contiguous host array of T (numpy); nanobind refuses any other with TypeError, which
/// the Python layer prevents by converting first.
template <class T>
using Array1 = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using Array2 = nb::ndarray<T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
/// What the module returns: a numpy array owning its words.
template <class T>
using NumpyArray = nb::ndarray<nb::numpy, T>;

/// The array's words as a span (the array must outlive it; the caller holds it).
template <class T>
[[nodiscard]] std::span<T> span_of(const Array1<T>& a) {
  return {a.data(), a.shape(0)};
}

/// A numpy array taking ownership of `values` (moved to the heap; freed with the array).
template <class T>
[[nodiscard]] NumpyArray<T> to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  const std::size_t shape[1] = {owned->size()};
  return NumpyArray<T>(owned->data(), 1, shape, owner);
}

/// The same, shaped rows × cols (values.size() == rows·cols).
template <class T>
[[nodiscard]] NumpyArray<T> to_numpy(std::vector<T>&& values, std::size_t rows, std::size_t cols) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  const std::size_t shape[2] = {rows, cols};
  return NumpyArray<T>(owned->data(), 2, shape, owner);
}

/// f() (a std::vector) computed without the GIL, returned as a numpy array that owns it.
template <class F>
[[nodiscard]] auto numpy_without_gil(F&& f) {
  decltype(f()) out;
  {
    nb::gil_scoped_release release;
    out = f();
  }
  return to_numpy(std::move(out));
}

/// bytes ↔ the byte vectors of serialisation.
[[nodiscard]] inline nb::bytes to_bytes(const std::vector<std::uint8_t>& v) {
  return nb::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}
[[nodiscard]] inline std::span<const std::uint8_t> byte_span(const nb::bytes& b) {
  return {reinterpret_cast<const std::uint8_t*>(b.c_str()), b.size()};
}

/// The serialised bytes a loader reads, from any C-contiguous buffer: bytes, a read-only
/// memoryview, Ray's out-of-band pickle buffers (read in place, no copy), or a writable buffer
/// such as bytearray (copied first: another thread could write to it while the loader runs with
/// the GIL released, after the words were checked). Construct and destroy it with the GIL held;
/// span() may be read without it.
class ByteInput {
 public:
  explicit ByteInput(nb::handle object) {
    if (PyObject_GetBuffer(object.ptr(), &view_, PyBUF_C_CONTIGUOUS) != 0) {
      PyErr_Clear();
      throw nb::type_error(("data: expected bytes or a C-contiguous bytes-like object, got " +
                            std::string(nb::type_name(object.type()).c_str()))
                               .c_str());
    }
    const auto* first = static_cast<const std::uint8_t*>(view_.buf);
    const auto size = static_cast<std::size_t>(view_.len);
    if (view_.readonly != 0) {
      bytes_ = {first, size};
    } else {
      copy_.assign(first, first + size);
      bytes_ = copy_;
      PyBuffer_Release(&view_);
      view_.obj = nullptr;
    }
  }
  ByteInput(const ByteInput&) = delete;
  ByteInput& operator=(const ByteInput&) = delete;
  ~ByteInput() {
    if (view_.obj != nullptr) PyBuffer_Release(&view_);
  }
  [[nodiscard]] std::span<const std::uint8_t> span() const { return bytes_; }

 private:
  Py_buffer view_{};
  std::vector<std::uint8_t> copy_;
  std::span<const std::uint8_t> bytes_;
};

void bind_errors(nb::module_& m);      // errors.cpp: the exception classes and the translator
void bind_system(nb::module_& m);      // module.cpp: version, CPU path, threads
void bind_arith(nb::module_& m);       // arith.cpp: primes, NTT plans, polymul, cyclic rings
void bind_parameters(nb::module_& m);  // parameters.cpp: rlwe::Parameters
void bind_keys(nb::module_& m);        // keys.cpp: keys, key generation, encryptor, ciphertext
void bind_ckks(nb::module_& m);        // ckks.cpp: submodule ckks
void bind_bgv(nb::module_& m);         // bgv.cpp: submodule bgv (BGV and BFV)
void bind_device(nb::module_& m);      // device.cpp: devices (CUDA, emulated)

}  // namespace polyhe::python
