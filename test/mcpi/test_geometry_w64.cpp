// The MCPI lane mappings for 64-wide vector groups (AMD wavefronts on CDNA: gfx90a, gfx942).
// The expected tables are written out as numbers, so a change of the rule shows up here as a
// diff of numbers, not as a silently different layout; and they are derived independently of
// make_geometry (EntryTableFollowsThePapersRelation): a search over the paper's relation that
// reproduces Table I of Zubair et al. (2016) at 32 lanes gives the same numbers at 64.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mcpi/geometry.hpp>
#include "../../core/src/mcpi/sweep_functor.hpp"  // the functor whose scratch sizes are checked

#include "mcpi/zubair2016_table_i.hpp"

namespace ppsparse::mcpi {
namespace {

constexpr int kWave = 64;
constexpr int kMaxWorkgroupThreads = 1024;  // HIP's limit on threads per block
constexpr size_t kLdsBytes = 64 * 1024;     // LDS per workgroup on gfx90a and gfx942

// Lane t of a group is busy in the SpMV phase of the entry map when it falls in a slot.
int busy_lanes_entry(const Geometry& g, int nb) {
  int busy = 0;
  for (int t = 0; t < g.group_lanes(); ++t) busy += (t / (nb * nb) < g.slots) ? 1 : 0;
  return busy;
}

// Lane t of a group owns (block row t / nb, entry row t % nb) in the rows map.
int busy_lanes_rows(const Geometry& g, int nb) {
  int busy = 0;
  for (int t = 0; t < g.group_lanes(); ++t) busy += (t / nb < g.rows_per_group) ? 1 : 0;
  return busy;
}

struct EntryRow {
  int nb, wavefronts, slots, groups_per_team, busy_lanes;
};

// warp_per_row / split for nb <= 16: enough wavefronts to hold one block, as many blocks
// as fit, four (one wavefront) or two (two wavefronts) groups per team.
const std::vector<EntryRow>& entry_table_w64() {
  static const std::vector<EntryRow> t = {
      {1, 1, 64, 4, 64},  {2, 1, 16, 4, 64},  {3, 1, 7, 4, 63},   {4, 1, 4, 4, 64},
      {5, 1, 2, 4, 50},   {6, 1, 1, 4, 36},   {7, 1, 1, 4, 49},   {8, 1, 1, 4, 64},
      {9, 2, 1, 2, 81},   {10, 2, 1, 2, 100}, {11, 2, 1, 2, 121}, {12, 3, 1, 1, 144},
      {13, 3, 1, 1, 169}, {14, 4, 1, 1, 196}, {15, 4, 1, 1, 225}, {16, 4, 1, 1, 256}};
  return t;
}

TEST(McpiGeometryW64, EntryMapLanesForNb1To16) {
  for (const Kernel v : {Kernel::warp_per_row, Kernel::split}) {
    for (const auto& e : entry_table_w64()) {
      SCOPED_TRACE(std::string(name(v)) + " nb=" + std::to_string(e.nb));
      const Geometry g = make_geometry(v, e.nb, kWave);
      EXPECT_EQ(g.W, kWave);
      EXPECT_EQ(g.map, LaneMap::entry);
      EXPECT_EQ(g.lanes_per_slot, e.nb * e.nb);
      EXPECT_EQ(g.warps_per_group, e.wavefronts);
      EXPECT_EQ(g.slots, e.slots);
      EXPECT_EQ(g.groups_per_team, e.groups_per_team);
      EXPECT_EQ(g.rows_per_group, 1);
      EXPECT_EQ(busy_lanes_entry(g, e.nb), e.busy_lanes);
      // The rule's two properties: the fewest wavefronts that hold one block, and no room
      // left in the group for one more block.
      EXPECT_GT(e.nb * e.nb, (g.warps_per_group - 1) * kWave);
      EXPECT_GT((g.slots + 1) * e.nb * e.nb, g.group_lanes());
    }
  }
}

// The entry map derived by search from the relation of Zubair et al. (2016) nb * nb * nbk <= W * nw, without
// make_geometry: the fewest vector groups nw that hold one block, the most blocks nbk that fit
// them, and nrbk = 4 / nw groups per team (at least 1: teams of 4 W lanes for small blocks).
EntryRow derive_entry_row(int nb, int W) {
  EntryRow r{nb, 0, 0, 0, 0};
  while (nb * nb > W * r.wavefronts) ++r.wavefronts;
  while ((r.slots + 1) * nb * nb <= W * r.wavefronts) ++r.slots;
  r.groups_per_team = std::max(1, 4 / r.wavefronts);
  r.busy_lanes = r.slots * nb * nb;
  return r;
}

TEST(McpiGeometryW64, EntryTableFollowsThePapersRelation) {
  // At W = 32 the search reproduces Table I of Zubair et al. (2016) (the paper's literal numbers) except
  // where the paper departs from its own relation: nb = 1 (nbk 2, where 32 fit) and nb = 9
  // (4 warps, where 3 hold the 81 entries).
  for (const test::PaperRow& row : test::kZubair2016TableI) {
    if (row.nb == 1 || row.nb == 9) continue;
    SCOPED_TRACE("W=32 nb=" + std::to_string(row.nb));
    const EntryRow d = derive_entry_row(row.nb, 32);
    EXPECT_EQ(d.wavefronts, row.nw);
    EXPECT_EQ(d.slots, row.nbk);
    EXPECT_EQ(d.groups_per_team, row.nrbk);
  }
  // At W = 64 the same search gives the table the tests below hold make_geometry to.
  for (const auto& e : entry_table_w64()) {
    SCOPED_TRACE("W=64 nb=" + std::to_string(e.nb));
    const EntryRow d = derive_entry_row(e.nb, kWave);
    EXPECT_EQ(d.wavefronts, e.wavefronts);
    EXPECT_EQ(d.slots, e.slots);
    EXPECT_EQ(d.groups_per_team, e.groups_per_team);
    EXPECT_EQ(d.busy_lanes, e.busy_lanes);
  }
  // Rows map: the most block rows of nb lanes that fit one wavefront.
  for (int nb = 1; nb <= 16; ++nb) {
    int rows = 0;
    while ((rows + 1) * nb <= kWave) ++rows;
    EXPECT_EQ(make_geometry(Kernel::rows_per_warp, nb, kWave).rows_per_group, rows) << "nb=" << nb;
  }
}

TEST(McpiGeometryW64, WavefrontsWiderThanWarpsHoldMoreBlocks) {
  // Where a 32-lane warp holds whole blocks (table I, nw = 1), a wavefront holds at least
  // twice as many, so the 64-wide layout never idles more lanes per block than the 32-wide one.
  for (int nb = 1; nb <= 5; ++nb) {
    SCOPED_TRACE("nb=" + std::to_string(nb));
    const Geometry g32 = make_geometry(Kernel::warp_per_row, nb, 32);
    const Geometry g64 = make_geometry(Kernel::warp_per_row, nb, kWave);
    ASSERT_EQ(g32.warps_per_group, 1);
    EXPECT_GE(g64.slots, 2 * g32.slots);
  }
}

TEST(McpiGeometryW64, RowsMapRowsPerWavefrontForNb1To16) {
  // rows_per_warp / its prefetch form: floor(64 / nb) block rows per wavefront, nb lanes each.
  const int rows_per_wave[17] = {0, 64, 32, 21, 16, 12, 10, 9, 8, 7, 6, 5, 5, 4, 4, 4, 4};
  for (const Kernel v : {Kernel::rows_per_warp, Kernel::rows_per_warp_prefetch}) {
    for (int nb = 1; nb <= 16; ++nb) {
      SCOPED_TRACE(std::string(name(v)) + " nb=" + std::to_string(nb));
      const Geometry g = make_geometry(v, nb, kWave);
      EXPECT_EQ(g.map, LaneMap::rows);
      EXPECT_EQ(g.warps_per_group, 1);
      EXPECT_EQ(g.rows_per_group, rows_per_wave[nb]);
      EXPECT_EQ(g.lanes_per_slot, nb);
      EXPECT_EQ(g.groups_per_team, 4);
      const int busy = busy_lanes_rows(g, nb);
      EXPECT_EQ(busy, rows_per_wave[nb] * nb);
      EXPECT_LT(kWave - busy, nb);  // fewer idle lanes than one more row would need
    }
  }
  // The nb = 5 example of Walden et al. (2021): six rows per 32-lane warp, twelve per wavefront.
  EXPECT_EQ(make_geometry(Kernel::rows_per_warp, 5, kWave).rows_per_group,
            2 * make_geometry(Kernel::rows_per_warp, 5, 32).rows_per_group);
}

TEST(McpiGeometryW64, RowsMapHoldsUpToHalfAWavefront) {
  // Two rows fit a wavefront up to nb = 32 (a warp stops at 16); past that one row per group.
  EXPECT_EQ(make_geometry(Kernel::rows_per_warp, 32, kWave).map, LaneMap::rows);
  EXPECT_EQ(make_geometry(Kernel::rows_per_warp, 32, kWave).rows_per_group, 2);
  EXPECT_EQ(make_geometry(Kernel::rows_per_warp, 32, 32).map, LaneMap::block_row);
  for (int nb = 33; nb <= 64; ++nb) {
    SCOPED_TRACE("nb=" + std::to_string(nb));
    const Geometry g = make_geometry(Kernel::rows_per_warp, nb, kWave);
    EXPECT_EQ(g.map, LaneMap::block_row);
    EXPECT_EQ(g.warps_per_group, 1);  // one wavefront holds a whole block column
    EXPECT_EQ(g.lanes_per_slot, kWave);
  }
}

TEST(McpiGeometryW64, EveryTeamFitsAHipWorkgroupAndItsLds) {
  for (int nb = 1; nb <= 64; ++nb) {
    for (const Kernel v : all_kernels()) {
      SCOPED_TRACE(std::string(name(v)) + " nb=" + std::to_string(nb));
      const Geometry g = make_geometry(v, nb, kWave);
      EXPECT_LE(g.team_size() * kWave, kMaxWorkgroupThreads);
      // The substitution phases need one lane per entry row of every block row of a group.
      EXPECT_GE(g.group_lanes(), g.rows_per_group * nb);
      using Functor = impl::SweepFunctor<Kokkos::DefaultHostExecutionSpace, 0>;
      const bool prefetch = g.map == LaneMap::rows;
      EXPECT_LE(Functor::scratch_bytes(g, nb, prefetch, false), kLdsBytes);
    }
  }
}

TEST(McpiGeometryW64, HipVectorWidthIsTheWavefront) {
#if defined(KOKKOS_ENABLE_HIP)
#if PPSPARSE_KOKKOS_4
  using Hip = Kokkos::HIP;
#else
  using Hip = Kokkos::Experimental::HIP;
#endif
  // The width the kernels are laid out for is the widest vector length Kokkos allows.
  EXPECT_EQ(compat::vector_width_for<Hip>(), Kokkos::TeamPolicy<Hip>::vector_length_max());
  EXPECT_TRUE(compat::is_gpu_space<Hip>());
#else
  EXPECT_EQ(compat::vector_width_for<Kokkos::DefaultHostExecutionSpace>(), 1);
  GTEST_SKIP() << "Kokkos was built without HIP: the wavefront width is checked only in HIP builds";
#endif
}

}  // namespace
}  // namespace ppsparse::mcpi
