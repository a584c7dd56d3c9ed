// The multigrid coarsening (core/src/mcpi/multigrid/coarsening.hpp): pairwise aggregates cover
// every row once and join neighbours only, coarsen a 3-D mesh graph by about 4x in two passes,
// leave isolated rows alone; the device's Galerkin coarse operator equals an independent host
// sum to round-off, and a numeric refresh equals a fresh setup bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>

#include "../../core/src/mcpi/multigrid/coarsening.hpp"
#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

using Exec = DefaultExecSpace;
using Mem = DefaultMemSpace;

template <class T>
Kokkos::View<const T*, Mem> on_device(const Kokkos::View<T*, HostSpace>& h) {
  return Kokkos::create_mirror_view_and_copy(Mem(), h);
}

struct Pattern {
  ordinal_t n = 0;
  std::vector<offset_t> row_ptr;
  std::vector<ordinal_t> col;
};

Pattern pattern_of(const BlockSystem<HostSpace>& s) {
  Pattern p;
  p.n = s.n;
  p.row_ptr.assign(s.O.ia.data(), s.O.ia.data() + s.O.ia.extent(0));
  p.col.assign(s.O.ja.data(), s.O.ja.data() + s.O.ja.extent(0));
  return p;
}

multigrid::Aggregates aggregates_of(const BlockSystem<HostSpace>& s, int passes) {
  const auto strength = multigrid::block_strengths<Exec, float>(Exec(), on_device(s.O.values), s.O.nnzb(), s.nb);
  const Pattern p = pattern_of(s);
  return multigrid::pairwise_aggregates(Exec(), p.n, p.row_ptr, p.col, strength, passes);
}

void expect_cover(const multigrid::Aggregates& a, ordinal_t n) {
  ASSERT_EQ(a.fine_rows, n);
  ASSERT_EQ(a.of_row.size(), static_cast<size_t>(n));
  std::vector<int> size(static_cast<size_t>(a.count), 0);
  for (const ordinal_t g : a.of_row) {
    ASSERT_GE(g, 0);
    ASSERT_LT(g, a.count);
    ++size[static_cast<size_t>(g)];
  }
  for (const int s : size) EXPECT_GE(s, 1);  // numbered without gaps
}

TEST(MultigridCoarsening, OnePassPairsNeighboursAndCoversEveryRowOnce) {
  const auto s = gen::make_block_system(gen::tet_mesh_graph(7, 6, 5), 3, 11);
  const auto a = aggregates_of(s, 1);
  expect_cover(a, s.n);
  std::map<ordinal_t, std::vector<ordinal_t>> members;
  for (ordinal_t i = 0; i < s.n; ++i) members[a.of_row[static_cast<size_t>(i)]].push_back(i);
  auto neighbours = [&](ordinal_t i, ordinal_t j) {
    const auto* b = s.O.ja.data() + s.O.ia(i);
    const auto* e = s.O.ja.data() + s.O.ia(i + 1);
    return std::find(b, e, j) != e;
  };
  int alone = 0;
  for (const auto& [g, rows] : members) {
    // A pair, or a pair and a row that joined it: every member a neighbour of another.
    ASSERT_LE(rows.size(), 3u) << "aggregate " << g;
    if (rows.size() < 2) ++alone;
    for (const ordinal_t i : rows) {
      bool linked = rows.size() == 1;
      for (const ordinal_t j : rows) linked = linked || (j != i && neighbours(i, j));
      EXPECT_TRUE(linked) << "row " << i << " of aggregate " << g << " is no member's neighbour";
    }
  }
  EXPECT_EQ(alone, 0) << "every row of a connected mesh graph has a paired neighbour";
  EXPECT_GE(static_cast<double>(s.n) / a.count, 1.8);
}

TEST(MultigridCoarsening, TwoPassesCoarsenAMeshGraphAboutFourTimes) {
  const auto s = gen::make_block_system(gen::tet_mesh_graph(12, 12, 12), 5, 3);
  const auto a = aggregates_of(s, 2);
  expect_cover(a, s.n);
  const double ratio = static_cast<double>(s.n) / a.count;
  EXPECT_GT(ratio, 3.4);
  EXPECT_LE(ratio, 5.0);
  // The same input gives the same aggregates.
  EXPECT_EQ(aggregates_of(s, 2).of_row, a.of_row);
}

TEST(MultigridCoarsening, IsolatedRowsStayAlone) {
  // Rows 0-3 a path, rows 4 and 5 without neighbours.
  Pattern p;
  p.n = 6;
  p.row_ptr = {0, 1, 3, 5, 6, 6, 6};
  p.col = {1, 0, 2, 1, 3, 2};
  Kokkos::View<double*, HostSpace> s("s", p.col.size());
  Kokkos::deep_copy(s, 1.0);
  const auto a = multigrid::pairwise_aggregates(Exec(), p.n, p.row_ptr, p.col, on_device(s), 2);
  expect_cover(a, p.n);
  EXPECT_NE(a.of_row[4], a.of_row[5]);
  for (ordinal_t i = 0; i < 4; ++i) {
    EXPECT_NE(a.of_row[static_cast<size_t>(i)], a.of_row[4]);
    EXPECT_NE(a.of_row[static_cast<size_t>(i)], a.of_row[5]);
  }
}

