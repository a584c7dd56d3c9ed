#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <ppsparse/error.hpp>
#include <ppsparse/gen/grid.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/reorder/coloring.hpp>

#include "test_util.hpp"

namespace ppsparse {
namespace {

// Everything a Coloring promises about g.
void expect_consistent(const Graph& g, const Coloring& c) {
  ASSERT_TRUE(is_valid_coloring(g, c.color));
  ASSERT_EQ(c.color.size(), static_cast<size_t>(g.n));
  ASSERT_EQ(c.color_offsets.size(), static_cast<size_t>(c.ncolors) + 1);
  ASSERT_EQ(c.color_offsets.front(), 0);
  ASSERT_EQ(c.color_offsets.back(), g.n);
  ASSERT_NO_THROW(check_permutation(c.perm, g.n, "coloring"));
  for (ordinal_t k = 0; k < c.ncolors; ++k) {
    ASSERT_LT(c.color_offsets[k], c.color_offsets[k + 1]) << "colour " << k << " is empty";
    for (ordinal_t pos = c.color_offsets[k]; pos < c.color_offsets[k + 1]; ++pos) {
      const ordinal_t v = c.perm.new_to_old[pos];
      ASSERT_EQ(c.color[v], k) << "vertex " << v << " outside its colour's range";
      if (pos > c.color_offsets[k]) {
        ASSERT_LT(c.perm.new_to_old[pos - 1], v) << "not stable inside colour " << k;
      }
    }
  }
  // In the new numbering, no edge stays inside one colour's row range.
  const Graph h = permute(g, c.perm);
  for (ordinal_t k = 0; k < c.ncolors; ++k)
    for (ordinal_t v = c.color_offsets[k]; v < c.color_offsets[k + 1]; ++v)
      for (offset_t e = h.row_ptr[v]; e < h.row_ptr[v + 1]; ++e)
        ASSERT_FALSE(h.adj[e] >= c.color_offsets[k] && h.adj[e] < c.color_offsets[k + 1]);
}

TEST(Coloring, Distance1OnRandomGraphs) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int max_len : {0, 1, 3, 10, 40}) {
    const Graph g = graph_of(test::random_csr<double>(500, 500, 0, max_len, seed + max_len));
    const Coloring c = color_distance1(g);
    expect_consistent(g, c);
    ordinal_t max_degree = 0;
    for (ordinal_t v = 0; v < g.n; ++v) max_degree = std::max(max_degree, g.degree(v));
    EXPECT_LE(c.ncolors, max_degree + 1) << "greedy colourings need at most max degree + 1 colours";
  }
}

TEST(Coloring, Distance1OnGeneratedMeshes) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  expect_consistent(gen::tet_mesh_graph(10, 9, 8), color_distance1(gen::tet_mesh_graph(10, 9, 8)));
  const Graph mixed = gen::mixed_mesh_graph(12, 11, 10, seed);
  expect_consistent(mixed, color_distance1(mixed));
  const Graph stencil = graph_of(gen::stencil_27pt(9, 8, 7, seed));
  expect_consistent(stencil, color_distance1(stencil));
}

TEST(Coloring, Distance1OnSharedMatrices) {
  const auto dir = test::shared_dir();
  if (dir.empty() || !std::filesystem::exists(dir / "matrices")) GTEST_SKIP() << "no ../shared/matrices";
  int colored = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "matrices")) {
    const auto path = entry.path().string();
    if (path.size() < 4 || path.substr(path.size() - 4) != ".mtx") continue;
    SCOPED_TRACE(path);
    const auto a = io::read_matrix_market<double>(path);
    if (a.nrows != a.ncols) continue;  // rectangular (LP) matrices have no vertex graph
    const Graph g = graph_of(a);
    expect_consistent(g, color_distance1(g));
    ++colored;
  }
  EXPECT_GT(colored, 0);
}

TEST(Coloring, TrivialGraphs) {
  const Coloring empty = color_distance1(Graph{});
  EXPECT_EQ(empty.ncolors, 0);
  EXPECT_EQ(empty.color_offsets, std::vector<ordinal_t>{0});
  Graph one;
  one.n = 1;
  one.row_ptr = {0, 0};
  const Coloring c1 = color_distance1(one);
  EXPECT_EQ(c1.ncolors, 1);
  expect_consistent(one, c1);
  const Coloring u = coloring_from_colors(Graph{}, {});
  EXPECT_EQ(u.ncolors, 0);
}

