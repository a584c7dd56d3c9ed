#pragma once
/// @file
/// Host FP64 reference for y = alpha*A*x + beta*y and the rounding-error bound used to judge
/// a kernel's result in float or double.
#include <limits>
#include <vector>

#include <ppsparse/formats/csr.hpp>

namespace ppsparse::spmv {

/// The FP64 reference of y = A x and the per-row bound a kernel's result is checked against.
struct SpmvReference {
  std::vector<double> y;          ///< alpha*A*x + beta*y_in, computed in double
  std::vector<double> magnitude;  ///< |alpha| * sum_j |a_ij x_j| + |beta y_in_i|
  std::vector<ordinal_t> length;  ///< entries of row i
};

/// beta == 0 ignores y_in (it may hold NaN); y_in may be empty then. InvalidArgument unless
/// x has ncols entries and y_in has nrows entries (or is empty with beta == 0).
template <class Scalar>
SpmvReference reference_spmv(double alpha, const CsrMatrix<Scalar, HostSpace>& a, const std::vector<double>& x,
                             double beta, const std::vector<double>& y_in);

/// Largest |y_i - ref_i| / bound_i over the rows, with
///   bound_i = tolerance * min(length_i + 2, 2 sqrt(length_i + 2)) * magnitude_i
///             (+ the smallest normal number),
/// where magnitude_i = sum_j |a_ij x_j| (+ |beta y_i|) and tolerance is the unit roundoff of
/// the kernel's type times a small safety factor (default_tolerance). length_i + 2 is the
/// classic worst-case gamma_n of a sum; rounding errors of independent sign grow as sqrt(n)
/// (Higham and Mary's probabilistic bound, here with lambda = 2 x 4 = 8), which is what lets the
/// check see one dropped or mis-indexed entry of a long row: on a 3000-entry row of terms up to 1
/// in FP32 the bound is about 0.02 absolute, where the worst-case form allowed 0.5.
/// A result <= 1 passes. NaN (an unwritten or poisoned entry) gives +inf.
/// InvalidArgument if y and ref differ in size.
template <class Scalar>
double max_error_ratio(const std::vector<Scalar>& y, const SpmvReference& ref, double tolerance);

/// 4 * unit roundoff: 4.4e-16 for double, 2.4e-7 for float.
template <class Scalar>
constexpr double default_tolerance() {
  return 4.0 * 0.5 * static_cast<double>(std::numeric_limits<Scalar>::epsilon());
}

}  // namespace ppsparse::spmv
