#include <gtest/gtest.h>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/mpk/schedule.hpp>
#include <ppsparse/reorder/bfs_levels.hpp>

#include "mpk_test_util.hpp"

#include "test_util.hpp"

namespace ppsparse {
namespace {

using mpk::MpkSchedule;
using mpk::Tile;

// Level-ordered matrix and its levels.
struct Levelled {
  CsrMatrix<double, HostSpace> a;
  std::vector<ordinal_t> levels;
};
Levelled levelled(const CsrMatrix<double, HostSpace>& a) {
  const BfsLevels lv = bfs_levels(graph_of(a));
  return {permute(a, lv.perm), lv.level_offsets};
}

std::vector<double> unit_bytes(ordinal_t n) { return std::vector<double>(static_cast<size_t>(n), 1.0); }

TEST(MpkSchedule, WavefrontOrdersAreLegalForEverySkewAndPower) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Levelled m = levelled(gen::stencil_7pt(9, 7, 5, seed));
  for (ordinal_t group_rows : {1, 3, 40, 1000}) {
    const auto offsets = mpk::merge_levels(m.a, m.levels, unit_bytes(m.a.nrows), group_rows, 1);
    for (int skew : {1, 2})
      for (int p = 1; p <= 8; ++p) {
        const MpkSchedule s = mpk::make_wavefront_schedule(offsets, p, skew);
        EXPECT_EQ(mpk::schedule_violation(s, m.a), "") << "skew " << skew << " p " << p;
        const ordinal_t G = s.ngroups();
        EXPECT_EQ(static_cast<long long>(s.order.size()), static_cast<long long>(G) * p);
        if (skew == 1) EXPECT_EQ(s.nlaunches(), G * p);
        if (skew == 2 && G >= 2) EXPECT_EQ(s.nlaunches(), G + 2 * (p - 1));
        if (skew == 2 && G == 1) EXPECT_EQ(s.nlaunches(), p);
      }
  }
}

TEST(MpkSchedule, SkewOneIsRaceDiagonalAndSkewTwoBatchesIndependentTiles) {
  const MpkSchedule race = mpk::make_wavefront_schedule({0, 1, 2, 3, 4}, 3, 1);
  const std::vector<Tile> expected{{0, 1}, {1, 1}, {0, 2}, {2, 1}, {1, 2}, {0, 3},
                                   {3, 1}, {2, 2}, {1, 3}, {3, 2}, {2, 3}, {3, 3}};
  EXPECT_EQ(race.order, expected);
  const MpkSchedule batched = mpk::make_wavefront_schedule({0, 1, 2, 3, 4}, 3, 2);
  // Step s holds tiles (s - 2(k-1), k): steps 0..7.
  ASSERT_EQ(batched.nlaunches(), 8);
  EXPECT_EQ(batched.launch_offsets, (std::vector<int>{0, 1, 2, 4, 6, 8, 10, 11, 12}));
  EXPECT_EQ(batched.order[2], (Tile{2, 1}));
  EXPECT_EQ(batched.order[3], (Tile{0, 2}));
}

TEST(MpkSchedule, CheckerRejectsBrokenSchedules) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Levelled m = levelled(gen::band_matrix(60, 2, seed));
  const auto offsets = mpk::merge_levels(m.a, m.levels, unit_bytes(m.a.nrows), 6, 1);
  const MpkSchedule good = mpk::make_wavefront_schedule(offsets, 4, 2);
  ASSERT_EQ(mpk::schedule_violation(good, m.a), "");
  ASSERT_GE(good.ngroups(), 4);