TEST(Coloring, UserColorsAreCheckedAndCompacted) {
  const gen::Grid3 grid{5, 4, 3};
  const Graph g = graph_of(gen::stencil_7pt(grid.nx, grid.ny, grid.nz, 1));
  std::vector<ordinal_t> checker(static_cast<size_t>(g.n));
  for (ordinal_t v = 0; v < g.n; ++v) {
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    checker[v] = 7 + 5 * ((i + j + k) % 2);  // ids 7 and 12 -> 0 and 1
  }
  EXPECT_TRUE(is_valid_coloring(g, checker));
  const Coloring c = coloring_from_colors(g, checker);
  expect_consistent(g, c);
  EXPECT_EQ(c.ncolors, 2);
  EXPECT_EQ(c.color[0], 0);
  EXPECT_EQ(c.color[1], 1);
  EXPECT_EQ(c.color_offsets[1], 30);

  std::vector<ordinal_t> conflict = checker;
  conflict[1] = conflict[0];
  EXPECT_FALSE(is_valid_coloring(g, conflict));
  EXPECT_EQ(test::invalid_argument_message([&] { coloring_from_colors(g, conflict); }),
            "coloring_from_colors: adjacent vertices 0 and 1 share colour 7");
  std::vector<ordinal_t> negative = checker;
  negative[3] = -1;
  EXPECT_FALSE(is_valid_coloring(g, negative));
  EXPECT_EQ(test::invalid_argument_message([&] { coloring_from_colors(g, negative); }),
            "coloring_from_colors: vertex 3 has negative colour -1");
  EXPECT_FALSE(is_valid_coloring(g, std::vector<ordinal_t>(3, 0)));
  EXPECT_EQ(test::invalid_argument_message([&] {
              coloring_from_colors(g, {0, 1});
            }),
            "coloring_from_colors: 2 colours for 60 vertices");
  Graph broken;
  broken.n = 2;
  broken.row_ptr = {0, 1, 1};
  broken.adj = {1};
  PPSPARSE_EXPECT_THROW_MESSAGE(color_distance1(broken), InvalidArgument,
                                "color_distance1: graph: edge 0-1 is not symmetric");
  PPSPARSE_EXPECT_THROW_MESSAGE((is_valid_coloring(broken, {0, 1})), InvalidArgument,
                                "is_valid_coloring: graph: edge 0-1 is not symmetric");
}

TEST(RecolorIteratedGreedy, NeverMoreColoursAndEmptiesTheTail) {
  const std::uint64_t seed = test::test_seed();
  for (const Graph& g : {gen::mixed_mesh_graph(16, 15, 14, seed), gen::tet_mesh_graph(12, 11, 10)}) {
    const Coloring c = color_distance1(g);
    const Coloring r = recolor_iterated_greedy(g, c, 4);
    EXPECT_TRUE(is_valid_coloring(g, r.color));
    EXPECT_LE(r.ncolors, c.ncolors);
    const auto before = color_sizes(c), after = color_sizes(r);
    EXPECT_EQ(std::accumulate(after.begin(), after.end(), 0LL), static_cast<long long>(g.n));
    // The rows in colours under a tenth of the mean fall (these graphs' greedy tails empty).
    auto tail = [&](const std::vector<ordinal_t>& s) {
      long long t = 0;
      for (ordinal_t x : s) t += x < 0.1 * g.n / static_cast<double>(s.size()) ? x : 0;
      return t;
    };
    EXPECT_LT(tail(after), std::max(tail(before), 1LL))
        << testing::PrintToString(before) << " -> " << testing::PrintToString(after);
    EXPECT_EQ(recolor_iterated_greedy(g, c, 0).color, c.color);  // 0 passes: the same colouring
  }
  Graph path;
  path.n = 3;
  path.row_ptr = {0, 1, 3, 4};
  path.adj = {1, 0, 2, 1};
  EXPECT_THROW(recolor_iterated_greedy(path, coloring_from_colors(path, {0, 1, 0}), -1), InvalidArgument);
  Coloring wrong = coloring_from_colors(path, {0, 1, 0});
  wrong.color[1] = 0;
  EXPECT_THROW(recolor_iterated_greedy(path, wrong), InvalidArgument);
}

}  // namespace
}  // namespace ppsparse
