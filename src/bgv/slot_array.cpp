#include "polyhe/bgv/slot_array.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "polyhe/bgv/slots.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::bgv {

namespace {

std::size_t power_mod(std::size_t a, std::size_t e, std::size_t m) {
  std::size_t r = 1 % m;
  for (a %= m; e != 0; e >>= 1, a = a * a % m) {
    if ((e & 1) != 0) r = r * a % m;
  }
  return r;
}

// k mod n in [0, n).
std::size_t residue(std::int64_t k, std::size_t n) {
  const auto s = static_cast<std::int64_t>(n);
  return static_cast<std::size_t>(((k % s) + s) % s);
}

}  // namespace

SlotArray::SlotArray(ContextPtr ctx) : ctx_(std::move(ctx)) {
  if (!ctx_) throw InvalidParameter("SlotArray: null context");
  if (ctx_->params()->power_of_two()) {
    throw InvalidParameter(
        "SlotArray: the ring is x^N + 1 (N = " + std::to_string(ctx_->n()) +
        "), whose slots are the batch encoder's two rows (use rotate_rows and rotate_columns); "
        "SlotArray serves Phi_m for odd m");
  }
  const SlotEncoder& enc = ctx_->slot_encoder();  // refuses a t without slots, by name
  m_ = enc.m();
  k_ = enc.slot_count();
  orders_.assign(enc.orders().begin(), enc.orders().end());
  strides_.assign(orders_.size(), 1);
  for (std::size_t r = orders_.size(); r-- > 1;) strides_[r - 1] = strides_[r] * orders_[r];
  reps_.assign(enc.representatives().begin(), enc.representatives().end());
  const std::size_t phi = enc.degree();
  rep_inverse_.reserve(k_);
  for (const std::size_t h : reps_) rep_inverse_.push_back(power_mod(h, phi - 1, m_));
}

void SlotArray::check_dimension(std::size_t r, const char* op) const {
  if (r >= orders_.size()) {
    throw InvalidParameter(std::string(op) + ": dimension " + std::to_string(r) +
                           " does not exist; the hypercube has " + std::to_string(orders_.size()) +
                           " (0 to " + std::to_string(orders_.size()) + " − 1)");
  }
}

std::size_t SlotArray::dimension_size(std::size_t r) const {
  check_dimension(r, "SlotArray::dimension_size");
  return orders_[r];
}

bool SlotArray::good_dimension(std::size_t r) const {
  check_dimension(r, "SlotArray::good_dimension");
  return ctx_->slot_encoder().good_dimension(r);
}

std::size_t SlotArray::slot(const std::vector<std::size_t>& coordinates) const {
  if (coordinates.size() != orders_.size()) {
    throw InvalidParameter("SlotArray::slot: " + std::to_string(coordinates.size()) +
                           " coordinates for a hypercube of " + std::to_string(orders_.size()) +
                           " dimensions");
  }
  std::size_t i = 0;
  for (std::size_t r = 0; r < orders_.size(); ++r) {
    if (coordinates[r] >= orders_[r]) {
      throw InvalidParameter("SlotArray::slot: coordinate " + std::to_string(r) + " = " +
                             std::to_string(coordinates[r]) + " is not below n_" +
                             std::to_string(r) + " = " + std::to_string(orders_[r]));
    }
    i += coordinates[r] * strides_[r];
  }
  return i;
}

std::vector<std::size_t> SlotArray::coordinates(std::size_t slot) const {
  if (slot >= k_) {
    throw InvalidParameter("SlotArray::coordinates: slot " + std::to_string(slot) +
                           " is not below k = " + std::to_string(k_));
  }
  std::vector<std::size_t> e(orders_.size());
  for (std::size_t r = 0; r < orders_.size(); ++r) e[r] = slot / strides_[r] % orders_[r];
  return e;
}

