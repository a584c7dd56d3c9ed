#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <ppsparse/error.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/reorder/bfs_levels.hpp>
#include <random>

#include "test_util.hpp"

namespace ppsparse {
namespace {

// Checks the level structure: offsets partition 0..n, the renumbering is a bijection, every
// edge joins the same or adjacent levels, and every vertex past its component's first
// level has a neighbour in the previous level (levels are BFS distances).
void expect_level_structure(const Graph& g, const BfsLevels& lv) {
  ASSERT_NO_THROW(check_permutation(lv.perm, g.n, "bfs_levels"));
  ASSERT_EQ(lv.level_offsets.size(), static_cast<size_t>(lv.nlevels()) + 1);
  ASSERT_EQ(lv.level_offsets.front(), 0);
  ASSERT_EQ(lv.level_offsets.back(), g.n);
  std::vector<ordinal_t> level(static_cast<size_t>(g.n), -1);  // by old vertex
  for (ordinal_t l = 0; l < lv.nlevels(); ++l) {
    ASSERT_LT(lv.level_offsets[l], lv.level_offsets[l + 1]) << "level " << l << " is empty";
    for (ordinal_t pos = lv.level_offsets[l]; pos < lv.level_offsets[l + 1]; ++pos) level[lv.perm.new_to_old[pos]] = l;
  }
  for (ordinal_t v = 0; v < g.n; ++v) {
    bool has_parent = false, has_neighbour = false;
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k) {
      const ordinal_t d = level[g.adj[k]] - level[v];
      ASSERT_LE(std::abs(d), 1) << "edge " << v << "-" << g.adj[k] << " spans levels " << level[v] << " and "
                                << level[g.adj[k]];
      has_parent |= d == -1;
      has_neighbour = true;
    }
    // A vertex without a parent starts its component: it is alone in its level.
    if (!has_parent) {
      const ordinal_t l = level[v];
      ASSERT_EQ(lv.level_offsets[l + 1] - lv.level_offsets[l], 1) << "vertex " << v << " has no parent level";
      if (has_neighbour && l + 1 < lv.nlevels()) {
        // ... and its neighbours form the next level.
        ASSERT_EQ(lv.level_offsets[l + 2] - lv.level_offsets[l + 1], g.degree(v));
      }
    }
  }
}

TEST(BfsLevels, RandomGraphsWithManyComponents) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int max_len : {0, 1, 2, 3, 8}) {
    const Graph g = graph_of(test::random_csr<double>(400, 400, 0, max_len, seed + max_len));
    expect_level_structure(g, bfs_levels(g));
  }
}

TEST(BfsLevels, DisconnectedPiecesAndIsolatedVertices) {
  // Two paths (0-1-2, 4-5), isolated 3 and 6, and a triangle 7-8-9.
  const Graph g = graph_from_edges(10, {{0, 1}, {1, 2}, {4, 5}, {7, 8}, {8, 9}, {9, 7}});
  const BfsLevels lv = bfs_levels(g);
  expect_level_structure(g, lv);
  // Path of 3: 3 levels; isolated: 1 each; path of 2: 2; triangle from a vertex: 2.
  EXPECT_EQ(lv.nlevels(), 3 + 1 + 2 + 1 + 2);
  // Components are appended in the order of their lowest vertex; the path starts at an end.
  EXPECT_EQ(lv.perm.new_to_old[0] == 0 || lv.perm.new_to_old[0] == 2, true);
  EXPECT_EQ(lv.perm.new_to_old[3], 3);
}

TEST(BfsLevels, StartsFromAPseudoPeripheralVertex) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // A path numbered at random: BFS from an end gives one level per vertex.
  const ordinal_t n = 50;
  std::vector<ordinal_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::pair<ordinal_t, ordinal_t>> edges;
  for (ordinal_t i = 0; i + 1 < n; ++i) edges.emplace_back(order[i], order[i + 1]);
  const Graph path = graph_from_edges(n, edges);
  const BfsLevels lp = bfs_levels(path);
  expect_level_structure(path, lp);
  EXPECT_EQ(lp.nlevels(), n);
  // A grid: BFS from a corner reaches the opposite corner in nx+ny+nz-2 steps.
  const Graph grid = graph_of(gen::stencil_7pt(7, 5, 4, seed));
  const BfsLevels lg = bfs_levels(grid);
  expect_level_structure(grid, lg);
  EXPECT_EQ(lg.nlevels(), 7 + 5 + 4 - 2);
}

TEST(BfsLevels, GeneratedMeshes) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Graph tet = gen::tet_mesh_graph(9, 8, 7);
  expect_level_structure(tet, bfs_levels(tet));
  const Graph mixed = gen::mixed_mesh_graph(10, 9, 8, seed);
  expect_level_structure(mixed, bfs_levels(mixed));
}

TEST(BfsLevels, TrivialAndBadGraphs) {
  const BfsLevels empty = bfs_levels(Graph{});
  EXPECT_EQ(empty.nlevels(), 0);
  EXPECT_EQ(empty.level_offsets, std::vector<ordinal_t>{0});
  EXPECT_EQ(empty.perm.size(), 0);
  Graph one;
  one.n = 1;
  one.row_ptr = {0, 0};
  const BfsLevels l1 = bfs_levels(one);
  EXPECT_EQ(l1.nlevels(), 1);
  EXPECT_EQ(l1.level_offsets, (std::vector<ordinal_t>{0, 1}));
  EXPECT_EQ(l1.perm.new_to_old, std::vector<ordinal_t>{0});
  Graph broken;
  broken.n = 2;
  broken.row_ptr = {0, 1, 1};
  broken.adj = {1};
  PPSPARSE_EXPECT_THROW_MESSAGE(bfs_levels(broken), InvalidArgument, "bfs_levels: graph: edge 0-1 is not symmetric");
}

