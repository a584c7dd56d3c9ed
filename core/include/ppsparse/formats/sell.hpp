#pragma once
/// @file
/// SELL-C-sigma: rows are sorted by length inside windows of sigma rows, grouped into
/// chunks of C rows, and each chunk is stored column-major and padded to its longest row.
/// Entry j of sorted row r (chunk k = r / C, lane l = r % C) is at chunk_ptr[k] + j*C + l.
#include <cstdint>
#include <string>

#include <ppsparse/types.hpp>

namespace ppsparse {

/// SELL-C-sigma matrix: rows sorted by length within windows of sigma rows, cut into chunks of C
/// rows stored column-major and padded to the chunk's longest row.
template <class Scalar, class MemorySpace = DefaultMemSpace>
struct SellMatrix {
  using scalar_type = Scalar;
  using memory_space = MemorySpace;

  ordinal_t nrows = 0;
  ordinal_t ncols = 0;
  int C = 32;           ///< chunk height
  ordinal_t sigma = 1;  ///< sorting scope (1: no sorting; a multiple of C otherwise)
  ordinal_t nchunks = 0;
  offset_t nnz = 0;                                 ///< true nonzeros, padding excluded
  Kokkos::View<offset_t*, MemorySpace> chunk_ptr;   ///< nchunks + 1 (offsets into col_idx/values)
  Kokkos::View<ordinal_t*, MemorySpace> chunk_len;  ///< nchunks: padded width of each chunk
  Kokkos::View<ordinal_t*, MemorySpace> row_len;    ///< nchunks * C: true length of each sorted row (0 past nrows)
  Kokkos::View<ordinal_t*, MemorySpace> perm;       ///< nrows: perm[sorted position] = original row
  Kokkos::View<ordinal_t*, MemorySpace> col_idx;    ///< chunk_ptr[nchunks]; padding repeats a valid column
  Kokkos::View<Scalar*, MemorySpace> values;        ///< chunk_ptr[nchunks]; padding is 0
  /// Optional compressed columns (sell_compress_columns): col_offset[k] = col_idx[k] - perm[p]
  /// for the true entries of sorted row p, 0 for padding; empty when not compressed. A kernel
  /// that reads it moves 2 bytes per entry for the column instead of 4.
  Kokkos::View<std::int16_t*, MemorySpace> col_offset;

  offset_t stored() const { return static_cast<offset_t>(values.extent(0)); }
  bool compressed_columns() const { return col_offset.extent(0) > 0; }
  int column_bytes() const { return col_offset.extent(0) > 0 ? 2 : static_cast<int>(sizeof(ordinal_t)); }
  /// Stored entries over true nonzeros (>= 1): the padding overhead in bytes moved.
  double fill_ratio() const { return nnz ? static_cast<double>(stored()) / static_cast<double>(nnz) : 1.0; }
};

/// A deep copy of a in ToSpace.
template <class ToSpace, class Scalar, class FromSpace>
SellMatrix<Scalar, ToSpace> copy_to(const SellMatrix<Scalar, FromSpace>& a) {
  SellMatrix<Scalar, ToSpace> b;
  b.nrows = a.nrows;
  b.ncols = a.ncols;
  b.C = a.C;
  b.sigma = a.sigma;
  b.nchunks = a.nchunks;
  b.nnz = a.nnz;
  auto cp = [](auto& dst, const auto& src) {
    using V = std::decay_t<decltype(dst)>;
    dst = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, src.label()), src.extent(0));
    Kokkos::deep_copy(dst, src);
  };
  cp(b.chunk_ptr, a.chunk_ptr);
  cp(b.chunk_len, a.chunk_len);
  cp(b.row_len, a.row_len);
  cp(b.perm, a.perm);
  cp(b.col_idx, a.col_idx);
  cp(b.values, a.values);
  if (a.col_offset.extent(0) > 0) cp(b.col_offset, a.col_offset);
  return b;
}

}  // namespace ppsparse
