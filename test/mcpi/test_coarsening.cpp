// The multigrid coarsening (core/src/mcpi/multigrid/coarsening.hpp): pairwise aggregates cover
// every row once and join neighbours only, coarsen a 3-D mesh graph by about 4x in two passes,
// leave isolated rows alone; the device's Galerkin coarse operator equals an independent host
// sum to round-off, and a numeric refresh equals a fresh setup bit for bit; a coarse level's
// plan formed on the device is a valid colouring and colour order of its pattern, the same on
// every call, also where the pattern is not symmetric.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/reference.hpp>

#include "../../core/src/mcpi/multigrid/coarsening.hpp"
#include "../../core/src/mcpi/multigrid/device_lists.hpp"
#include "../../core/src/util/to_device.hpp"
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

multigrid::LevelPattern<Mem> on_device(const Pattern& p) {
  return multigrid::level_pattern<Mem>(p.n, p.row_ptr, p.col);
}

Pattern host(const multigrid::LevelPattern<Mem>& d) {
  return {d.n, util::to_host(d.row_ptr), util::to_host(d.col_idx)};
}

// Aggregates on the host.
struct HostAggregates {
  ordinal_t fine_rows = 0;
  ordinal_t count = 0;
  std::vector<ordinal_t> of_row;
};

HostAggregates host(const multigrid::Aggregates<Mem>& a) { return {a.fine_rows, a.count, util::to_host(a.of_row)}; }

multigrid::Aggregates<Mem> device_aggregates_of(const BlockSystem<HostSpace>& s, int passes) {
  const auto strength = multigrid::block_strengths<Exec, float>(Exec(), on_device(s.O.values), s.O.nnzb(), s.nb);
  return multigrid::pairwise_aggregates(Exec(), on_device(pattern_of(s)), strength, passes);
}

HostAggregates aggregates_of(const BlockSystem<HostSpace>& s, int passes) {
  return host(device_aggregates_of(s, passes));
}

void expect_cover(const HostAggregates& a, ordinal_t n) {
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
  const auto a = host(multigrid::pairwise_aggregates(Exec(), on_device(p), on_device(s), 2));
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
  PPSPARSE_EXPECT_THROW_MESSAGE(multigrid::pairwise_aggregates(Exec(), on_device(p), strength, 0), InvalidArgument,
                                "multigrid: pairwise matching needs passes >= 1");
  Pattern q = p;
  q.col[5] = p.n + 2;
  PPSPARSE_EXPECT_THROW_MESSAGE(
      multigrid::pairwise_aggregates(Exec(), on_device(q), strength, 1), InvalidArgument,
      "multigrid: block 5 of row " +
          std::to_string(std::upper_bound(q.row_ptr.begin(), q.row_ptr.end(), 5) - q.row_ptr.begin() - 1) +
          " has column " + std::to_string(p.n + 2) + ", outside 0.." + std::to_string(p.n - 1));
}

// The Galerkin product P^T A P of the piecewise-constant P, summed on the host block by block.
void host_galerkin(const BlockSystem<HostSpace>& s, const HostAggregates& a,
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
  const auto da = device_aggregates_of(s, 2);
  const HostAggregates a = host(da);
  const auto fine = on_device(pattern_of(s));
  const auto map = multigrid::galerkin_map(Exec(), fine, da);
  const Pattern coarse = host(map.coarse);
  const size_t nb2 = static_cast<size_t>(s.nb) * s.nb;
  Kokkos::View<double*, Mem> cO("cO", static_cast<size_t>(map.nnzb()) * nb2), cD("cD", map.coarse_rows() * nb2);
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
      const auto be = coarse.col.begin() + coarse.row_ptr[static_cast<size_t>(I)];
      const auto en = coarse.col.begin() + coarse.row_ptr[static_cast<size_t>(I) + 1];
      const auto it = std::lower_bound(be, en, J);
      ASSERT_TRUE(it != en && *it == J) << "coarse block (" << I << ", " << J << ") missing";
      got = hO.data() + static_cast<size_t>(it - coarse.col.begin()) * nb2;
    }
    for (size_t e = 0; e < nb2; ++e)
      EXPECT_NEAR(got[e], b[e], 1e-12 * (1 + std::fabs(b[e]))) << "block (" << I << ", " << J << ") entry " << e;
  }
  EXPECT_EQ(off_blocks, static_cast<size_t>(map.nnzb()));

  // New values through the same map equal a map built afresh for them, bit for bit.
  const auto s2 = gen::make_block_system(gen::tet_mesh_graph(8, 7, 6), 4, 22);
  multigrid::galerkin_values<Exec, float, double>(Exec(), map, s.nb, on_device(s2.O.values), on_device(s2.D), cO, cD);
  const auto fresh = multigrid::galerkin_map(Exec(), fine, da);
  Kokkos::View<double*, Mem> fO("fO", cO.extent(0)), fD("fD", cD.extent(0));
  multigrid::galerkin_values<Exec, float, double>(Exec(), fresh, s.nb, on_device(s2.O.values), on_device(s2.D), fO, fD);
  const auto r1 = Kokkos::create_mirror_view_and_copy(HostSpace(), cO);
  const auto r2 = Kokkos::create_mirror_view_and_copy(HostSpace(), fO);
  for (size_t q = 0; q < r1.extent(0); ++q) ASSERT_EQ(r1(q), r2(q)) << q;
  const auto d1 = Kokkos::create_mirror_view_and_copy(HostSpace(), cD);
  const auto d2 = Kokkos::create_mirror_view_and_copy(HostSpace(), fD);
  for (size_t q = 0; q < d1.extent(0); ++q) ASSERT_EQ(d1(q), d2(q)) << q;
}

