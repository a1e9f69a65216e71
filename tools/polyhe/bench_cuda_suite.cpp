// The sections of `polyhe bench --backend cuda` (bench_cuda.hpp): floors, single transforms,
// variant/radix/kernel comparisons, batches, products, and product throughput with and without
// host transfers.
//
// Floors of the device rows (docs/design.md, "Performance method"): memory = the bytes each DRAM
// pass that the kernels are known to make reads and writes, over the measured device-to-device
// bandwidth (which counts read + write) — a one-block transform 1 pass (n words in, n out), a
// two-pass transform 2 passes; a one-block product reads a and b and writes c (3n words), a
// two-pass product 9n (column pass on a and b: 4n, row pass with the product: 3n, inverse
// column pass: 2n); with b resident and evaluated, 2n one-block (b stays in L2) and 7n two-pass.
// Multiply = butterflies · products_per_butterfly(variant) (+ 2.5 per pointwise product) over
// the measured rate of the word size. The floor is the larger of the two. Twiddle traffic is
// not counted (a lower bound).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

#include "bench_cuda.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/ntt.hpp"
#include "polyhe/backend/cuda/streamed_polymul.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/plan.hpp"
#include "random.hpp"
#include "text.hpp"

namespace polyhe::cli {

namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using cuda::DeviceBuffer;
using cuda::NttKernel;
using cuda::NttOptions;

constexpr double kPointwiseProducts = 2.5;  // a Barrett mul_mod: wide product + 2 high + 1 low
constexpr std::size_t kMiB = std::size_t{1} << 20;

std::string kernel_name(NttKernel k) {
  switch (k) {
    case NttKernel::one_block: return "one_block";
    case NttKernel::two_pass: return "two_pass";
    case NttKernel::cluster: return "cluster";
    default: return "automatic";
  }
}

template <Word W>
constexpr int word_bits() {
  return 8 * static_cast<int>(sizeof(W));
}

/// The bit size the suite uses on word W: 30 on 32-bit words, the largest NTT primes below 2^62
/// on 64-bit words.
template <Word W>
constexpr int default_bits() {
  return sizeof(W) == 4 ? 30 : 62;
}

/// Plans of `limbs` distinct primes and their device tables for one variant.
template <Word W>
struct Tables {
  std::vector<std::shared_ptr<const NttPlan<W>>> plans;
  std::shared_ptr<const cuda::DeviceNttTables<W>> device;
  int bits = 0;
};

class Suite {
 public:
  Suite(std::shared_ptr<const cuda::Context> ctx, const CudaSuiteConfig& config,
        const std::function<void(const CudaRow&)>& sink,
        const std::function<void(const std::string&)>& note)
      : ctx_(std::move(ctx)),
        config_(config),
        sink_(sink),
        note_(note),
        gate_(ctx_),
        rng_(os_seed()) {}

  void run() {
    measure_floors();
    for (int log_n : config_.log_ns) {
      transforms<u32>(log_n, kDefaultNttVariant, {}, "");
      transforms<u64>(log_n, kDefaultNttVariant, {}, "");
    }
    if (wants(16)) compare_variants_and_radices();
    for (int log_n : config_.log_ns) {
      compare_kernels<u32>(log_n);
      compare_kernels<u64>(log_n);
    }
    if (wants(16)) {
      for (NttKernel k : {NttKernel::automatic, NttKernel::cluster}) {
        for (std::size_t limbs : {1, 2, 4, 8, 16, 32, 64}) {
          batch<u32>(limbs, k);
          batch<u64>(limbs, k);
        }
      }
    }
    for (int log_n : config_.log_ns) {
      for (NttKernel k : {NttKernel::automatic, NttKernel::cluster}) {
        for (bool fused : {false, true}) {
          products<u32>(log_n, fused, k);
          products<u64>(log_n, fused, k);
        }
      }
    }
    if (wants(10)) throughput();
  }

 private:
  [[nodiscard]] bool wants(int log_n) const {
    return std::find(config_.log_ns.begin(), config_.log_ns.end(), log_n) != config_.log_ns.end();
  }

  CudaRow row(std::string op, int log_n, int bits, std::size_t limbs, std::string variant) const {
    CudaRow r;
    r.op = std::move(op);
    r.device = ctx_->info().name;
    r.log_n = log_n;
    r.bits = bits;
    r.limbs = limbs;
    r.variant = std::move(variant);
    return r;
  }

