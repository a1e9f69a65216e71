// Device: a place other than host memory where the words of RnsPolys live and the ring operations
// run (docs/design.md, "Layers": 6, backend). The ring layer dispatches on it: an RnsPoly on a
// device hands each operation to its Device, one on the host runs the CPU kernels, and the schemes
// above never see which. Implementations: the CUDA backend (backend/cuda/device.hpp) and the
// emulated device (backend/emulated.hpp), which runs the very same kernel bodies on the host,
// thread by thread, the proof of the device path where there is no GPU.
//
// The interface is word-level and unchecked: RnsPoly validates shapes, forms and placement before
// it calls a Device, so the functions here only state their preconditions. Pointers are the
// device's memory (from allocate()); operations are asynchronous on the device's compute stream
// and ordered with each other; download() and synchronize() wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace polyhe {

class RingContext;
class BaseConverter;
class KeySwitchParts;
class ScaleRounder;

/// A point in a device's work: done once everything before it is. The host waits with wait().
class DeviceEvent {
 public:
  DeviceEvent() = default;
  DeviceEvent(const DeviceEvent&) = delete;
  DeviceEvent& operator=(const DeviceEvent&) = delete;
  virtual ~DeviceEvent() = default;
  /// Blocks until the work before the event is done; DeviceError if it failed.
  virtual void wait() = 0;
};
using DeviceTicket = std::shared_ptr<DeviceEvent>;

enum class DeviceKind {
  cuda,           // a CUDA GPU
  cuda_emulated,  // the CUDA kernel bodies run on the host, thread by thread (tests, CI)
};

[[nodiscard]] const char* to_string(DeviceKind k);

/// Limbs [first, first + count) of a ring's basis, stored one after the other (N words each).
struct LimbRange {
  std::size_t first;
  std::size_t count;
};

class Device {
 public:
  Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  virtual ~Device() = default;

  [[nodiscard]] virtual DeviceKind kind() const = 0;
  /// For messages and benchmark rows: "cuda:0 (NVIDIA H100 80GB HBM3)", "cuda-emulated".
  [[nodiscard]] virtual std::string name() const = 0;

  // --- Memory (64-bit words) -------------------------------------------------------------------
  /// Uninitialised words; DeviceError when the device is out of memory.
  [[nodiscard]] virtual std::uint64_t* allocate(std::size_t words) = 0;
  virtual void deallocate(std::uint64_t* p, std::size_t words) noexcept = 0;
  /// Host → device, ordered before every later operation; `host` may be reused on return.
  virtual void upload(std::span<const std::uint64_t> host, std::uint64_t* device) = 0;
  /// Device → host after every earlier operation; waits for the words.
  virtual void download(const std::uint64_t* device, std::span<std::uint64_t> host) = 0;
  virtual void copy(const std::uint64_t* src, std::uint64_t* dst, std::size_t words) = 0;
  /// dst[i] = src[i] (`words` words each) for every i, in one launch: the gathers and scatters
  /// of the batched scheme steps. src.size() == dst.size(); each dst[i] disjoint from every src
  /// and every other dst (a pair with dst[i] == src[i] is left as it is).
  virtual void copy_batch(std::span<const std::uint64_t* const> src,
                          std::span<std::uint64_t* const> dst, std::size_t words) = 0;
  virtual void zero(std::uint64_t* dst, std::size_t words) = 0;
  /// Waits for every operation submitted so far; DeviceError if one failed.
  virtual void synchronize() = 0;

  // --- Overlapped transfers (the batch API, rlwe/batch.hpp) ------------------------------------
  // Copies on the device's own upload and download streams, so that they run while the compute
  // stream works: from and to page-locked host memory they are truly asynchronous.