/// O coded by Codec on the device from `source` for the block CSR ia of n rows and nnzb blocks.
template <class Codec>
struct Coded {
  Kokkos::View<typename Codec::stored*, Mem> values;
  Kokkos::View<std::int8_t*, Mem> scale;
};

template <class Codec, class Source>
Coded<Codec> encoded(const Source& source, const Kokkos::View<offset_t*, Mem>& ia, ordinal_t n, offset_t nnzb, int nb) {
  Coded<Codec> c;
  c.values = Kokkos::View<typename Codec::stored*, Mem>("coded", static_cast<size_t>(nnzb) * nb * nb);
  const size_t scales = Codec::scale == detail::OScale::per_block_row         ? static_cast<size_t>(n)
                        : Codec::scale == detail::OScale::per_column_of_block ? static_cast<size_t>(nnzb) * nb
                                                                              : 0;
  c.scale = Kokkos::View<std::int8_t*, Mem>("scale", scales);
  Kokkos::View<long long, Mem> bad("bad");
  Kokkos::deep_copy(bad, LLONG_MAX);
  impl::encode_o<Codec>(Exec(), source, ia, n, nb, c.values, c.scale, bad);
  long long first = 0;
  Kokkos::deep_copy(first, bad);
  EXPECT_EQ(first, LLONG_MAX);
  return c;
}

/// Every entry a source reads, in slot order, on the host. (A free function: a CUDA extended
/// lambda may not sit in a test's private TestBody.)
template <class Source>
std::vector<float> read_all(const Source& source, size_t entries, int nb2) {
  Kokkos::View<float*, Mem> back("back", entries);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, entries),
      KOKKOS_LAMBDA(const size_t q) { back(q) = source(static_cast<offset_t>(q / nb2), static_cast<int>(q % nb2)); });
  return util::to_host(back);
}

