// polyhe._polyhe.arith: primes, the negacyclic NTT plan and its products, the cyclic NTT plan of
// any length and the cyclotomic rings Z_q[x]/Φ_m. Arrays are C-contiguous uint64 (Array1/Array2 of
// bindings.hpp); a 2-D array is a batch of rows, each one element. The in-place transforms take
// their array with noconvert(), so that a converted temporary never swallows the result.
//
// Coefficients must lie in [0, q): the C++ API only assumes it (a precondition), so every entry
// point here checks it first, in O(n) with the GIL released, and names the first bad index. The
// Python layer (polyhe/arith.py) checks the same, and the dtypes and shapes, before calling.
#include <polyhe/arith/primes.hpp>
#include <polyhe/core/error.hpp>
#include <polyhe/core/thread_pool.hpp>
#include <polyhe/ntt/batch.hpp>
#include <polyhe/ntt/cyclic/cyclotomic.hpp>
#include <polyhe/ntt/cyclic/plan.hpp>
#include <polyhe/ntt/plan.hpp>
#include <polyhe/ntt/polymul.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"

namespace polyhe::python {

namespace {

using u64 = std::uint64_t;
using Plan = NttPlan<u64>;

/// Throws InvalidParameter naming the first a[i] ≥ q (as "a[r, c]" when the words are rows of
/// `cols`, "a[i]" when cols is 0).
void check_below(std::span<const u64> a, u64 q, const std::string& what, std::size_t cols = 0) {
  const auto bad = std::find_if(a.begin(), a.end(), [q](u64 x) { return x >= q; });
  if (bad == a.end()) return;
  const auto i = static_cast<std::size_t>(bad - a.begin());
  const std::string index =
      cols == 0 ? std::to_string(i) : std::to_string(i / cols) + ", " + std::to_string(i % cols);
  throw InvalidParameter(what + "[" + index + "] = " + std::to_string(*bad) +
                         " is outside [0, q) with q = " + std::to_string(q));
}

/// Throws InvalidParameter unless a has `cols` columns.
template <class T>
void check_cols(const Array2<T>& a, std::size_t cols, const std::string& what) {
  if (a.shape(1) != cols) {
    throw InvalidParameter(what + ": shape (" + std::to_string(a.shape(0)) + ", " +
                           std::to_string(a.shape(1)) + "), expected (rows, " +
                           std::to_string(cols) + ")");
  }
}

template <class T>
void check_same_shape(const Array2<T>& a, const Array2<T>& b, const std::string& what) {
  if (a.shape(0) != b.shape(0) || a.shape(1) != b.shape(1)) {
    throw InvalidParameter(what + ": operands of shapes (" + std::to_string(a.shape(0)) + ", " +
                           std::to_string(a.shape(1)) + ") and (" + std::to_string(b.shape(0)) +
                           ", " + std::to_string(b.shape(1)) + "); they must be equal");
  }
}

template <class T>
std::span<T> words_of(const Array2<T>& a) {
  return {a.data(), a.shape(0) * a.shape(1)};
}

/// Runs f (which fills `out`) with the GIL released, then hands the words to numpy with the GIL
/// back.
template <class F>
NumpyArray<u64> released_1d(F&& f) {
  std::vector<u64> out;
  {
    nb::gil_scoped_release release;
    f(out);
  }
  return to_numpy(std::move(out));
}

template <class F>
NumpyArray<u64> released_2d(std::size_t rows, std::size_t cols, F&& f) {
  std::vector<u64> out;
  {
    nb::gil_scoped_release release;
    f(out);
  }
  return to_numpy(std::move(out), rows, cols);
}

// ---- NttPlan ----------------------------------------------------------------------------------

struct PyNttPlan {
  std::shared_ptr<const Plan> plan;

  [[nodiscard]] std::vector<const Plan*> repeated(std::size_t rows) const {
    return std::vector<const Plan*>(rows, plan.get());
  }

  void forward(std::span<u64> a) const {
    check_below(a, plan->q(), "NttPlan.forward: a");
    plan->forward(a);
  }
  void inverse(std::span<u64> a) const {
    check_below(a, plan->q(), "NttPlan.inverse: a");
    plan->inverse(a);
  }
  void forward_rows(const Array2<u64>& a) const {
    check_cols(a, plan->n(), "NttPlan.forward");
    check_below(words_of(a), plan->q(), "NttPlan.forward: a", plan->n());
    if (a.shape(0) == 0) return;
    const auto plans = repeated(a.shape(0));
    forward_batch<u64>(words_of(a), plans);
  }
  void inverse_rows(const Array2<u64>& a) const {
    check_cols(a, plan->n(), "NttPlan.inverse");
    check_below(words_of(a), plan->q(), "NttPlan.inverse: a", plan->n());
    if (a.shape(0) == 0) return;
    const auto plans = repeated(a.shape(0));
    inverse_batch<u64>(words_of(a), plans);
  }

