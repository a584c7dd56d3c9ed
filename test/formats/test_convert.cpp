#include <gtest/gtest.h>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>

#include "test_util.hpp"

namespace ppsparse {
namespace {

template <class S>
void expect_same(const CsrMatrix<S, HostSpace>& a, const CsrMatrix<S, HostSpace>& b) {
  ASSERT_EQ(a.nrows, b.nrows);
  ASSERT_EQ(a.ncols, b.ncols);
  ASSERT_EQ(a.nnz(), b.nnz());
  for (ordinal_t i = 0; i <= a.nrows; ++i) ASSERT_EQ(a.row_ptr(i), b.row_ptr(i)) << "row_ptr " << i;
  for (offset_t k = 0; k < a.nnz(); ++k) {
    ASSERT_EQ(a.col_idx(k), b.col_idx(k)) << "entry " << k;
    ASSERT_EQ(a.values(k), b.values(k)) << "entry " << k;  // exact: no arithmetic
  }
}

// A CSR whose pattern is block-dense for nb (the scalar matrix of a block system).
CsrMatrix<double, HostSpace> block_dense_csr(ordinal_t nbr, int nb, std::uint64_t seed) {
  auto pattern = test::random_csr<double>(nbr, nbr, 0, 6, seed);
  auto bsr = csr_to_bsr(pattern, 1);
  BsrMatrix<double, HostSpace> big(nb, nbr, nbr, bsr.nnzb());
  Kokkos::deep_copy(big.ia, bsr.ia);
  Kokkos::deep_copy(big.ja, bsr.ja);
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<double> v(-1, 1);
  for (size_t e = 0; e < big.values.extent(0); ++e) big.values(e) = v(rng);
  return bsr_to_csr(big);
}

TEST(Convert, CsrValidateAcceptsRandom) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto a = test::random_csr<double>(50, 40, 0, 12, seed);
  EXPECT_NO_THROW(validate(a));
}

TEST(Convert, CsrValidateRejectsUnsortedAndOutOfRange) {
  auto a = test::random_csr<double>(5, 5, 2, 2, 7);
  std::swap(a.col_idx(0), a.col_idx(1));
  PPSPARSE_EXPECT_THROW_MESSAGE(validate(a), InvalidArgument,
                                "CSR matrix: column indices not strictly increasing in row 0");
  auto b = test::random_csr<double>(5, 5, 2, 2, 7);
  b.col_idx(3) = 5;
  PPSPARSE_EXPECT_THROW_MESSAGE(validate(b), InvalidArgument, "CSR matrix: column index 5 out of range in row 1");
}

TEST(Convert, BsrToCsrToBsrIsExact) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int nb : {1, 2, 3, 5, 7}) {
    auto c = block_dense_csr(37, nb, seed + nb);
    auto b = csr_to_bsr(c, nb);
    validate(b);
    auto c2 = bsr_to_csr(b);
    expect_same(c, c2);
    auto b2 = csr_to_bsr(c2, nb);
    ASSERT_EQ(b.nnzb(), b2.nnzb());
    for (size_t e = 0; e < b.values.extent(0); ++e) ASSERT_EQ(b.values(e), b2.values(e));
  }
}

TEST(Convert, CsrToBsrFillsMissingBlockEntriesWithZero) {
  CsrMatrix<float, HostSpace> a(4, 4, 2);
  a.row_ptr(1) = 1;
  a.row_ptr(2) = 1;
  a.row_ptr(3) = 2;
  a.row_ptr(4) = 2;
  a.col_idx(0) = 1;
  a.values(0) = 3.0f;  // (0,1) -> block (0,0), entry (0,1)
  a.col_idx(1) = 3;
  a.values(1) = -2.0f;  // (2,3) -> block (1,1), entry (0,1)
  auto b = csr_to_bsr(a, 2);
  ASSERT_EQ(b.nnzb(), 2);
  EXPECT_EQ(b.ja(0), 0);
  EXPECT_EQ(b.ja(1), 1);
  EXPECT_EQ(b.values(block_entry(2, 0, 1)), 3.0f);
  EXPECT_EQ(b.values(block_entry(2, 1, 0)), 0.0f);
  EXPECT_EQ(b.values(4 + block_entry(2, 0, 1)), -2.0f);
}

