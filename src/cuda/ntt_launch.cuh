// The device transforms and products of backend/cuda/ntt.hpp as templates over the word;
// ntt_u32.cu and ntt_u64.cu instantiate them (two translation units build in parallel). The
// block programs of ntt_body.hpp, in the order ntt_programs.hpp gives, launched by launch.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda/check.hpp"
#include "cuda/launch.cuh"
#include "cuda/ntt_programs.hpp"
#include "polyhe/backend/cuda/ntt.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/ntt/dispatch.hpp"

namespace polyhe::cuda {
namespace detail {

/// with_radix over the radices the device compiles for policy P (require_device_radix says
/// which); any other radix has been refused before.
template <Word W, class P, class F>
void with_device_radix(unsigned r_max, F&& f) {
  constexpr bool all =
      std::is_same_v<P, ShoupLazyButterfly<W>> ||
      std::is_same_v<P, ReducedButterfly<W, PlainTwiddleReduction<W, BarrettAlg4<W>>>>;
  if constexpr (all) {
    with_radix(r_max, f);
  } else {
    f(std::integral_constant<int, 3>{});
  }
}

/// Whether [a, a + n) and [b, b + n) (words of T) overlap without being the same range: the one
/// predicate of core/overlap.hpp.
template <class T, class U>
bool overlaps_partly(const T* a, const U* b, std::size_t n) {
  const std::size_t bytes = n * sizeof(T);
  return static_cast<const void*>(a) != static_cast<const void*>(b) &&
         bytes_overlap(a, bytes, b, bytes);
}

template <Word W>
void check_size(const char* fn, const char* what, std::size_t got, std::size_t want) {
  if (got != want) {
    throw InvalidParameter(std::string(fn) + ": " + what + " has " + std::to_string(got) +
                           " words; the tables' limbs·n is " + std::to_string(want));
  }
}

/// Throws InvalidParameter naming `fn` and the device unless it runs the layout's kernels: the
/// cluster kernels need compute capability 9.0 or later.
inline void require_device_layout(const Context& ctx, const NttLayout& l, const char* fn) {
  if (l.log_k != 0 && ctx.info().compute_major < 9) {
    throw InvalidParameter(std::string(fn) +
                           ": the cluster kernel needs compute capability 9.0 or "
                           "later; device " +
                           std::to_string(ctx.device()) + " (" + ctx.info().name + ") is " +
                           std::to_string(ctx.info().compute_major) + "." +
                           std::to_string(ctx.info().compute_minor));
  }
}

/// What every transform and product does once its arguments are checked: refuses a variant,
/// radix or kernel the device does not run (InvalidParameter naming it), takes `work_words` of
/// scratch from the pool on s (none for 0), and calls body(rmax, policies, work, run) with the
/// radix as an integral_constant, the tables' policies in device memory, the scratch and
/// run(program), which launches a block program on s.
template <Word W, class Body>
void on_device(const DeviceNttTables<W>& t, const NttLayout& layout, std::size_t work_words,
               Stream s, const char* fn, Body&& body) {
  require_device_radix(t.variant(), layout.r_max);
  const Context& ctx = *t.context();
  require_device_layout(ctx, layout, fn);
  ctx.activate();
  DeviceBuffer<W> work;
  if (work_words != 0) work = DeviceBuffer<W>(t.context(), work_words, s);
  const auto stream = static_cast<cudaStream_t>(s.native());
  const auto run = [&](const auto& program) {
    launch(program, stream, ctx.shared_per_block_optin(), fn);
  };
  t.plan(0).visit(t.variant(), [&](auto host_policy) {
    using P = decltype(host_policy);
    if constexpr (std::is_same_v<P, ReferenceButterfly<W>>) {
      return;  // never on the device (require_device_radix refused it)
    } else {
      const auto* policies = static_cast<const P*>(t.device_policies());
      with_device_radix<W, P>(layout.r_max,
                              [&](auto rmax) { body(rmax, policies, work.data(), run); });
    }
  });
}

template <Word W>
void transform(const DeviceNttTables<W>& t, DeviceSpan<const W> src, DeviceSpan<W> dst, Stream s,
               const NttOptions& o, bool inverse) {
  const char* fn = inverse ? "cuda::inverse" : "cuda::forward";
  check_size<W>(fn, "src", src.size(), t.words());
  check_size<W>(fn, "dst", dst.size(), t.words());
  if (overlaps_partly(src.data(), dst.data(), t.words())) {
    throw InvalidParameter(std::string(fn) + ": dst overlaps src without being src");
  }
  const auto layout = choose_layout(t.log_n(), static_cast<unsigned>(t.limbs()), 8 * sizeof(W), o);
  on_device(t, layout, 0, s, fn, [&](auto rmax, const auto* policies, W*, const auto& run) {
    run_transform<rmax()>(layout, policies, src.data(), dst.data(), inverse, run);
  });
}

}  // namespace detail

template <Word W>
void forward(const DeviceNttTables<W>& tables, DeviceSpan<const W> src, DeviceSpan<W> dst, Stream s,
             const NttOptions& options) {
  detail::transform(tables, src, dst, s, options, false);
}

template <Word W>
void inverse(const DeviceNttTables<W>& tables, DeviceSpan<const W> src, DeviceSpan<W> dst, Stream s,
             const NttOptions& options) {
  detail::transform(tables, src, dst, s, options, true);
}

template <Word W>
void polymul(const DeviceNttTables<W>& t, DeviceSpan<const W> a, DeviceSpan<const W> b,
             DeviceSpan<W> c, Stream s, bool fused, const NttOptions& o) {
  const char* fn = fused ? "cuda::polymul (fused)" : "cuda::polymul";
  detail::check_size<W>(fn, "a", a.size(), t.words());
  detail::check_size<W>(fn, "b", b.size(), t.words());
  detail::check_size<W>(fn, "c", c.size(), t.words());
  if (detail::overlaps_partly(a.data(), c.data(), t.words()) ||
      detail::overlaps_partly(b.data(), c.data(), t.words())) {
    throw InvalidParameter(std::string(fn) + ": c overlaps a or b without being it");
  }
  const auto layout =
      detail::choose_layout(t.log_n(), static_cast<unsigned>(t.limbs()), 8 * sizeof(W), o);
  const std::size_t work = layout.split ? 2 * t.words() : 0;
  detail::on_device(t, layout, work, s, fn,
                    [&](auto rmax, const auto* policies, W* scratch, const auto& run) {
                      detail::run_polymul<rmax()>(layout, policies, a.data(), b.data(), c.data(),
                                                  scratch, fused, false, run);
                    });
}

template <Word W>
void polymul_evaluated(const DeviceNttTables<W>& t, DeviceSpan<const W> a,
                       DeviceSpan<const W> b_evaluated, DeviceSpan<W> c, Stream s,
                       const NttOptions& o) {
  const char* fn = "cuda::polymul_evaluated";
  const std::size_t words = t.words();
  if (a.empty() || a.size() % words != 0) {
    throw InvalidParameter(std::string(fn) + ": a has " + std::to_string(a.size()) +
                           " words; a non-zero multiple of the tables' limbs·n = " +
                           std::to_string(words) + " was expected");
  }
  detail::check_size<W>(fn, "b_evaluated", b_evaluated.size(), words);
  if (c.size() != a.size()) {
    throw InvalidParameter(std::string(fn) + ": c has " + std::to_string(c.size()) +
                           " words, a has " + std::to_string(a.size()));
  }
  if (detail::overlaps_partly(a.data(), c.data(), a.size()) ||
      detail::overlaps_partly(b_evaluated.data(), c.data(), words) ||
      b_evaluated.data() == c.data()) {
    throw InvalidParameter(std::string(fn) + ": c overlaps a without being a, or overlaps b");
  }
  const std::size_t count = a.size() / words;
  const std::size_t limbs = count * t.limbs();
  if (limbs > (std::size_t{1} << 31) - 1) {
    throw InvalidParameter(std::string(fn) + ": " + std::to_string(limbs) +
                           " limbs in one call; at most 2^31 − 1");
  }
  auto layout = detail::choose_layout(t.log_n(), static_cast<unsigned>(limbs), 8 * sizeof(W), o);
  layout.period = static_cast<unsigned>(t.limbs());
  const std::size_t work = layout.split ? a.size() : 0;
  detail::on_device(t, layout, work, s, fn,
                    [&](auto rmax, const auto* policies, W* scratch, const auto& run) {
                      detail::run_polymul<rmax()>(layout, policies, a.data(), b_evaluated.data(),
                                                  c.data(), scratch, false, true, run);
                    });
}

#define POLYHE_CUDA_NTT_INSTANTIATE(W)                                                            \
  template void forward<W>(const DeviceNttTables<W>&, DeviceSpan<const W>, DeviceSpan<W>, Stream, \
                           const NttOptions&);                                                    \
  template void inverse<W>(const DeviceNttTables<W>&, DeviceSpan<const W>, DeviceSpan<W>, Stream, \
                           const NttOptions&);                                                    \
  template void polymul<W>(const DeviceNttTables<W>&, DeviceSpan<const W>, DeviceSpan<const W>,   \
                           DeviceSpan<W>, Stream, bool, const NttOptions&);                       \
  template void polymul_evaluated<W>(const DeviceNttTables<W>&, DeviceSpan<const W>,              \
                                     DeviceSpan<const W>, DeviceSpan<W>, Stream,                  \
                                     const NttOptions&);

}  // namespace polyhe::cuda
