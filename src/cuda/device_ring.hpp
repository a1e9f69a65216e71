// DeviceRing<Exec>: the ring operations of ring/device.hpp written once over an executor that
// either launches CUDA kernels (cuda_device.cu) or runs the same bodies and block programs on the
// host, thread by thread (emulated_device.cpp). What is device-specific (memory, copies, how a body
// or a block program runs) is Exec's; which kernels run in which order, with which constants, is
// here, so the emulated device checks the very sequence the GPU runs.
//
// Exec provides:
//   template <class T> using Buffer;            owning, .data() → T*, movable
//   template <class T> Buffer<T> upload_table(std::span<const T>);   constants (a temporary
//                                              one is freed after the work that reads it)
//   Buffer<std::uint64_t> raw(std::size_t words);                    scratch, freed after the
//                                                                    work that uses it
//   std::uint64_t* allocate(std::size_t), void deallocate(std::uint64_t*, std::size_t)
//   void upload(span<const u64>, u64*), download(const u64*, span<u64>), copy(src, dst, words),
//   void zero(u64*, words), synchronize()
//   u64* pinned_allocate(words), pinned_free(u64*), DeviceTicket record(),
//   upload_async(ticket, span<const u64>, u64*), DeviceTicket download_async(const u64*, span<u64>)
//   template <class Body> void for_each(const Body&, std::size_t count);  body(i) for every i
//   template <class Program> void run(const Program&, const char* name);   a block program
//   NttPolicies make_ntt_policies(std::span<const NttPlan<u64>* const>);  .data() → const P*
//   std::vector<P> policies_to_host(const NttPolicies&, std::size_t count);  their host copy
//   DeviceKind kind() const; std::string name() const;
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/elementwise_body.hpp"
#include "cuda/fused_ntt_body.hpp"
#include "cuda/ntt_programs.hpp"
#include "cuda/powerful_programs.hpp"
#include "cuda/ring_bodies.hpp"
#include "cuda/ring_ntt_options.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/device.hpp"
#include "polyhe/ring/key_parts.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/scale_rounder.hpp"
#include "polyhe/rns/wide_reduce.hpp"

namespace polyhe::cuda::detail {

using u64 = std::uint64_t;

/// The butterfly policy every device transform runs: the CPU's default (arith/butterfly.hpp), so
/// the words agree with NttPlan's.
using RingButterfly = ShoupLazyButterfly<u64>;
inline constexpr NttVariant kRingVariant = NttVariant::shoup_lazy;
static_assert(kRingVariant == kDefaultNttVariant);

template <class Exec>
class DeviceRing final : public Device {
 public:
  /// InvalidParameter when POLYHE_CUDA_TILE_LOG is set to a tile the ring does not take,
  /// POLYHE_CUDA_CONVERT_GROUP to anything but 1 … 4, or POLYHE_CUDA_PDL to anything but 0 or 1
  /// (ring_ntt_options.hpp). The last goes to an executor that launches kernels (the emulated
  /// one has no launches to overlap).
  explicit DeviceRing(Exec exec)
      : exec_(std::move(exec)),
        ntt_options_(ring_ntt_options()),
        convert_group_(ring_convert_group()) {
    const bool dependent = ring_dependent_launch();
    if constexpr (requires { exec_.set_dependent_launch(dependent); }) {
      exec_.set_dependent_launch(dependent);
    }
  }

  /// The executor (the emulated device's launch log reads it).
  [[nodiscard]] Exec& executor() { return exec_; }

  [[nodiscard]] DeviceKind kind() const override { return exec_.kind(); }
  [[nodiscard]] std::string name() const override { return exec_.name(); }

