#pragma once
/// @file
/// How a kernel maps lanes to work for a block size nb and a vector-group width W.
#include <ppsparse/mcpi/variant.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi {

enum class LaneMap {
  entry,      ///< lane <-> (block slot, entry (i,j)) of an nb x nb block; partial sums reduced over slots and j
  block_row,  ///< lane <-> (block slot, row i) of a block; the lane loops over the block's columns
  rows,       ///< lane <-> (block row r of the group, row i); no reduction (rows_per_warp)
};

/// How a kernel lays one colour's block rows on lanes, vector groups and teams.
struct Geometry {
  LaneMap map = LaneMap::entry;
  int W = 32;               ///< vector-group width (hardware on GPUs, logical on CPUs)
  int warps_per_group = 1;  ///< nw: vector groups cooperating on one block row (team-level group when > 1)
  int slots = 1;            ///< nbk: blocks of one row processed at once by a group
  int rows_per_group = 1;   ///< block rows handled by one group (rows map) — 1 otherwise
  int groups_per_team = 1;  ///< nrbk: groups in one team
  int lanes_per_slot = 1;   ///< entry: nb*nb; block_row: warps_per_group*W; rows: nb

  KOKKOS_INLINE_FUNCTION int group_lanes() const { return warps_per_group * W; }
  KOKKOS_INLINE_FUNCTION int team_size() const {
    return warps_per_group * groups_per_team;
  }  // in vector groups (team threads)
  KOKKOS_INLINE_FUNCTION int rows_per_team() const { return rows_per_group * groups_per_team; }
  KOKKOS_INLINE_FUNCTION bool group_spans_team_threads() const { return warps_per_group > 1; }
};

/// How warp_per_row lays one block row on 32-lane warps for nb <= 16: warps per block row nw,
/// blocks per iteration nbk, block rows per team nrbk.
struct WarpPerRowShape {
  int nw, nbk, nrbk;
};
/// The K40 geometry table of Zubair et al. (2016), Table I, for nb in 1..16 (InvalidArgument
/// otherwise); nb = 1 takes 32 blocks per iteration where the paper's 2 left 30 lanes idle.
WarpPerRowShape warp_per_row_shape_k40(int nb);

/// The geometry of a kernel (by its layout(k)). nb in [1, 64] (InvalidArgument otherwise); W >= 1.
Geometry make_geometry(Kernel k, int nb, int W);

}  // namespace ppsparse::mcpi
