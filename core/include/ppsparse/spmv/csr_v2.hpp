#pragma once
/// @file
/// csr_v2: adaptive CSR SpMV (the v2 kernel of ppsparse's SpMV design notes), in the manner of CSR-Adaptive (Greathouse
/// & Daga 2014) with the tile splitting of CSR5 (Liu & Vinter 2015) for very long rows.
///
/// A setup step (make_csr_v2_plan) cuts the rows, in their natural order, into row blocks of
/// at most tile_nnz entries and max_rows_per_block rows; one team processes one block:
///   rows_stream  rows of mean length <= short_row_max: the team multiplies all the block's
///                entries with fully coalesced loads (several per thread in flight) into team
///                scratch, then a vector group sums each row from scratch ("short rows ->
///                lanes"); on GPUs every row block streams;
///   rows_vector  medium rows: each vector group (vector_length lanes) reduces one row with
///                shuffles ("medium -> a vector group");
///   long_row     a row of more than tile_nnz entries: the whole team reduces it;
///   row_tile     a row of more than split_row_min entries is cut into tiles of split_tile_nnz
///                entries processed by separate teams; a second small kernel adds each such
///                row's tile sums in order and writes y (deterministic, no atomics).
/// x is read through a RandomAccess (read-only cache) view. Optionally (x_in_scratch) a block
/// whose columns span at most x_window entries stages that window of x in team scratch first;
/// it is off by default until a measurement shows it pays.
#include <string>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/spmv/matrix_loads.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

/// Zero fields mean "the default for the execution space" (see csr_v2_resolve_options).
struct CsrV2Options {
  int team_threads = 0;              ///< threads of a team (GPU: 4 * W; CPU: 1)
  int vector_length = 0;             ///< lanes per row of a row block (power of two <= W)
  offset_t tile_nnz = 0;             ///< entry budget of a row block (GPU: 8 per thread; CPU: 4096)
  ordinal_t max_rows_per_block = 0;  ///< row budget of a row block (GPU: tile_nnz; CPU: 512)
  ordinal_t short_row_max = -1;      ///< rows_stream when the block's mean length <= this
                                     // (GPU: tile_nnz = always; CPU: 0 = never); -1 = default
  ordinal_t flat_row_max = -1;       ///< a stream block of mean row length <= this sums each row
                                     // with one thread, else with a vector group (8); -1 = default
  offset_t split_row_min = 0;        ///< rows longer than this are split (default 8 * tile_nnz)
  offset_t split_tile_nnz = 0;       ///< entries per tile of a split row (default 4 * tile_nnz)
  bool x_in_scratch = false;         ///< stage x windows in team scratch
  ordinal_t x_window = 0;            ///< largest staged window (GPU: 2048; CPU: 2 * tile_nnz)
};

/// Defaults for ExecSpace filled in, and the options checked: InvalidArgument naming the
/// field unless team_threads >= 1, vector_length is a power of two in [1, W] dividing
/// team_threads, tile_nnz >= 1, max_rows_per_block >= 1, short_row_max >= 0,
/// split_tile_nnz >= 1, split_row_min >= tile_nnz and x_window >= 1.
/// vector_length stays 0 here when it is to be chosen from the matrix.
template <class ExecSpace>
CsrV2Options csr_v2_resolve_options(const CsrV2Options& options);

enum CsrV2BlockKind : int { csr_v2_rows_vector = 0, csr_v2_rows_stream = 1, csr_v2_long_row = 2, csr_v2_row_tile = 3 };

/// One team's work. Plain data: stored in a device View.
struct CsrV2RowBlock {
  offset_t entry_begin = 0, entry_end = 0;  ///< entries covered (a tile: a segment of one row)
  ordinal_t row_begin = 0, row_end = 0;     ///< rows covered
  ordinal_t x_begin = 0, x_end = 0;         ///< x window staged in scratch; empty: read x directly
  int kind = csr_v2_rows_vector;
  int slot = -1;  ///< row_tile: index of its partial sum
};

/// csr_v2's plan for one matrix: blocks of rows of about equal work, and the split long rows.
template <class Scalar, class MemSpace>
struct CsrV2Plan {
  CsrV2Options options;  ///< resolved; vector_length chosen
  ordinal_t nrows = 0, ncols = 0;
  offset_t nnz = 0;
  Kokkos::View<CsrV2RowBlock*, MemSpace> blocks;
  Kokkos::View<ordinal_t*, MemSpace> split_rows;  ///< rows cut into tiles
  Kokkos::View<int*, MemSpace> split_tile_ptr;    ///< tiles of split row s: slots [ptr[s], ptr[s+1])
  Kokkos::View<Scalar*, MemSpace> tile_sums;      ///< workspace: one partial sum per tile
  offset_t stream_capacity = 0;                   ///< scratch entries for stream blocks' products
  ordinal_t window_capacity = 0;                  ///< scratch entries for x windows
  size_t scratch_bytes = 0;                       ///< team scratch per team
  /// Counts, for reports and tests.
  long long num_blocks = 0, stream_blocks = 0, vector_blocks = 0, long_rows = 0, num_split_rows = 0, num_tiles = 0,
            x_windows = 0;
  std::string summary() const;  ///< one line: the counts and the chosen parameters
};

/// Builds the plan from the matrix's row pointers (and column indices when x_in_scratch),
/// copied to the host once. InvalidArgument (naming "csr_v2 setup") for bad options or
/// inconsistent extents. Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
CsrV2Plan<Scalar, MemSpace> make_csr_v2_plan(const ExecSpace& space, const CsrMatrix<Scalar, MemSpace>& a,
                                             const CsrV2Options& options = {});

/// y = alpha*A*x + beta*y (conventions as csr_v1). InvalidArgument if the plan was built for
/// a matrix of other dimensions or entry count. A plan's tile workspace is shared: do not
/// run two products with one plan concurrently. `loads`: spmv/matrix_loads.hpp.
template <class ExecSpace, class Scalar, class MemSpace>
void csr_v2(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
            const CsrV2Plan<Scalar, MemSpace>& plan, const nondeduced_t<ConstVector<Scalar, MemSpace>>& x,
            nondeduced_t<Scalar> beta, const nondeduced_t<Vector<Scalar, MemSpace>>& y,
            MatrixLoads loads = MatrixLoads::streaming);

}  // namespace ppsparse::spmv