  u64* allocate(std::size_t words) override { return exec_.allocate(words); }
  void deallocate(u64* p, std::size_t words) noexcept override { exec_.deallocate(p, words); }
  void upload(std::span<const u64> host, u64* device) override { exec_.upload(host, device); }
  void download(const u64* device, std::span<u64> host) override { exec_.download(device, host); }
  void copy(const u64* src, u64* dst, std::size_t words) override { exec_.copy(src, dst, words); }
  void copy_batch(std::span<const u64* const> src, std::span<u64* const> dst,
                  std::size_t words) override {
    for (std::size_t first = 0; first < src.size(); first += kBatchPointers) {
      CopyBatchBody body{};
      for (std::size_t p = first; p < src.size() && p < first + kBatchPointers; ++p) {
        if (src[p] == dst[p]) continue;
        body.src[body.count] = src[p];
        body.dst[body.count] = dst[p];
        ++body.count;
      }
      if (body.count != 0) exec_.for_each(body, words);
    }
  }
  void zero(u64* dst, std::size_t words) override { exec_.zero(dst, words); }
  void synchronize() override { exec_.synchronize(); }
  u64* pinned_allocate(std::size_t words) override { return exec_.pinned_allocate(words); }
  void pinned_free(u64* p) noexcept override { exec_.pinned_free(p); }
  DeviceTicket record() override { return exec_.record(); }
  void upload_async(const DeviceTicket& after, std::span<const u64> host, u64* dst) override {
    exec_.upload_async(after, host, dst);
  }
  DeviceTicket download_async(const u64* src, std::span<u64> host) override {
    return exec_.download_async(src, host);
  }

  void ntt(const RingContext& ring, LimbRange r, const u64* src, u64* dst, bool inverse) override {
    if (!ring.power_of_two()) {
      std::vector<std::size_t> limbs(r.count);
      std::iota(limbs.begin(), limbs.end(), r.first);
      powerful_ntt(ring, limbs, r.count, src, dst, inverse, "DeviceRing::ntt (Φ_m)");
      return;
    }
    const Tables& t = tables(ring);
    // Radix 8, one block up to 2^11 words (or POLYHE_CUDA_TILE_LOG's tile), two passes above.
    const NttLayout layout = choose_layout(static_cast<unsigned>(limb_log(ring)),
                                           static_cast<unsigned>(r.count), 64, ntt_options_);
    static_assert(NttOptions{}.radix == 8);
    const auto run = [&](const auto& program) { exec_.run(program, "DeviceRing::ntt"); };
    run_transform<3>(layout, t.ntt.data() + r.first, src, dst, inverse, run);
  }

  void ntt_mapped(const RingContext& ring, std::span<const std::size_t> limb_map,
                  std::size_t repeats, const u64* src, u64* dst, bool inverse) override {
    if (!ring.power_of_two()) {
      powerful_ntt(ring, limb_map, repeats * limb_map.size(), src, dst, inverse,
                   "DeviceRing::ntt_mapped (Φ_m)");
      return;
    }
    const RingButterfly* policies = mapped_policies(ring, limb_map);
    NttLayout layout =
        choose_layout(static_cast<unsigned>(limb_log(ring)),
                      static_cast<unsigned>(repeats * limb_map.size()), 64, ntt_options_);
    layout.period = static_cast<unsigned>(limb_map.size());
    const auto run = [&](const auto& program) { exec_.run(program, "DeviceRing::ntt_mapped"); };
    run_transform<3>(layout, policies, src, dst, inverse, run);
  }

  void lift_digits(const RingContext& ring, std::size_t digits, std::size_t q_limbs,
                   std::size_t p_first, std::size_t p_limbs, const u64* x, u64* c) override {
    const Tables& t = tables(ring);
    const std::size_t limbs = q_limbs + p_limbs;
    exec_.for_each(LiftDigitsBody{t.moduli.data(), t.wide.data(), x, c, q_limbs, p_first, limbs,
                                  limb_log(ring)},
                   digits * limbs * ring.n());
  }

  void lift_digits_forward(const RingContext& ring, std::size_t digits, std::size_t q_limbs,
                           std::size_t p_first, std::size_t p_limbs, const u64* x,
                           u64* c) override {
    const std::size_t limbs = q_limbs + p_limbs;
    std::vector<std::size_t> limb_map(limbs);
    for (std::size_t t = 0; t < limbs; ++t) limb_map[t] = t < q_limbs ? t : p_first + (t - q_limbs);
    NttLayout layout = choose_layout(static_cast<unsigned>(limb_log(ring)),
                                     static_cast<unsigned>(digits * limbs), 64, ntt_options_);
    layout.period = static_cast<unsigned>(limbs);
    if (!layout.split || layout.log_k != 0 || !ring.power_of_two()) {
      // One block per limb (small N), or Φ_m's transforms: the lift, then the transforms.
      lift_digits(ring, digits, q_limbs, p_first, p_limbs, x, c);
      ntt_mapped(ring, limb_map, digits, c, c, false);
      return;
    }
    static_assert(NttOptions{}.radix == 8);
    const Tables& t = tables(ring);
    const RingButterfly* policies = mapped_policies(ring, limb_map);
    exec_.run(
        LiftColumnNtt<RingButterfly, 3>{
            policies, t.wide.data(), x, 0, t.moduli.data(), c, layout.log_n1, layout.log_n2,
            layout.log_width, static_cast<unsigned>(limbs), static_cast<unsigned>(q_limbs),
            static_cast<unsigned>(p_first), static_cast<unsigned>(digits), layout.column_threads},
        "DeviceRing::lift_digits_forward (columns)");
    exec_.run(RowNtt<u64, RingButterfly, 3>{policies, c, c, layout.log_n1, layout.log_n2,
                                            layout.limbs, layout.period, layout.row_threads, false},
              "DeviceRing::lift_digits_forward (rows)");
  }

