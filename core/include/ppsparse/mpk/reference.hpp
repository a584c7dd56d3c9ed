#pragma once
/// @file
/// Host FP64 reference of the matrix power kernel and the round-off bound its results are
/// judged by. Vectors of p+1 columns are stored column after column: entry i of y_k is
/// y[k * n + i] (column 0 is x).
///
/// Bound: with m the longest row, each product adds at most gamma_m |A| |y_{k-1}| (classic
/// recursive-sum bound) and A carries earlier errors forward, so to first order
///   |y_k - fl(y_k)| <= k * m * u * (|A|^k |x|),
/// with u the unit roundoff. The check uses tolerance * k * (m + 2) * magnitude_k (+ the
/// smallest normal number), magnitude_k = |A|^k |x| computed in FP64.
#include <limits>
#include <vector>

#include <ppsparse/formats/csr.hpp>

namespace ppsparse::mpk {

/// The FP64 reference powers of a matrix, and the bound a variant's result is checked against.
struct MpkReference {
  int powers = 0;
  ordinal_t n = 0;
  ordinal_t max_row_length = 0;
  std::vector<double> y;          ///< (powers + 1) * n: A^k x
  std::vector<double> magnitude;  ///< (powers + 1) * n: |A|^k |x|
};

/// InvalidArgument unless a is square, powers >= 1 and x has n entries.
template <class Scalar>
MpkReference reference_mpk(const CsrMatrix<Scalar, HostSpace>& a, const std::vector<double>& x, int powers);

/// Largest |y_k,i - ref_k,i| / bound_k,i over k = 1..p and all i (bound above); <= 1 passes.
/// NaN gives +inf. InvalidArgument unless y has (powers + 1) * n entries.
template <class Scalar>
double max_error_ratio(const std::vector<Scalar>& y, const MpkReference& ref, double tolerance);

/// Largest |y1_k,i - y2_k,i| / (2 bound_k,i): two results that each meet the bound differ by
/// at most twice it, so <= 1 means they agree to round-off. Same sizes and NaN rule as above.
template <class Scalar>
double max_difference_ratio(const std::vector<Scalar>& y1, const std::vector<Scalar>& y2, const MpkReference& ref,
                            double tolerance);

/// 4 * unit roundoff of Scalar (as spmv::default_tolerance).
template <class Scalar>
constexpr double default_tolerance() {
  return 4.0 * 0.5 * static_cast<double>(std::numeric_limits<Scalar>::epsilon());
}

}  // namespace ppsparse::mpk
