#include <gtest/gtest.h>

#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/geometry.hpp>

#include "mcpi/zubair2016_table_i.hpp"
#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

using test::kZubair2016TableI;
using test::PaperRow;

TEST(McpiGeometry, WarpPerRowFollowsTableIForW32) {
  for (const PaperRow& p : kZubair2016TableI) {
    SCOPED_TRACE("nb=" + std::to_string(p.nb));
    const auto t = warp_per_row_shape_k40(p.nb);
    const auto g = make_geometry(Kernel::warp_per_row, p.nb, 32);
    EXPECT_EQ(g.map, LaneMap::entry);
    EXPECT_EQ(g.warps_per_group, p.nw);
    EXPECT_EQ(g.groups_per_team, p.nrbk);
    EXPECT_EQ(t.nw, p.nw);
    EXPECT_EQ(t.nrbk, p.nrbk);
    // The one documented departure: nb = 1 takes 32 blocks per iteration where the paper's
    // nbk = 2 leaves 30 of 32 lanes idle.
    const int nbk = p.nb == 1 ? 32 : p.nbk;
    EXPECT_EQ(g.slots, nbk);
    EXPECT_EQ(t.nbk, nbk);
    // The paper's relation nb * nb * nbk <= 32 * nw.
    EXPECT_LE(p.nb * p.nb * g.slots, g.group_lanes());
  }
  PPSPARSE_EXPECT_THROW_MESSAGE(warp_per_row_shape_k40(17), InvalidArgument,
                                "warp_per_row_shape_k40: nb = 17 is outside 1..16");
}

TEST(McpiGeometry, EveryBlockSizeFitsItsGroup) {
  for (int W : {1, 32, 64}) {
    for (int nb = 1; nb <= 64; ++nb) {
      for (Kernel v : all_kernels()) {
        const auto g = make_geometry(v, nb, W);
        SCOPED_TRACE(std::string(name(v)) + " nb=" + std::to_string(nb) + " W=" + std::to_string(W));
        EXPECT_GE(g.group_lanes(), nb);  // substitution: a lane per block entry row
        EXPECT_GE(g.group_lanes(), g.rows_per_group * nb);
        if (g.map == LaneMap::entry) {
          EXPECT_GE(g.slots, 1);
          EXPECT_LE(g.slots * nb * nb, g.group_lanes());
        }
        if (g.map == LaneMap::block_row) {
          EXPECT_GE(g.lanes_per_slot, nb);
          EXPECT_EQ(g.slots * g.lanes_per_slot, g.group_lanes());
        }
        if (W == 32) {
          EXPECT_LE(g.team_size() * W, 1024);  // CUDA block limit
        }
      }
    }
  }
}

TEST(McpiGeometry, SixRowsPerWarpForNb5) {
  const auto g = make_geometry(Kernel::rows_per_warp, 5, 32);
  EXPECT_EQ(g.map, LaneMap::rows);
  EXPECT_EQ(g.rows_per_group, 6);  // the "six rows" of Walden et al. (2021): 30 of 32 lanes busy
}

TEST(McpiGeometry, LargeBlocksUseSeveralWarpsPerBlock) {
  const auto g = make_geometry(Kernel::warp_per_row, 40, 32);
  EXPECT_EQ(g.map, LaneMap::block_row);
  EXPECT_EQ(g.lanes_per_slot, 64);  // two warps hold one block column
  EXPECT_EQ(g.slots, 4);            // four blocks at a time
}

TEST(McpiGeometry, RejectsBadBlockSizes) {
  PPSPARSE_EXPECT_THROW_MESSAGE(make_geometry(Kernel::warp_per_row, 0, 32), InvalidArgument,
                                "MCPI kernels support block sizes 1..64; got nb = 0");
  PPSPARSE_EXPECT_THROW_MESSAGE(make_geometry(Kernel::warp_per_row, 65, 32), InvalidArgument,
                                "MCPI kernels support block sizes 1..64; got nb = 65");
}

}  // namespace
}  // namespace ppsparse::mcpi
