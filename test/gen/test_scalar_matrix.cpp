#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/gen/grid.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>

#include "test_util.hpp"

namespace ppsparse {
namespace {

// Checks the value properties every generated scalar matrix promises: square, well formed,
// diagonal present, no zero entry, symmetric values, positive diagonal at least 1.25 times
// the off-diagonal absolute sum, and row absolute sums at most 2.75.
void expect_dominant_symmetric(const CsrMatrix<double, HostSpace>& a) {
  ASSERT_EQ(a.nrows, a.ncols);
  ASSERT_NO_THROW(validate(a));
  std::map<std::pair<ordinal_t, ordinal_t>, double> entries;
  for (ordinal_t i = 0; i < a.nrows; ++i)
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) entries[{i, a.col_idx(k)}] = a.values(k);
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    double diag = 0.0, off = 0.0;
    bool has_diag = false;
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
      const ordinal_t j = a.col_idx(k);
      const double x = a.values(k);
      ASSERT_NE(x, 0.0) << "zero entry (" << i << ", " << j << ")";
      if (j == i) {
        diag = x;
        has_diag = true;
        continue;
      }
      off += std::abs(x);
      auto it = entries.find({j, i});
      ASSERT_TRUE(it != entries.end()) << "pattern not symmetric at (" << i << ", " << j << ")";
      ASSERT_EQ(it->second, x) << "values not symmetric at (" << i << ", " << j << ")";
    }
    ASSERT_TRUE(has_diag) << "row " << i << " lacks its diagonal";
    ASSERT_GT(diag, 0.0) << "row " << i;
    ASSERT_GE(diag, 1.25 * off) << "row " << i << " not diagonally dominant";
    ASSERT_LE(diag + off, 2.75) << "row " << i;
  }
}

std::vector<ordinal_t> row_columns(const CsrMatrix<double, HostSpace>& a, ordinal_t i) {
  return std::vector<ordinal_t>(a.col_idx.data() + a.row_ptr(i), a.col_idx.data() + a.row_ptr(i + 1));
}

// Columns a box stencil of radius 1 (27-point) or the axis stencil (7-point) gives point (i,j,k).
std::vector<ordinal_t> stencil_columns(const gen::Grid3& g, ordinal_t i, ordinal_t j, ordinal_t k, bool box) {
  std::vector<ordinal_t> cols;
  for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        const int nonzero = (di != 0) + (dj != 0) + (dk != 0);
        if (!box && nonzero > 1) continue;
        if (g.contains(i + di, j + dj, k + dk)) cols.push_back(g.index(i + di, j + dj, k + dk));
      }
  return cols;
}

TEST(ScalarMatrix, Stencil7ptPatternAndValues) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const gen::Grid3 grid{5, 4, 6};
  const auto a = gen::stencil_7pt(grid.nx, grid.ny, grid.nz, seed);
  ASSERT_EQ(a.nrows, grid.size());
  expect_dominant_symmetric(a);
  int interior = 0;
  for (ordinal_t v = 0; v < a.nrows; ++v) {
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    ASSERT_EQ(row_columns(a, v), stencil_columns(grid, i, j, k, false)) << "row " << v;
    if (a.row_ptr(v + 1) - a.row_ptr(v) == 7) ++interior;
  }
  EXPECT_EQ(interior, 3 * 2 * 4);
}

TEST(ScalarMatrix, Stencil27ptPatternAndValues) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const gen::Grid3 grid{4, 6, 5};
  const auto a = gen::stencil_27pt(grid.nx, grid.ny, grid.nz, seed);
  expect_dominant_symmetric(a);
  int interior = 0;
  for (ordinal_t v = 0; v < a.nrows; ++v) {
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    ASSERT_EQ(row_columns(a, v), stencil_columns(grid, i, j, k, true)) << "row " << v;
    if (a.row_ptr(v + 1) - a.row_ptr(v) == 27) ++interior;
  }
  EXPECT_EQ(interior, 2 * 4 * 3);
}

TEST(ScalarMatrix, DegenerateGrids) {
  const auto single = gen::stencil_27pt(1, 1, 1, 3);
  ASSERT_EQ(single.nrows, 1);
  ASSERT_EQ(single.nnz(), 1);
  EXPECT_GT(single.values(0), 0.0);
  const auto line = gen::stencil_7pt(1, 1, 9, 3);  // a 1D chain along z
  expect_dominant_symmetric(line);
  EXPECT_EQ(line.nnz(), 9 + 2 * 8);
}