SlotArray::Sources SlotArray::along(std::size_t r, std::int64_t k, bool cyclic) const {
  const std::size_t n = orders_[r];
  const auto length = static_cast<std::int64_t>(n);
  Sources sources(k_, kNone);
  if (!cyclic && (k >= length || k <= -length)) return sources;  // everything shifted out
  if (cyclic) k = static_cast<std::int64_t>(residue(k, n));      // now |k| < n: no overflow below
  for (std::size_t i = 0; i < k_; ++i) {
    const std::size_t e = i / strides_[r] % n;
    const auto from = static_cast<std::int64_t>(e) - k;  // the coordinate that lands on e
    if (!cyclic && (from < 0 || from >= static_cast<std::int64_t>(n))) continue;
    sources[i] = i - e * strides_[r] + residue(from, n) * strides_[r];
  }
  return sources;
}

SlotArray::Sources SlotArray::linear(std::int64_t k, bool cyclic) const {
  const auto length = static_cast<std::int64_t>(k_);
  Sources sources(k_, kNone);
  if (!cyclic && (k >= length || k <= -length)) return sources;  // everything shifted out
  if (cyclic) k = static_cast<std::int64_t>(residue(k, k_));     // now |k| < k_: no overflow below
  for (std::size_t i = 0; i < k_; ++i) {
    const auto from = static_cast<std::int64_t>(i) - k;
    if (!cyclic && (from < 0 || from >= static_cast<std::int64_t>(k_))) continue;
    sources[i] = residue(from, k_);
  }
  return sources;
}

SlotArray::Plan SlotArray::plan(const Sources& sources) const {
  Plan groups;
  for (std::size_t i = 0; i < k_; ++i) {
    if (sources[i] == kNone) continue;
    groups[reps_[sources[i]] * rep_inverse_[i] % m_].push_back(i);
  }
  return groups;
}

std::vector<SlotArray::u64> SlotArray::elements(const Plan& plan) {
  std::vector<u64> out;
  for (const auto& [gamma, slots] : plan) {
    if (gamma != 1) out.push_back(gamma);
  }
  return out;
}

std::shared_ptr<const Plaintext> SlotArray::mask(const std::vector<std::size_t>& slots) const {
  {
    const std::lock_guard lock(cache_->mutex);
    const auto found = cache_->masks.find(slots);
    if (found != cache_->masks.end()) return found->second;
  }
  // Encoded outside the lock (two threads may both encode one mask; the first stored is kept).
  const SlotEncoder& enc = ctx_->slot_encoder();
  const std::size_t d = enc.slot_degree();
  std::vector<u64> values(k_ * d, 0);
  for (const std::size_t i : slots) values[i * d] = 1;  // 1 ∈ E
  auto made = std::make_shared<const Plaintext>(Plaintext{enc.encode(values)});
  const std::lock_guard lock(cache_->mutex);
  return cache_->masks.emplace(slots, std::move(made)).first->second;
}

void SlotArray::check_evaluator(const Evaluator& ev, const char* op) const {
  const ContextPtr& other = ev.context();
  if (other->params() != ctx_->params() || other->t().value() != ctx_->t().value()) {
    throw MismatchedContext(std::string(op) +
                            ": the evaluator belongs to another context (parameters or t = " +
                            std::to_string(other->t().value()) + "); the slot array's masks are " +
                            "slots of t = " + std::to_string(ctx_->t().value()));
  }
}

Ciphertext SlotArray::apply(const Evaluator& ev, const Ciphertext& a,
                            const Sources& sources) const {
  check_evaluator(ev, "SlotArray");
  rlwe::check_same_params(ctx_->params(), a.params(), "SlotArray");
  const Plan groups = plan(sources);
  if (groups.empty()) return ev.sub(a, a);  // every slot shifted out: an encryption of 0
  std::optional<Ciphertext> sum;
  for (const auto& [gamma, slots] : groups) {
    Ciphertext moved = gamma == 1 ? a : ev.apply_galois(a, gamma);
    if (slots.size() != k_) moved = ev.multiply_plain(moved, *mask(slots));
    sum = sum ? ev.add(*sum, moved) : std::move(moved);
  }
  return std::move(*sum);
}

