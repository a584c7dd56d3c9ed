#pragma once
// Between the user's numbering and the level numbering of the work array.
#include <ppsparse/types.hpp>

namespace ppsparse::mpk::detail {

// work(i, 0) = x(new_to_old(i)).
template <class Scalar, class MemSpace>
struct GatherX {
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> work;
  Kokkos::View<const Scalar*, MemSpace> x;
  Kokkos::View<const ordinal_t*, MemSpace> new_to_old;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { work(i, 0) = x(new_to_old(i)); }
};

// y(new_to_old(i), k) = work(i, k) for every column.
template <class Scalar, class MemSpace>
struct ScatterY {
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> y;
  Kokkos::View<const Scalar**, Kokkos::LayoutLeft, MemSpace> work;
  Kokkos::View<const ordinal_t*, MemSpace> new_to_old;
  int columns;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    const ordinal_t o = new_to_old(i);
    for (int k = 0; k < columns; ++k) y(o, k) = work(i, k);
  }
};

}  // namespace ppsparse::mpk::detail
