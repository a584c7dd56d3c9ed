#pragma once
/// @file
/// Block CSR in FUN3D's layout: block row pointer ia, block column index ja, and
/// nb x nb blocks stored column-major (entry (i,j) of block k at values[k*nb*nb + j*nb + i]).
#include <string>

#include <ppsparse/types.hpp>

namespace ppsparse {

/// Block compressed sparse row matrix: nb x nb blocks stored column-major, one block column index
/// per block, 64-bit block row offsets.
template <class Scalar, class MemorySpace = DefaultMemSpace>
struct BsrMatrix {
  using scalar_type = Scalar;
  using memory_space = MemorySpace;

  int nb = 1;  ///< block size
  ordinal_t nblockrows = 0;
  ordinal_t nblockcols = 0;
  Kokkos::View<offset_t*, MemorySpace> ia;    ///< nblockrows + 1
  Kokkos::View<ordinal_t*, MemorySpace> ja;   ///< nnzb; sorted within a block row
  Kokkos::View<Scalar*, MemorySpace> values;  ///< nnzb * nb * nb, column-major blocks

  BsrMatrix() = default;
  BsrMatrix(int block, ordinal_t brows, ordinal_t bcols, offset_t nnzb, const std::string& label = "bsr")
      : nb(block),
        nblockrows(brows),
        nblockcols(bcols),
        ia(label + ".ia", static_cast<size_t>(brows) + 1),
        ja(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + ".ja"), static_cast<size_t>(nnzb)),
        values(label + ".values", static_cast<size_t>(nnzb) * block * block) {}

  offset_t nnzb() const { return static_cast<offset_t>(ja.extent(0)); }
  size_t block_size() const { return static_cast<size_t>(nb) * nb; }
};

/// Index of entry (row i, column j) inside a column-major nb x nb block.
KOKKOS_INLINE_FUNCTION constexpr int block_entry(int nb, int i, int j) { return j * nb + i; }

/// A deep copy of a in ToSpace.
template <class ToSpace, class Scalar, class FromSpace>
BsrMatrix<Scalar, ToSpace> copy_to(const BsrMatrix<Scalar, FromSpace>& a) {
  BsrMatrix<Scalar, ToSpace> b;
  b.nb = a.nb;
  b.nblockrows = a.nblockrows;
  b.nblockcols = a.nblockcols;
  b.ia =
      Kokkos::View<offset_t*, ToSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, a.ia.label()), a.ia.extent(0));
  b.ja =
      Kokkos::View<ordinal_t*, ToSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, a.ja.label()), a.ja.extent(0));
  b.values = Kokkos::View<Scalar*, ToSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, a.values.label()),
                                            a.values.extent(0));
  Kokkos::deep_copy(b.ia, a.ia);
  Kokkos::deep_copy(b.ja, a.ja);
  Kokkos::deep_copy(b.values, a.values);
  return b;
}

/// Throws InvalidArgument naming the first defect unless the host BSR is well formed.
template <class Scalar>
void validate(const BsrMatrix<Scalar, HostSpace>& a, const std::string& what = "BSR matrix");

}  // namespace ppsparse