  /// c = a·b mod (x^n + 1, q) into out (resized to n).
  void multiply(std::span<const u64> a, std::span<const u64> b, bool fused,
                std::vector<u64>& out) const {
    const std::string what = fused ? "NttPlan.multiply(fused)" : "NttPlan.multiply";
    if (a.size() != plan->n() || b.size() != plan->n()) {
      throw InvalidParameter(what + ": operands of lengths " + std::to_string(a.size()) + " and " +
                             std::to_string(b.size()) +
                             ", expected n = " + std::to_string(plan->n()));
    }
    check_below(a, plan->q(), what + ": a");
    check_below(b, plan->q(), what + ": b");
    out.resize(plan->n());
    if (fused) {
      polymul_fused<u64>(a, b, out, *plan);
    } else {
      polymul<u64>(a, b, out, *plan);
    }
  }
  void multiply_rows(const Array2<const u64>& a, const Array2<const u64>& b, bool fused,
                     std::vector<u64>& out) const {
    const std::string what = fused ? "NttPlan.multiply(fused)" : "NttPlan.multiply";
    check_same_shape(a, b, what);
    check_cols(a, plan->n(), what);
    check_below(words_of(a), plan->q(), what + ": a", plan->n());
    check_below(words_of(b), plan->q(), what + ": b", plan->n());
    out.resize(a.shape(0) * a.shape(1));
    if (a.shape(0) == 0) return;
    const auto plans = repeated(a.shape(0));
    polymul_batch<u64>(words_of(a), words_of(b), out, plans, fused);
  }
};

void bind_ntt_plan(nb::module_& mod) {
  nb::class_<PyNttPlan>(mod, "NttPlan",
                        "The negacyclic NTT of length n (a power of two, 2 ≤ n ≤ 2^17) modulo a "
                        "prime q ≡ 1 mod 2n of at most 62 bits, with ψ a primitive 2n-th root of "
                        "unity. forward: natural order → bit-reversed evaluation form, "
                        "â[i] = a(ψ^(2·br(i)+1)); inverse: its exact inverse, 1/n included.")
      .def(
          "__init__",
          [](PyNttPlan* self, std::size_t n, u64 q, std::optional<u64> psi) {
            std::shared_ptr<const Plan> plan;
            {
              nb::gil_scoped_release release;
              plan = psi ? Plan::create(n, q, *psi) : Plan::create(n, q);
            }
            new (self) PyNttPlan{std::move(plan)};
          },
          nb::arg("n"), nb::arg("q"), nb::arg("psi") = nb::none(),
          "Validates n, q (and ψ, a primitive 2n-th root; default the smallest) and builds the "
          "tables.")
      .def_prop_ro("n", [](const PyNttPlan& p) { return p.plan->n(); })
      .def_prop_ro("q", [](const PyNttPlan& p) { return p.plan->q(); })
      .def_prop_ro("psi", [](const PyNttPlan& p) { return p.plan->psi(); })
      .def(
          "forward", [](const PyNttPlan& p, const Array1<u64>& a) { p.forward(span_of(a)); },
          nb::arg("a").noconvert(), nb::call_guard<Release>(),
          "In place: a (n words in [0, q)) → its bit-reversed evaluation form.")
      .def(
          "inverse", [](const PyNttPlan& p, const Array1<u64>& a) { p.inverse(span_of(a)); },
          nb::arg("a").noconvert(), nb::call_guard<Release>(),
          "In place: the exact inverse of forward, 1/n included.")
      .def(
          "forward_rows", [](const PyNttPlan& p, const Array2<u64>& a) { p.forward_rows(a); },
          nb::arg("a").noconvert(), nb::call_guard<Release>(),
          "In place: forward on every row of a (rows × n), spread over the thread pool.")
      .def(
          "inverse_rows", [](const PyNttPlan& p, const Array2<u64>& a) { p.inverse_rows(a); },
          nb::arg("a").noconvert(), nb::call_guard<Release>(),
          "In place: inverse on every row of a (rows × n), spread over the thread pool.")
      .def(
          "multiply",
          [](const PyNttPlan& p, const Array1<const u64>& a, const Array1<const u64>& b,
             bool fused) {
            return released_1d(
                [&](std::vector<u64>& out) { p.multiply(span_of(a), span_of(b), fused, out); });
          },
          nb::arg("a"), nb::arg("b"), nb::arg("fused") = false,
          "a·b mod (x^n + 1, q) as a new array; fused selects [GPU-Polymul, Alg. 8].")
      .def(
          "multiply_rows",
          [](const PyNttPlan& p, const Array2<const u64>& a, const Array2<const u64>& b,
             bool fused) {
            return released_2d(a.shape(0), p.plan->n(),
                               [&](std::vector<u64>& out) { p.multiply_rows(a, b, fused, out); });
          },
          nb::arg("a"), nb::arg("b"), nb::arg("fused") = false,
          "Row i of the result is a[i]·b[i] mod (x^n + 1, q) (rows × n operands).");
}

// ---- CyclicNttPlan ----------------------------------------------------------------------------

/// The Decomposition spelled `name` (to_string's spelling); InvalidParameter listing them
/// otherwise.
Decomposition parse_decomposition(const std::string& name) {
  constexpr Decomposition kAll[] = {Decomposition::automatic,    Decomposition::direct,
                                    Decomposition::radix2,       Decomposition::pfa,
                                    Decomposition::cooley_tukey, Decomposition::rader,
                                    Decomposition::rader_padded, Decomposition::bluestein};
  std::string names;
  for (const Decomposition d : kAll) {
    if (to_string(d) == name) return d;
    names += (names.empty() ? "" : ", ") + std::string(to_string(d));
  }
  throw InvalidParameter("CyclicNttPlan: unknown decomposition '" + name + "' (one of " + names +
                         ")");
}

/// Runs body(row) on every row of a rows × cols array, spread over the default thread pool.
template <class T, class F>
void for_rows(std::span<T> words, std::size_t cols, F&& body) {
  const std::size_t rows = cols == 0 ? 0 : words.size() / cols;
  parallel_for(rows, [&](std::size_t r) { body(r, words.subspan(r * cols, cols)); });
}

struct PyCyclicPlan {
  std::shared_ptr<const CyclicNttPlan> plan;

