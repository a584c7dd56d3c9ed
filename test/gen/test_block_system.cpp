#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/reorder/coloring.hpp>

#include "test_util.hpp"

namespace ppsparse {
namespace {

// A random graph on 24 vertices whose last vertex is isolated (components vary with the seed).
Graph test_graph(std::uint64_t seed) {
  const auto pattern = test::random_csr<double>(24, 24, 0, 4, seed);
  std::vector<std::pair<ordinal_t, ordinal_t>> edges;
  for (ordinal_t i = 0; i < 23; ++i)
    for (offset_t k = pattern.row_ptr(i); k < pattern.row_ptr(i + 1); ++k)
      if (pattern.col_idx(k) != 23) edges.emplace_back(i, pattern.col_idx(k));
  return graph_from_edges(24, edges);
}

// Dense LU without pivoting of a column-major nb x nb block (D is strictly diagonally
// dominant, so no pivot vanishes), then solve in place.
struct DenseLu {
  int nb;
  std::vector<double> lu;
  DenseLu(int n, const double* block) : nb(n), lu(block, block + static_cast<size_t>(n) * n) {
    for (int p = 0; p < nb; ++p)
      for (int r = p + 1; r < nb; ++r) {
        const double f = (at(r, p) /= at(p, p));
        for (int c = p + 1; c < nb; ++c) at(r, c) -= f * at(p, c);
      }
  }
  double& at(int r, int c) { return lu[static_cast<size_t>(c) * nb + r]; }
  void solve(double* x) {
    for (int r = 0; r < nb; ++r)
      for (int c = 0; c < r; ++c) x[r] -= at(r, c) * x[c];
    for (int r = nb - 1; r >= 0; --r) {
      for (int c = r + 1; c < nb; ++c) x[r] -= at(r, c) * x[c];
      x[r] /= at(r, r);
    }
  }
};

// ||R - A dQ||_inf for the block system.
double residual_norm(const BlockSystem<HostSpace>& s, const std::vector<double>& dq) {
  const int nb = s.nb;
  const size_t bs = static_cast<size_t>(nb) * nb;
  double norm = 0.0;
  for (ordinal_t i = 0; i < s.n; ++i)
    for (int r = 0; r < nb; ++r) {
      double ax = 0.0;
      for (int c = 0; c < nb; ++c) ax += s.D(i * bs + block_entry(nb, r, c)) * dq[static_cast<size_t>(i) * nb + c];
      for (offset_t k = s.O.ia(i); k < s.O.ia(i + 1); ++k)
        for (int c = 0; c < nb; ++c)
          ax += static_cast<double>(s.O.values(k * bs + block_entry(nb, r, c))) *
                dq[static_cast<size_t>(s.O.ja(k)) * nb + c];
      norm = std::max(norm, std::abs(s.R(static_cast<size_t>(i) * nb + r) - ax));
    }
  return norm;
}

TEST(BlockSystem, StructureValuesAndDominanceForEveryBlockSize) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Graph g = test_graph(seed);
  for (int nb : {1, 2, 5, 13, 64}) {
    SCOPED_TRACE("nb " + std::to_string(nb));
    const auto s = gen::make_block_system(g, nb, seed);
    const size_t bs = static_cast<size_t>(nb) * nb;
    ASSERT_EQ(s.nb, nb);
    ASSERT_EQ(s.n, g.n);
    ASSERT_FALSE(s.d_factored);
    ASSERT_NO_THROW(validate(s.O));
    ASSERT_EQ(s.O.nblockrows, g.n);
    ASSERT_EQ(s.O.nblockcols, g.n);
    for (ordinal_t i = 0; i <= g.n; ++i) ASSERT_EQ(s.O.ia(i), g.row_ptr[i]);
    for (size_t k = 0; k < g.adj.size(); ++k) ASSERT_EQ(s.O.ja(k), g.adj[k]);
    for (size_t e = 0; e < s.O.values.extent(0); ++e) {
      ASSERT_NE(s.O.values(e), 0.0f);
      ASSERT_LE(std::abs(s.O.values(e)), 1.0f);
    }
    ASSERT_EQ(s.R.extent(0), static_cast<size_t>(g.n) * nb);
    for (size_t e = 0; e < s.R.extent(0); ++e) {
      ASSERT_NE(s.R(e), 0.0);
      ASSERT_LE(std::abs(s.R(e)), 1.0);
    }
    ASSERT_EQ(s.D.extent(0), static_cast<size_t>(g.n) * bs);
    // Every point row: |d_rr| - sum_{l != r} |d_rl| >= (1 + dominance)/2 * s_i, where s_i is the
    // sum of the row's O blocks' infinity norms; and D has random off-diagonal entries.
    const double dominance = gen::BlockSystemOptions{}.dominance;
    bool d_has_offdiagonal = nb == 1;
    for (ordinal_t i = 0; i < g.n; ++i) {
      double s_i = 0.0;
      for (offset_t k = s.O.ia(i); k < s.O.ia(i + 1); ++k) {
        double block_norm = 0.0;
        for (int r = 0; r < nb; ++r) {
          double row = 0.0;
          for (int c = 0; c < nb; ++c) row += std::abs(static_cast<double>(s.O.values(k * bs + block_entry(nb, r, c))));
          block_norm = std::max(block_norm, row);
        }
        s_i += block_norm;
      }
      if (s.O.ia(i + 1) == s.O.ia(i)) s_i = 1.0;  // isolated vertex: documented scale
      for (int r = 0; r < nb; ++r) {
        const double d_rr = s.D(i * bs + block_entry(nb, r, r));
        double off = 0.0;
        for (int c = 0; c < nb; ++c)
          if (c != r) {
            off += std::abs(s.D(i * bs + block_entry(nb, r, c)));
            d_has_offdiagonal |= s.D(i * bs + block_entry(nb, r, c)) != 0.0;
          }
        ASSERT_GE(std::abs(d_rr) - off, (1.0 + dominance) / 2.0 * s_i * (1 - 1e-12))
            << "block row " << i << " row " << r;
      }
    }
    EXPECT_TRUE(d_has_offdiagonal);
  }
}

TEST(BlockSystem, MulticolourBlockGaussSeidelConverges) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Graph g = gen::mixed_mesh_graph(4, 3, 3, seed);
  const Coloring colors = color_distance1(g);
  for (int nb : {1, 5, 13, 64}) {
    SCOPED_TRACE("nb " + std::to_string(nb));
    for (double dominance : {2.0, 1.2}) {
      const auto s = gen::make_block_system(g, nb, seed + nb, {dominance});
      const size_t bs = static_cast<size_t>(nb) * nb;
      std::vector<DenseLu> d_inv;
      for (ordinal_t i = 0; i < g.n; ++i) d_inv.emplace_back(nb, s.D.data() + i * bs);
      std::vector<double> dq(static_cast<size_t>(g.n) * nb, 0.0), rhs(nb);
      const double r0 = residual_norm(s, dq);
      // The error contracts by at most 2/(1+dominance) per sweep in the infinity norm; allow
      // the sweeps that bound needs for 1e-12, which covers A's condition number here.
      const double rate = 2.0 / (1.0 + dominance);
      const int max_sweeps = static_cast<int>(std::ceil(std::log(1e-12) / std::log(rate)));
      int sweep = 0;
      double r = r0;
      while (r > 1e-10 * r0 && sweep < max_sweeps) {
        for (ordinal_t c = 0; c < colors.ncolors; ++c)
          for (ordinal_t pos = colors.color_offsets[c]; pos < colors.color_offsets[c + 1]; ++pos) {
            const ordinal_t i = colors.perm.new_to_old[pos];
            for (int row = 0; row < nb; ++row) rhs[row] = s.R(static_cast<size_t>(i) * nb + row);
            for (offset_t k = s.O.ia(i); k < s.O.ia(i + 1); ++k)
              for (int row = 0; row < nb; ++row)
                for (int col = 0; col < nb; ++col)
                  rhs[row] -= static_cast<double>(s.O.values(k * bs + block_entry(nb, row, col))) *
                              dq[static_cast<size_t>(s.O.ja(k)) * nb + col];
            d_inv[i].solve(rhs.data());
            std::copy(rhs.begin(), rhs.end(), dq.begin() + static_cast<size_t>(i) * nb);
          }
        ++sweep;
        r = residual_norm(s, dq);
      }
      EXPECT_LE(r, 1e-10 * r0) << "dominance " << dominance << " after " << sweep << " sweeps";
    }
  }
}