Ciphertext SlotArray::rotate_along(const Evaluator& ev, const Ciphertext& a, std::size_t r,
                                   std::int64_t k) const {
  check_dimension(r, "SlotArray::rotate_along");
  return apply(ev, a, along(r, k, true));
}

Ciphertext SlotArray::shift_along(const Evaluator& ev, const Ciphertext& a, std::size_t r,
                                  std::int64_t k) const {
  check_dimension(r, "SlotArray::shift_along");
  return apply(ev, a, along(r, k, false));
}

Ciphertext SlotArray::rotate(const Evaluator& ev, const Ciphertext& a, std::int64_t k) const {
  return apply(ev, a, linear(k, true));
}

Ciphertext SlotArray::shift(const Evaluator& ev, const Ciphertext& a, std::int64_t k) const {
  return apply(ev, a, linear(k, false));
}

std::vector<std::pair<bool, std::int64_t>> SlotArray::sum_steps(std::size_t r) const {
  // x = Σ_(j<e) rotate(a, j) throughout: doubling is x + rotate(x, e) (e → 2e), one more is
  // a + rotate(x, 1) (e → e + 1), along the bits of n below the leading one.
  const std::size_t n = orders_[r];
  std::vector<std::pair<bool, std::int64_t>> steps;
  std::int64_t e = 1;
  int bit = 0;
  while ((n >> (bit + 1)) != 0) ++bit;
  for (--bit; bit >= 0; --bit) {
    steps.emplace_back(false, e);
    e *= 2;
    if (((n >> bit) & 1) != 0) {
      steps.emplace_back(true, 1);
      e += 1;
    }
  }
  return steps;
}

Ciphertext SlotArray::total_sum(const Evaluator& ev, const Ciphertext& a) const {
  check_evaluator(ev, "SlotArray::total_sum");
  rlwe::check_same_params(ctx_->params(), a.params(), "SlotArray::total_sum");
  Ciphertext x = a;
  for (std::size_t r = 0; r < orders_.size(); ++r) {
    const Ciphertext line = x;
    for (const auto& [from_line, amount] : sum_steps(r)) {
      x = from_line ? ev.add(line, rotate_along(ev, x, r, amount))
                    : ev.add(x, rotate_along(ev, x, r, amount));
    }
  }
  return x;
}

Ciphertext SlotArray::replicate(const Evaluator& ev, const Ciphertext& a, std::size_t slot) const {
  if (slot >= k_) {
    throw InvalidParameter("SlotArray::replicate: slot " + std::to_string(slot) +
                           " is not below k = " + std::to_string(k_));
  }
  check_evaluator(ev, "SlotArray::replicate");
  rlwe::check_same_params(ctx_->params(), a.params(), "SlotArray::replicate");
  return total_sum(ev, ev.multiply_plain(a, *mask({slot})));
}

std::vector<SlotArray::u64> SlotArray::rotate_along_elements(std::size_t r, std::int64_t k) const {
  check_dimension(r, "SlotArray::rotate_along_elements");
  return elements(plan(along(r, k, true)));
}

std::vector<SlotArray::u64> SlotArray::shift_along_elements(std::size_t r, std::int64_t k) const {
  check_dimension(r, "SlotArray::shift_along_elements");
  return elements(plan(along(r, k, false)));
}

std::vector<SlotArray::u64> SlotArray::rotate_elements(std::int64_t k) const {
  return elements(plan(linear(k, true)));
}

std::vector<SlotArray::u64> SlotArray::shift_elements(std::int64_t k) const {
  return elements(plan(linear(k, false)));
}

std::vector<SlotArray::u64> SlotArray::total_sum_elements() const {
  std::vector<u64> out;
  for (std::size_t r = 0; r < orders_.size(); ++r) {
    for (const auto& step : sum_steps(r)) {
      for (const u64 g : rotate_along_elements(r, step.second)) out.push_back(g);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace polyhe::bgv