  void transform(std::span<u64> a, bool forward) const {
    if (forward) {
      plan->forward(a);
    } else {
      plan->inverse(a);
    }
  }
  void run(std::span<u64> a, bool forward) const {
    check_below(a, plan->q(), forward ? "CyclicNttPlan.forward: a" : "CyclicNttPlan.inverse: a");
    transform(a, forward);
  }
  void run_rows(const Array2<u64>& a, bool forward) const {
    const char* what = forward ? "CyclicNttPlan.forward" : "CyclicNttPlan.inverse";
    check_cols(a, plan->n(), what);
    check_below(words_of(a), plan->q(), std::string(what) + ": a", plan->n());
    for_rows(words_of(a), plan->n(),
             [&](std::size_t, std::span<u64> row) { transform(row, forward); });
  }
};

void bind_cyclic_plan(nb::module_& mod) {
  nb::class_<PyCyclicPlan>(mod, "CyclicNttPlan",
                           "The cyclic NTT X[k] = Σ_j x[j]·ω^(jk) mod q of any length n the "
                           "planner serves (radix-2, prime-factor, Cooley–Tukey, Rader, "
                           "Bluestein), q a prime ≡ 1 mod n of at most 62 bits. Natural order in "
                           "and out; inverse is the exact inverse, 1/n included.")
      .def(
          "__init__",
          [](PyCyclicPlan* self, std::size_t n, u64 q, std::optional<u64> omega,
             const std::string& decomposition) {
            const Decomposition force = parse_decomposition(decomposition);
            std::shared_ptr<const CyclicNttPlan> plan;
            {
              nb::gil_scoped_release release;
              plan = omega ? CyclicNttPlan::create(n, q, *omega, force)
                           : CyclicNttPlan::create(n, q, force);
            }
            new (self) PyCyclicPlan{std::move(plan)};
          },
          nb::arg("n"), nb::arg("q"), nb::arg("omega") = nb::none(),
          nb::arg("decomposition") = "automatic",
          "Validates n, q (and ω, a primitive n-th root; default g^((q−1)/n) for the smallest g) "
          "and plans the transform; `decomposition` forces the root algorithm.")
      .def_prop_ro("n", [](const PyCyclicPlan& p) { return p.plan->n(); })
      .def_prop_ro("q", [](const PyCyclicPlan& p) { return p.plan->q(); })
      .def_prop_ro("omega", [](const PyCyclicPlan& p) { return p.plan->omega(); })
      .def_prop_ro(
          "kind", [](const PyCyclicPlan& p) { return std::string(to_string(p.plan->kind())); },
          "The algorithm at the root of the plan.")
      .def_prop_ro(
          "flattened", [](const PyCyclicPlan& p) { return p.plan->flattened(); },
          "Whether the transform runs as one flattened multi-dimensional pass.")
      .def(
          "decomposition", [](const PyCyclicPlan& p) { return p.plan->decomposition(); },
          "The planner's tree, e.g. 'pfa(5, pfa(17, rader(257 -> radix2(256))))'.")
      .def(
          "forward", [](const PyCyclicPlan& p, const Array1<u64>& a) { p.run(span_of(a), true); },
          nb::arg("a").noconvert(), nb::call_guard<Release>(), "In place, natural order.")
      .def(
          "inverse", [](const PyCyclicPlan& p, const Array1<u64>& a) { p.run(span_of(a), false); },
          nb::arg("a").noconvert(), nb::call_guard<Release>(),
          "In place: the exact inverse of forward, 1/n included.")
      .def(
          "forward_rows", [](const PyCyclicPlan& p, const Array2<u64>& a) { p.run_rows(a, true); },
          nb::arg("a").noconvert(), nb::call_guard<Release>(),
          "In place: forward on every row of a (rows × n), spread over the thread pool.")
      .def(
          "inverse_rows", [](const PyCyclicPlan& p, const Array2<u64>& a) { p.run_rows(a, false); },
          nb::arg("a").noconvert(), nb::call_guard<Release>(),
          "In place: inverse on every row of a (rows × n), spread over the thread pool.");
}

// ---- CyclotomicRing ---------------------------------------------------------------------------

struct PyRing {
  std::shared_ptr<const CyclotomicRing> ring;