  void binary(Binary op, const RingContext& ring, LimbRange r, const u64* a, const u64* b,
              u64* c) override {
    const LimbModulus<u64>* m = moduli(ring, r);
    const int log_n = limb_log(ring);
    const std::size_t count = r.count * ring.n();
    switch (op) {
      case Binary::add: exec_.for_each(AddBody<u64>{m, a, b, c, log_n}, count); return;
      case Binary::sub: exec_.for_each(SubBody<u64>{m, a, b, c, log_n}, count); return;
      case Binary::multiply: exec_.for_each(MultiplyBody<u64>{m, a, b, c, log_n}, count); return;
    }
  }

  void negate(const RingContext& ring, LimbRange r, const u64* a, u64* c) override {
    exec_.for_each(NegateBody<u64>{moduli(ring, r), a, c, limb_log(ring)}, r.count * ring.n());
  }

  void multiply_add(const RingContext& ring, LimbRange r, const u64* a, const u64* b, const u64* d,
                    u64* c) override {
    exec_.for_each(MultiplyAddBody<u64>{moduli(ring, r), a, b, d, c, limb_log(ring)},
                   r.count * ring.n());
  }

  void multiply_scalar(const RingContext& ring, LimbRange r, const u64* a,
                       std::span<const u64> residues, u64* c) override {
    const auto ops = shoup_operands(ring, r, residues);
    with_scalars(ops, r.count * ring.n(), [&](auto scalars) {
      using S = decltype(scalars);
      return MultiplyScalarBody<u64, S>{moduli(ring, r), a, c, limb_log(ring), scalars};
    });
  }

  void tensor(const RingContext& ring, LimbRange r, const u64* a0, const u64* a1, const u64* b0,
              const u64* b1, u64* c0, u64* c1, u64* c2) override {
    exec_.for_each(TensorBody<u64>{moduli(ring, r), a0, a1, b0, b1, c0, c1, c2, limb_log(ring)},
                   r.count * ring.n());
  }

  void automorphism(const RingContext& ring, LimbRange r, const u64* a, u64* c, std::uint64_t k,
                    bool evaluation_form, bool accumulate) override {
    if (!evaluation_form && !ring.power_of_two()) {
      // RnsPoly goes through the slots there (the powerful basis has no signed permutation).
      throw InvalidParameter("Device::automorphism: the coefficient form of σ_" +
                             std::to_string(k) + " over Φ_" + std::to_string(ring.m()) +
                             " is no signed permutation; apply it in evaluation form");
    }
    const LimbModulus<u64>* m = moduli(ring, r);
    const std::size_t count = r.count * ring.n();
    if (evaluation_form) {
      exec_.for_each(
          GatherBody<u64>{m, a, c, automorphism_map(ring, k), limb_log(ring), accumulate}, count);
    } else {
      exec_.for_each(CoefficientAutomorphismBody<u64>{m, a, c, k, limb_log(ring), accumulate},
                     count);
    }
  }

  void permute_slots(const RingContext& ring, std::size_t limbs, const u64* a, u64* c,
                     std::uint64_t k) override {
    // Not accumulating, the body reads no modulus.
    exec_.for_each(GatherBody<u64>{nullptr, a, c, automorphism_map(ring, k), limb_log(ring), false},
                   limbs * ring.n());
  }

