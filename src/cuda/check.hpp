// Checked CUDA calls (docs/design.md, "Errors and bad input"): every runtime call and every kernel
// launch goes through check() or check_launch(), which turn a failure into polyhe::DeviceError
// naming the call. Included by .cu and CUDA-aware .cpp files only (it includes the CUDA runtime
// header).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

#include "polyhe/core/error.hpp"

namespace polyhe::cuda::detail {

/// Throws DeviceError("<call> failed: <cudaGetErrorName> (<cudaGetErrorString>)") unless err is
/// cudaSuccess. Before throwing it calls cudaGetLastError() once, so that a non-sticky error
/// (a bad argument, an invalid launch configuration) that is also recorded as the thread's last
/// error does not resurface at the next check_launch. Sticky errors (cudaErrorIllegalAddress,
/// a kernel's trap, ...) corrupt the CUDA context: no call can clear them, and every later call
/// in this process reports them again.
inline void check(cudaError_t err, std::string_view call) {
  if (err == cudaSuccess) return;
  static_cast<void>(cudaGetLastError());
  std::string message(call);
  message += " failed: ";
  message += cudaGetErrorName(err);
  message += " (";
  message += cudaGetErrorString(err);
  message += ")";
  throw DeviceError(message);
}

/// After a <<<...>>> launch: check(cudaGetLastError(), "<kernel> launch"). Reports errors of the
/// launch itself (configuration, resources, an earlier sticky error); an error the kernel meets
/// while running surfaces at the next synchronising call instead.
inline void check_launch(std::string_view kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return;
  check(err, std::string(kernel) + " launch");
}

}  // namespace polyhe::cuda::detail