  // --- Floors ----------------------------------------------------------------------------------

  void floor_row(const std::string& op, const cuda::bench::Samples& s, const char* unit,
                 double& rate, int bits = 0, const std::string& variant = "") {
    CudaRow r = row(op, 0, bits, 1, variant);
    r.stats = stats_of_seconds(s.seconds);
    rate = s.units_per_rep / (r.stats.median_ns * 1e-9);
    r.config = fixed(rate / (std::string(unit) == "bytes" ? 1e9 : 1e12), 2) +
               (std::string(unit) == "bytes" ? " GB/s" : " T products/s");
    r.extra[std::string(unit) + "_per_rep"] = s.units_per_rep;
    r.extra[std::string(unit) + "_per_s"] = rate;
    r.extra["section"] = "floors";
    sink_(r);
  }

  void measure_floors() {
    constexpr std::size_t kReps = 20;
    floor_row("copy_d2d", cuda::bench::time_device_copy(ctx_, 1024 * kMiB, kReps), "bytes",
              floors_.d2d_bytes_per_s);
    floor_row("copy_h2d", cuda::bench::time_host_to_device(ctx_, 256 * kMiB, kReps), "bytes",
              floors_.h2d_bytes_per_s);
    floor_row("copy_d2h", cuda::bench::time_device_to_host(ctx_, 256 * kMiB, kReps), "bytes",
              floors_.d2h_bytes_per_s);
    floor_row("copy_bidirectional", cuda::bench::time_bidirectional(ctx_, 256 * kMiB, kReps),
              "bytes", floors_.bidir_bytes_per_s);
    floor_row("multiply_rate", cuda::bench::time_multiply(ctx_, 64, kReps), "products",
              floors_.mul64_per_s, 64, "umul64hi+lo");
    floor_row("multiply_rate", cuda::bench::time_multiply(ctx_, 32, kReps), "products",
              floors_.mul32_per_s, 32, "umulhi+lo");
  }

  template <Word W>
  [[nodiscard]] double mul_rate() const {
    return sizeof(W) == 4 ? floors_.mul32_per_s : floors_.mul64_per_s;
  }

  /// max(memory, multiply) floor in ns; records both in r.extra.
  template <Word W>
  void set_floor(CudaRow& r, double words_moved, double products) const {
    const double mem_ns = words_moved * sizeof(W) / floors_.d2d_bytes_per_s * 1e9;
    const double mul_ns = products / mul_rate<W>() * 1e9;
    r.floor_ns = std::max(mem_ns, mul_ns);
    r.extra["floor_memory_ns"] = std::round(mem_ns * 10) / 10;
    r.extra["floor_multiply_ns"] = std::round(mul_ns * 10) / 10;
  }

  // --- Data ------------------------------------------------------------------------------------

  /// Tables for `limbs` distinct primes of `bits` bits (62 → 60 when variant v refuses a 62-bit
  /// prime); nothing when v cannot serve either.
  template <Word W>
  std::optional<Tables<W>> tables(int log_n, std::size_t limbs, NttVariant v, int bits) {
    const std::size_t n = std::size_t{1} << log_n;
    std::string why;
    for (int b : {bits, bits == 62 ? 60 : 0}) {
      if (b == 0) break;
      try {
        Tables<W> t;
        t.bits = b;
        std::vector<const NttPlan<W>*> raw;
        for (u64 q : ntt_primes(b, n, limbs)) {
          t.plans.push_back(NttPlan<W>::create(n, static_cast<W>(q)));
          raw.push_back(t.plans.back().get());
        }
        t.device = cuda::DeviceNttTables<W>::create(ctx_, raw, v);
        return t;
      } catch (const InvalidParameter& e) {
        why = e.what();
      }
    }
    note_("skipped " + std::string(to_string(v)) + " at N = 2^" + std::to_string(log_n) + ", " +
          std::to_string(limbs) + " limbs: " + why);
    return std::nullopt;
  }

