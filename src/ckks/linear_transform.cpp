#include "polyhe/ckks/linear_transform.hpp"

#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "polyhe/core/error.hpp"

namespace polyhe::ckks {

namespace {

bool finite(std::complex<double> z) {
  return std::isfinite(z.real()) && std::isfinite(z.imag());
}

// Hoisted baby rotations share one ModUp: eight of them measured 4.4–4.5 one-off rotations on
// an H200 and 4.6–4.8 on the CPU's ifma path, so a baby step weighs about 0.6 of a giant.
constexpr double kBabyWeight = 0.6;

// The rotations of a split of the diagonal indices by n1: the baby steps b ≠ 0 and giant steps
// g ≠ 0 some index k = n1·g + b uses.
struct Split {
  std::set<std::size_t> babies, giants;
  [[nodiscard]] double cost() const {
    return kBabyWeight * static_cast<double>(babies.size() - babies.count(0)) +
           static_cast<double>(giants.size() - giants.count(0));
  }
};

Split split(const Diagonals& d, std::size_t n1) {
  Split s;
  for (const auto& [k, values] : d) {
    s.babies.insert(k % n1);
    s.giants.insert(k / n1);
  }
  return s;
}

}  // namespace

Diagonals diagonals_of(std::span<const std::complex<double>> m, std::size_t rows, std::size_t cols,
                       std::size_t slots, bool transpose) {
  if (rows == 0 || cols == 0 || rows > slots || cols > slots) {
    throw InvalidParameter("diagonals_of: a " + std::to_string(rows) + " x " +
                           std::to_string(cols) + " matrix does not fit " + std::to_string(slots) +
                           " slots (each side in [1, slots])");
  }
  if (m.size() != rows * cols) {
    throw InvalidParameter("diagonals_of: " + std::to_string(m.size()) + " entries for a " +
                           std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  }
  Diagonals d;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const std::complex<double> v = m[r * cols + c];
      if (!finite(v)) {
        throw InvalidParameter("diagonals_of: entry (" + std::to_string(r) + ", " +
                               std::to_string(c) + ") is not finite");
      }
      if (v == 0.0) continue;
      // M[i][j] with (i, j) = (r, c), or (c, r) for the transpose; diagonal (j − i) mod slots.
      const std::size_t i = transpose ? c : r;
      const std::size_t j = transpose ? r : c;
      const std::size_t k = (j + slots - i) % slots;
      auto [it, fresh] = d.try_emplace(k);
      if (fresh) it->second.assign(slots, 0.0);
      it->second[i] = v;
    }
  }
  return d;
}

LinearTransform::LinearTransform(const Context& ctx, const Diagonals& diagonals, std::size_t level,
                                 double scale, std::size_t baby_steps)
    : params_(ctx.params()), level_(level), scale_(scale), slots_(ctx.slots()) {
  const char* const op = "LinearTransform";
  if (level > params_->max_level()) {
    throw InvalidParameter(std::string(op) + ": level " + std::to_string(level) +
                           " exceeds the top level L = " + std::to_string(params_->max_level()));
  }
  if (diagonals.empty()) throw InvalidParameter(std::string(op) + ": no diagonal");
  for (const auto& [k, values] : diagonals) {
    if (k >= slots_) {
      throw InvalidParameter(std::string(op) + ": diagonal index " + std::to_string(k) +
                             " is not below the slot count " + std::to_string(slots_));
    }
    if (values.size() != slots_) {
      throw InvalidParameter(std::string(op) + ": diagonal " + std::to_string(k) + " has " +
                             std::to_string(values.size()) + " values, expected " +
                             std::to_string(slots_));
    }
    for (std::size_t j = 0; j < slots_; ++j) {
      if (!finite(values[j])) {
        throw InvalidParameter(std::string(op) + ": diagonal " + std::to_string(k) + " value " +
                               std::to_string(j) + " is not finite");
      }
    }
  }
  if (scale_ == 0) scale_ = static_cast<double>(params_->q_primes()[level]);
  if (!(scale_ >= 1.0) || !std::isfinite(scale_)) {
    throw InvalidParameter(std::string(op) + ": scale " + std::to_string(scale_) +
                           " is not a finite number >= 1");
  }
  if (baby_steps == 0) {
    double best = 0;
    for (std::size_t n1 = 1; n1 <= slots_; n1 *= 2) {
      const double c = split(diagonals, n1).cost();
      if (n1 == 1 || c < best) {
        best = c;
        n1_ = n1;
      }
    }
  } else {
    if (baby_steps > slots_ || (baby_steps & (baby_steps - 1)) != 0) {
      throw InvalidParameter(std::string(op) + ": baby_steps = " + std::to_string(baby_steps) +
                             " is not a power of two in [1, " + std::to_string(slots_) + "]");
    }
    n1_ = baby_steps;
  }
  std::vector<std::complex<double>> rotated(slots_);
  for (const auto& [k, values] : diagonals) {
    const std::size_t g = k / n1_;
    const std::size_t b = k % n1_;
    const std::size_t shift = (n1_ * g) % slots_;
    // rot(d_k, −n1·g)[j] = d_k[(j − n1·g) mod slots].
    for (std::size_t j = 0; j < slots_; ++j) rotated[j] = values[(j + slots_ - shift) % slots_];
    plain_[g].emplace(b, ctx.encode(rotated, level_, scale_));
  }
}