TEST(ScalarMatrix, BandMatrixStructure) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (ordinal_t h : {0, 1, 3, 10, 60}) {
    const ordinal_t n = 50;
    const auto a = gen::band_matrix(n, h, seed);
    expect_dominant_symmetric(a);
    for (ordinal_t i = 0; i < n; ++i) {
      std::vector<ordinal_t> expect;
      for (ordinal_t j = std::max(0, i - h); j <= std::min(n - 1, i + h); ++j) expect.push_back(j);
      ASSERT_EQ(row_columns(a, i), expect) << "half bandwidth " << h << " row " << i;
    }
  }
  // band-7: 7 entries in every row away from the ends.
  const auto b7 = gen::band_matrix(20, 3, seed);
  EXPECT_EQ(b7.row_ptr(11) - b7.row_ptr(10), 7);
}

TEST(ScalarMatrix, MatrixOfGraphHasTheGraphPatternPlusTheDiagonal) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Graph g = graph_of(test::random_csr<double>(60, 60, 0, 5, seed));
  const auto a = gen::matrix_of_graph(g, seed);
  expect_dominant_symmetric(a);
  ASSERT_EQ(a.nrows, g.n);
  for (ordinal_t v = 0; v < g.n; ++v) {
    std::vector<ordinal_t> expect(g.adj.begin() + g.row_ptr[v], g.adj.begin() + g.row_ptr[v + 1]);
    expect.insert(std::lower_bound(expect.begin(), expect.end(), v), v);
    ASSERT_EQ(row_columns(a, v), expect) << "row " << v;
  }
  // The empty graph gives the empty matrix.
  const auto empty = gen::matrix_of_graph(Graph{}, seed);
  EXPECT_EQ(empty.nrows, 0);
  EXPECT_EQ(empty.nnz(), 0);
  // A mixed mesh graph, as the MCPI problems use.
  expect_dominant_symmetric(gen::matrix_of_graph(gen::mixed_mesh_graph(5, 4, 3, seed), seed));
}

TEST(ScalarMatrix, SameSeedSameValuesOtherSeedOtherValues) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto makers = std::array<CsrMatrix<double, HostSpace> (*)(std::uint64_t), 4>{
      [](std::uint64_t s) { return gen::stencil_7pt(6, 5, 4, s); },
      [](std::uint64_t s) { return gen::stencil_27pt(4, 5, 6, s); },
      [](std::uint64_t s) { return gen::band_matrix(40, 3, s); },
      [](std::uint64_t s) { return gen::matrix_of_graph(gen::tet_mesh_graph(4, 4, 4), s); }};
  for (auto make : makers) {
    const auto a = make(seed), b = make(seed), c = make(seed ^ 0x5555);
    ASSERT_EQ(a.nnz(), b.nnz());
    ASSERT_EQ(a.nnz(), c.nnz());
    offset_t differing = 0;
    for (offset_t k = 0; k < a.nnz(); ++k) {
      ASSERT_EQ(a.col_idx(k), b.col_idx(k));
      ASSERT_EQ(a.values(k), b.values(k)) << "entry " << k;
      ASSERT_EQ(a.col_idx(k), c.col_idx(k));
      differing += a.values(k) != c.values(k);
    }
    EXPECT_EQ(differing, a.nnz()) << "a new seed should redraw every value";
  }
}

TEST(ScalarMatrix, BadSizesAreRefused) {
  PPSPARSE_EXPECT_THROW_MESSAGE(gen::stencil_7pt(0, 2, 2, 1), InvalidArgument,
                                "stencil_7pt: grid 0 x 2 x 2 has a nonpositive dimension");
  PPSPARSE_EXPECT_THROW_MESSAGE(gen::stencil_27pt(2, 2, -3, 1), InvalidArgument,
                                "stencil_27pt: grid 2 x 2 x -3 has a nonpositive dimension");
  PPSPARSE_EXPECT_THROW_MESSAGE(gen::band_matrix(0, 1, 1), InvalidArgument, "band_matrix: size 0 is not positive");
  EXPECT_EQ(test::invalid_argument_message([] { gen::stencil_27pt(1 << 11, 1 << 10, 1 << 10, 1); }),
            "stencil_27pt: grid 2048 x 1024 x 1024 has more than 2^31-1 (2147483647) points");
  EXPECT_EQ(test::invalid_argument_message([] { gen::stencil_7pt(-4, 2, 2, 1); }),
            "stencil_7pt: grid -4 x 2 x 2 has a nonpositive dimension");
  EXPECT_EQ(test::invalid_argument_message([] { gen::band_matrix(-5, 1, 1); }), "band_matrix: size -5 is not positive");
  EXPECT_EQ(test::invalid_argument_message([] { gen::band_matrix(10, -1, 1); }),
            "band_matrix: half bandwidth -1 is negative");
  Graph asymmetric;
  asymmetric.n = 2;
  asymmetric.row_ptr = {0, 1, 1};
  asymmetric.adj = {1};
  EXPECT_EQ(test::invalid_argument_message([&] { gen::matrix_of_graph(asymmetric, 1); }),
            "matrix_of_graph: graph: edge 0-1 is not symmetric");
}

}  // namespace
}  // namespace ppsparse
