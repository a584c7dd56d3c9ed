// The oracle of every SpMV test, reference_spmv and max_error_ratio, checked on its own: hand-
// computed cases, and mutation tests that run the real kernels on a matrix with one entry
// dropped or two columns swapped and require the check to fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <limits>
#include <random>
#include <vector>

#include <ppsparse/spmv/reference.hpp>
#include <ppsparse/spmv/spmv.hpp>

#include "spmv_test_util.hpp"
#include "test_util.hpp"

namespace ppsparse::test {
namespace {

using spmv::SpmvAlgorithm;
using spmv::SpmvOperator;

// [[2, -1, 0], [0, 0, 0], [0.5, 0, 4]]: row 1 is empty.
CsrMatrix<double, HostSpace> small_matrix() {
  CsrMatrix<double, HostSpace> a(3, 3, 4, "small");
  const offset_t ptr[] = {0, 2, 2, 4};
  const ordinal_t col[] = {0, 1, 0, 2};
  const double val[] = {2.0, -1.0, 0.5, 4.0};
  for (int i = 0; i < 4; ++i) a.row_ptr(i) = ptr[i];
  for (int k = 0; k < 4; ++k) {
    a.col_idx(k) = col[k];
    a.values(k) = val[k];
  }
  return a;
}

TEST(SpmvReference, HandComputedProducts) {
  const auto a = small_matrix();
  // y = 3 A x - 2 y_in with x = (1, 5, -0.25), y_in = (1, 7, 2):
  //   row 0: 3 (2 - 5) - 2 = -11;  magnitude 3 (2 + 5) + 2 = 23;  2 entries
  //   row 1: 3 * 0 - 14 = -14;     magnitude 14;                  0 entries
  //   row 2: 3 (0.5 - 1) - 4 = -5.5; magnitude 3 (0.5 + 1) + 4 = 8.5; 2 entries
  const auto r = spmv::reference_spmv(3.0, a, {1.0, 5.0, -0.25}, -2.0, {1.0, 7.0, 2.0});
  EXPECT_EQ(r.y, (std::vector<double>{-11.0, -14.0, -5.5}));
  EXPECT_EQ(r.magnitude, (std::vector<double>{23.0, 14.0, 8.5}));
  EXPECT_EQ(r.length, (std::vector<ordinal_t>{2, 0, 2}));
  // beta = 0 ignores y_in, which may hold NaN or be empty.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto r0 = spmv::reference_spmv(1.0, a, {1.0, 5.0, -0.25}, 0.0, {nan, nan, nan});
  EXPECT_EQ(r0.y, (std::vector<double>{-3.0, 0.0, -0.5}));
  EXPECT_EQ(r0.magnitude, (std::vector<double>{7.0, 0.0, 1.5}));
  EXPECT_EQ(spmv::reference_spmv(1.0, a, {1.0, 5.0, -0.25}, 0.0, {}).y, r0.y);
}

TEST(SpmvReference, ErrorRatioAgainstHandComputedBounds) {
  const auto a = small_matrix();
  const auto r = spmv::reference_spmv(1.0, a, {1.0, 5.0, -0.25}, 0.0, {});
  // Row 0: 2 entries, bound = tol * min(4, 2 sqrt(4)) * 7 = 28 tol; row 2: 28 tol * 1.5 / 7 = 6 tol.
  const double tol = 1e-3;
  EXPECT_EQ(spmv::max_error_ratio(r.y, r, tol), 0.0);
  EXPECT_NEAR(spmv::max_error_ratio(std::vector<double>{-3.0 + 0.028, 0.0, -0.5}, r, tol), 1.0, 1e-12);
  EXPECT_NEAR(spmv::max_error_ratio(std::vector<double>{-3.0, 0.0, -0.5 - 0.012}, r, tol), 2.0, 1e-12);
  // An empty row's bound is the smallest normal number: any error there fails.
  EXPECT_GT(spmv::max_error_ratio(std::vector<double>{-3.0, 1e-300, -0.5}, r, tol), 1.0);
  // A NaN (an unwritten entry) is an infinite error.
  EXPECT_EQ(spmv::max_error_ratio(std::vector<double>{-3.0, std::numeric_limits<double>::quiet_NaN(), -0.5}, r, tol),
            std::numeric_limits<double>::infinity());
  // Long rows: the bound grows as 2 sqrt(L + 2), not L + 2. 98 entries of 1 x 1: 20 x 98 tol.
  CsrMatrix<double, HostSpace> row(1, 98, 98, "row");
  row.row_ptr(1) = 98;
  for (ordinal_t k = 0; k < 98; ++k) {
    row.col_idx(k) = k;
    row.values(k) = 1.0;
  }
  const auto rr = spmv::reference_spmv(1.0, row, std::vector<double>(98, 1.0), 0.0, {});
  EXPECT_NEAR(spmv::max_error_ratio(std::vector<double>{98.0 + 1960 * tol}, rr, tol), 1.0, 1e-9);
}

TEST(SpmvReference, BadSizesAreRefused) {
  const auto a = small_matrix();
  PPSPARSE_EXPECT_THROW_MESSAGE(spmv::reference_spmv(1.0, a, {1.0, 2.0}, 0.0, {}), InvalidArgument,
                                "reference_spmv: x has 2 entries, the matrix has 3 columns");
  PPSPARSE_EXPECT_THROW_MESSAGE(spmv::reference_spmv(1.0, a, {1.0, 2.0, 3.0}, 1.0, {}), InvalidArgument,
                                "reference_spmv: y has 0 entries, the matrix has 3 rows");
  const auto r = spmv::reference_spmv(1.0, a, {1.0, 2.0, 3.0}, 0.0, {});
  PPSPARSE_EXPECT_THROW_MESSAGE(spmv::max_error_ratio(std::vector<float>(2), r, 1e-6), InvalidArgument,
                                "max_error_ratio: result has 2 entries, the reference 3");
}

// The power-law test matrix (a 3000-entry row among short ones) with that row mutated in a
// typical place, not an extreme one: the term of median size dropped, or the adjacent pair whose
// swap moves the row's result by the median amount (a mis-indexed gather; columns stay sorted).
enum class Mutation { none, drop_median_entry, swap_two_columns };

CsrMatrix<float, HostSpace> mutated(const CsrMatrix<float, HostSpace>& a, const std::vector<double>& x, ordinal_t row,
                                    Mutation m) {
  CsrMatrix<float, HostSpace> b(a.nrows, a.ncols, a.nnz(), "mutated");
  for (ordinal_t i = 0; i <= a.nrows; ++i) b.row_ptr(i) = a.row_ptr(i);
  for (offset_t k = 0; k < a.nnz(); ++k) {
    b.col_idx(k) = a.col_idx(k);
    b.values(k) = a.values(k);
  }
  const offset_t lo = a.row_ptr(row), hi = a.row_ptr(row + 1);
  // (effect on y_row, position) of each candidate, the median taken.
  std::vector<std::pair<double, offset_t>> effect;
  for (offset_t k = lo; k < hi; ++k) {
    if (m == Mutation::drop_median_entry)
      effect.emplace_back(std::fabs(a.values(k) * x[a.col_idx(k)]), k);
    else if (m == Mutation::swap_two_columns && k + 1 < hi)
      effect.emplace_back(std::fabs((a.values(k) - a.values(k + 1)) * (x[a.col_idx(k)] - x[a.col_idx(k + 1)])), k);
  }
  if (effect.empty()) return b;
  std::nth_element(effect.begin(), effect.begin() + effect.size() / 2, effect.end());
  const offset_t k = effect[effect.size() / 2].second;
  if (m == Mutation::drop_median_entry) b.values(k) = 0.0f;  // the kernel skips the term a_ij x_j
  if (m == Mutation::swap_two_columns) std::swap(b.values(k), b.values(k + 1));
  return b;
}

// Every SpMV algorithm in FP32 on the power-law matrix: exact input passes the oracle; the same
// kernel fed one dropped entry or one swapped pair of columns of the long row fails it. (With
// the worst-case bound tol (L + 2) sum |a x|, about 0.5 on this row, both mutations passed.)
TEST(SpmvReference, CatchesOneWrongEntryOfALongRowInEveryKernel) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = convert_values<float>(power_law_csr(500, 3000, seed));
  ordinal_t longest = 0;
  for (ordinal_t i = 0; i < a.nrows; ++i)
    if (a.row_ptr(i + 1) - a.row_ptr(i) > a.row_ptr(longest + 1) - a.row_ptr(longest)) longest = i;
  ASSERT_EQ(a.row_ptr(longest + 1) - a.row_ptr(longest), 3000);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<float> x(static_cast<size_t>(a.ncols));
  for (auto& v : x) v = static_cast<float>(u(rng));
  const std::vector<double> x64(x.begin(), x.end());
  const auto ref = spmv::reference_spmv(1.0, a, x64, 0.0, {});
  const auto xd = to_device(x, "x");
  for (Mutation m : {Mutation::none, Mutation::drop_median_entry, Mutation::swap_two_columns}) {
    const auto ad = copy_to<Mem>(mutated(a, x64, longest, m));
    for (SpmvAlgorithm alg : spmv::all_spmv_algorithms()) {
      SpmvOperator<Exec, float> op(alg, ad);
      Kokkos::View<float*, Mem> yd("y", static_cast<size_t>(a.nrows));
      Kokkos::deep_copy(yd, std::numeric_limits<float>::quiet_NaN());
      op.apply(1.0f, spmv::ConstVector<float, Mem>(xd), 0.0f, yd);
      const double ratio = spmv::max_error_ratio(to_host(yd), ref, spmv::default_tolerance<float>());
      SCOPED_TRACE(op.describe() + ", mutation " + std::to_string(static_cast<int>(m)));
      if (m == Mutation::none)
        EXPECT_LE(ratio, 1.0);
      else
        EXPECT_GT(ratio, 1.0) << "the oracle missed one wrong entry of a 3000-entry row";
    }
  }
}

}  // namespace
}  // namespace ppsparse::test