TEST(MultigridCoarsening, ACoarseLevelCodedFromItsSumsIsItsFp32SumsCodedAndReadsBackAsTheHostRounds) {
  const auto s = gen::make_block_system(gen::tet_mesh_graph(8, 7, 6), 3, 23);
  const auto da = device_aggregates_of(s, 1);
  const auto map = multigrid::galerkin_map(Exec(), on_device(pattern_of(s)), da);
  const int nb = s.nb, nb2 = nb * nb;
  const ordinal_t nc = map.coarse_rows();
  const offset_t nnzb = map.nnzb();
  const impl::SlotValues<Kokkos::View<const float*, Mem>> fine{on_device(s.O.values), nb2};
  Kokkos::View<float*, Mem> sums("sums", static_cast<size_t>(nnzb) * nb2);
  multigrid::galerkin_off_values(Exec(), map, nb, fine, sums);
  BsrMatrix<float, HostSpace> coarse(nb, nc, nc, nnzb);
  Kokkos::deep_copy(coarse.ia, map.coarse.row_ptr);
  Kokkos::deep_copy(coarse.ja, map.coarse.col_idx);
  Kokkos::deep_copy(coarse.values, sums);
  // The next level's aggregates, formed from the FP32 sums.
  const auto da2 = multigrid::pairwise_aggregates(Exec(), map.coarse,
                                                  multigrid::block_strengths<Exec, float>(Exec(), sums, nnzb, nb), 1);
  const auto map2 = multigrid::galerkin_map(Exec(), map.coarse, da2);
  ASSERT_GT(map2.nnzb(), 0);
  int formats = 0;
  for (const OFormat f : all_o_formats()) {
    detail::with_codec(f, [&](auto codec) {
      using Codec = decltype(codec);
      if constexpr (!Codec::plain) {
        ++formats;
        // Coded straight from the Galerkin sums, as through an FP32 copy of them.
        const auto direct = encoded<Codec>(multigrid::galerkin_off_sum(map, fine), map.coarse.row_ptr, nc, nnzb, nb);
        const auto staged = encoded<Codec>(impl::SlotValues<Kokkos::View<const float*, Mem>>{sums, nb2},
                                           map.coarse.row_ptr, nc, nnzb, nb);
        const auto v1 = util::to_host(direct.values), v2 = util::to_host(staged.values);
        ASSERT_EQ(v1, v2) << name(f);
        ASSERT_EQ(util::to_host(direct.scale), util::to_host(staged.scale)) << name(f);
        // Read back by the next level's sums: the values the host rounds them to.
        const impl::CodedSlotValues<Mem, Codec> read{
            {impl::RandomAccessView<Mem, typename Codec::stored>(direct.values), direct.scale, nb},
            map.coarse.row_ptr,
            nc};
        const std::vector<float> got = read_all(read, sums.extent(0), nb2);
        const std::vector<double> want = reference_round_o(f, coarse);
        ASSERT_EQ(got.size(), want.size());
        for (size_t q = 0; q < got.size(); ++q)
          ASSERT_EQ(static_cast<double>(got[q]), want[q]) << name(f) << " entry " << q;
        // The next level's sums through the coded level equal its sums of the rounded values.
        std::vector<float> rounded(want.begin(), want.end());
        Kokkos::View<float*, Mem> from_coded("from_coded", static_cast<size_t>(map2.nnzb()) * nb2),
            from_rounded("from_rounded", from_coded.extent(0));
        multigrid::galerkin_off_values(Exec(), map2, nb, read, from_coded);
        multigrid::galerkin_off_values(
            Exec(), map2, nb, impl::SlotValues<Kokkos::View<const float*, Mem>>{test::device_view(rounded), nb2},
            from_rounded);
        ASSERT_EQ(util::to_host(from_coded), util::to_host(from_rounded)) << name(f);
        // And so do the strengths that aggregate it.
        const auto st_coded = multigrid::block_strengths_from(Exec(), read, nnzb, nb);
        const auto st_rounded = multigrid::block_strengths<Exec, float>(Exec(), test::device_view(rounded), nnzb, nb);
        ASSERT_EQ(util::to_host(st_coded), util::to_host(st_rounded)) << name(f);
      }
    });
  }
  EXPECT_EQ(formats, 3);
}

TEST(MultigridCoarsening, SegmentSortsOrderByKeyThenValueShortAndLong) {
  // Short segments sort by insertion, long ones by heap sort: both must give the pairs in
  // (key, value) order, so that equal keys keep their increasing values.
  std::mt19937 rng(7);
  for (const offset_t len : {0, 1, 5, 32, 33, 40, 1000}) {
    std::vector<ordinal_t> key(static_cast<size_t>(len));
    std::vector<offset_t> value(static_cast<size_t>(len));
    for (offset_t a = 0; a < len; ++a) {
      key[static_cast<size_t>(a)] = static_cast<ordinal_t>(rng() % 17);
      value[static_cast<size_t>(a)] = a;
    }
    std::vector<std::pair<ordinal_t, offset_t>> want;
    for (offset_t a = 0; a < len; ++a) want.emplace_back(key[static_cast<size_t>(a)], value[static_cast<size_t>(a)]);
    std::sort(want.begin(), want.end());
    multigrid::lists::sort_pairs(key.data(), value.data(), len);
    for (offset_t a = 0; a < len; ++a)
      ASSERT_EQ(std::make_pair(key[static_cast<size_t>(a)], value[static_cast<size_t>(a)]),
                want[static_cast<size_t>(a)])
          << "length " << len << ", entry " << a;
    std::shuffle(value.begin(), value.end(), rng);
    std::vector<offset_t> sorted(value);
    std::sort(sorted.begin(), sorted.end());
    multigrid::lists::sort_keys(value.data(), len);
    EXPECT_EQ(value, sorted) << "length " << len;
  }
}