  /// Page-locked host memory of `words` words (pinned_free releases it).
  [[nodiscard]] virtual std::uint64_t* pinned_allocate(std::size_t words) = 0;
  virtual void pinned_free(std::uint64_t* p) noexcept = 0;
  /// A ticket for the operations submitted so far.
  [[nodiscard]] virtual DeviceTicket record() = 0;
  /// host → dst on the upload stream once `after` is done (null: at once); every operation
  /// submitted later waits for the copy. host must stay untouched until the copy is done (a
  /// ticket recorded after a later operation tells).
  virtual void upload_async(const DeviceTicket& after, std::span<const std::uint64_t> host,
                            std::uint64_t* dst) = 0;
  /// src → host on the download stream after the operations submitted so far; the ticket is done
  /// when the words are in host memory.
  [[nodiscard]] virtual DeviceTicket download_async(const std::uint64_t* src,
                                                    std::span<std::uint64_t> host) = 0;

  // --- Ring operations --------------------------------------------------------------------------
  // Over limbs r of `ring` (limb j of an operand at words [j·N, (j+1)·N) is ring limb r.first + j,
  // modulo its prime q). Preconditions (RnsPoly checks them): every input word in [0, q); an
  // output is exactly an input or disjoint from all inputs unless said otherwise. Outputs in
  // [0, q), the same words the CPU kernels give.

