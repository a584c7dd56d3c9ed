#pragma once
/// @file
/// Vector types of the SpMV kernels (y = alpha*A*x + beta*y) and the argument checks they share.
#include <cstdint>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::spmv {

/// A read-only vector of the SpMV kernels (x).
template <class Scalar, class MemSpace>
using ConstVector = Kokkos::View<const Scalar*, MemSpace>;
/// A vector the SpMV kernels write (y).
template <class Scalar, class MemSpace>
using Vector = Kokkos::View<Scalar*, MemSpace>;

/// Kernels deduce Scalar and MemSpace from the matrix only; alpha, beta, x and y are taken in
/// this non-deduced form so that a double literal or a View<double*> converts implicitly.
template <class T>
struct type_identity {
  using type = T;
};
template <class T>
using nondeduced_t = typename type_identity<T>::type;

/// Throws InvalidArgument, naming `who`, unless x has ncols entries, y has nrows entries,
/// and x and y do not share memory (y = A*y in place would read entries already written).
template <class XView, class YView>
void check_vectors(const std::string& who, long long nrows, long long ncols, const XView& x, const YView& y) {
  if (static_cast<long long>(x.extent(0)) != ncols)
    throw InvalidArgument(who + ": x has " + std::to_string(x.extent(0)) + " entries, the matrix has " +
                          std::to_string(ncols) + " columns");
  if (static_cast<long long>(y.extent(0)) != nrows)
    throw InvalidArgument(who + ": y has " + std::to_string(y.extent(0)) + " entries, the matrix has " +
                          std::to_string(nrows) + " rows");
  if (x.extent(0) > 0 && y.extent(0) > 0) {
    const auto xb = reinterpret_cast<std::uintptr_t>(x.data());
    const auto xe = xb + x.extent(0) * sizeof(typename XView::value_type);
    const auto yb = reinterpret_cast<std::uintptr_t>(y.data());
    const auto ye = yb + y.extent(0) * sizeof(typename YView::value_type);
    if (xb < ye && yb < xe) throw InvalidArgument(who + ": x and y overlap in memory; y must be a separate vector");
  }
}

/// Throws InvalidArgument, naming `who`, unless the CSR arrays have consistent extents
/// (row_ptr: nrows+1 entries; col_idx and values: the same count). O(1): the entries
/// themselves are checked by check_csr_structure (spmv/structure_check.hpp).
template <class Csr>
void check_csr_extents(const std::string& who, const Csr& a) {
  if (a.nrows < 0 || a.ncols < 0) throw InvalidArgument(who + ": negative matrix dimensions");
  if (a.row_ptr.extent(0) != static_cast<size_t>(a.nrows) + 1)
    throw InvalidArgument(who + ": row_ptr has " + std::to_string(a.row_ptr.extent(0)) +
                          " entries, expected nrows+1 = " + std::to_string(static_cast<long long>(a.nrows) + 1));
  if (a.col_idx.extent(0) != a.values.extent(0))
    throw InvalidArgument(who + ": col_idx has " + std::to_string(a.col_idx.extent(0)) + " entries but values has " +
                          std::to_string(a.values.extent(0)));
}

}  // namespace ppsparse::spmv
