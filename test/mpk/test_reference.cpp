#include <gtest/gtest.h>

#include <cmath>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/mpk/reference.hpp>

#include "mpk_test_util.hpp"

#include "test_util.hpp"

namespace ppsparse {
namespace {

TEST(MpkReference, PowersOfASmallMatrixByHand) {
  // A = [[2, 1], [0, -1]]: A x for x = (1, 1) is (3, -1), A^2 x = (5, 1), A^3 x = (11, -1).
  CsrMatrix<double, HostSpace> a(2, 2, 3);
  a.row_ptr(1) = 2;
  a.row_ptr(2) = 3;
  a.col_idx(0) = 0;
  a.values(0) = 2;
  a.col_idx(1) = 1;
  a.values(1) = 1;
  a.col_idx(2) = 1;
  a.values(2) = -1;
  const auto ref = mpk::reference_mpk(a, {1.0, 1.0}, 3);
  EXPECT_EQ(ref.y, (std::vector<double>{1, 1, 3, -1, 5, 1, 11, -1}));
  EXPECT_EQ(ref.magnitude, (std::vector<double>{1, 1, 3, 1, 7, 1, 15, 1}));
  EXPECT_EQ(ref.max_row_length, 2);
}

TEST(MpkReference, ErrorRatioAcceptsRoundingAndRejectsAnError) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = gen::stencil_7pt(6, 5, 4, seed);
  std::vector<double> x(static_cast<size_t>(a.nrows));
  std::mt19937_64 rng(seed);
  for (auto& v : x) v = std::uniform_real_distribution<double>(-1, 1)(rng);
  const int p = 5;
  const auto ref = mpk::reference_mpk(a, x, p);
  // The same powers in float pass the float bound and fail the double one.
  const auto af = convert_values<float>(a);
  std::vector<float> yf(ref.y.size());
  for (size_t i = 0; i < x.size(); ++i) yf[i] = static_cast<float>(x[i]);
  std::vector<double> xf(yf.begin(), yf.begin() + x.size());
  const auto reff = mpk::reference_mpk(af, xf, p);
  for (size_t k = 1; k <= static_cast<size_t>(p); ++k)
    for (size_t i = 0; i < x.size(); ++i) {
      float s = 0;
      for (offset_t e = af.row_ptr(i); e < af.row_ptr(i + 1); ++e)
        s += af.values(e) * yf[(k - 1) * x.size() + af.col_idx(e)];
      yf[k * x.size() + i] = s;
    }
  EXPECT_LE(mpk::max_error_ratio(yf, reff, mpk::default_tolerance<float>()), 1.0);
  EXPECT_GT(mpk::max_error_ratio(yf, reff, mpk::default_tolerance<double>()), 1.0);
  // A wrong entry, a NaN, and two results that differ are caught.
  std::vector<double> y = ref.y;
  EXPECT_EQ(mpk::max_error_ratio(y, ref, mpk::default_tolerance<double>()), 0.0);
  y[3 * x.size() + 7] *= 1.0 + 1e-9;
  EXPECT_GT(mpk::max_error_ratio(y, ref, mpk::default_tolerance<double>()), 1.0);
  EXPECT_GT(mpk::max_difference_ratio(y, ref.y, ref, mpk::default_tolerance<double>()), 1.0);
  y[3 * x.size() + 7] = std::nan("");
  EXPECT_TRUE(std::isinf(mpk::max_error_ratio(y, ref, mpk::default_tolerance<double>())));
}

TEST(MpkReference, BadInputsAreRefused) {
  const auto a = gen::band_matrix(10, 1, 1);
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::reference_mpk(a, std::vector<double>(9, 1.0), 2), InvalidArgument,
                                "mpk reference: x has 9 entries, the matrix has 10 rows");
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::reference_mpk(a, std::vector<double>(10, 1.0), 0), InvalidArgument,
                                "mpk reference: powers must be >= 1 (got 0)");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      mpk::reference_mpk(test::random_csr<double>(4, 5, 1, 2, 1), std::vector<double>(5, 1.0), 1), InvalidArgument,
      "mpk reference: the matrix is 4 x 5, not square");
  const auto ref = mpk::reference_mpk(a, std::vector<double>(10, 1.0), 2);
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::max_error_ratio(std::vector<double>(20), ref, 1e-15), InvalidArgument,
                                "mpk result: 20 entries, expected (powers+1) x n = 30");
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::max_difference_ratio(std::vector<double>(30), std::vector<double>(29), ref, 1e-15),
                                InvalidArgument, "mpk second result: 29 entries, expected (powers+1) x n = 30");
}

}  // namespace
}  // namespace ppsparse
