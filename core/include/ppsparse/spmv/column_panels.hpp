#pragma once
/// @file
/// SpMV in column panels, for matrices that gather x at random from a vector larger than a
/// fraction of the last-level cache (a GPU's L2): random graphs, matrices in a scattered
/// numbering, rectangular matrices with a long x. There every x entry missed by the cache costs
/// a whole sector for one value, and the gathers, not the matrix, bound the product.
///
/// The columns are cut into panels of panel_columns and the rows into chunks of chunk_rows.
/// Each (chunk, panel) segment stores the chunk's rows that have entries in the panel, sorted
/// by their length there, in slices of slice_rows rows stored column-major (as SELL-C-sigma).
/// A team owns one chunk at a time: it adds the chunk's panels in column order into its rows'
/// sums, held in team scratch (shared memory), then writes its rows of y once. The teams are
/// as many as the device holds at once and walk their chunks' panels at about the same pace,
/// so that the x entries gathered at any moment lie in about one panel, which the cache keeps
/// while the matrix streams past with evict-first loads. This is the cache blocking of
/// Nishtala et al. (2007), with the panels walked by all teams together instead of one by one.
///
/// Each row's sum is added panel by panel in column order: the result is deterministic, and
/// differs from CSR's order of addition by rounding only. Rows stop at their true length in
/// each panel, so padding never meets x (exact for any x, also where x holds Inf).
///
/// Rows longer than row_max go whole to a CSR tail (spmv/hyb.hpp's RowTail: csr_v2, then added
/// to y), so that one lane never walks a long row while its team waits at the panel's end.
///
/// Defaults (ColumnPanelOptions): on GPUs, panels whose x fills a quarter of the last-level
/// cache and chunks of 2048 rows, fewer where the matrix has too few rows to give every
/// resident team a chunk; on CPUs, one panel (the whole x) and chunks of 256 rows; row_max as
/// HYB's (hyb_auto_row_max).
/// docs/perf/kernel_choices.md ("SpMV column panels") has the measurements behind them.
#include <cstdint>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/spmv/hyb.hpp>
#include <ppsparse/spmv/matrix_loads.hpp>
#include <ppsparse/spmv/traffic.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

/// Options of the column-panel layout; 0 means the default of the execution space.
struct ColumnPanelOptions {
  ordinal_t panel_columns = 0;  ///< columns per panel (>= 1); 0: x of one panel fills 1/4 of the last-level cache
  int chunk_rows = 0;           ///< rows per chunk, 1..65536; 0: the default (above)
  ordinal_t row_max = 0;        ///< rows longer go to the CSR tail (>= 1); 0: hyb_auto_row_max
};

/// A CSR matrix in column panels (see the file comment). Segment s = c * npanels + p holds
/// the slices segment_ptr(s) .. segment_ptr(s + 1) - 1 of chunk c and panel p; slice k holds
/// slice_rows rows whose entries j = 0 .. slot_len - 1 are at slice_ptr(k) + j * slice_rows +
/// the row's slot in the slice.
template <class Scalar, class MemSpace>
struct ColumnPanelMatrix {
  ordinal_t nrows = 0, ncols = 0;
  offset_t nnz = 0;
  ordinal_t panel_columns = 0;
  int npanels = 0;
  int chunk_rows = 0;
  int slice_rows = 0;  ///< rows per slice: the vector width on GPUs (one lane per row), 1 on CPUs
  long long nchunks = 0;
  Kokkos::View<offset_t*, MemSpace> segment_ptr;    ///< nchunks * npanels + 1
  Kokkos::View<offset_t*, MemSpace> slice_ptr;      ///< first stored entry of each slice, then the end
  Kokkos::View<std::uint16_t*, MemSpace> slot_row;  ///< row of each slot within its chunk
  Kokkos::View<ordinal_t*, MemSpace> slot_len;      ///< entries of each slot's row in the panel (0: padding)
  Kokkos::View<ordinal_t*, MemSpace> col_idx;       ///< stored entries (padding included)
  Kokkos::View<Scalar*, MemSpace> values;
  ordinal_t row_max = 0;           ///< rows longer than this are in the tail
  RowTail<Scalar, MemSpace> tail;  ///< the long rows, whole

  long long nslices() const { return slice_ptr.extent(0) > 0 ? static_cast<long long>(slice_ptr.extent(0)) - 1 : 0; }
  offset_t stored() const { return static_cast<offset_t>(values.extent(0)); }
  /// Stored over true entries of the panels (1: no padding; the tail excluded).
  double fill_ratio() const {
    const offset_t in_panels = nnz - tail.nnz();
    return in_panels > 0 ? static_cast<double>(stored()) / static_cast<double>(in_panels) : 1.0;
  }
};

/// The options with the defaults of ExecSpace filled in for a matrix of nrows x ncols with nnz
/// entries, given the last-level cache of the device (bytes) and the teams it holds at once
/// (0: unknown). InvalidArgument, naming the option, unless panel_columns >= 0 (and cuts at
/// most 4096 panels), chunk_rows is 0 or in 1..65536 and row_max >= 0.
template <class ExecSpace, class Scalar>
ColumnPanelOptions column_panels_resolve_options(const ColumnPanelOptions& options, ordinal_t nrows, ordinal_t ncols,
                                                 offset_t nnz, std::size_t cache_bytes, long long resident_teams);

/// Converts a host CSR matrix (options already resolved) and copies it to MemSpace.
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
ColumnPanelMatrix<Scalar, MemSpace> make_column_panels(const ExecSpace& space, const CsrMatrix<Scalar, HostSpace>& a,
                                                       const ColumnPanelOptions& resolved);

/// y = alpha*A*x + beta*y (conventions as csr_v1). `loads`: spmv/matrix_loads.hpp.
/// InvalidArgument for inconsistent extents of a or the vectors.
template <class ExecSpace, class Scalar, class MemSpace>
void column_panels_spmv(const ExecSpace& space, nondeduced_t<Scalar> alpha,
                        const ColumnPanelMatrix<Scalar, MemSpace>& a,
                        const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
                        const nondeduced_t<Vector<Scalar, MemSpace>>& y, MatrixLoads loads = MatrixLoads::streaming);

/// Model: the CSR minimum. Kernel: the stored entries (padding included), each slot's row and
/// length, the slice and segment pointers, x once, y written (and read when reads_y), and the
/// tail (RowTail::bytes).
template <class Scalar, class MemSpace>
SpmvTraffic column_panels_traffic(const ColumnPanelMatrix<Scalar, MemSpace>& a, bool reads_y) {
  const double slots = static_cast<double>(a.slot_row.extent(0));
  const double kernel = static_cast<double>(a.stored()) * (sizeof(Scalar) + sizeof(ordinal_t)) +
                        slots * (sizeof(std::uint16_t) + sizeof(ordinal_t)) +
                        static_cast<double>(a.slice_ptr.extent(0) + a.segment_ptr.extent(0)) * sizeof(offset_t) +
                        static_cast<double>(a.ncols) * sizeof(Scalar) +
                        static_cast<double>(a.nrows) * sizeof(Scalar) * (reads_y ? 2.0 : 1.0) + a.tail.bytes();
  return SpmvTraffic{csr_min_bytes<Scalar>(a.nrows, a.ncols, a.nnz, reads_y), kernel, 2.0 * static_cast<double>(a.nnz)};
}

}  // namespace ppsparse::spmv