  enum class Op { multiply, to_slots, from_slots };

  [[nodiscard]] static const char* name(Op op) {
    switch (op) {
      case Op::multiply: return "CyclotomicRing.multiply";
      case Op::to_slots: return "CyclotomicRing.to_slots";
      case Op::from_slots: return "CyclotomicRing.from_slots";
    }
    return "CyclotomicRing";
  }

  /// One element: out = a·b, or the slot map of a (b unused).
  void one(Op op, std::span<const u64> a, std::span<const u64> b, std::span<u64> out) const {
    std::vector<u64> v;
    switch (op) {
      case Op::multiply: ring->multiply(a, b, out); return;
      case Op::to_slots: v = ring->to_slots(a); break;
      case Op::from_slots: v = ring->from_slots(a); break;
    }
    std::copy(v.begin(), v.end(), out.begin());
  }

  void check_row(std::span<const u64> a, const char* operand, Op op) const {
    if (a.size() != ring->degree()) {
      throw InvalidParameter(std::string(name(op)) + ": " + operand + " has length " +
                             std::to_string(a.size()) +
                             ", expected degree φ(m) = " + std::to_string(ring->degree()));
    }
  }

  void run(Op op, std::span<const u64> a, std::span<const u64> b, std::vector<u64>& out) const {
    check_row(a, "a", op);
    check_below(a, ring->q(), std::string(name(op)) + ": a");
    if (op == Op::multiply) {
      check_row(b, "b", op);
      check_below(b, ring->q(), std::string(name(op)) + ": b");
    }
    out.resize(ring->degree());
    one(op, a, b, out);
  }

