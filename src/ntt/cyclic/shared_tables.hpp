// Index tables shared across primes (internal): the permutations and maps of the cyclic and
// powerful-basis transforms depend on the lengths only, never on q, so the transforms of a ring's
// primes — which plan the same lengths — hold one copy of each instead of one per prime (up to
// 64 copies of a few MB each at m near 2^17, whose building dominated loading such a set).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace polyhe::cyclic {

/// Which table, and the lengths it depends on (unused fields 0).
enum class SharedTableKind : std::uint8_t {
  bit_reversal,        // (len): i → bit-reverse of i over log2(len) bits
  rader_gather,        // (p): i → g^i mod p, g the smallest generator of (Z/p)^*
  rader_scatter,       // (p): i → g^−i mod p
  pfa_map,             // (n, n1): j1·n2 + j2 → the CRT index of (j1, j2)
  primitive,           // (m): the k in [1, m) coprime to m's prime, m a prime power (size_t)
  slot_exponents,      // (m): PowerfulNtt's slot exponents (size_t)
  powerful_exponents,  // (m): the powerful basis's exponents of X (length-m route)
  cell_of_power,       // (m): the CRT-grid cell of X^k, k < m (length-m route)
  cell_of_coordinate,  // (m): the grid cell of coordinate j (length-m route)
};

/// A shared table with a pointer to its first element: the transforms' inner calls (a Rader node
/// of length 7 runs thousands of times per transform) read it through one load, as they did a
/// table of their own.
template <class T>
class SharedTable {
 public:
  SharedTable() = default;
  explicit SharedTable(std::shared_ptr<const std::vector<T>> table)
      : table_(std::move(table)), data_(table_ ? table_->data() : nullptr) {}
  [[nodiscard]] const T& operator[](std::size_t i) const { return data_[i]; }
  [[nodiscard]] const std::vector<T>& vector() const { return *table_; }

 private:
  std::shared_ptr<const std::vector<T>> table_;
  const T* data_ = nullptr;
};

/// The cache of the tables of element type T: weak references, so a table lives as long as a
/// plan holds it. Never destroyed (a plan released during static destruction may still ask).
template <class T>
struct SharedTableCache {
  std::mutex mutex;
  std::map<std::array<std::uint64_t, 3>, std::weak_ptr<const std::vector<T>>> tables;

  static SharedTableCache& instance() {
    static auto* const cache = new SharedTableCache;
    return *cache;
  }
};

/// The table `kind` of (a, b), built by build() (a std::vector<T>) on the first request while no
/// other holder keeps it alive, then shared. Thread-safe (built under the cache's lock: these
/// builds are linear in the table's length). Entries whose tables died are dropped as new ones
/// arrive, so the cache holds the tables in use and little else.
template <class T, class Build>
std::shared_ptr<const std::vector<T>> shared_table(SharedTableKind kind, std::uint64_t a,
                                                   std::uint64_t b, Build&& build) {
  auto& cache = SharedTableCache<T>::instance();
  const std::array<std::uint64_t, 3> key{static_cast<std::uint64_t>(kind), a, b};
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (const auto it = cache.tables.find(key); it != cache.tables.end()) {
    if (auto table = it->second.lock()) return table;
  }
  auto table = std::make_shared<const std::vector<T>>(build());
  for (auto it = cache.tables.begin(); it != cache.tables.end();) {
    it = it->second.expired() ? cache.tables.erase(it) : std::next(it);
  }
  cache.tables[key] = table;
  return table;
}

}  // namespace polyhe::cyclic