TEST(Convert, CsrToBsrRejectsNonDividingBlock) {
  auto a = test::random_csr<double>(10, 10, 1, 3, 3);
  PPSPARSE_EXPECT_THROW_MESSAGE(csr_to_bsr(a, 3), InvalidArgument,
                                "csr_to_bsr: block size 3 does not divide the matrix size 10 x 10");
  PPSPARSE_EXPECT_THROW_MESSAGE(csr_to_bsr(a, 0), InvalidArgument, "csr_to_bsr: block size 0 is not positive");
}

TEST(Convert, CsrToSellToCsrIsExactForAllChunksAndScopes) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Includes empty rows and one long row; sizes not multiples of C.
  auto a = test::random_csr<float>(203, 150, 0, 9, seed);
  for (int C : {1, 4, 8, 32}) {
    for (ordinal_t sigma : {1, C, 4 * C, 1 << 20}) {
      auto s = csr_to_sell(a, C, sigma);
      EXPECT_EQ(s.nnz, a.nnz());
      EXPECT_GE(s.fill_ratio(), 1.0);
      // perm is a bijection
      std::vector<int> seen(a.nrows, 0);
      for (ordinal_t p = 0; p < a.nrows; ++p) ++seen[s.perm(p)];
      for (int x : seen) ASSERT_EQ(x, 1);
      expect_same(a, sell_to_csr(s));
    }
  }
}

TEST(Convert, SellSortsWithinScopeOnly) {
  auto a = test::random_csr<double>(64, 64, 0, 20, 11);
  auto s = csr_to_sell(a, 4, 16);
  for (ordinal_t p = 0; p < 64; ++p) {
    EXPECT_EQ(s.perm(p) / 16, p / 16) << "row left its sorting window";
    if (p % 16 != 0) EXPECT_GE(s.row_len(p - 1), s.row_len(p));
  }
}

TEST(Convert, BsrToSellRoundTrip) {
  auto c = block_dense_csr(20, 3, 5);
  auto b = csr_to_bsr(c, 3);
  auto s = bsr_to_sell(b, 8, 32);
  expect_same(c, sell_to_csr(s));
}

TEST(Convert, EmptyMatrices) {
  CsrMatrix<double, HostSpace> a(0, 0, 0);
  EXPECT_NO_THROW(validate(a));
  auto s = csr_to_sell(a, 32, 1);
  EXPECT_EQ(s.nchunks, 0);
  expect_same(a, sell_to_csr(s));
  auto b = csr_to_bsr(a, 4);
  EXPECT_EQ(b.nnzb(), 0);
}

TEST(Convert, BlockSystemToCsrMergesDiagonal) {
  BlockSystem<HostSpace> s;
  s.nb = 2;
  s.n = 2;
  s.O = BsrMatrix<float, HostSpace>(2, 2, 2, 1);
  s.O.ia(1) = 1;
  s.O.ia(2) = 1;
  s.O.ja(0) = 1;
  for (int e = 0; e < 4; ++e) s.O.values(e) = 10.0f + e;
  s.D = Kokkos::View<double*, HostSpace>("D", 8);
  for (int e = 0; e < 8; ++e) s.D(e) = e + 1.0;
  s.R = Kokkos::View<double*, HostSpace>("R", 4);
  auto c = block_system_to_csr(s);
  ASSERT_EQ(c.nnz(), 12);
  // Row 0: D0 (col-major: (0,0)=1,(0,1)=3), then O block (0,0)=10,(0,1)=12.
  EXPECT_EQ(c.values(0), 1.0);
  EXPECT_EQ(c.values(1), 3.0);
  EXPECT_EQ(c.values(2), 10.0);
  EXPECT_EQ(c.values(3), 12.0);
  s.d_factored = true;
  PPSPARSE_EXPECT_THROW_MESSAGE(block_system_to_csr(s), InvalidArgument,
                                "block_system_to_csr: D is LU-factored in place; convert before factoring");
}

}  // namespace
}  // namespace ppsparse