// The input numbering's levels: the identity, a partition of 0..n into non-empty levels,
// every edge within one level or two adjacent ones, and each level ending right after the
// farthest neighbour of the vertices before it (no later: the levels are as narrow as the
// numbering allows).
void expect_input_order_levels(const Graph& g, const BfsLevels& lv) {
  ASSERT_NO_THROW(check_permutation(lv.perm, g.n, "input_order_levels"));
  for (ordinal_t v = 0; v < g.n; ++v) ASSERT_EQ(lv.perm.new_to_old[v], v);
  ASSERT_EQ(lv.level_offsets.front(), 0);
  ASSERT_EQ(lv.level_offsets.back(), g.n);
  std::vector<ordinal_t> level(static_cast<size_t>(g.n), -1);
  for (ordinal_t l = 0; l < lv.nlevels(); ++l) {
    ASSERT_LT(lv.level_offsets[l], lv.level_offsets[l + 1]) << "level " << l << " is empty";
    for (ordinal_t v = lv.level_offsets[l]; v < lv.level_offsets[l + 1]; ++v) level[v] = l;
  }
  for (ordinal_t v = 0; v < g.n; ++v)
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k)
      ASSERT_LE(std::abs(level[g.adj[k]] - level[v]), 1) << "edge " << v << "-" << g.adj[k];
  ordinal_t far = -1;
  for (ordinal_t l = 0; l + 1 < lv.nlevels(); ++l) {
    for (ordinal_t v = l == 0 ? 0 : lv.level_offsets[l - 1]; v < lv.level_offsets[l]; ++v) {
      far = std::max(far, v);
      for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k) far = std::max(far, g.adj[k]);
    }
    ASSERT_EQ(lv.level_offsets[l + 1], std::max(lv.level_offsets[l] + 1, far + 1)) << "level " << l;
  }
}

TEST(InputOrderLevels, RandomGraphsComponentsAndIsolatedVertices) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int max_len : {0, 1, 2, 3, 8}) {
    const Graph g = graph_of(test::random_csr<double>(400, 400, 0, max_len, seed + max_len));
    expect_input_order_levels(g, input_order_levels(g));
  }
  // 0-5 and 2-3: {0}, {1..5}, {6}, {7}; vertices without edges are levels of one.
  const Graph g = graph_from_edges(8, {{0, 5}, {2, 3}});
  const BfsLevels lv = input_order_levels(g);
  expect_input_order_levels(g, lv);
  EXPECT_EQ(lv.level_offsets, (std::vector<ordinal_t>{0, 1, 6, 7, 8}));
  EXPECT_EQ(widest_adjacent_levels(lv), 6);
}

TEST(InputOrderLevels, LexicographicGridKeepsItsPlanes) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // A 27-point stencil on 9^3 in lexicographic order: levels of about a plane (a row reaches
  // 9^2 + 9 + 1 = 91 rows ahead), where BFS shells from a corner grow to 3 * 8^2 + 3 * 8 + 1.
  const ordinal_t n = 9;
  const Graph g = graph_of(gen::stencil_27pt(n, n, n, seed));
  const BfsLevels in = input_order_levels(g);
  expect_input_order_levels(g, in);
  EXPECT_LE(widest_adjacent_levels(in), 2 * (n * n + n + 1));
  const BfsLevels bfs = bfs_levels(g);
  EXPECT_GE(widest_adjacent_levels(bfs), 2 * (3 * 7 * 7 + 3 * 7 + 1));
  EXPECT_LT(widest_adjacent_levels(in), widest_adjacent_levels(bfs));
  // The same grid numbered at random: its own levels are far wider than BFS's.
  std::vector<ordinal_t> order(static_cast<size_t>(g.n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  std::vector<std::pair<ordinal_t, ordinal_t>> edges;
  for (ordinal_t v = 0; v < g.n; ++v)
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k) edges.emplace_back(order[v], order[g.adj[k]]);
  const Graph shuffled = graph_from_edges(g.n, edges);
  const BfsLevels shuffled_in = input_order_levels(shuffled);
  expect_input_order_levels(shuffled, shuffled_in);
  EXPECT_GT(widest_adjacent_levels(shuffled_in), widest_adjacent_levels(bfs_levels(shuffled)));
}

TEST(InputOrderLevels, TrivialAndBadGraphs) {
  const BfsLevels empty = input_order_levels(Graph{});
  EXPECT_EQ(empty.nlevels(), 0);
  EXPECT_EQ(widest_adjacent_levels(empty), 0);
  Graph one;
  one.n = 1;
  one.row_ptr = {0, 0};
  const BfsLevels l1 = input_order_levels(one);
  EXPECT_EQ(l1.level_offsets, (std::vector<ordinal_t>{0, 1}));
  EXPECT_EQ(widest_adjacent_levels(l1), 1);
  Graph broken;
  broken.n = 2;
  broken.row_ptr = {0, 1, 1};
  broken.adj = {1};
  try {
    input_order_levels(broken);
    ADD_FAILURE() << "an asymmetric graph was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("input_order_levels: graph"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ppsparse
