#pragma once
/// @file
/// The bytes model of SpMV (y = alpha*A*x + beta*y), used to turn times into GB/s.
///
/// Minimum traffic (the model every kernel is measured against, as in Reguly & Giles eq. 2,
/// extended by x and by the read of y):
///   values + column indices      nnz * (sizeof(Scalar) + sizeof(ordinal_t))
///   row pointers                 (nrows + 1) * sizeof(offset_t)
///   x, read once                 ncols * sizeof(Scalar)
///   y, read once if beta != 0    nrows * sizeof(Scalar)
///   y, written once              nrows * sizeof(Scalar)
/// Every entry is counted once: this is what a kernel moves when caches catch all reuse of x.
///
/// Kernel traffic: what a kernel's own format streams. For CSR kernels it equals the model;
/// for SELL-C-sigma it counts the stored (padded) entries, the chunk pointers, the per-row
/// lengths and the permutation, which is more than the model whenever there is padding.
/// Reports quote GB/s against the model; the kernel figure shows what the padding costs.
#include <ppsparse/types.hpp>

namespace ppsparse::spmv {

/// Bytes an SpMV moves: the minimum-traffic model and what the kernel's format reads.
struct SpmvTraffic {
  double model_bytes = 0;   ///< CSR minimum (above)
  double kernel_bytes = 0;  ///< bytes the kernel's storage format moves at least once
  double flops = 0;         ///< 2 * nnz (one multiply and one add per entry)
};

/// Minimum bytes of y = A x in CSR: the matrix once, x once, y written (and read when reads_y).
template <class Scalar>
constexpr double csr_min_bytes(long long nrows, long long ncols, long long nnz, bool reads_y) {
  return static_cast<double>(nnz) * (sizeof(Scalar) + sizeof(ordinal_t)) +
         static_cast<double>(nrows + 1) * sizeof(offset_t) + static_cast<double>(ncols) * sizeof(Scalar) +
         static_cast<double>(nrows) * sizeof(Scalar) * (reads_y ? 2.0 : 1.0);
}

/// csr_min_bytes as an SpmvTraffic (the kernel reads exactly the model).
template <class Scalar>
constexpr SpmvTraffic csr_traffic(long long nrows, long long ncols, long long nnz, bool reads_y) {
  const double b = csr_min_bytes<Scalar>(nrows, ncols, nnz, reads_y);
  return SpmvTraffic{b, b, 2.0 * static_cast<double>(nnz)};
}

/// SELL-C-sigma as sell_spmv reads it: stored entries (values + columns of column_bytes,
/// padding included), chunk_ptr, row_len and perm for every row, x once, y (read if
/// beta != 0) and written.
template <class Scalar>
constexpr SpmvTraffic sell_traffic(long long nrows, long long ncols, long long nnz, long long stored, long long nchunks,
                                   bool reads_y, int column_bytes = sizeof(ordinal_t)) {
  const double kernel =
      static_cast<double>(stored) * (sizeof(Scalar) + column_bytes) +
      static_cast<double>(nchunks + 1) * sizeof(offset_t) + static_cast<double>(nrows) * 2.0 * sizeof(ordinal_t) +
      static_cast<double>(ncols) * sizeof(Scalar) + static_cast<double>(nrows) * sizeof(Scalar) * (reads_y ? 2.0 : 1.0);
  return SpmvTraffic{csr_min_bytes<Scalar>(nrows, ncols, nnz, reads_y), kernel, 2.0 * static_cast<double>(nnz)};
}

}  // namespace ppsparse::spmv