  /// Enough sets of `words_per_set` words that together they exceed twice the L2 cache (a
  /// timed call never finds its data there), at most 64; at least 1.
  [[nodiscard]] std::size_t sets_for(std::size_t bytes_per_set) const {
    const std::size_t want = (2 * ctx_->l2_bytes() + bytes_per_set - 1) / bytes_per_set;
    return std::clamp<std::size_t>(want, 1, 64);
  }

  /// `sets` copies of random polynomials under t's primes (uniform in [1, q_i)), on the device.
  template <Word W>
  DeviceBuffer<W> random_sets(const Tables<W>& t, std::size_t sets) {
    const std::size_t words = t.device->words();
    const std::size_t n = t.device->n();
    std::vector<W> host(sets * words);
    for (std::size_t i = 0; i < host.size(); ++i) {
      const W q = t.plans[(i % words) / n]->q();
      host[i] = static_cast<W>(rng_.uniform(1, q - 1));
    }
    DeviceBuffer<W> d = cuda::to_device(ctx_, std::span<const W>(host), ctx_->compute());
    cuda::synchronize(ctx_->compute());
    return d;
  }

  // --- Transforms ------------------------------------------------------------------------------

  /// Whether the options run two passes over device memory (else one: one block or a cluster).
  template <Word W>
  [[nodiscard]] static bool splits(int log_n, const NttOptions& o) {
    const unsigned tile = o.tile_log != 0 ? o.tile_log : (sizeof(W) == 4 ? 12U : 11U);
    return o.kernel == NttKernel::two_pass ||
           (o.kernel == NttKernel::automatic && static_cast<unsigned>(log_n) > tile);
  }

  /// The kernel the options run, by name (automatic resolved).
  template <Word W>
  [[nodiscard]] static std::string resolved_kernel(int log_n, const NttOptions& o) {
    if (o.kernel == NttKernel::cluster) return "cluster";
    return splits<W>(log_n, o) ? "two_pass" : "one_block";
  }

  /// Forward and inverse of `limbs` limbs per call; per-limb times when limbs > 1.
  template <Word W>
  void transforms(int log_n, NttVariant v, const NttOptions& o, const std::string& section,
                  std::size_t limbs = 1) {
    const auto t = tables<W>(log_n, limbs, v, default_bits<W>());
    if (!t) return;
    const std::size_t words = t->device->words();
    const std::size_t sets = sets_for(words * sizeof(W));
    DeviceBuffer<W> data = random_sets(*t, sets);
    for (bool inverse : {false, true}) {
      CudaRow r = row(inverse ? "ntt_inverse" : "ntt_forward", log_n, t->bits, limbs,
                      std::string(to_string(v)));
      try {
        r.stats = time_device(
            *ctx_, gate_,
            [&](std::size_t i) {
              const auto span = data.span().subspan((i % sets) * words, words);
              if (inverse) {
                cuda::inverse(*t->device, cuda::DeviceSpan<const W>(span), span, ctx_->compute(),
                              o);
              } else {
                cuda::forward(*t->device, cuda::DeviceSpan<const W>(span), span, ctx_->compute(),
                              o);
              }
            },
            config_.timing);
      } catch (const InvalidParameter& e) {
        note_("skipped " + r.op + " " + r.variant + " radix " + std::to_string(o.radix) + " " +
              kernel_name(o.kernel) + " at N = 2^" + std::to_string(log_n) + ": " + e.what());
        cuda::synchronize(ctx_->compute());
        return;
      }
      const double n = std::ldexp(1.0, log_n);
      const double passes = splits<W>(log_n, o) ? 2 : 1;
      set_floor<W>(r, passes * 2 * n * static_cast<double>(limbs),
                   static_cast<double>(limbs) * n / 2 * log_n * products_per_butterfly(v));
      if (limbs > 1) {
        const double l = static_cast<double>(limbs);
        r.stats.median_ns /= l;
        r.stats.p10_ns /= l;
        r.stats.p90_ns /= l;
        r.floor_ns /= l;
        r.extra["per"] = "limb";
      }
      r.extra["radix"] = o.radix;
      r.extra["kernel"] = resolved_kernel<W>(log_n, o);
      r.extra["passes"] = passes;
      if (!section.empty()) r.extra["section"] = section;
      r.extra["word_bits"] = word_bits<W>();
      r.config = "radix " + std::to_string(o.radix) + ", " + resolved_kernel<W>(log_n, o) +
                 (limbs > 1 ? ", per limb" : "");
      sink_(r);
    }
  }

