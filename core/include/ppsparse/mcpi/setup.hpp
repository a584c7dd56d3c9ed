#pragma once
/// @file
/// The MCPI solver's setup phase input: the structure of the off-diagonal blocks O in the
/// user's numbering (AmgX's upload of the structure, Kokkos Kernels' symbolic phase), and the
/// host plan built from it once (colouring, colour order, slots).
#include <functional>
#include <string>
#include <vector>

#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/reorder/coloring.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi {

/// How the entries of one nb x nb block lie in a user array.
enum class BlockOrder {
  column_major,  ///< entry (i, j) at j * nb + i (FUN3D, Fortran)
  row_major,     ///< entry (i, j) at i * nb + j (C arrays)
};

/// The structure of O (off-diagonal blocks only; D holds the diagonal) in the user's numbering:
/// block CSR row pointers and column indices, host or device views, 0- or 1-based. Block k of O
/// (0-based position in col_idx) is the user's block index: update() reads block k's values at
/// k * nb * nb, and error messages name it.
template <class MemSpace = HostSpace>
struct BlockPattern {
  int nb = 1;                                        ///< block size, 1..64
  ordinal_t n = 0;                                   ///< block rows (= block columns)
  Kokkos::View<const offset_t*, MemSpace> row_ptr;   ///< n + 1 entries, row_ptr[0] == index_base
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;  ///< row_ptr[n] - index_base entries
  int index_base = 0;                                ///< 0 (C, C++) or 1 (Fortran): for both arrays
};

/// Options of the setup phase.
struct SetupOptions {
  /// One colour per block row (user's numbering; any nonnegative ids, compacted in order), or
  /// empty: ppsparse computes a distance-1 colouring (color_distance1) of the symmetrised graph.
  std::vector<ordinal_t> colors;
  /// How the sweeps store O (mcpi/o_format.hpp): FP32 by default; a reduced format (BF16,
  /// scaled FP16, scaled int8) moves fewer bytes per sweep. Reduced formats need the default
  /// precisions (FP32 O and dQ, FP64 D); InvalidArgument otherwise.
  OStorage o_storage;
  /// Hears each setup step (one line each), if set.
  std::function<void(const std::string&)> progress;
};

namespace detail {

/// What the setup phase computes on the host: the colour order and, per user block, its slot in
/// the colour-ordered block CSR (rows in colour order, columns sorted within each row).
struct SetupPlan {
  int nb = 1;
  ordinal_t n = 0;
  Coloring coloring;
  std::vector<offset_t> ia;      ///< n + 1, colour order
  std::vector<ordinal_t> ja;     ///< nnzb, colour order, sorted within a row
  std::vector<offset_t> o_slot;  ///< user block k -> its slot in ja
  /// Ghost block columns (a distributed system's rows owned by other ranks): columns n ..
  /// n + n_ghost - 1, kept at the end in the given order; the iterate holds n + n_ghost rows.
  ordinal_t n_ghost = 0;
  /// Per colour c, the end of its boundary rows (the rows other ranks read, placed first in
  /// the colour): colour c's boundary rows are [color_offsets[c], boundary_end[c]). Empty on
  /// one rank (no boundary rows).
  std::vector<ordinal_t> boundary_end;
  /// The user's index base (0 or 1): the numeric phase names blocks and rows from it.
  int index_base = 0;
  /// A distributed system's global ids (as the user gave them): the n owned rows', then the
  /// n_ghost ghosts' in ghost-column order. Errors name a row by its global id too; empty on
  /// one rank.
  std::vector<long long> global_ids;
  /// How the sweeps store O.
  OStorage o_storage;
};

/// Checks the structure and builds the plan; row_ptr and col_idx are host arrays as the user
/// gave them. `given` (if not null) is a complete colouring to use as is (checked); otherwise
/// `colors` (if not empty) or color_distance1. Columns n .. n + n_ghost - 1 (index_base added)
/// are ghosts: allowed, left out of the colouring's graph (the distributed setup checks them)
/// and not renumbered. InvalidArgument naming the first defect.
SetupPlan make_setup_plan(int nb, ordinal_t n, const offset_t* row_ptr, const ordinal_t* col_idx, int index_base,
                          const std::vector<ordinal_t>& colors, const Coloring* given = nullptr, ordinal_t n_ghost = 0);

}  // namespace detail
}  // namespace ppsparse::mcpi
