#pragma once
// The list operations the coarsening's device passes share (coarsening.hpp): an exclusive
// scan of counts into CSR offsets, and sorts of one segment inside one thread.
// Private to the library.
#include <Kokkos_Core.hpp>

#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::multigrid::lists {

/// counts(0 .. n-1) replaced by their exclusive prefix sums, counts(n) by the total, which is
/// returned (counts holds n + 1 entries). On exec (synchronises).
template <class E>
offset_t exclusive_scan(const E& exec, const Kokkos::View<offset_t*, typename E::memory_space>& counts, size_t n) {
  Kokkos::parallel_scan(
      "ppsparse::mcpi::multigrid::exclusive_scan", Kokkos::RangePolicy<E>(exec, 0, n + 1),
      KOKKOS_LAMBDA(const size_t i, offset_t& sum, const bool final) {
        const offset_t c = i < n ? counts(i) : 0;
        if (final) counts(i) = sum;
        sum += c;
      });
  offset_t total = 0;
  Kokkos::deep_copy(exec, Kokkos::View<offset_t, Kokkos::HostSpace>(&total), Kokkos::subview(counts, n));
  exec.fence();
  return total;
}

/// Sorts the positions [0, len) of a segment by `less(a, b)`, moving entries with `swap(a, b)`,
/// within one thread: by insertion where short (a row's blocks, an aggregate's rows), by heap
/// sort beyond (aggregates of many matching passes), so that no setting makes a thread
/// quadratic.
template <class Less, class Swap>
KOKKOS_INLINE_FUNCTION void sort_segment(offset_t len, const Less& less, const Swap& swap) {
  if (len <= 32) {
    for (offset_t a = 1; a < len; ++a)
      for (offset_t b = a; b > 0 && less(b, b - 1); --b) swap(b, b - 1);
    return;
  }
  auto sift = [&](offset_t root, offset_t end) {
    for (offset_t child = 2 * root + 1; child < end; child = 2 * root + 1) {
      if (child + 1 < end && less(child, child + 1)) ++child;
      if (!less(root, child)) return;
      swap(root, child);
      root = child;
    }
  };
  for (offset_t a = len / 2; a-- > 0;) sift(a, len);
  for (offset_t end = len - 1; end > 0; --end) {
    swap(0, end);
    sift(0, end);
  }
}

/// Sorts the pairs (key[a], value[a]), a in [0, len), by key, then by value. Where the values
/// increase in the input, as the callers' block and row indices do, equal keys keep their
/// order.
template <class Key, class Value>
KOKKOS_INLINE_FUNCTION void sort_pairs(Key* key, Value* value, offset_t len) {
  sort_segment(
      len, [&](offset_t a, offset_t b) { return key[a] < key[b] || (key[a] == key[b] && value[a] < value[b]); },
      [&](offset_t a, offset_t b) {
        const Key k = key[a];
        key[a] = key[b];
        key[b] = k;
        const Value v = value[a];
        value[a] = value[b];
        value[b] = v;
      });
}

/// Sorts key[0 .. len) ascending.
template <class Key>
KOKKOS_INLINE_FUNCTION void sort_keys(Key* key, offset_t len) {
  sort_segment(
      len, [&](offset_t a, offset_t b) { return key[a] < key[b]; },
      [&](offset_t a, offset_t b) {
        const Key k = key[a];
        key[a] = key[b];
        key[b] = k;
      });
}

}  // namespace ppsparse::mcpi::multigrid::lists