  {  // A power-2 tile moved into the launch of its power-1 dependency.
    MpkSchedule s = mpk::make_wavefront_schedule(offsets, 4, 1);
    ASSERT_EQ(mpk::schedule_violation(s, m.a), "");
    // Tiles 0 and 1 are (0,1), (1,1); tile 2 is (0,2): put (1,1) and (0,2) in one launch.
    s.launch_offsets.erase(s.launch_offsets.begin() + 2);
    const std::string v = mpk::schedule_violation(s, m.a);
    EXPECT_NE(
        v.find("tile (group 0, power 2) runs in launch 1 but needs tile (group 1, power 1), which runs in launch 1"),
        std::string::npos)
        << v;
    PPSPARSE_EXPECT_THROW_MESSAGE(mpk::check_schedule(s, m.a), InvalidArgument,
                                  "mpk schedule: tile (group 0, power 2) runs in launch 1 but needs tile (group 1, "
                                  "power 1), which runs in launch 1");
  }
  {  // Two tiles swapped: a tile before its dependency.
    MpkSchedule s = mpk::make_wavefront_schedule(offsets, 4, 1);
    std::swap(s.order[1], s.order[2]);
    EXPECT_NE(mpk::schedule_violation(s, m.a).find("needs tile"), std::string::npos);
  }
  {  // A tile repeated (and thus another missing).
    MpkSchedule s = good;
    s.order[5] = s.order[4];
    EXPECT_NE(mpk::schedule_violation(s, m.a).find("appears twice"), std::string::npos);
  }
  {  // A tile out of range.
    MpkSchedule s = good;
    s.order.back().power = 5;
    EXPECT_NE(mpk::schedule_violation(s, m.a).find("out of range"), std::string::npos);
  }
  {  // Launch offsets that skip tiles.
    MpkSchedule s = good;
    s.launch_offsets.back() -= 1;
    EXPECT_NE(mpk::schedule_violation(s, m.a).find("launch offsets"), std::string::npos);
  }
  {  // Group offsets that do not cover the matrix.
    MpkSchedule s = good;
    s.group_offsets.back() += 1;
    EXPECT_NE(mpk::schedule_violation(s, m.a).find("group offsets end at 61 but the matrix has 60 rows"),
              std::string::npos);
  }
  {  // Groups thinner than the band: rows reach two groups away.
    std::vector<ordinal_t> thin;
    for (ordinal_t r = 0; r <= 60; ++r) thin.push_back(r);
    const MpkSchedule s = mpk::make_wavefront_schedule(thin, 2, 2);
    const std::string v = mpk::schedule_violation(s, m.a);
    EXPECT_NE(v.find("rows may reference only their own and neighbouring groups"), std::string::npos) << v;
    PPSPARSE_EXPECT_THROW_MESSAGE(mpk::check_schedule(s, m.a), InvalidArgument,
                                  "mpk schedule: row 0 (group 0) references column 2 (group 2); rows may reference "
                                  "only their own and neighbouring groups");
  }
  {  // Not square.
    const auto r = test::random_csr<double>(5, 6, 1, 2, seed);
    EXPECT_NE(mpk::schedule_violation(mpk::make_wavefront_schedule({0, 5}, 1, 1), r).find("not square"),
              std::string::npos);
  }
}

TEST(MpkSchedule, MergeLevelsRespectsBudgetAlignmentAndAdjacency) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<CsrMatrix<double, HostSpace>> inputs{
      gen::stencil_27pt(8, 6, 5, seed), gen::band_matrix(500, 3, seed), gen::band_matrix(300, 0, seed),
      test::random_csr<double>(400, 400, 0, 3, seed), gen::stencil_7pt(20, 1, 1, seed)};
  for (const auto& input : inputs) {
    const Levelled m = levelled(input);
    std::vector<double> bytes(static_cast<size_t>(m.a.nrows));
    for (ordinal_t r = 0; r < m.a.nrows; ++r) bytes[r] = 1.0 + static_cast<double>(m.a.row_ptr(r + 1) - m.a.row_ptr(r));
    for (ordinal_t align : {1, 4, 32})
      for (double budget : {5.0, 60.0, 700.0, 1e9}) {
        const auto g = mpk::merge_levels(m.a, m.levels, bytes, budget, align);
        ASSERT_EQ(g.front(), 0);
        ASSERT_EQ(g.back(), m.a.nrows);
        for (size_t k = 1; k + 1 < g.size(); ++k) ASSERT_EQ(g[k] % align, 0) << "cut " << g[k];
        EXPECT_EQ(mpk::schedule_violation(mpk::make_wavefront_schedule(g, 3, 2), m.a), "");
        if (budget >= 1e9) EXPECT_EQ(g.size(), 2u);  // everything fits: one group
        // Without alignment a group exceeds the budget only if it is a single level.
        if (align == 1)
          for (size_t k = 0; k + 1 < g.size(); ++k) {
            double sum = 0;
            for (ordinal_t r = g[k]; r < g[k + 1]; ++r) sum += bytes[r];
            const bool one_level = std::upper_bound(m.levels.begin(), m.levels.end(), g[k]) ==
                                   std::lower_bound(m.levels.begin(), m.levels.end(), g[k + 1]);
            if (sum > budget && !one_level) {
              // Merging for adjacency can also make a group bigger; that only happens with
              // cuts inside levels, i.e. never without alignment on BFS levels.
              ADD_FAILURE() << "group " << k << " has " << sum << " bytes > " << budget;
            }
          }
      }
  }
}