  void compare_variants_and_radices() {
    for (NttVariant v : {NttVariant::shoup_lazy, NttVariant::barrett_alg4}) {
      for (unsigned radix : {2U, 4U, 8U, 16U}) {
        NttOptions o;
        o.radix = radix;
        transforms<u64>(16, v, o, "radix");
      }
    }
    for (NttVariant v : {NttVariant::shoup, NttVariant::barrett_classical, NttVariant::barrett_dq,
                         NttVariant::montgomery, NttVariant::montgomery_ntt}) {
      transforms<u64>(16, v, {}, "variants");
    }
  }

  template <Word W>
  void compare_kernels(int log_n) {
    for (NttKernel k : {NttKernel::one_block, NttKernel::two_pass, NttKernel::cluster}) {
      NttOptions o;
      o.kernel = k;
      transforms<W>(log_n, kDefaultNttVariant, o, "kernels");
    }
  }

  template <Word W>
  void batch(std::size_t limbs, NttKernel k) {
    NttOptions o;
    o.kernel = k;
    transforms<W>(16, kDefaultNttVariant, o, "batch", limbs);
  }

  // --- Products --------------------------------------------------------------------------------

  template <Word W>
  void products(int log_n, bool fused, NttKernel k) {
    NttOptions o;
    o.kernel = k;
    const auto t = tables<W>(log_n, 1, kDefaultNttVariant, default_bits<W>());
    if (!t) return;
    const std::size_t words = t->device->words();
    const std::size_t sets = sets_for(2 * words * sizeof(W));
    DeviceBuffer<W> a = random_sets(*t, sets);
    const DeviceBuffer<W> b = random_sets(*t, sets);
    CudaRow r = row(fused ? "polymul_fused" : "polymul", log_n, t->bits, 1,
                    std::string(to_string(kDefaultNttVariant)));
    try {
      r.stats = time_device(
          *ctx_, gate_,
          [&](std::size_t i) {
            const std::size_t off = (i % sets) * words;
            const auto c = a.span().subspan(off, words);
            cuda::polymul(*t->device, cuda::DeviceSpan<const W>(c), b.cspan().subspan(off, words),
                          c, ctx_->compute(), fused, o);
          },
          config_.timing);
    } catch (const InvalidParameter& e) {
      note_("skipped " + r.op + " " + kernel_name(k) + " at N = 2^" + std::to_string(log_n) + ": " +
            e.what());
      cuda::synchronize(ctx_->compute());
      return;
    }
    const double n = std::ldexp(1.0, log_n);
    const bool split = splits<W>(log_n, o);
    set_floor<W>(
        r, (split ? 9 : 3) * n,
        3 * n / 2 * log_n * products_per_butterfly(kDefaultNttVariant) + n * kPointwiseProducts);
    r.extra["kernel"] = resolved_kernel<W>(log_n, o);
    r.extra["word_bits"] = word_bits<W>();
    r.config = resolved_kernel<W>(log_n, o);
    sink_(r);
  }

  // --- Throughput at N = 2^10, 30-bit, 32-bit words ---------------------------------------------

  void throughput() {
    constexpr int kLogN = 10;
    const auto t = tables<u32>(kLogN, 1, kDefaultNttVariant, 30);
    if (!t) return;
    const std::size_t n = t->device->n();
    const auto nd = static_cast<double>(n);
    const double per_product =
        nd / 2 * kLogN * 2 * products_per_butterfly(kDefaultNttVariant) + nd * kPointwiseProducts;
    const DeviceBuffer<u32> b = random_sets(*t, 1);
    DeviceBuffer<u32> b_evaluated(ctx_, n, ctx_->compute());
    cuda::forward(*t->device, b.cspan(), b_evaluated.span(), ctx_->compute());

    // Without transfers: one call over 2^14 polynomials (64 MiB in, 64 MiB out).
    constexpr std::size_t kResident = std::size_t{1} << 14;
    DeviceBuffer<u32> a = random_sets(*t, kResident);
    DeviceBuffer<u32> c(ctx_, kResident * n, ctx_->compute());
    CudaRow r = row("polymul_resident", kLogN, 30, 1, std::string(to_string(kDefaultNttVariant)));
    r.stats = time_device(
        *ctx_, gate_,
        [&](std::size_t) {
          cuda::polymul_evaluated(*t->device, a.cspan(), b_evaluated.cspan(), c.span(),
                                  ctx_->compute());
        },
        config_.timing);
    const double count = kResident;
    set_floor<u32>(r, count * 2 * static_cast<double>(n), count * per_product);
    r.extra["polynomials"] = kResident;
    r.extra["products_per_s"] = count / (r.stats.median_ns * 1e-9);
    r.config = std::to_string(kResident) + " products per call";
    sink_(r);
    streamed(*t, b);
  }