TEST(BlockSystem, DeterministicInTheSeed) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Graph g = gen::tet_mesh_graph(3, 3, 2);
  const auto a = gen::make_block_system(g, 5, seed), b = gen::make_block_system(g, 5, seed),
             c = gen::make_block_system(g, 5, seed + 1);
  for (size_t e = 0; e < a.O.values.extent(0); ++e) {
    ASSERT_EQ(a.O.values(e), b.O.values(e));
    ASSERT_NE(a.O.values(e), c.O.values(e)) << "O entry " << e;
  }
  for (size_t e = 0; e < a.D.extent(0); ++e) {
    ASSERT_EQ(a.D(e), b.D(e));
    ASSERT_NE(a.D(e), c.D(e)) << "D entry " << e;
  }
  for (size_t e = 0; e < a.R.extent(0); ++e) {
    ASSERT_EQ(a.R(e), b.R(e));
    ASSERT_NE(a.R(e), c.R(e)) << "R entry " << e;
  }
}

TEST(BlockSystem, EmptyAndSingleVertexGraphs) {
  const auto empty = gen::make_block_system(Graph{}, 4, 1);
  EXPECT_EQ(empty.n, 0);
  EXPECT_EQ(empty.O.nnzb(), 0);
  EXPECT_EQ(empty.D.extent(0), 0u);
  Graph one;
  one.n = 1;
  one.row_ptr = {0, 0};
  const auto s = gen::make_block_system(one, 3, 1);
  EXPECT_EQ(s.O.nnzb(), 0);
  for (int r = 0; r < 3; ++r) EXPECT_GT(s.D(block_entry(3, r, r)), 1.0);  // dominance * 1 minus a small perturbation
}