  void split_constant(const RingContext& ring, LimbRange r, const u64* a, std::span<const u64> lo,
                      std::span<const u64> hi, u64* c, bool multiply) override {
    const auto lo_ops = shoup_operands(ring, r, lo);
    const auto hi_ops = shoup_operands(ring, r, hi);
    const std::size_t count = r.count * ring.n();
    const LimbModulus<u64>* m = moduli(ring, r);
    if (r.count <= kInlineScalarLimbs) {
      InlineScalars<u64> l{}, h{};
      for (std::size_t j = 0; j < r.count; ++j) {
        l.op[j] = lo_ops[j];
        h.op[j] = hi_ops[j];
      }
      exec_.for_each(
          SplitConstantBody<u64, InlineScalars<u64>>{m, a, c, limb_log(ring), l, h, multiply},
          count);
    } else {
      const auto l = exec_.template upload_table<ShoupOperand<u64>>(lo_ops);
      const auto h = exec_.template upload_table<ShoupOperand<u64>>(hi_ops);
      exec_.for_each(SplitConstantBody<u64, const ShoupOperand<u64>*>{m, a, c, limb_log(ring),
                                                                      l.data(), h.data(), multiply},
                     count);
    }
  }

  void sub_multiply_scalar(const RingContext& ring, LimbRange r, const u64* a, const u64* b,
                           std::span<const u64> residues, u64* c) override {
    const auto ops = shoup_operands(ring, r, residues);
    with_scalars(ops, r.count * ring.n(), [&](auto scalars) {
      using S = decltype(scalars);
      return SubMultiplyScalarBody<u64, S>{moduli(ring, r), a, b, c, limb_log(ring), scalars};
    });
  }

  void sub_multiply_scalar_parts(const RingContext& ring, LimbRange r,
                                 std::span<const u64* const> a, const u64* b,
                                 std::span<const u64> residues, std::span<u64* const> c,
                                 bool accumulate) override {
    const auto ops = shoup_operands(ring, r, residues);
    const std::size_t words = r.count * ring.n();
    for (std::size_t first = 0; first < a.size(); first += kBatchPointers) {
      const std::size_t parts = std::min(kBatchPointers, a.size() - first);
      with_scalars(ops, words, [&](auto scalars) {
        using S = decltype(scalars);
        SubMultiplyScalarPartsBody<u64, S> body{};
        body.moduli = moduli(ring, r);
        for (std::size_t p = 0; p < parts; ++p) {
          body.a[p] = a[first + p];
          body.c[p] = c[first + p];
        }
        body.b = b + first * words;
        body.parts = parts;
        body.part_words = words;
        body.log_n = limb_log(ring);
        body.accumulate = accumulate;
        body.scalars = scalars;
        return body;
      });
    }
  }

  void lift_forward_sub(const RingContext& ring, std::size_t limbs, const u64* x, u64 p,
                        std::span<const u64* const> a, std::span<const u64> residues,
                        std::span<u64* const> c, bool accumulate,
                        std::span<const u64> factors) override {
    const std::size_t parts = a.size();
    const std::size_t n = ring.n();
    std::vector<std::size_t> limb_map(limbs);
    std::iota(limb_map.begin(), limb_map.end(), std::size_t{0});
    NttLayout layout = choose_layout(static_cast<unsigned>(limb_log(ring)),
                                     static_cast<unsigned>(parts * limbs), 64, ntt_options_);
    layout.period = static_cast<unsigned>(limbs);
    auto work = exec_.raw(parts * limbs * n);
    if (!layout.split || layout.log_k != 0 || parts > kBatchPointers || !ring.power_of_two()) {
      // One block per limb (small N), or Φ_m's transforms: the steps one by one.
      lift_centred(ring, LimbRange{0, limbs}, x, p, work.data(), parts);
      if (!factors.empty()) {
        for (std::size_t j = 0; j < parts; ++j) {
          u64* const w = work.data() + j * limbs * n;
          multiply_scalar(ring, LimbRange{0, limbs}, w, factors.first(limbs), w);
        }
      }
      ntt_mapped(ring, limb_map, parts, work.data(), work.data(), false);
      sub_multiply_scalar_parts(ring, LimbRange{0, limbs}, a, work.data(), residues, c, accumulate);
      return;
    }
    static_assert(NttOptions{}.radix == 8);
    const RingButterfly* policies = mapped_policies(ring, limb_map);
    const auto l = static_cast<unsigned>(limbs);
    // The column pass, with the factors in its load (its own kernel) or without.
    const auto columns = [&](auto scaled, const ShoupOperand<u64>* f, const char* what) {
      exec_.run(
          LiftColumnNtt<RingButterfly, 3, decltype(scaled)::value>{
              policies, tables(ring).wide.data(), x, p, nullptr, work.data(), layout.log_n1,
              layout.log_n2, layout.log_width, l, l, 0, static_cast<unsigned>(parts),
              layout.column_threads, f},
          what);
    };
    if (factors.empty()) {
      columns(std::false_type{}, nullptr, "DeviceRing::lift_forward_sub (columns)");
    } else {
      columns(std::true_type{}, scalar_table(ring, factors.first(limbs)),
              "DeviceRing::lift_forward_sub (scaled columns)");
    }
    SubScaleRowNtt<RingButterfly, 3> row{};
    row.policies = policies;
    row.moduli = moduli(ring, LimbRange{0, limbs});
    row.scalars = scalar_table(ring, residues.first(limbs));
    row.src = work.data();
    for (std::size_t j = 0; j < parts; ++j) {
      row.a[j] = a[j];
      row.c[j] = c[j];
    }
    row.log_n1 = layout.log_n1;
    row.log_n2 = layout.log_n2;
    row.limbs = static_cast<unsigned>(limbs);
    row.parts = static_cast<unsigned>(parts);
    row.threads = layout.row_threads;
    row.accumulate = accumulate;
    exec_.run(row, "DeviceRing::lift_forward_sub (rows)");
  }