TEST(MpkSchedule, MergeLevelsRepairsLevelsThatAreNotBfsLevels) {
  // One row per "level" on a band of half-width 3: neighbouring groups of one row each would
  // reach three groups away; merging must fix that.
  const auto a = gen::band_matrix(40, 3, 7);
  std::vector<ordinal_t> levels;
  for (ordinal_t r = 0; r <= 40; ++r) levels.push_back(r);
  const auto g = mpk::merge_levels(a, levels, unit_bytes(40), 1.0, 1);
  EXPECT_EQ(mpk::schedule_violation(mpk::make_wavefront_schedule(g, 2, 1), a), "");
  // The least merging: {0}, then groups of 3 rows ({1,2,3}, {4,5,6}, ...).
  ASSERT_GE(g.size(), 4u);
  EXPECT_EQ(g[1], 1);
  EXPECT_EQ(g[2], 4);
  EXPECT_EQ(g[3], 7);
}

TEST(MpkSchedule, BadInputsAreRefused) {
  const auto a = gen::band_matrix(10, 1, 3);
  const std::vector<ordinal_t> lv{0, 5, 10};
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::merge_levels(a, {0, 5}, unit_bytes(10), 4, 1)), InvalidArgument,
                                "mpk merge_levels: level offsets must run from 0 to the row count 10");
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::merge_levels(a, {0, 6, 5, 10}, unit_bytes(10), 4, 1)), InvalidArgument,
                                "mpk merge_levels: level offsets decrease at level 1");
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::merge_levels(a, lv, unit_bytes(9), 4, 1), InvalidArgument,
                                "mpk merge_levels: row_bytes has 9 entries, expected 10");
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::merge_levels(a, lv, unit_bytes(10), 0, 1), InvalidArgument,
                                "mpk merge_levels: the group size in bytes must be positive");
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::merge_levels(a, lv, unit_bytes(10), 4, 0), InvalidArgument,
                                "mpk merge_levels: align must be >= 1 (got 0)");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      (mpk::merge_levels(test::random_csr<double>(4, 5, 1, 2, 1), {0, 4}, unit_bytes(4), 4, 1)), InvalidArgument,
      "mpk merge_levels: the matrix is 4 x 5; matrix powers need a square matrix");
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::make_wavefront_schedule({0, 5, 10}, 0, 1)), InvalidArgument,
                                "mpk: powers must be >= 1 (got 0)");
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::make_wavefront_schedule({0, 5, 10}, 2, 3)), InvalidArgument,
                                "mpk: wavefront skew must be 1 or 2 (got 3)");
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::make_wavefront_schedule({1, 5, 10}, 2, 1)), InvalidArgument,
                                "mpk schedule: group offsets must start at 0");
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::make_wavefront_schedule({0, 5, 5, 10}, 2, 1)), InvalidArgument,
                                "mpk schedule: group offsets must increase strictly (group 1 is empty or negative)");
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::live_groups(0, 1), InvalidArgument, "mpk: powers must be >= 1 (got 0)");
  EXPECT_EQ(mpk::live_groups(5, 1), 6);
  EXPECT_EQ(mpk::live_groups(5, 2), 11);
}

TEST(MpkSchedule, EmptyMatrixHasAnEmptySchedule) {
  CsrMatrix<double, HostSpace> a(0, 0, 0);
  const auto g = mpk::merge_levels(a, {0}, {}, 10, 1);
  const MpkSchedule s = mpk::make_wavefront_schedule(g, 3, 2);
  EXPECT_EQ(s.ngroups(), 0);
  EXPECT_EQ(s.nlaunches(), 0);
  EXPECT_EQ(mpk::schedule_violation(s, a), "");
}

}  // namespace
}  // namespace ppsparse
