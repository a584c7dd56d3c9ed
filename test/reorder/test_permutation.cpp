#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/reorder/permutation.hpp>
#include <random>

#include "test_util.hpp"

namespace ppsparse {
namespace {

Permutation random_permutation(ordinal_t n, std::uint64_t seed) {
  std::vector<ordinal_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(p.begin(), p.end(), rng);
  return Permutation::from_new_to_old(p);
}

template <class S>
std::vector<double> dense(const CsrMatrix<S, HostSpace>& a) {
  std::vector<double> d(static_cast<size_t>(a.nrows) * a.ncols, 0.0);
  for (ordinal_t i = 0; i < a.nrows; ++i)
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k)
      d[static_cast<size_t>(i) * a.ncols + a.col_idx(k)] = static_cast<double>(a.values(k));
  return d;
}

// Explicit P A P^T of a dense n x n matrix: entry (new_to_old[i], new_to_old[j]) -> (i, j),
// where each index stands for `block` consecutive rows/columns.
std::vector<double> dense_permuted(const std::vector<double>& d, ordinal_t n, const Permutation& p, int block = 1) {
  const size_t m = static_cast<size_t>(n) * block;
  std::vector<double> out(m * m);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < m; ++j) {
      const size_t oi = static_cast<size_t>(p.new_to_old[i / block]) * block + i % block;
      const size_t oj = static_cast<size_t>(p.new_to_old[j / block]) * block + j % block;
      out[i * m + j] = d[oi * m + oj];
    }
  return out;
}

TEST(Permutation, ConstructionChecksBijection) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (ordinal_t n : {0, 1, 2, 17, 500}) {
    const auto p = random_permutation(n, seed + n);
    EXPECT_TRUE(is_bijection(p.new_to_old));
    EXPECT_TRUE(is_bijection(p.old_to_new));
    EXPECT_EQ(p.size(), n);
    for (ordinal_t i = 0; i < n; ++i) ASSERT_EQ(p.old_to_new[p.new_to_old[i]], i);
    EXPECT_NO_THROW(check_permutation(p, n, "test"));
    const auto q = Permutation::from_old_to_new(p.old_to_new);
    EXPECT_EQ(q.new_to_old, p.new_to_old);
  }
  const auto id = Permutation::identity(4);
  EXPECT_EQ(id.new_to_old, (std::vector<ordinal_t>{0, 1, 2, 3}));
  EXPECT_EQ(id.old_to_new, id.new_to_old);
  EXPECT_EQ(Permutation::identity(0).size(), 0);
  EXPECT_FALSE(is_bijection({0, 0}));
  EXPECT_FALSE(is_bijection({1, 2}));
  EXPECT_FALSE(is_bijection({-1, 0}));
  EXPECT_TRUE(is_bijection({}));
}

TEST(Permutation, BadPermutationsAreRefused) {
  EXPECT_EQ(test::invalid_argument_message([] {
              Permutation::from_new_to_old({2, 0, 2});
            }),
            "Permutation::from_new_to_old: value 2 appears at entries 0 and 2");
  EXPECT_EQ(test::invalid_argument_message([] {
              Permutation::from_new_to_old({0, 3, 1});
            }),
            "Permutation::from_new_to_old: entry 1 is 3, outside [0, 3)");
  EXPECT_EQ(test::invalid_argument_message([] {
              Permutation::from_old_to_new({-1, 0});
            }),
            "Permutation::from_old_to_new: entry 0 is -1, outside [0, 2)");
  EXPECT_EQ(test::invalid_argument_message([] { Permutation::identity(-2); }),
            "Permutation::identity: size -2 is negative");
  // A hand-built Permutation whose two maps disagree is caught where it is used.
  Permutation broken = Permutation::identity(3);
  std::swap(broken.new_to_old[0], broken.new_to_old[1]);
  EXPECT_EQ(test::invalid_argument_message([&] { permute(gen::tet_mesh_graph(3, 1, 1), broken); }),
            "permute(graph): permutation maps are not inverse bijections at new index 0");
  EXPECT_EQ(test::invalid_argument_message([] { permute(gen::tet_mesh_graph(2, 2, 1), Permutation::identity(3)); }),
            "permute(graph): permutation has 3 new-to-old and 3 old-to-new entries, expected 4");
}

TEST(Permutation, VectorsRoundTrip) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int block : {1, 3, 7}) {
    const ordinal_t n = 41;
    const auto p = random_permutation(n, seed + block);
    std::vector<double> x(static_cast<size_t>(n) * block);
    std::mt19937_64 rng(seed);
    for (auto& v : x) v = std::uniform_real_distribution<double>(-1, 1)(rng);
    const auto y = to_new(x, p, block);
    for (ordinal_t i = 0; i < n; ++i)
      for (int b = 0; b < block; ++b) ASSERT_EQ(y[i * block + b], x[p.new_to_old[i] * block + b]);
    EXPECT_EQ(to_old(y, p, block), x);
    EXPECT_EQ(to_new(to_old(x, p, block), p, block), x);
  }
  const std::vector<int> empty;
  EXPECT_TRUE(to_new(empty, Permutation::identity(0)).empty());
  EXPECT_EQ(test::invalid_argument_message([] { to_new(std::vector<float>(5), Permutation::identity(2), 2); }),
            "to_new: vector has 5 entries, expected 2 x block 2");
  EXPECT_EQ(test::invalid_argument_message([] { to_old(std::vector<float>(4), Permutation::identity(2), 0); }),
            "to_old: block size 0 is not positive");
}