  void lift_centred(const RingContext& ring, LimbRange r, const u64* x, u64 p, u64* c,
                    std::size_t parts) override {
    const Tables& t = tables(ring);
    exec_.for_each(LiftCentredBody{t.wide.data() + r.first, x, p, c, limb_log(ring),
                                   static_cast<std::uint32_t>(r.count)},
                   parts * r.count * ring.n());
  }

  void lift_signed(const RingContext& ring, LimbRange r, std::span<const std::int64_t> small,
                   u64* c) override {
    const auto device_small = exec_.template upload_table<std::int64_t>(small);
    exec_.for_each(
        LiftSignedBody{tables(ring).wide.data() + r.first, device_small.data(), c, limb_log(ring)},
        r.count * ring.n());
  }

  void convert(const BaseConverter& conv, std::size_t n, const u64* x, u64* c,
               std::span<const std::size_t> out_limbs, bool exact, std::size_t count,
               std::size_t c_stride) override {
    // Not a structured binding: the lambda below captures them (clang before 16 refuses that).
    const std::pair<const Converter*, const std::uint32_t*> tables = converter(conv, out_limbs);
    const Converter* const t = tables.first;
    const std::uint32_t* const positions = tables.second;
    const auto targets = static_cast<std::uint32_t>(conv.to().size());
    const auto run = [&](auto group) {
      const ConvertBody<decltype(group)::value> body{x,
                                                     t->from_moduli.data(),
                                                     t->q_hat_inv.data(),
                                                     conv.from().size(),
                                                     targets,
                                                     t->hat.data(),
                                                     t->qmod.data(),
                                                     t->inv.data(),
                                                     t->wide.data(),
                                                     positions,
                                                     c,
                                                     c_stride,
                                                     std::countr_zero(n),
                                                     exact};
      exec_.for_each(body, count * body.groups() * n);
    };
    switch (convert_group_) {
      case 2: run(std::integral_constant<unsigned, 2>{}); return;
      case 4: run(std::integral_constant<unsigned, 4>{}); return;
      case 1: run(std::integral_constant<unsigned, 1>{}); return;
      default: run(std::integral_constant<unsigned, 3>{}); return;
    }
  }

  void scale_round(const ScaleRounder& rounder, std::size_t n, const u64* x_q, const u64* x_p,
                   u64* c, std::size_t count) override {
    const Rounder& t = rounder_tables(rounder);
    const std::size_t p_limbs = rounder.p_basis().size();
    exec_.for_each(
        ScaleRoundBody{x_q, x_p, rounder.q_basis().size(), static_cast<std::uint32_t>(p_limbs),
                       t.mu.data(), t.lambda.data(), t.rho.data(), t.omega.data(), t.wide.data(), c,
                       std::countr_zero(n)},
        count * p_limbs * n);
  }

  void key_inner_products(const RingContext& ring, std::size_t q_limbs, std::size_t p_first,
                          std::size_t p_limbs, const u64* up, std::size_t digits,
                          const KeySwitchParts& key, u64* acc0, u64* acc1) override {
    const std::size_t limbs = q_limbs + p_limbs;
    exec_.for_each(
        KeyInnerProductBody{tables(ring).moduli.data(), up, key.device_words(), acc0, acc1, digits,
                            key.count(), q_limbs, p_first, limbs, limb_log(ring)},
        limbs * ring.n());
  }