  void streamed(const Tables<u32>& t, const DeviceBuffer<u32>& b_device) {
    constexpr int kLogN = 10;
    constexpr std::size_t kCount = std::size_t{1} << 17;  // 512 MiB each way
    const std::size_t n = t.device->n();
    const std::vector<u32> b = cuda::to_host(b_device.cspan(), ctx_->compute());
    cuda::PinnedBuffer<u32> a(kCount * n);
    cuda::PinnedBuffer<u32> c(kCount * n);
    // 2^12 random polynomials, repeated (filling 512 MiB from the generator takes seconds).
    constexpr std::size_t kDistinct = std::size_t{1} << 12;
    for (std::size_t i = 0; i < kDistinct * n; ++i) {
      a.data()[i] = static_cast<u32>(rng_.uniform(1, t.plans[0]->q() - 1));
    }
    for (std::size_t k = kDistinct; k < kCount; k += kDistinct) {
      std::memcpy(a.data() + k * n, a.data(), kDistinct * n * sizeof(u32));
    }
    const double bytes = static_cast<double>(kCount * n * sizeof(u32));
    // In and out move the same bytes, both directions at once: max(in / H2D, out / D2H) with
    // the per-direction rate of the bidirectional measurement.
    const double floor_ns = bytes / floors_.bidir_bytes_per_s * 1e9;
    for (std::size_t chunk :
         {std::size_t{1} << 11, std::size_t{1} << 12, std::size_t{1} << 13, std::size_t{1} << 14}) {
      cuda::StreamedPolymul<u32> streamed(t.device, b, chunk, 3);
      cuda::Event start(*ctx_);
      cuda::Event end(*ctx_);
      auto once = [&] {
        start.record(ctx_->upload());
        streamed.run(std::span<const u32>(a.span()), c.span());
        end.record(ctx_->download());
        end.synchronize();
        return static_cast<double>(cuda::Event::elapsed_ms(start, end)) * 1e-3;
      };
      once();  // warm-up
      std::vector<double> seconds;
      double total = 0;
      while (seconds.size() < config_.timing.min_samples || total < config_.timing.min_time_s) {
        seconds.push_back(once());
        total += seconds.back();
        if (seconds.size() >= config_.timing.max_samples) break;
      }
      CudaRow r = row("polymul_streamed", kLogN, 30, 1, std::string(to_string(kDefaultNttVariant)));
      r.stats = stats_of_seconds(seconds);
      r.floor_ns = floor_ns;
      r.extra["polynomials"] = kCount;
      r.extra["chunk"] = chunk;
      r.extra["depth"] = 3;
      r.extra["products_per_s"] = static_cast<double>(kCount) / (r.stats.median_ns * 1e-9);
      r.extra["floor"] = "max(in bytes, out bytes) / bidirectional copy rate";
      r.config = "chunk " + std::to_string(chunk) + ", depth 3, " + std::to_string(kCount) +
                 " products, pinned";
      sink_(r);
    }
  }

  std::shared_ptr<const cuda::Context> ctx_;
  const CudaSuiteConfig& config_;
  const std::function<void(const CudaRow&)>& sink_;
  const std::function<void(const std::string&)>& note_;
  cuda::bench::StreamGate gate_;
  InputRng rng_;
  DeviceFloors floors_;
};

}  // namespace

void run_bench_cuda(const std::shared_ptr<const cuda::Context>& ctx, const CudaSuiteConfig& config,
                    const std::function<void(const CudaRow&)>& sink,
                    const std::function<void(const std::string&)>& note) {
  Suite(ctx, config, sink, note).run();
}

}  // namespace polyhe::cli
