// polyhe._polyhe.Device: where keys and ciphertexts live and the scheme operations run. A CUDA GPU
// when this build compiled the CUDA backend (POLYHE_PYTHON_CUDA), or the emulated device, which
// runs the same kernel bodies and block programs on the host (ring/device.hpp,
// backend/emulated.hpp): the device code path without a GPU, for tests.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <polyhe/backend/emulated.hpp>
#include <polyhe/backend/gpu_info.hpp>
#include <polyhe/core/error.hpp>
#ifdef POLYHE_PYTHON_CUDA
#include <polyhe/backend/cuda/device.hpp>
#endif

#include <string>
#include <vector>

#include "objects.hpp"

namespace polyhe::python {

void bind_device(nb::module_& m) {
  nb::class_<DeviceHandle>(m, "Device",
                           "A device: a CUDA GPU or the emulated device (the CUDA kernel bodies "
                           "run on the host).")
      .def_prop_ro(
          "name", [](const DeviceHandle& d) { return d.ptr->name(); },
          "For messages: 'cuda:0 (NVIDIA H100 80GB HBM3)', 'cuda-emulated'.")
      .def_prop_ro(
          "kind", [](const DeviceHandle& d) { return std::string(to_string(d.ptr->kind())); },
          "'cuda' or 'cuda-emulated'.")
      .def(
          "same", [](const DeviceHandle& a, const DeviceHandle& b) { return a.ptr == b.ptr; },
          "Whether both name one device object.")
      .def("__repr__",
           [](const DeviceHandle& d) { return "polyhe.Device('" + d.ptr->name() + "')"; })
      .def(
          "synchronize", [](const DeviceHandle& d) { d.ptr->synchronize(); },
          nb::call_guard<Release>(), "Waits for every operation submitted to the device.");

  m.def(
      "emulated_device", [] { return DeviceHandle{make_emulated_device()}; },
      "A new emulated device (host memory; the CUDA kernel bodies run thread by thread).");
  m.def(
      "cuda_device",
      [](int index) {
#ifdef POLYHE_PYTHON_CUDA
        nb::gil_scoped_release release;
        return DeviceHandle{cuda::make_device(cuda::Context::create(index))};
#else
        throw DeviceError("cuda_device(" + std::to_string(index) +
                          "): this build of the Python module has no CUDA backend (build it with "
                          "-C cmake.define.POLYHE_CUDA=ON where nvcc is)");
#endif
      },
      nb::arg("index"), "A context on CUDA device `index` (DeviceError when it cannot be made).");
  m.def(
      "cuda_compiled",
      [] {
#ifdef POLYHE_PYTHON_CUDA
        return cuda_compiled();
#else
        return false;
#endif
      },
      "Whether this module can make CUDA devices.");
  m.def(
      "gpu_names",
      [] {
        std::vector<std::string> out;
#ifdef POLYHE_PYTHON_CUDA
        for (const GpuInfo& g : gpus()) out.push_back(g.name);
#endif
        return out;
      },
      "The names of the visible CUDA devices, by index (empty without CUDA or a GPU).");
}

}  // namespace polyhe::python