template <class S>
void check_csr_permutation(std::uint64_t seed) {
  for (ordinal_t n : {0, 1, 2, 13, 40}) {
    const auto a = test::random_csr<S>(n, n, 0, std::min<int>(n, 8), seed + n);
    const auto p = random_permutation(n, seed ^ n);
    const auto b = permute(a, p);
    ASSERT_NO_THROW(validate(b));  // rows sorted
    ASSERT_EQ(b.nnz(), a.nnz());
    EXPECT_EQ(dense(b), dense_permuted(dense(a), n, p)) << "n " << n;
    // Undoing the permutation restores the matrix exactly.
    const auto back = permute(b, Permutation::from_new_to_old(p.old_to_new));
    EXPECT_EQ(dense(back), dense(a));
  }
}

TEST(Permutation, CsrEqualsExplicitPAPt) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  check_csr_permutation<double>(seed);
  check_csr_permutation<float>(seed);
  const auto rect = test::random_csr<double>(3, 4, 1, 2, seed);
  EXPECT_EQ(test::invalid_argument_message([&] { permute(rect, Permutation::identity(3)); }),
            "permute: matrix is 3 x 4, not square");
  const auto sq = test::random_csr<double>(4, 4, 1, 2, seed);
  PPSPARSE_EXPECT_THROW_MESSAGE(permute(sq, Permutation::identity(5)), InvalidArgument,
                                "permute(CSR): permutation has 5 new-to-old and 5 old-to-new entries, expected 4");
}

template <class S>
void check_bsr_permutation(std::uint64_t seed) {
  for (int nb : {1, 2, 5}) {
    const ordinal_t n = 23;
    const Graph g = graph_of(test::random_csr<double>(n, n, 0, 5, seed + nb));
    const auto s = gen::make_block_system(g, nb, seed);
    BsrMatrix<S, HostSpace> a(nb, n, n, s.O.nnzb());
    Kokkos::deep_copy(a.ia, s.O.ia);
    Kokkos::deep_copy(a.ja, s.O.ja);
    for (size_t e = 0; e < a.values.extent(0); ++e) a.values(e) = static_cast<S>(s.O.values(e));
    const auto p = random_permutation(n, seed * 3 + nb);
    const auto b = permute(a, p);
    ASSERT_NO_THROW(validate(b));
    EXPECT_EQ(dense(bsr_to_csr(b)), dense_permuted(dense(bsr_to_csr(a)), n, p, nb)) << "nb " << nb;
  }
}

TEST(Permutation, BsrEqualsExplicitPAPtOnBlocks) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  check_bsr_permutation<float>(seed);
  check_bsr_permutation<double>(seed);
  BsrMatrix<float, HostSpace> rect(2, 3, 2, 0);
  PPSPARSE_EXPECT_THROW_MESSAGE(permute(rect, Permutation::identity(3)), InvalidArgument,
                                "permute: block matrix is 3 x 2 blocks, not square");
}

TEST(Permutation, BlockSystemMovesODAndRTogether) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int nb = 3;
  const Graph g = gen::mixed_mesh_graph(3, 3, 2, seed);
  const auto s = gen::make_block_system(g, nb, seed);
  const auto p = random_permutation(g.n, seed + 9);
  const auto t = permute(s, p);
  EXPECT_EQ(t.n, s.n);
  EXPECT_EQ(t.nb, s.nb);
  EXPECT_EQ(dense(block_system_to_csr(t)), dense_permuted(dense(block_system_to_csr(s)), g.n, p, nb));
  const std::vector<double> r(s.R.data(), s.R.data() + s.R.extent(0));
  const std::vector<double> tr(t.R.data(), t.R.data() + t.R.extent(0));
  EXPECT_EQ(tr, to_new(r, p, nb));
  auto bad = s;
  bad.R = Kokkos::View<double*, HostSpace>("R", 2);
  PPSPARSE_EXPECT_THROW_MESSAGE(permute(bad, p), InvalidArgument,
                                "permute: block system of 18 block rows with nb 3 has inconsistent O, D or R sizes");
}

TEST(Permutation, GraphAndComposition) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Graph g = gen::mixed_mesh_graph(4, 3, 3, seed);
  const auto f = random_permutation(g.n, seed + 1), t = random_permutation(g.n, seed + 2);
  const Graph h = permute(g, f);
  ASSERT_NO_THROW(validate(h));
  for (ordinal_t i = 0; i < g.n; ++i)
    for (offset_t k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) {
      const ordinal_t ni = f.old_to_new[i], nj = f.old_to_new[g.adj[k]];
      ASSERT_TRUE(std::binary_search(h.adj.begin() + h.row_ptr[ni], h.adj.begin() + h.row_ptr[ni + 1], nj));
    }
  EXPECT_EQ(h.num_edges_directed(), g.num_edges_directed());
  const Graph twice = permute(permute(g, f), t);
  const Graph once = permute(g, compose(f, t));
  EXPECT_EQ(twice.row_ptr, once.row_ptr);
  EXPECT_EQ(twice.adj, once.adj);
  const auto a = test::random_csr<double>(30, 30, 1, 6, seed);
  const auto f30 = random_permutation(30, seed + 3), t30 = random_permutation(30, seed + 4);
  EXPECT_EQ(dense(permute(permute(a, f30), t30)), dense(permute(a, compose(f30, t30))));
  PPSPARSE_EXPECT_THROW_MESSAGE(compose(f30, Permutation::identity(31)), InvalidArgument,
                                "compose: then: permutation has 31 new-to-old and 31 old-to-new entries, expected 30");
  // n = 0 and n = 1.
  EXPECT_EQ(permute(Graph{}, Permutation::identity(0)).n, 0);
  Graph one;
  one.n = 1;
  one.row_ptr = {0, 0};
  EXPECT_EQ(permute(one, Permutation::identity(1)).row_ptr, one.row_ptr);
}

}  // namespace
}  // namespace ppsparse