std::vector<std::int64_t> LinearTransform::rotations() const {
  std::set<std::int64_t> steps;
  for (const auto& [g, row] : plain_) {
    if (g != 0) steps.insert(static_cast<std::int64_t>(n1_ * g));
    for (const auto& [b, pt] : row) {
      if (b != 0) steps.insert(static_cast<std::int64_t>(b));
    }
  }
  return {steps.begin(), steps.end()};
}

std::size_t LinearTransform::diagonal_count() const {
  std::size_t count = 0;
  for (const auto& [g, row] : plain_) count += row.size();
  return count;
}

LinearTransform LinearTransform::to_device(const std::shared_ptr<Device>& device) const {
  LinearTransform t = *this;
  for (auto& [g, row] : t.plain_) {
    for (auto& [b, pt] : row) pt = pt.to_device(device);
  }
  return t;
}

Ciphertext LinearTransform::apply(const Evaluator& ev, const Ciphertext& ct) const {
  const char* const op = "LinearTransform::apply";
  rlwe::check_same_params(ev.params(), params_, op);
  rlwe::check_same_params(ct.params(), params_, op);
  if (ct.level() != level_) {
    throw InvalidParameter(std::string(op) + ": the ciphertext is at level " +
                           std::to_string(ct.level()) + ", the transform's diagonals at level " +
                           std::to_string(level_) +
                           " (drop_to_level first, or make the transform at its level)");
  }
  if (ct.size() != 2) {
    throw InvalidParameter(std::string(op) + ": relinearise the ciphertext first (size " +
                           std::to_string(ct.size()) + ")");
  }
  const auto& place = plain_.begin()->second.begin()->second.poly.device();
  if (ct.device() != place) {
    throw InvalidParameter(std::string(op) + ": the ciphertext lives " +
                           (ct.device() ? "on a device" : "in host memory") +
                           " and the transform " + (place ? "on a device" : "in host memory") +
                           " (LinearTransform::to_device)");
  }
  const double scale = ct.scale() * scale_;
  double room = 0;
  for (std::size_t i = 0; i <= level_; ++i) {
    room += std::log2(static_cast<double>(params_->q_primes()[i]));
  }
  if (std::log2(scale) >= room - 1) {
    throw InvalidParameter(
        std::string(op) + ": the product's scale 2^" + std::to_string(std::log2(scale)) +
        " leaves no room below the modulus at level " + std::to_string(level_) + " (2^" +
        std::to_string(room) + "): rescale the ciphertext first, or encode at a smaller scale");
  }
  // Every key before any work.
  for (const std::int64_t step : rotations()) {
    if (!ev.can_rotate(step)) {
      throw InvalidParameter(std::string(op) + ": no Galois key for rotation step " +
                             std::to_string(step) +
                             "; generate the keys of LinearTransform::rotations()");
    }
  }
  std::set<std::size_t> baby_set;
  for (const auto& [g, row] : plain_) {
    for (const auto& [b, pt] : row) baby_set.insert(b);
  }
  const std::vector<std::int64_t> babies(baby_set.begin(), baby_set.end());
  const std::vector<Ciphertext> rotated = ev.rotate_many(ct, babies);
  std::map<std::size_t, const Ciphertext*> by_step;
  for (std::size_t i = 0; i < babies.size(); ++i) {
    by_step[static_cast<std::size_t>(babies[i])] = &rotated[i];
  }

  std::optional<Ciphertext> result;
  for (const auto& [g, row] : plain_) {
    Ciphertext inner(params_, level_, 2, scale, place);
    for (const auto& [b, pt] : row) {
      const Ciphertext& x = *by_step.at(b);
      inner[0].multiply_accumulate(x[0], pt.poly);
      inner[1].multiply_accumulate(x[1], pt.poly);
    }
    if (g != 0) inner = ev.rotate(inner, static_cast<std::int64_t>(n1_ * g));
    if (result) {
      ev.add_inplace(*result, inner);
    } else {
      result = std::move(inner);
    }
  }
  return std::move(*result);
}

}  // namespace polyhe::ckks