  /// dst = the negacyclic NTT of src (natural → bit-reversed), or its inverse (1/N included).
  virtual void ntt(const RingContext& ring, LimbRange r, const std::uint64_t* src,
                   std::uint64_t* dst, bool inverse) = 0;
  /// The transforms of `repeats` polynomials one after another in src, whose limb j (j <
  /// limb_map.size()) lies under ring limb limb_map[j]: every limb of every repeat in the same
  /// launches (the ModUp of all digits at once). dst may be src.
  virtual void ntt_mapped(const RingContext& ring, std::span<const std::size_t> limb_map,
                          std::size_t repeats, const std::uint64_t* src, std::uint64_t* dst,
                          bool inverse) = 0;
  enum class Binary { add, sub, multiply };
  /// c = a + b, a − b, a·b (the product slot-wise: operands in evaluation form).
  virtual void binary(Binary op, const RingContext& ring, LimbRange r, const std::uint64_t* a,
                      const std::uint64_t* b, std::uint64_t* c) = 0;
  /// c = −a.
  virtual void negate(const RingContext& ring, LimbRange r, const std::uint64_t* a,
                      std::uint64_t* c) = 0;
  /// c = d + a·b; c may be d.
  virtual void multiply_add(const RingContext& ring, LimbRange r, const std::uint64_t* a,
                            const std::uint64_t* b, const std::uint64_t* d, std::uint64_t* c) = 0;
  /// Limb j of c = limb j of a times residues[j] (residues[j] < q of limb j; host memory).
  virtual void multiply_scalar(const RingContext& ring, LimbRange r, const std::uint64_t* a,
                               std::span<const std::uint64_t> residues, std::uint64_t* c) = 0;
  /// The degree-2 product of (a0, a1) and (b0, b1) in evaluation form: c0 = a0·b0,
  /// c1 = a0·b1 + a1·b0, c2 = a1·b1; the outputs disjoint from the inputs and each other.
  virtual void tensor(const RingContext& ring, LimbRange r, const std::uint64_t* a0,
                      const std::uint64_t* a1, const std::uint64_t* b0, const std::uint64_t* b1,
                      std::uint64_t* c0, std::uint64_t* c1, std::uint64_t* c2) = 0;
  /// c = σ_k(a) (x → x^k, k odd in [1, 2N)) in the form the words are in, or c += σ_k(a) when
  /// `accumulate`; c disjoint from a.
  virtual void automorphism(const RingContext& ring, LimbRange r, const std::uint64_t* a,
                            std::uint64_t* c, std::uint64_t k, bool evaluation_form,
                            bool accumulate) = 0;
  /// c = σ_k(a) in evaluation form over `limbs` consecutive limbs of N words, however many (the
  /// digits of a ModUp: more than the ring has): a permutation of each limb's slots, the same for
  /// every prime, so no modulus is involved. c disjoint from a.
  virtual void permute_slots(const RingContext& ring, std::size_t limbs, const std::uint64_t* a,
                             std::uint64_t* c, std::uint64_t k) = 0;
  /// The split constant of RnsPoly::add_split_constant: c = a + k or c = a·k (`multiply`) for k
  /// taking lo[j] on the first N/2 words of limb j and hi[j] on the rest; c may be a.
  virtual void split_constant(const RingContext& ring, LimbRange r, const std::uint64_t* a,
                              std::span<const std::uint64_t> lo, std::span<const std::uint64_t> hi,
                              std::uint64_t* c, bool multiply) = 0;
  /// Limb j of c = (a − b)·residues[j] (residues on the host, each below its prime); c may be a.
  virtual void sub_multiply_scalar(const RingContext& ring, LimbRange r, const std::uint64_t* a,
                                   const std::uint64_t* b, std::span<const std::uint64_t> residues,
                                   std::uint64_t* c) = 0;
  /// sub_multiply_scalar for several polynomials in one launch: for each i, limb j of c[i] =
  /// (a[i] − b_i)·residues[j], or c[i] += that when `accumulate`, with b_i the i-th buffer of
  /// r.count limbs at b (the buffers one after another). a.size() == c.size(); c[i] may be a[i],
  /// otherwise disjoint from every input.
  virtual void sub_multiply_scalar_parts(const RingContext& ring, LimbRange r,
                                         std::span<const std::uint64_t* const> a,
                                         const std::uint64_t* b,
                                         std::span<const std::uint64_t> residues,
                                         std::span<std::uint64_t* const> c, bool accumulate) = 0;
  /// The last steps of rescale and of ModDown with one special prime, for parts = a.size()
  /// polynomials: limb j (ring limb j, j < limbs) of c[i] = (limb j of a[i] − y_ij)·residues[j],
  /// or c[i] += that when `accumulate`, where y_i is the forward transform of the centred lift of
  /// x's limb i (N words modulo p, 2 ≤ p < 2^62, every word < p) to those limbs, each lift times
  /// factors[j] first when `factors` is not empty (BGV's rescale: μ mod q_j, every factor below its
  /// prime). The same words as lift_centred, multiply_scalar, ntt_mapped and
  /// sub_multiply_scalar_parts one after another, in two launches where the transform takes two
  /// passes. c[i] may be a[i], otherwise disjoint from every input.
  virtual void lift_forward_sub(const RingContext& ring, std::size_t limbs, const std::uint64_t* x,
                                std::uint64_t p, std::span<const std::uint64_t* const> a,
                                std::span<const std::uint64_t> residues,
                                std::span<std::uint64_t* const> c, bool accumulate,
                                std::span<const std::uint64_t> factors) = 0;
  /// Limb j of c = the centred lift of x (N words modulo p, every word < p, 2 ≤ p < 2^62) to the
  /// prime of limb j: x − p where x > ⌊p/2⌋, x elsewhere, reduced modulo q (vec::lift_centred).
  /// With `parts` > 1, x holds that many such limbs one after another and c as many buffers of
  /// r.count limbs, buffer i the lift of x's limb i (the parts of a ciphertext in one launch).
  /// c disjoint from x.
  virtual void lift_centred(const RingContext& ring, LimbRange r, const std::uint64_t* x,
                            std::uint64_t p, std::uint64_t* c, std::size_t parts) = 0;
  /// ModUp of one-prime digits in one launch: x holds `digits` limbs (limb j modulo q_j, ring
  /// limbs 0 … digits − 1); c receives `digits` buffers of the Q_l ∪ P layout (q_limbs limbs of
  /// Q, then p_limbs from ring limb p_first), limb t of buffer j the centred lift of x's limb j to
  /// that limb's prime — x's own limb itself for t = j. c disjoint from x.
  virtual void lift_digits(const RingContext& ring, std::size_t digits, std::size_t q_limbs,
                           std::size_t p_first, std::size_t p_limbs, const std::uint64_t* x,
                           std::uint64_t* c) = 0;
  /// lift_digits, then the forward transforms of every buffer (ntt_mapped over the Q_l ∪ P
  /// layout, `digits` repeats): c receives the buffers in evaluation form. Where the transform
  /// takes two passes, the lift is its first pass's load (one launch and one pass over the
  /// lifted words fewer). c disjoint from x.
  virtual void lift_digits_forward(const RingContext& ring, std::size_t digits, std::size_t q_limbs,
                                   std::size_t p_first, std::size_t p_limbs, const std::uint64_t* x,
                                   std::uint64_t* c) = 0;
  /// Limb j of c = small[i] mod q (in [0, q)) for N signed coefficients, any int64 (host memory).
  virtual void lift_signed(const RingContext& ring, LimbRange r,
                           std::span<const std::int64_t> small, std::uint64_t* c) = 0;
  /// BaseConverter::convert_exact (exact) or convert_approx of x (|B| limbs of n words, every
  /// word below its prime) into c: target j to limb out_limbs[j] of c, the other limbs untouched;
  /// the same words as the CPU's. With `count` > 1, x holds that many such inputs one after
  /// another (|B|·n words each) and input i goes to the buffer at c + i·c_stride (words); all in
  /// one launch. c disjoint from x.
  virtual void convert(const BaseConverter& conv, std::size_t n, const std::uint64_t* x,
                       std::uint64_t* c, std::span<const std::size_t> out_limbs, bool exact,
                       std::size_t count, std::size_t c_stride) = 0;
  /// ScaleRounder::round: x over Q ∪ P (the rounder's bases, n words per limb; Q's limbs at
  /// x_q, P's at x_p, which may but need not follow them) to round(t·x/Q) over P in c; the same
  /// words as the CPU's. With `count` > 1, that many inputs in one launch: input i's Q limbs at
  /// x_q + i·|Q|·n, its P limbs at x_p + i·|P|·n, its result at c + i·|P|·n. c disjoint from x.
  virtual void scale_round(const ScaleRounder& rounder, std::size_t n, const std::uint64_t* x_q,
                           const std::uint64_t* x_p, std::uint64_t* c, std::size_t count) = 0;
  /// The key-switching inner product over Q_l ∪ P (ring/key_switching.hpp's layout: q_limbs
  /// limbs of Q_l, then p_limbs of P numbered from p_first in the ring): with up holding
  /// `digits` such buffers one after another (each (q_limbs + p_limbs)·N words, evaluation
  /// form), acc0 = Σ_j up_j·b_j and acc1 = Σ_j up_j·a_j limb by limb, (b_j, a_j) the key's parts
  /// (on this device, digits ≤ its count).
  virtual void key_inner_products(const RingContext& ring, std::size_t q_limbs, std::size_t p_first,
                                  std::size_t p_limbs, const std::uint64_t* up, std::size_t digits,
                                  const KeySwitchParts& key, std::uint64_t* acc0,
                                  std::uint64_t* acc1) = 0;
};