TEST(MultigridCoarsening, BadInputIsRefusedWithItsPlace) {
  auto s = gen::make_block_system(gen::tet_mesh_graph(3, 3, 3), 2, 5);
  s.O.values(2 * 4 + 1) = std::nanf("");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      (multigrid::block_strengths<Exec, float>(Exec(), on_device(s.O.values), s.O.nnzb(), s.nb, 1)), NumericalError,
      "multigrid: O block 3 (numbered from 1) holds a NaN or Inf");
  const Pattern p = pattern_of(s);
  const Kokkos::View<const double*, Mem> strength = Kokkos::View<double*, Mem>("s", p.col.size());
  PPSPARSE_EXPECT_THROW_MESSAGE(multigrid::pairwise_aggregates(Exec(), p.n, p.row_ptr, p.col, strength, 0),
                                InvalidArgument, "multigrid: pairwise matching needs passes >= 1");
}

// The Galerkin product P^T A P of the piecewise-constant P, summed on the host block by block.
void host_galerkin(const BlockSystem<HostSpace>& s, const multigrid::Aggregates& a,
                   std::map<std::pair<ordinal_t, ordinal_t>, std::vector<double>>& blocks) {
  const size_t nb2 = static_cast<size_t>(s.nb) * s.nb;
  auto add = [&](ordinal_t I, ordinal_t J, auto value) {
    auto& b = blocks[{I, J}];
    if (b.empty()) b.assign(nb2, 0.0);
    for (size_t e = 0; e < nb2; ++e) b[e] += value(e);
  };
  for (ordinal_t i = 0; i < s.n; ++i) {
    const ordinal_t I = a.of_row[static_cast<size_t>(i)];
    add(I, I, [&](size_t e) { return s.D(static_cast<size_t>(i) * nb2 + e); });
    for (offset_t k = s.O.ia(i); k < s.O.ia(i + 1); ++k)
      add(I, a.of_row[static_cast<size_t>(s.O.ja(k))],
          [&](size_t e) { return static_cast<double>(s.O.values(static_cast<size_t>(k) * nb2 + e)); });
  }
}

TEST(MultigridCoarsening, GalerkinOperatorEqualsTheHostProductAndARefreshAFreshSetup) {
  const auto s = gen::make_block_system(gen::tet_mesh_graph(8, 7, 6), 4, 21);
  const auto a = aggregates_of(s, 2);
  const Pattern p = pattern_of(s);
  const auto map = multigrid::galerkin_map<Mem>(p.n, p.row_ptr, p.col, a);
  const size_t nb2 = static_cast<size_t>(s.nb) * s.nb;
  Kokkos::View<double*, Mem> cO("cO", static_cast<size_t>(map.nnzb()) * nb2), cD("cD", map.coarse_rows * nb2);
  multigrid::galerkin_values<Exec, float, double>(Exec(), map, s.nb, on_device(s.O.values), on_device(s.D), cO, cD);
  const auto hO = Kokkos::create_mirror_view_and_copy(HostSpace(), cO);
  const auto hD = Kokkos::create_mirror_view_and_copy(HostSpace(), cD);

  std::map<std::pair<ordinal_t, ordinal_t>, std::vector<double>> ref;
  host_galerkin(s, a, ref);
  size_t off_blocks = 0;
  for (const auto& [ij, b] : ref) {
    const auto [I, J] = ij;
    const double* got = nullptr;
    if (I == J) {
      got = hD.data() + static_cast<size_t>(I) * nb2;
    } else {
      ++off_blocks;
      const auto be = map.col_idx.begin() + map.row_ptr[static_cast<size_t>(I)];
      const auto en = map.col_idx.begin() + map.row_ptr[static_cast<size_t>(I) + 1];
      const auto it = std::lower_bound(be, en, J);
      ASSERT_TRUE(it != en && *it == J) << "coarse block (" << I << ", " << J << ") missing";
      got = hO.data() + static_cast<size_t>(it - map.col_idx.begin()) * nb2;
    }
    for (size_t e = 0; e < nb2; ++e)
      EXPECT_NEAR(got[e], b[e], 1e-12 * (1 + std::fabs(b[e]))) << "block (" << I << ", " << J << ") entry " << e;
  }
  EXPECT_EQ(off_blocks, static_cast<size_t>(map.nnzb()));

  // New values through the same map equal a map built afresh for them, bit for bit.
  const auto s2 = gen::make_block_system(gen::tet_mesh_graph(8, 7, 6), 4, 22);
  multigrid::galerkin_values<Exec, float, double>(Exec(), map, s.nb, on_device(s2.O.values), on_device(s2.D), cO, cD);
  const auto fresh = multigrid::galerkin_map<Mem>(p.n, p.row_ptr, p.col, a);
  Kokkos::View<double*, Mem> fO("fO", cO.extent(0)), fD("fD", cD.extent(0));
  multigrid::galerkin_values<Exec, float, double>(Exec(), fresh, s.nb, on_device(s2.O.values), on_device(s2.D), fO, fD);
  const auto r1 = Kokkos::create_mirror_view_and_copy(HostSpace(), cO);
  const auto r2 = Kokkos::create_mirror_view_and_copy(HostSpace(), fO);
  for (size_t q = 0; q < r1.extent(0); ++q) ASSERT_EQ(r1(q), r2(q)) << q;
  const auto d1 = Kokkos::create_mirror_view_and_copy(HostSpace(), cD);
  const auto d2 = Kokkos::create_mirror_view_and_copy(HostSpace(), fD);
  for (size_t q = 0; q < d1.extent(0); ++q) ASSERT_EQ(d1(q), d2(q)) << q;
}

}  // namespace
}  // namespace ppsparse::mcpi