 private:
  using NttPolicies = typename Exec::NttPolicies;
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

  /// log2 of a limb's words, by which the element-wise bodies split an index into limb and word:
  /// N for x^N + 1; φ(m) for odd m when it is a power of two (m a product of Fermat primes, as
  /// 255, 4369, 21845, 65535); InvalidParameter naming m otherwise.
  static int limb_log(const RingContext& ring) {
    if (ring.power_of_two()) return ring.log_n();
    if (!std::has_single_bit(ring.n())) {
      throw InvalidParameter("Φ_" + std::to_string(ring.m()) +
                             " ring on a device: φ(m) = " + std::to_string(ring.n()) +
                             " is not a power of two; the device's element-wise kernels take "
                             "limbs of 2^k words (m a product of Fermat primes: 3, 5, 17, 257)");
    }
    return std::countr_zero(ring.n());
  }

  /// The Φ_m transform's plan and constants (powerful_programs.hpp), with the ring-limb arrays
  /// of the limb maps the callers used.
  struct Powerful {
    PowerfulPlan plan;
    Buffer<ShoupOperand<u64>> consts;
    Buffer<std::uint32_t> index;
    std::map<std::vector<std::uint32_t>, Buffer<std::uint32_t>> limb_maps;
  };

  /// The transform over Φ_m of `batch` limbs, limb b under ring limb ring_limbs[b % size]:
  /// the plan built on first use (InvalidParameter naming m when the device does not serve it).
  void powerful_ntt(const RingContext& ring, std::span<const std::size_t> ring_limbs,
                    std::size_t batch, const u64* src, u64* dst, bool inverse, const char* name) {
    Tables& t = tables(ring);
    PowerfulLimbs limbs{};
    const std::uint32_t* index = nullptr;
    const PowerfulPlan* plan = nullptr;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!t.powerful) {
        auto made = std::make_unique<Powerful>();
        std::vector<ShoupOperand<u64>> consts;
        made->plan = make_powerful_plan(ring, consts);
        if (made->plan.index.empty()) made->plan.index.push_back(0);  // no Rader axis
        made->consts = exec_.template upload_table<ShoupOperand<u64>>(consts);
        made->index = exec_.template upload_table<std::uint32_t>(made->plan.index);
        t.powerful = std::move(made);
      }
      Powerful& pw = *t.powerful;
      std::vector<std::uint32_t> key(ring_limbs.begin(), ring_limbs.end());
      auto it = pw.limb_maps.find(key);
      if (it == pw.limb_maps.end()) {
        const std::vector<std::uint32_t> host = key;
        it = pw.limb_maps
                 .emplace(std::move(key), exec_.template upload_table<std::uint32_t>(
                                              std::span<const std::uint32_t>(host)))
                 .first;
      }
      limbs = PowerfulLimbs{pw.consts.data(), pw.plan.limb_consts, it->second.data(),
                            static_cast<unsigned>(ring_limbs.size())};
      index = pw.index.data();
      plan = &pw.plan;
    }
    run_powerful(*plan, limbs, index, src, dst, static_cast<unsigned>(batch), inverse,
                 [&](const auto& program) { exec_.run(program, name); });
  }

  /// The constants of one ring on this device, uploaded once: the [GPU-Polymul, Alg. 4] moduli, the
  /// 128-bit Barrett constants and the NTT policies (with their twiddle tables) of every limb, the
  /// evaluation-form automorphism maps built on first use.
  struct Tables {
    std::weak_ptr<const RingContext> owner;
    Buffer<LimbModulus<u64>> moduli;
    Buffer<WideBarrett> wide;
    NttPolicies ntt;
    std::map<std::uint64_t, Buffer<std::uint32_t>> maps;
    std::map<std::vector<std::size_t>, Buffer<RingButterfly>> mapped;  // policies by limb map
    std::map<std::vector<u64>, Buffer<ShoupOperand<u64>>> scalars;     // by residues of limbs 0…
    std::unique_ptr<Powerful> powerful;  // odd m: the Φ_m transform, built on first use
  };

  /// Shoup operands of residues[j] modulo ring limb j, in device memory, built on first use (the
  /// schemes pass the same constants for every call at a level: q_l^−1, P^−1).
  const ShoupOperand<u64>* scalar_table(const RingContext& ring, std::span<const u64> residues) {
    Tables& t = tables(ring);
    const std::lock_guard<std::mutex> lock(mutex_);
    std::vector<u64> key(residues.begin(), residues.end());
    auto it = t.scalars.find(key);
    if (it == t.scalars.end()) {
      const auto ops = shoup_operands(ring, LimbRange{0, residues.size()}, residues);
      it = t.scalars.emplace(std::move(key), exec_.template upload_table<ShoupOperand<u64>>(ops))
               .first;
    }
    return it->second.data();
  }

  /// The NTT policies of ring limbs limb_map[0], limb_map[1], … in one array (built on first use).
  const RingButterfly* mapped_policies(const RingContext& ring,
                                       std::span<const std::size_t> limb_map) {
    Tables& t = tables(ring);
    const std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::size_t> key(limb_map.begin(), limb_map.end());
    auto it = t.mapped.find(key);
    if (it == t.mapped.end()) {
      const std::vector<RingButterfly> all = exec_.policies_to_host(t.ntt, ring.max_limbs());
      std::vector<RingButterfly> gathered;
      for (const std::size_t limb : limb_map) gathered.push_back(all.at(limb));
      it = t.mapped.emplace(std::move(key), exec_.template upload_table<RingButterfly>(gathered))
               .first;
    }
    return it->second.data();
  }

  /// A BaseConverter's tables on this device (its id keys them: copies share them), with the
  /// target positions each caller used.
  struct Converter {
    Buffer<LimbModulus<u64>> from_moduli;
    Buffer<ShoupOperand<u64>> q_hat_inv;
    Buffer<u64> hat;
    Buffer<u64> qmod;
    Buffer<double> inv;
    Buffer<WideBarrett> wide;
    std::map<std::vector<std::size_t>, Buffer<std::uint32_t>> positions;
  };

  /// A ScaleRounder's tables on this device, by its id.
  struct Rounder {
    Buffer<u64> mu;
    Buffer<double> lambda;
    Buffer<double> rho;
    Buffer<u64> omega;
    Buffer<WideBarrett> wide;
  };

  const Rounder& rounder_tables(const ScaleRounder& r) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = rounders_[r.id()];
    if (!slot) {
      slot = std::make_unique<Rounder>();
      std::vector<WideBarrett> wide;
      for (std::size_t j = 0; j < r.p_basis().size(); ++j) {
        wide.push_back(make_wide_barrett(r.p_basis().prime(j)));
      }
      slot->mu = exec_.template upload_table<u64>(r.mu());
      slot->lambda = exec_.template upload_table<double>(r.lambda());
      slot->rho = exec_.template upload_table<double>(r.rho());
      slot->omega = exec_.template upload_table<u64>(r.omega());
      slot->wide = exec_.template upload_table<WideBarrett>(wide);
    }
    return *slot;
  }

  std::vector<ShoupOperand<u64>> shoup_operands(const RingContext& ring, LimbRange r,
                                                std::span<const u64> residues) {
    std::vector<ShoupOperand<u64>> ops(r.count);
    for (std::size_t j = 0; j < r.count; ++j) {
      ops[j] = make_shoup(residues[j], ring.basis().prime(r.first + j));
    }
    return ops;
  }

  /// Runs make(scalars)'s body over count words with the Shoup scalars inside the kernel's
  /// parameters (up to kInlineScalarLimbs) or, beyond, in a temporary device table.
  template <class Make>
  void with_scalars(const std::vector<ShoupOperand<u64>>& ops, std::size_t count, Make&& make) {
    if (ops.size() <= kInlineScalarLimbs) {
      InlineScalars<u64> inline_ops{};
      for (std::size_t j = 0; j < ops.size(); ++j) inline_ops.op[j] = ops[j];
      exec_.for_each(make(inline_ops), count);
    } else {
      const auto device_ops = exec_.template upload_table<ShoupOperand<u64>>(ops);
      exec_.for_each(make(static_cast<const ShoupOperand<u64>*>(device_ops.data())), count);
    }
  }

  /// The converter's tables and the device copy of out_limbs (both built on first use).
  std::pair<const Converter*, const std::uint32_t*> converter(
      const BaseConverter& conv, std::span<const std::size_t> out_limbs) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = converters_[conv.id()];
    if (!slot) {
      slot = std::make_unique<Converter>();
      const RnsBasis& from = conv.from();
      const RnsBasis& to = conv.to();
      std::vector<LimbModulus<u64>> fm;
      for (std::size_t i = 0; i < from.size(); ++i) fm.push_back(make_limb_modulus(from.prime(i)));
      std::vector<ShoupOperand<u64>> qhi;
      for (std::size_t i = 0; i < from.size(); ++i) {
        qhi.push_back(make_shoup(from.q_hat_inverses()[i], from.prime(i)));
      }
      std::vector<WideBarrett> wide;
      for (std::size_t j = 0; j < to.size(); ++j) wide.push_back(make_wide_barrett(to.prime(j)));
      slot->from_moduli = exec_.template upload_table<LimbModulus<u64>>(fm);
      slot->q_hat_inv = exec_.template upload_table<ShoupOperand<u64>>(qhi);
      slot->hat = exec_.template upload_table<u64>(conv.q_hat_mod_targets());
      slot->qmod = exec_.template upload_table<u64>(conv.q_multiples_mod_targets());
      slot->inv = exec_.template upload_table<double>(conv.inverse_primes());
      slot->wide = exec_.template upload_table<WideBarrett>(wide);
    }
    std::vector<std::size_t> key(out_limbs.begin(), out_limbs.end());
    auto it = slot->positions.find(key);
    if (it == slot->positions.end()) {
      const std::vector<std::uint32_t> pos(out_limbs.begin(), out_limbs.end());
      it = slot->positions.emplace(std::move(key), exec_.template upload_table<std::uint32_t>(pos))
               .first;
    }
    return {slot.get(), it->second.data()};
  }

  /// The tables of `ring`, built on first use. Entries of rings that no longer exist are dropped
  /// (their device memory freed) when a new ring's tables are built.
  Tables& tables(const RingContext& ring) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = tables_.find(&ring);
    if (it != tables_.end()) {
      const auto owner = it->second->owner.lock();
      if (owner.get() == &ring) return *it->second;
      tables_.erase(it);  // a dead ring's address reused
    }
    std::erase_if(tables_, [](const auto& e) { return e.second->owner.expired(); });
    auto t = std::make_unique<Tables>();
    t->owner = ring.weak_from_this();
    std::vector<LimbModulus<u64>> host;
    for (std::size_t i = 0; i < ring.max_limbs(); ++i) {
      host.push_back(make_limb_modulus(ring.basis().prime(i)));
    }
    t->moduli = exec_.template upload_table<LimbModulus<u64>>(host);
    std::vector<WideBarrett> wide;
    for (std::size_t i = 0; i < ring.max_limbs(); ++i) {
      wide.push_back(make_wide_barrett(ring.basis().prime(i)));
    }
    t->wide = exec_.template upload_table<WideBarrett>(wide);
    t->ntt = exec_.make_ntt_policies(ring.plans(ring.max_limbs()));
    Tables& ref = *t;
    tables_.emplace(&ring, std::move(t));
    return ref;
  }

  const LimbModulus<u64>* moduli(const RingContext& ring, LimbRange r) {
    return tables(ring).moduli.data() + r.first;
  }

  const std::uint32_t* automorphism_map(const RingContext& ring, std::uint64_t k) {
    Tables& t = tables(ring);
    const std::span<const std::uint32_t> host = ring.automorphism_table(k);  // checks k
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = t.maps.find(k);
    if (it == t.maps.end()) {
      it = t.maps.emplace(k, exec_.template upload_table<std::uint32_t>(host)).first;
    }
    return it->second.data();
  }

  Exec exec_;
  /// Every transform's layout: radix 8 (the programs below are instantiated for it only; the
  /// knob sets tile_log alone), the tile from POLYHE_CUDA_TILE_LOG or the default.
  NttOptions ntt_options_;
  /// POLYHE_CUDA_CONVERT_GROUP: the targets a base conversion's thread computes (1 … 4).
  unsigned convert_group_;
  std::mutex mutex_;
  std::map<const RingContext*, std::unique_ptr<Tables>> tables_;
  std::map<std::uint64_t, std::unique_ptr<Converter>> converters_;  // by BaseConverter::id()
  std::map<std::uint64_t, std::unique_ptr<Rounder>> rounders_;      // by ScaleRounder::id()
};

}  // namespace polyhe::cuda::detail
