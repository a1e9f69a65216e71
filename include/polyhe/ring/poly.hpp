// RnsPoly: an element of Z_Q[x]/(x^N + 1) as RNS limbs, with its form (coefficient or
// evaluation) and its placement (host memory or a Device) tracked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "polyhe/ntt/plan.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/device.hpp"

namespace polyhe {

namespace detail {
/// The words of host polynomials: 64-byte aligned, and large blocks freed by a thread kept in a
/// small per-thread cache for the next allocation of the same size (ring/poly_storage.cpp), so
/// that an operation's results and temporaries reuse warm memory instead of the allocator
/// returning it to the system and faulting it in again on every call.
/// The cache neither wipes nor is told what a block held: a polynomial holding secret words is
/// wiped by its owner (RnsPoly::wipe) before it is released.
std::uint64_t* poly_allocate(std::size_t words);
void poly_deallocate(std::uint64_t* p, std::size_t words) noexcept;

/// Test-only hook (tests/rlwe/test_wipe.cpp), null by default: when set, RnsPoly::wipe() of a
/// host polynomial passes it the words it has just zeroed, so that a test can see that a wipe path
/// (a SecretKey's destructor or assignment) ran on a key's words before their release, without
/// reading freed memory. Set it only while no other thread wipes; not for production use.
using WipeObserver = void (*)(std::span<const std::uint64_t> words);
void set_wipe_observer(WipeObserver observer) noexcept;
}  // namespace detail

/// Coefficient form: limb i holds a mod q_i in natural coefficient order. Evaluation form: limb i
/// holds the negacyclic NTT of that, in bit-reversed order: â[j] = a(ψ_i^(2·br(j)+1)) mod q_i.
enum class PolyForm { kCoefficient, kEvaluation };

[[nodiscard]] const char* to_string(PolyForm f);

/// N·L words, limb-major and contiguous (limb i at [i·N, (i+1)·N)), 64-byte aligned, every word
/// of limb i in [0, q_i) (docs/design.md, "Data layout"); L limbs = level L − 1 of its context.
///
/// Binary operations check (in every build) that both operands share the context object, the
/// limb count and the placement (MismatchedContext, naming both) and the form where it matters
/// (InvalidParameter).
///
/// Placement: the words live in host memory (device() is null) or on one Device. Every operation
/// below runs where the words are — on the host the polyhe::vec kernels and the batched NTT,
/// spread over the default thread pool; on a device its kernels, asynchronously on its compute
/// stream — and gives the same words either way. Moving is explicit: to_device(), to_host().
/// The host accessors (data(), limb()) refuse a polynomial on a device (InvalidParameter naming
/// it): its words are read through to_host().
///
/// Threads: a value, as std::vector is: const members may run on one polynomial from several
/// threads at once; a mutation must not overlap any other use of the same polynomial. Its
/// context is shared and immutable.
class RnsPoly {
 public:
  /// The tag of the for-overwrite constructor.
  struct ForOverwrite {};
  static constexpr ForOverwrite kForOverwrite{};

  /// The zero polynomial with `limbs` limbs (1 ≤ limbs ≤ max_limbs(), checked) in form `form`,
  /// on `device` (null: host memory).
  RnsPoly(std::shared_ptr<const RingContext> context, std::size_t limbs,
          PolyForm form = PolyForm::kCoefficient, std::shared_ptr<Device> device = nullptr);
  /// The same shape with unspecified words (not zeroed: no pass over the memory), for an output
  /// the caller overwrites entirely before anything reads it (as C++20's
  /// make_unique_for_overwrite). Same checks.
  RnsPoly(std::shared_ptr<const RingContext> context, std::size_t limbs, PolyForm form,
          ForOverwrite, std::shared_ptr<Device> device = nullptr);
  RnsPoly(const RnsPoly& other);
  RnsPoly& operator=(const RnsPoly& other);
  RnsPoly(RnsPoly&&) noexcept = default;
  RnsPoly& operator=(RnsPoly&&) noexcept = default;
  ~RnsPoly() = default;
  /// The zero polynomial at a level.
  explicit RnsPoly(const RingLevel& level, PolyForm form = PolyForm::kCoefficient)
      : RnsPoly(level.context, level.limbs, form) {}

  [[nodiscard]] const std::shared_ptr<const RingContext>& context() const { return context_; }
  [[nodiscard]] std::size_t n() const { return context_->n(); }
  [[nodiscard]] std::size_t limbs() const { return limbs_; }
  [[nodiscard]] std::size_t level() const { return limbs_ - 1; }
  [[nodiscard]] PolyForm form() const { return form_; }

  /// Where the words live: null for host memory, else the device.
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return device_; }
  [[nodiscard]] bool on_device() const { return device_ != nullptr; }
  /// A copy of this polynomial on `device` (null: host memory), the transfer ordered before the
  /// device's later operations. From one device to another it passes through host memory.
  [[nodiscard]] RnsPoly to_device(const std::shared_ptr<Device>& device) const&;
  /// The same from an rvalue: moved, not copied, when it already lives there.
  [[nodiscard]] RnsPoly to_device(const std::shared_ptr<Device>& device) &&;
  /// A copy in host memory (waits for the device's words); a host polynomial is copied.
  [[nodiscard]] RnsPoly to_host() const&;
  /// The same from an rvalue: a host polynomial is moved.
  [[nodiscard]] RnsPoly to_host() &&;
  /// The device words (limbs()·n() of them, limb-major) of a polynomial on a device, for the
  /// ring layer's device operations; InvalidParameter for a host polynomial.
  [[nodiscard]] std::uint64_t* device_words() const;

