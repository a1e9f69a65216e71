// run_on_device: one grid-stride kernel per functor of device_ops.hpp, every CUDA call checked.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/device_ops.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::test {
namespace {

/// Throws DeviceError naming the call when err is not cudaSuccess.
void check(cudaError_t err, const std::string& call) {
  if (err != cudaSuccess) {
    throw DeviceError(call + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                      ")");
  }
}

/// A device allocation of n elements of T, freed on scope exit.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n) {
    check(cudaMalloc(&data_, bytes()), "cudaMalloc(" + std::to_string(bytes()) + " bytes)");
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(data_); }  // nothing to report from a destructor

  T* get() const { return data_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t n_;
};

template <class Op>
__global__ void apply_kernel(Op op, const In<typename Op::word>* in, Out<typename Op::word>* out,
                             std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = op(in[i]);
  }
}

}  // namespace

template <class Op>
std::vector<Out<typename Op::word>> run_on_device(const Op& op,
                                                  const std::vector<In<typename Op::word>>& in) {
  using W = typename Op::word;
  std::vector<Out<W>> out(in.size());
  if (in.empty()) return out;
  DeviceArray<In<W>> d_in(in.size());
  DeviceArray<Out<W>> d_out(in.size());
  check(cudaMemcpy(d_in.get(), in.data(), d_in.bytes(), cudaMemcpyHostToDevice),
        "cudaMemcpy(host to device, " + std::to_string(d_in.bytes()) + " bytes)");
  constexpr unsigned kThreads = 256;
  const unsigned blocks =
      static_cast<unsigned>(std::min<std::size_t>((in.size() + kThreads - 1) / kThreads, 1024));
  apply_kernel<<<blocks, kThreads>>>(op, d_in.get(), d_out.get(), in.size());
  check(cudaGetLastError(), "apply_kernel<<<" + std::to_string(blocks) + ", " +
                                std::to_string(kThreads) + ">>> launch");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after apply_kernel");
  check(cudaMemcpy(out.data(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost),
        "cudaMemcpy(device to host, " + std::to_string(d_out.bytes()) + " bytes)");
  return out;
}

#define POLYHE_INSTANTIATE_FOR(Op, W) \
  template std::vector<Out<W>> run_on_device<Op<W>>(const Op<W>&, const std::vector<In<W>>&);
#define POLYHE_INSTANTIATE(Op)              \
  POLYHE_INSTANTIATE_FOR(Op, std::uint32_t) \
  POLYHE_INSTANTIATE_FOR(Op, std::uint64_t)
POLYHE_TEST_DEVICE_OPS(POLYHE_INSTANTIATE)

}  // namespace polyhe::test
