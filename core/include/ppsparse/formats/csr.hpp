#pragma once
/// @file
/// Compressed sparse row matrix: scalar values, 32-bit column indices, 64-bit row offsets.
#include <string>

#include <ppsparse/types.hpp>

namespace ppsparse {

/// Compressed sparse row matrix in one memory space: row_ptr (nrows + 1 offsets), col_idx and
/// values (nnz entries each). Copies share the views.
template <class Scalar, class MemorySpace = DefaultMemSpace>
struct CsrMatrix {
  using scalar_type = Scalar;
  using memory_space = MemorySpace;

  ordinal_t nrows = 0;
  ordinal_t ncols = 0;
  Kokkos::View<offset_t*, MemorySpace> row_ptr;   ///< nrows + 1
  Kokkos::View<ordinal_t*, MemorySpace> col_idx;  ///< nnz; sorted within a row
  Kokkos::View<Scalar*, MemorySpace> values;      ///< nnz

  CsrMatrix() = default;
  /// Allocates row_ptr (zeroed) and nnz entries (uninitialised).
  CsrMatrix(ordinal_t rows, ordinal_t cols, offset_t nnz, const std::string& label = "csr")
      : nrows(rows),
        ncols(cols),
        row_ptr(label + ".row_ptr", static_cast<size_t>(rows) + 1),
        col_idx(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + ".col_idx"), static_cast<size_t>(nnz)),
        values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + ".values"), static_cast<size_t>(nnz)) {}

  offset_t nnz() const { return static_cast<offset_t>(col_idx.extent(0)); }
};

/// Deep copy of a CSR matrix into another memory space (and/or scalar type of the same kind).
template <class ToSpace, class Scalar, class FromSpace>
CsrMatrix<Scalar, ToSpace> copy_to(const CsrMatrix<Scalar, FromSpace>& a) {
  CsrMatrix<Scalar, ToSpace> b;
  b.nrows = a.nrows;
  b.ncols = a.ncols;
  b.row_ptr = Kokkos::View<offset_t*, ToSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, a.row_ptr.label()),
                                               a.row_ptr.extent(0));
  b.col_idx = Kokkos::View<ordinal_t*, ToSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, a.col_idx.label()),
                                                a.col_idx.extent(0));
  b.values = Kokkos::View<Scalar*, ToSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, a.values.label()),
                                            a.values.extent(0));
  Kokkos::deep_copy(b.row_ptr, a.row_ptr);
  Kokkos::deep_copy(b.col_idx, a.col_idx);
  Kokkos::deep_copy(b.values, a.values);
  return b;
}

/// Host CSR with values converted to another scalar type (e.g. FP64 -> FP32).
template <class To, class From>
CsrMatrix<To, HostSpace> convert_values(const CsrMatrix<From, HostSpace>& a) {
  CsrMatrix<To, HostSpace> b(a.nrows, a.ncols, a.nnz());
  Kokkos::deep_copy(b.row_ptr, a.row_ptr);
  Kokkos::deep_copy(b.col_idx, a.col_idx);
  for (size_t k = 0; k < a.values.extent(0); ++k) b.values(k) = static_cast<To>(a.values(k));
  return b;
}

/// Throws InvalidArgument (one line, naming the first defect) unless the host CSR
/// is well formed: monotone row_ptr starting at 0, column indices in range and
/// strictly increasing within each row.
template <class Scalar>
void validate(const CsrMatrix<Scalar, HostSpace>& a, const std::string& what = "CSR matrix");

}  // namespace ppsparse