  /// Limb i (i < limbs(), checked): the residues mod q_i. Host memory only (checked).
  [[nodiscard]] std::span<std::uint64_t> limb(std::size_t i);
  [[nodiscard]] std::span<const std::uint64_t> limb(std::size_t i) const;
  /// All limbs, flattened. Host memory only (checked).
  [[nodiscard]] std::span<std::uint64_t> data() {
    if (device_) throw_on_device("data");
    return data_;
  }
  [[nodiscard]] std::span<const std::uint64_t> data() const {
    if (device_) throw_on_device("data");
    return data_;
  }

  /// Coefficient → evaluation form (forward NTT of every limb). InvalidParameter if already there.
  void to_evaluation();
  /// Evaluation → coefficient form (inverse NTT of every limb). InvalidParameter if already there.
  void to_coefficient();

  /// this = this + b, this − b, −this (either form; b in the same form).
  void add(const RnsPoly& b);
  void sub(const RnsPoly& b);
  void negate();
  /// this = this · b (both in evaluation form: a slot-wise product there is the negacyclic one).
  void multiply(const RnsPoly& b);
  /// this = this + a · b (all three in evaluation form).
  void multiply_accumulate(const RnsPoly& a, const RnsPoly& b);
  /// this = this · s for an integer s given by its residues: one per limb, residues[i] < q_i
  /// (checked). Either form.
  void multiply_scalar(std::span<const std::uint64_t> residues);
  /// this = this · s, s reduced mod each q_i. Either form.
  void multiply_scalar(std::uint64_t s);

  /// In evaluation form, the constant whose value is lo[i] on the first N/2 slots of limb i and
  /// hi[i] on the last N/2 (bit-reversed order: CKKS's complex constants, X^{N/2} evaluating to
  /// ι there and −ι here): this += it, this ·= it. One residue per limb, each below its prime
  /// (checked), evaluation form (checked).
  void add_split_constant(std::span<const std::uint64_t> lo, std::span<const std::uint64_t> hi);
  void multiply_split_constant(std::span<const std::uint64_t> lo,
                               std::span<const std::uint64_t> hi);

  /// Drops the last limb (level l → l − 1, without rescaling). InvalidParameter at one limb.
  void drop_last_limb();

  /// Zeroes every word — host memory with libsodium's sodium_memzero (core/wipe.hpp: stores the
  /// compiler keeps), device words with the device's zero, ordered before its later operations —
  /// leaving the zero polynomial of the same shape, form and placement. For secret words before
  /// their memory is released or reused: neither the storage cache nor the allocator wipes what
  /// it gets back, and no RnsPoly wipes itself (rlwe::SecretKey calls this from its destructor
  /// and assignments; key generation and encryption on their temporaries).
  void wipe();

  /// The image of this under x → x^k, for odd k in [1, 2N) (InvalidParameter otherwise), in the
  /// same form. See src/ring/automorphism.cpp for the index maps of both forms.
  [[nodiscard]] RnsPoly automorphism(std::uint64_t k) const;
  /// this = this + σ_k(a), a compatible with this (same context, limbs and form; checked) and
  /// possibly this itself; in evaluation form one gather-add pass without a temporary.
  void add_automorphism(const RnsPoly& a, std::uint64_t k);

  /// Throws unless b shares this polynomial's context, limb count and placement
  /// (MismatchedContext) and form (InvalidParameter), naming `op` (`RnsPoly::<op>`).
  void check_compatible(const RnsPoly& b, const char* op) const;
  /// Throws InvalidParameter naming `op` unless in evaluation form.
  void require_evaluation(const char* op) const;

 private:
  [[noreturn]] void throw_on_device(const char* op) const;
  void check_residues(std::span<const std::uint64_t> residues, const char* op) const;
  void split_constant(std::span<const std::uint64_t> lo, std::span<const std::uint64_t> hi,
                      bool multiply, const char* op);
  [[nodiscard]] LimbRange range() const { return LimbRange{0, limbs_}; }

  std::shared_ptr<const RingContext> context_;
  std::size_t limbs_;
  PolyForm form_;
  std::shared_ptr<Device> device_;  // null: the words are data_
  DeviceWords device_words_;        // on a device: at least limbs_·N words
  // 64-byte aligned; new words are default-initialised (left as they are), so only the
  // for-overwrite constructor skips the zeroing every other path asks for explicitly.
  template <class W>
  struct Storage {
    using value_type = W;
    Storage() = default;
    template <class U>
    explicit Storage(const Storage<U>&) {}
    W* allocate(std::size_t count) {
      if constexpr (std::is_same_v<W, std::uint64_t>) {
        return detail::poly_allocate(count);
      } else {
        return AlignedAllocator<W>().allocate(count);
      }
    }
    void deallocate(W* p, std::size_t count) {
      if constexpr (std::is_same_v<W, std::uint64_t>) {
        detail::poly_deallocate(p, count);
      } else {
        AlignedAllocator<W>().deallocate(p, count);
      }
    }
    template <class U>
    void construct(U* p) noexcept {
      ::new (static_cast<void*>(p)) U;  // default-initialisation: no zeroing
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <class U>
    struct rebind {
      using other = Storage<U>;
    };
    friend bool operator==(const Storage&, const Storage&) { return true; }
  };
  std::vector<std::uint64_t, Storage<std::uint64_t>> data_;
};

}  // namespace polyhe
