// SlotArray: the slots of BGV over Φ_m as HElib's EncryptedArray has them (Halevi–Shoup,
// "Algorithms in HElib", CRYPTO 2014, §2–§3) — a hypercube of k slots of E (GF(p^d), or GR(p^r, d)
// for t = p^r), one dimension per generator of Z_m^*/⟨p⟩ (bgv/slots.hpp) — and the data movement on
// encrypted slots: rotations and shifts along one dimension and across the whole array (row-major,
// the first dimension outermost), total sums and replication.
//
// Every operation moves slot values unchanged: destination slot i takes the value of a source
// slot s(i), or 0. The automorphism σ_γ with γ = h_(s(i))·h_i^−1 mod m does that exactly for slot
// i (slot i of σ_γ(a) is a(ζ^(γ·h_i)) = a(ζ^(h_(s(i)))), no Frobenius). The slots are grouped by
// γ: a group holding every slot is one automorphism; the others are multiplied by their 0/1 mask
// (the plaintext with 1 ∈ E in the group's slots) and summed. So a rotation by k along a
// good dimension (g^n ≡ 1 mod m) is one automorphism, σ_(g^−k); along a bad one it is two with
// complementary masks — σ_(g^−k) for the slots that do not wrap, σ_(g^(n−k)) for those that do —
// which is HElib's rotate1D. A shift is a rotation with the slots shifted in from outside masked
// to 0 (one mask even along a good dimension). Each mask costs what multiply_plain costs: the
// noise grows about N·t/2 times (BGV), so a bad dimension spends budget where a good one does not.
//
// Direction: rotate(a, k) puts a's slot j at slot j + k (mod the length): positive k moves values
// towards higher indices, as HElib's rotate. shift(a, k) does the same with the k values pushed
// past the end dropped and 0 shifted in.
//
// The evaluator must be of the array's parameters and t, and the ciphertext of its parameters
// (MismatchedContext otherwise); any step is taken (reduced mod the length; a shift by the length
// or more leaves an encryption of 0).
//
// Keys: each operation applies the Galois elements its *_elements() function lists (a rotation's
// two, a total sum's per dimension); generate exactly those (rlwe::KeyGenerator::galois_keys).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "polyhe/bgv/bgv.hpp"
#include "polyhe/bgv/context.hpp"

namespace polyhe::bgv {

/// One SlotArray may be shared by any number of threads: every operation is const and reads the
/// context's slot encoder and the evaluator's keys; the masks it encodes (FLINT's CRT: about 31 ms
/// each at m = 21845) are kept, under a mutex, for the next operation that needs them. Copies
/// share that cache.
class SlotArray {
 public:
  using u64 = std::uint64_t;

  /// ctx over Φ_m with slots (Context::slot_encoder(): odd m, t = p^r with p ∤ m);
  /// InvalidParameter naming the ring otherwise.
  explicit SlotArray(ContextPtr ctx);

  [[nodiscard]] const ContextPtr& context() const { return ctx_; }
  /// k slots.
  [[nodiscard]] std::size_t size() const { return k_; }
  [[nodiscard]] std::size_t dimensions() const { return orders_.size(); }
  /// n_r, the length of dimension r (InvalidParameter naming r past the last).
  [[nodiscard]] std::size_t dimension_size(std::size_t r) const;
  /// Whether dimension r is good: its rotations are one automorphism and cost no mask.
  [[nodiscard]] bool good_dimension(std::size_t r) const;
  /// The slot at hypercube coordinates e (one per dimension, e_r < n_r), and back.
  [[nodiscard]] std::size_t slot(const std::vector<std::size_t>& coordinates) const;
  [[nodiscard]] std::vector<std::size_t> coordinates(std::size_t slot) const;

  /// Along dimension r: slot e (coordinate e_r) goes to e_r + k mod n_r, the other coordinates
  /// kept; shift_along drops what passes the end (or, k < 0, the start) and shifts in 0.
  [[nodiscard]] Ciphertext rotate_along(const Evaluator& ev, const Ciphertext& a, std::size_t r,
                                        std::int64_t k) const;
  [[nodiscard]] Ciphertext shift_along(const Evaluator& ev, const Ciphertext& a, std::size_t r,
                                       std::int64_t k) const;
  /// The whole array as one row of k slots (row-major over the hypercube).
  [[nodiscard]] Ciphertext rotate(const Evaluator& ev, const Ciphertext& a, std::int64_t k) const;
  [[nodiscard]] Ciphertext shift(const Evaluator& ev, const Ciphertext& a, std::int64_t k) const;
  /// Every slot holds the sum of all k slots (in E): along each dimension in turn, the sum
  /// of the line by doubling rotations (HElib's totalSums; 2·log2(n_r) rotations or fewer).
  [[nodiscard]] Ciphertext total_sum(const Evaluator& ev, const Ciphertext& a) const;
  /// Every slot holds slot `slot`'s value (a mask, then total_sum).
  [[nodiscard]] Ciphertext replicate(const Evaluator& ev, const Ciphertext& a,
                                     std::size_t slot) const;

  /// The Galois elements each operation applies (sorted, without the identity).
  [[nodiscard]] std::vector<u64> rotate_along_elements(std::size_t r, std::int64_t k) const;
  [[nodiscard]] std::vector<u64> shift_along_elements(std::size_t r, std::int64_t k) const;
  [[nodiscard]] std::vector<u64> rotate_elements(std::int64_t k) const;
  [[nodiscard]] std::vector<u64> shift_elements(std::int64_t k) const;
  /// total_sum's and replicate's.
  [[nodiscard]] std::vector<u64> total_sum_elements() const;

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  // Destination slot i takes source[i] (kNone: 0).
  using Sources = std::vector<std::size_t>;
  // γ → the destination slots it serves.
  using Plan = std::map<u64, std::vector<std::size_t>>;

  void check_dimension(std::size_t r, const char* op) const;
  // MismatchedContext for an evaluator of other parameters or another t.
  void check_evaluator(const Evaluator& ev, const char* op) const;
  [[nodiscard]] Sources along(std::size_t r, std::int64_t k, bool cyclic) const;
  [[nodiscard]] Sources linear(std::int64_t k, bool cyclic) const;
  [[nodiscard]] Plan plan(const Sources& sources) const;
  [[nodiscard]] static std::vector<u64> elements(const Plan& plan);
  [[nodiscard]] Ciphertext apply(const Evaluator& ev, const Ciphertext& a,
                                 const Sources& sources) const;
  [[nodiscard]] std::shared_ptr<const Plaintext> mask(const std::vector<std::size_t>& slots) const;
  // The rotations of total_sum along dimension r: (from_original, amount) in order.
  [[nodiscard]] std::vector<std::pair<bool, std::int64_t>> sum_steps(std::size_t r) const;

  // The masks encoded so far, by their slots.
  struct MaskCache {
    std::mutex mutex;
    std::map<std::vector<std::size_t>, std::shared_ptr<const Plaintext>> masks;
  };

  ContextPtr ctx_;
  std::shared_ptr<MaskCache> cache_ = std::make_shared<MaskCache>();
  std::size_t m_ = 0;
  std::size_t k_ = 0;
  std::vector<std::size_t> orders_;
  std::vector<std::size_t> strides_;      // of each dimension in the slot index
  std::vector<std::size_t> reps_;         // h_i
  std::vector<std::size_t> rep_inverse_;  // h_i^−1 mod m
};

}  // namespace polyhe::bgv