/// Device memory of `words` words, freed on destruction (move-only).
class DeviceWords {
 public:
  DeviceWords() = default;
  DeviceWords(std::shared_ptr<Device> device, std::size_t words)
      : device_(std::move(device)), words_(words) {
    if (words_ != 0) data_ = device_->allocate(words_);
  }
  DeviceWords(DeviceWords&& o) noexcept
      : device_(std::move(o.device_)), data_(o.data_), words_(o.words_) {
    o.data_ = nullptr;
    o.words_ = 0;
  }
  DeviceWords& operator=(DeviceWords&& o) noexcept {
    if (this != &o) {
      release();
      device_ = std::move(o.device_);
      data_ = o.data_;
      words_ = o.words_;
      o.data_ = nullptr;
      o.words_ = 0;
    }
    return *this;
  }
  DeviceWords(const DeviceWords&) = delete;
  DeviceWords& operator=(const DeviceWords&) = delete;
  ~DeviceWords() { release(); }

  [[nodiscard]] std::uint64_t* data() const { return data_; }
  [[nodiscard]] std::size_t words() const { return words_; }
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return device_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) device_->deallocate(data_, words_);
    data_ = nullptr;
  }
  std::shared_ptr<Device> device_;
  std::uint64_t* data_ = nullptr;
  std::size_t words_ = 0;
};

}  // namespace polyhe
