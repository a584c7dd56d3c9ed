#pragma once
/// @file
/// HYB: SELL-C-sigma for the bulk of the matrix plus a CSR "tail" holding the entries of very
/// long rows beyond row_max (Bell & Garland's ELL + COO hybrid, with SELL in place of ELL and
/// csr_v2's whole-team / split-row kernel in place of COO). A few very long rows (Reguly &
/// Giles' dc1 case) then neither pad their SELL chunk nor leave one vector group with a long
/// serial loop.
///
/// y = alpha*A*x + beta*y is computed as: SELL part (writes every row, applying beta), then the
/// tail product into a workspace t = A_tail x, then y[tail_rows[i]] += alpha * t[i].
#include <vector>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/sell.hpp>
#include <ppsparse/spmv/csr_v2.hpp>
#include <ppsparse/spmv/traffic.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

/// Entries of some rows kept apart from a matrix's main format (HYB's long-row excess, the
/// long rows of column_panels), multiplied by csr_v2 and added to y afterwards.
template <class Scalar, class MemSpace>
struct RowTail {
  CsrMatrix<Scalar, MemSpace> matrix;       ///< one row per tail row
  Kokkos::View<ordinal_t*, MemSpace> rows;  ///< original row of each tail row (distinct)
  CsrV2Plan<Scalar, MemSpace> plan;         ///< csr_v2 plan of matrix
  Kokkos::View<Scalar*, MemSpace> y;        ///< workspace: matrix * x

  ordinal_t nrows() const { return matrix.nrows; }
  offset_t nnz() const { return matrix.nnz(); }
  /// What add_row_tail moves: the CSR arrays, the row map, the workspace written and read,
  /// and y read and written at the tail rows.
  double bytes() const {
    const double r = static_cast<double>(matrix.nrows);
    return static_cast<double>(matrix.nnz()) * (sizeof(Scalar) + sizeof(ordinal_t)) + (r + 1) * sizeof(offset_t) +
           r * (sizeof(ordinal_t) + 2.0 * sizeof(Scalar)) + (matrix.nrows > 0 ? r * sizeof(Scalar) : 0.0);
  }
};

/// The tail of `matrix`'s rows (host CSR, one row per entry of rows), copied to MemSpace
/// with its csr_v2 plan and workspace. Instantiated for (DefaultExecSpace, float|double,
/// DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
RowTail<Scalar, MemSpace> make_row_tail(const ExecSpace& space, const CsrMatrix<Scalar, HostSpace>& matrix,
                                        const std::vector<ordinal_t>& rows);

/// y[rows[i]] += alpha * (matrix x)[i] on space.
template <class ExecSpace, class Scalar, class MemSpace>
void add_row_tail(const ExecSpace& space, nondeduced_t<Scalar> alpha, const RowTail<Scalar, MemSpace>& tail,
                  const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, const nondeduced_t<Vector<Scalar, MemSpace>>& y,
                  MatrixLoads loads);

/// HYB: SELL for the rows up to row_max entries and a CSR tail for the longer ones.
template <class Scalar, class MemSpace>
struct HybMatrix {
  ordinal_t row_max = 0;              ///< entries a row keeps in the SELL part
  SellMatrix<Scalar, MemSpace> sell;  ///< every row, cut to row_max entries
  RowTail<Scalar, MemSpace> tail;     ///< one row per cut row: its entries past row_max

  ordinal_t nrows() const { return sell.nrows; }
  ordinal_t ncols() const { return sell.ncols; }
  offset_t nnz() const { return sell.nnz + tail.nnz(); }
};

/// The automatic row_max: rows longer than max(32, 4 * mean row length) are cut.
ordinal_t hyb_auto_row_max(ordinal_t nrows, offset_t nnz);

/// Splits a host CSR into the HYB parts (C, sigma as csr_to_sell) and copies them to MemSpace.
/// index_bits: the SELL part's columns as sell_apply_index_bits (0: 16-bit offsets where they
/// fit, 16: required, 32: 32-bit indices). InvalidArgument unless row_max >= 1 and index_bits
/// is 0, 16 or 32, or for 16 where a column of the SELL part lies too far from its row.
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
HybMatrix<Scalar, MemSpace> make_hyb(const ExecSpace& space, const CsrMatrix<Scalar, HostSpace>& a, int C,
                                     ordinal_t sigma, ordinal_t row_max, int index_bits = 0);

/// y = alpha*A*x + beta*y (conventions as csr_v1). The tail workspace is shared: one product
/// at a time per HybMatrix. `loads`: spmv/matrix_loads.hpp.
template <class ExecSpace, class Scalar, class MemSpace>
void hyb_spmv(const ExecSpace& space, nondeduced_t<Scalar> alpha, const HybMatrix<Scalar, MemSpace>& a,
              const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
              const nondeduced_t<Vector<Scalar, MemSpace>>& y, MatrixLoads loads = MatrixLoads::streaming);

/// Model: the CSR minimum of the whole matrix. Kernel: the SELL part as sell_traffic, plus
/// the tail's CSR arrays, its row map, the workspace written and read once, and the second
/// read of y at the tail rows.
template <class Scalar, class MemSpace>
SpmvTraffic hyb_traffic(const HybMatrix<Scalar, MemSpace>& a, bool reads_y) {
  SpmvTraffic t = sell_traffic<Scalar>(a.sell.nrows, a.sell.ncols, a.nnz(), a.sell.stored(), a.sell.nchunks, reads_y,
                                       a.sell.column_bytes());
  t.kernel_bytes += a.tail.bytes();
  return t;
}

}  // namespace ppsparse::spmv
