#include <gtest/gtest.h>

#include <numeric>
#include <ppsparse/error.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/reorder/rcm.hpp>
#include <random>

#include "test_util.hpp"

namespace ppsparse {
namespace {

ordinal_t bandwidth(const Graph& g) {
  ordinal_t bw = 0;
  for (ordinal_t v = 0; v < g.n; ++v)
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k) bw = std::max(bw, std::abs(g.adj[k] - v));
  return bw;
}

Permutation random_permutation(ordinal_t n, std::uint64_t seed) {
  std::vector<ordinal_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(p.begin(), p.end(), rng);
  return Permutation::from_new_to_old(p);
}

TEST(Rcm, RecoversTheBandOfAShuffledBandMatrix) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (ordinal_t h : {1, 3, 8}) {
    const Graph band = graph_of(gen::band_matrix(400, h, seed));
    ASSERT_EQ(bandwidth(band), h);
    const Graph shuffled = permute(band, random_permutation(band.n, seed + h));
    const Permutation p = rcm(shuffled);
    ASSERT_TRUE(is_bijection(p.new_to_old));
    ASSERT_TRUE(is_bijection(p.old_to_new));
    const Graph reordered = permute(shuffled, p);
    EXPECT_LT(bandwidth(reordered), bandwidth(shuffled));
    EXPECT_LE(bandwidth(reordered), 2 * h) << "half bandwidth " << h;
  }
}

TEST(Rcm, ReducesTheBandwidthOfShuffledMeshes) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Graph mesh = gen::mixed_mesh_graph(12, 10, 8, seed);
  const Graph shuffled = permute(mesh, random_permutation(mesh.n, seed));
  const Graph reordered = permute(shuffled, rcm(shuffled));
  EXPECT_LT(bandwidth(reordered), bandwidth(shuffled) / 4);
}

TEST(Rcm, CoversEveryComponentAndTheTrivialSizes) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Sparse random graphs: many components and isolated vertices.
  for (int max_len : {0, 1, 2, 4}) {
    const Graph g = graph_of(test::random_csr<double>(300, 300, 0, max_len, seed + max_len));
    const Permutation p = rcm(g);
    ASSERT_EQ(p.size(), g.n);
    EXPECT_TRUE(is_bijection(p.new_to_old));
    EXPECT_NO_THROW(check_permutation(p, g.n, "rcm"));
  }
  EXPECT_EQ(rcm(Graph{}).size(), 0);
  Graph one;
  one.n = 1;
  one.row_ptr = {0, 0};
  EXPECT_EQ(rcm(one).new_to_old, std::vector<ordinal_t>{0});
  Graph broken;
  broken.n = 2;
  broken.row_ptr = {0, 1, 1};
  broken.adj = {1};
  PPSPARSE_EXPECT_THROW_MESSAGE(rcm(broken), InvalidArgument, "rcm: graph: edge 0-1 is not symmetric");
}

}  // namespace
}  // namespace ppsparse