  void run_rows(Op op, const Array2<const u64>& a, const Array2<const u64>* b,
                std::vector<u64>& out) const {
    const std::size_t d = ring->degree();
    check_cols(a, d, name(op));
    check_below(words_of(a), ring->q(), std::string(name(op)) + ": a", d);
    if (b != nullptr) {
      check_same_shape(a, *b, name(op));
      check_below(words_of(*b), ring->q(), std::string(name(op)) + ": b", d);
    }
    out.resize(a.shape(0) * d);
    const std::span<u64> result(out);
    for_rows(words_of(a), d, [&](std::size_t r, std::span<const u64> row) {
      const auto other = b != nullptr ? words_of(*b).subspan(r * d, d) : std::span<const u64>{};
      one(op, row, other, result.subspan(r * d, d));
    });
  }
};

void bind_ring(nb::module_& mod) {
  nb::class_<PyRing>(mod, "CyclotomicRing",
                     "Z_q[x]/Φ_m(x) for m odd (3 ≤ m ≤ 2^22) or a power of two (4 ≤ m ≤ 2^18), q "
                     "a prime ≡ 1 mod m of at most 62 bits; elements are φ(m) coefficients in "
                     "[0, q). Slots: a(ω^k) for 1 ≤ k < m with gcd(k, m) = 1, ascending.")
      .def(
          "__init__",
          [](PyRing* self, std::size_t m, u64 q) {
            std::shared_ptr<const CyclotomicRing> ring;
            {
              nb::gil_scoped_release release;
              ring = CyclotomicRing::create(m, q);
            }
            new (self) PyRing{std::move(ring)};
          },
          nb::arg("m"), nb::arg("q"))
      .def_prop_ro("m", [](const PyRing& r) { return r.ring->m(); })
      .def_prop_ro("degree", [](const PyRing& r) { return r.ring->degree(); })
      .def_prop_ro("q", [](const PyRing& r) { return r.ring->q(); })
      .def_prop_ro("omega", [](const PyRing& r) { return r.ring->omega(); })
      .def_prop_ro(
          "phi",
          [](const PyRing& r) {
            const auto phi = r.ring->phi();
            return std::vector<u64>(phi.begin(), phi.end());
          },
          "Φ_m's coefficients mod q, lowest degree first.")
      .def_prop_ro(
          "slot_exponents",
          [](const PyRing& r) {
            const auto k = r.ring->slot_exponents();
            return std::vector<std::size_t>(k.begin(), k.end());
          },
          "The exponents k of the slots a(ω^k), ascending.")
      .def(
          "multiply",
          [](const PyRing& r, const Array1<const u64>& a, const Array1<const u64>& b) {
            return released_1d([&](std::vector<u64>& out) {
              r.run(PyRing::Op::multiply, span_of(a), span_of(b), out);
            });
          },
          nb::arg("a"), nb::arg("b"), "a·b mod (Φ_m, q) as a new array.")
      .def(
          "multiply_rows",
          [](const PyRing& r, const Array2<const u64>& a, const Array2<const u64>& b) {
            return released_2d(a.shape(0), r.ring->degree(), [&](std::vector<u64>& out) {
              r.run_rows(PyRing::Op::multiply, a, &b, out);
            });
          },
          nb::arg("a"), nb::arg("b"), "Row i of the result is a[i]·b[i] mod (Φ_m, q).")
      .def(
          "to_slots",
          [](const PyRing& r, const Array1<const u64>& a) {
            return released_1d(
                [&](std::vector<u64>& out) { r.run(PyRing::Op::to_slots, span_of(a), {}, out); });
          },
          nb::arg("a"), "The slots a(ω^k), k in slot_exponents.")
      .def(
          "to_slots_rows",
          [](const PyRing& r, const Array2<const u64>& a) {
            return released_2d(a.shape(0), r.ring->degree(), [&](std::vector<u64>& out) {
              r.run_rows(PyRing::Op::to_slots, a, nullptr, out);
            });
          },
          nb::arg("a"), "to_slots on every row.")
      .def(
          "from_slots",
          [](const PyRing& r, const Array1<const u64>& v) {
            return released_1d(
                [&](std::vector<u64>& out) { r.run(PyRing::Op::from_slots, span_of(v), {}, out); });
          },
          nb::arg("v"), "The element whose slots are v: the exact inverse of to_slots.")
      .def(
          "from_slots_rows",
          [](const PyRing& r, const Array2<const u64>& v) {
            return released_2d(v.shape(0), r.ring->degree(), [&](std::vector<u64>& out) {
              r.run_rows(PyRing::Op::from_slots, v, nullptr, out);
            });
          },
          nb::arg("v"), "from_slots on every row.");
}

}  // namespace

void bind_arith(nb::module_& parent) {
  nb::module_ a = parent.def_submodule(
      "arith", "Primes, NTT plans, negacyclic products and cyclotomic rings (exact types).");
  a.def("is_prime", &is_prime, nb::arg("n"), "Deterministic Miller–Rabin for every 64-bit n.");
  a.def(
      "ntt_primes",
      [](int bits, std::size_t n, std::size_t count) { return ntt_primes(bits, n, count); },
      nb::arg("bits"), nb::arg("n"), nb::arg("count"), nb::call_guard<Release>(),
      "`count` distinct primes q ≡ 1 mod 2n of exactly `bits` bits, largest first.");
  a.def(
      "cyclotomic_polynomial", [](u64 m) { return cyclotomic_polynomial(m); }, nb::arg("m"),
      nb::call_guard<Release>(),
      "The integer coefficients of Φ_m, lowest degree first (degree φ(m), monic).");
  bind_ntt_plan(a);
  bind_cyclic_plan(a);
  bind_ring(a);
}

}  // namespace polyhe::python