// A coarse level's plan: every block's slot holds its column in the colour order, rows sorted,
// no coupled rows share a colour, each colour contiguous and in the rows' order.
void expect_plan_of(const Pattern& p, const detail::SetupPlan& plan) {
  const Coloring& c = plan.coloring;
  ASSERT_EQ(plan.n, p.n);
  ASSERT_EQ(c.color.size(), static_cast<size_t>(p.n));
  ASSERT_EQ(c.color_offsets.size(), static_cast<size_t>(c.ncolors) + 1);
  for (ordinal_t i = 0; i < p.n; ++i) {
    const ordinal_t q = c.perm.old_to_new[static_cast<size_t>(i)];
    const ordinal_t x = c.color[static_cast<size_t>(i)];
    ASSERT_TRUE(x >= 0 && x < c.ncolors && q >= c.color_offsets[static_cast<size_t>(x)] &&
                q < c.color_offsets[static_cast<size_t>(x) + 1])
        << "row " << i;
    if (q > c.color_offsets[static_cast<size_t>(x)])
      EXPECT_LT(c.perm.new_to_old[static_cast<size_t>(q) - 1], i) << "row " << i << " out of order in its colour";
    ASSERT_EQ(plan.ia[static_cast<size_t>(q) + 1] - plan.ia[static_cast<size_t>(q)],
              p.row_ptr[static_cast<size_t>(i) + 1] - p.row_ptr[static_cast<size_t>(i)]);
    for (offset_t k = p.row_ptr[static_cast<size_t>(i)]; k < p.row_ptr[static_cast<size_t>(i) + 1]; ++k) {
      const ordinal_t j = p.col[static_cast<size_t>(k)];
      EXPECT_NE(c.color[static_cast<size_t>(j)], x) << "rows " << i << " and " << j << " share colour " << x;
      const offset_t slot = plan.o_slot[static_cast<size_t>(k)];
      ASSERT_TRUE(slot >= plan.ia[static_cast<size_t>(q)] && slot < plan.ia[static_cast<size_t>(q) + 1]) << k;
      EXPECT_EQ(plan.ja[static_cast<size_t>(slot)], c.perm.old_to_new[static_cast<size_t>(j)]) << k;
      if (slot > plan.ia[static_cast<size_t>(q)])
        EXPECT_LT(plan.ja[static_cast<size_t>(slot) - 1], plan.ja[static_cast<size_t>(slot)]) << k;
    }
  }
}

TEST(MultigridCoarsening, CoarseLevelPlanColoursAndOrdersThePatternTheSameEveryTime) {
  const auto s = gen::make_block_system(gen::tet_mesh_graph(9, 8, 7), 3, 5);
  const auto map = multigrid::galerkin_map(Exec(), on_device(pattern_of(s)), device_aggregates_of(s, 1));
  const auto plan = multigrid::coarse_level_plan(Exec(), 3, map.coarse);
  expect_plan_of(host(map.coarse), plan);
  EXPECT_GE(plan.coloring.ncolors, 2);
  const auto again = multigrid::coarse_level_plan(Exec(), 3, map.coarse);
  EXPECT_EQ(again.coloring.color, plan.coloring.color);
  EXPECT_EQ(again.o_slot, plan.o_slot);

  // A pattern whose blocks (i, j) lack their (j, i): coloured as its symmetric closure.
  Pattern one_way;
  one_way.n = 5;
  one_way.row_ptr = {0, 2, 3, 4, 4, 5};
  one_way.col = {1, 2, 2, 3, 0};  // 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 3, 4 -> 0
  const auto directed = multigrid::coarse_level_plan(Exec(), 2, on_device(one_way));
  expect_plan_of(one_way, directed);
  for (const auto& [i, j] : std::vector<std::pair<int, int>>{{1, 0}, {2, 0}, {2, 1}, {3, 2}, {0, 4}})
    EXPECT_NE(directed.coloring.color[static_cast<size_t>(i)], directed.coloring.color[static_cast<size_t>(j)]);
}

}  // namespace
}  // namespace ppsparse::mcpi