TEST(BlockSystem, BadInputsAreRefused) {
  const Graph g = gen::tet_mesh_graph(2, 2, 2);
  EXPECT_EQ(test::invalid_argument_message([&] { gen::make_block_system(g, 0, 1); }),
            "make_block_system: block size 0 is outside [1, 64]");
  PPSPARSE_EXPECT_THROW_MESSAGE(gen::make_block_system(g, 65, 1), InvalidArgument,
                                "make_block_system: block size 65 is outside [1, 64]");
  EXPECT_EQ(test::invalid_argument_message([&] { gen::make_block_system(g, 3, 1, {1.0}); }),
            "make_block_system: dominance 1 must be finite and greater than 1 for the iteration to converge");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      (gen::make_block_system(g, 3, 1, {std::numeric_limits<double>::quiet_NaN()})), InvalidArgument,
      "make_block_system: dominance nan must be finite and greater than 1 for the iteration to converge");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      (gen::make_block_system(g, 3, 1, {std::numeric_limits<double>::infinity()})), InvalidArgument,
      "make_block_system: dominance inf must be finite and greater than 1 for the iteration to converge");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      (gen::make_block_system(g, 3, 1, {-2.0})), InvalidArgument,
      "make_block_system: dominance -2 must be finite and greater than 1 for the iteration to converge");
  // n * nb past 2^31-1 is refused before the graph is even read.
  Graph huge;
  huge.n = 40000000;
  EXPECT_EQ(test::invalid_argument_message([&] { gen::make_block_system(huge, 64, 1); }),
            "make_block_system: 40000000 vertices x block size 64 = 2560000000 unknowns, more than 2^31-1");
  Graph broken;
  broken.n = 3;
  broken.row_ptr = {0, 1, 1, 1};
  broken.adj = {0};
  EXPECT_EQ(test::invalid_argument_message([&] { gen::make_block_system(broken, 2, 1); }),
            "make_block_system: graph: self loop at vertex 0");
}

}  // namespace
}  // namespace ppsparse
