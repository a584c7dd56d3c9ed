#pragma once
/// @file
/// The MCPI linear system A dQ = R with A = D + O (FUN3D's point-implicit layout):
/// O holds the off-diagonal blocks in FP32 BSR, D the diagonal blocks in FP64
/// (column-major, LU-factored in place once factor() has run), R the right-hand side in FP64.
#include <ppsparse/formats/bsr.hpp>

namespace ppsparse {

/// A block linear system A dQ = R as MCPI stores it: A = D + O with the off-diagonal blocks O in
/// block CSR (FP32, column-major blocks), the diagonal blocks D (FP64, optionally LU-factored in
/// place) and the right-hand side R (FP64), all in one numbering of n block rows of size nb.
template <class MemorySpace = DefaultMemSpace>
struct BlockSystem {
  using memory_space = MemorySpace;

  int nb = 1;
  ordinal_t n = 0;                       ///< block rows
  BsrMatrix<float, MemorySpace> O;       ///< off-diagonal blocks only
  Kokkos::View<double*, MemorySpace> D;  ///< n * nb * nb
  Kokkos::View<double*, MemorySpace> R;  ///< n * nb
  bool d_factored = false;               ///< D holds L\U factors (unit-diagonal L)
};

/// A deep copy of s in ToSpace.
template <class ToSpace, class FromSpace>
BlockSystem<ToSpace> copy_to(const BlockSystem<FromSpace>& s) {
  BlockSystem<ToSpace> t;
  t.nb = s.nb;
  t.n = s.n;
  t.O = copy_to<ToSpace>(s.O);
  t.D = Kokkos::View<double*, ToSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "D"), s.D.extent(0));
  t.R = Kokkos::View<double*, ToSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "R"), s.R.extent(0));
  Kokkos::deep_copy(t.D, s.D);
  Kokkos::deep_copy(t.R, s.R);
  t.d_factored = s.d_factored;
  return t;
}

}  // namespace ppsparse
