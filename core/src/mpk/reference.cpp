#include <ppsparse/mpk/reference.hpp>

#include <cmath>
#include <string>

#include <ppsparse/error.hpp>

namespace ppsparse::mpk {
namespace {

void check_size(size_t size, const MpkReference& ref, const char* what) {
  const size_t expected = static_cast<size_t>(ref.powers + 1) * static_cast<size_t>(ref.n);
  if (size != expected)
    throw InvalidArgument(std::string("mpk ") + what + ": " + std::to_string(size) +
                          " entries, expected (powers+1) x n = " + std::to_string(expected));
}

double bound(const MpkReference& ref, int k, size_t index, double tolerance) {
  return tolerance * k * (ref.max_row_length + 2.0) * ref.magnitude[index] + std::numeric_limits<double>::min();
}

}  // namespace

template <class Scalar>
MpkReference reference_mpk(const CsrMatrix<Scalar, HostSpace>& a, const std::vector<double>& x, int powers) {
  if (a.nrows != a.ncols)
    throw InvalidArgument("mpk reference: the matrix is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) +
                          ", not square");
  if (powers < 1) throw InvalidArgument("mpk reference: powers must be >= 1 (got " + std::to_string(powers) + ")");
  if (x.size() != static_cast<size_t>(a.nrows))
    throw InvalidArgument("mpk reference: x has " + std::to_string(x.size()) + " entries, the matrix has " +
                          std::to_string(a.nrows) + " rows");
  MpkReference ref;
  ref.powers = powers;
  ref.n = a.nrows;
  const size_t n = static_cast<size_t>(a.nrows);
  ref.y.assign((powers + 1) * n, 0.0);
  ref.magnitude.assign((powers + 1) * n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    ref.y[i] = x[i];
    ref.magnitude[i] = std::fabs(x[i]);
    ref.max_row_length =
        std::max<ordinal_t>(ref.max_row_length, static_cast<ordinal_t>(a.row_ptr(i + 1) - a.row_ptr(i)));
  }
  for (int k = 1; k <= powers; ++k) {
    const double* yin = ref.y.data() + (k - 1) * n;
    const double* min = ref.magnitude.data() + (k - 1) * n;
    double* yout = ref.y.data() + k * n;
    double* mout = ref.magnitude.data() + k * n;
    for (size_t i = 0; i < n; ++i) {
      double s = 0, m = 0;
      for (offset_t e = a.row_ptr(i); e < a.row_ptr(i + 1); ++e) {
        const double v = static_cast<double>(a.values(e));
        s += v * yin[a.col_idx(e)];
        m += std::fabs(v) * min[a.col_idx(e)];
      }
      yout[i] = s;
      mout[i] = m;
    }
  }
  return ref;
}

template <class Scalar>
double max_error_ratio(const std::vector<Scalar>& y, const MpkReference& ref, double tolerance) {
  check_size(y.size(), ref, "result");
  const size_t n = static_cast<size_t>(ref.n);
  double worst = 0;
  for (int k = 1; k <= ref.powers; ++k)
    for (size_t i = 0; i < n; ++i) {
      const size_t idx = k * n + i;
      const double d = std::fabs(static_cast<double>(y[idx]) - ref.y[idx]);
      if (std::isnan(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d / bound(ref, k, idx, tolerance));
    }
  return worst;
}

template <class Scalar>
double max_difference_ratio(const std::vector<Scalar>& y1, const std::vector<Scalar>& y2, const MpkReference& ref,
                            double tolerance) {
  check_size(y1.size(), ref, "first result");
  check_size(y2.size(), ref, "second result");
  const size_t n = static_cast<size_t>(ref.n);
  double worst = 0;
  for (int k = 1; k <= ref.powers; ++k)
    for (size_t i = 0; i < n; ++i) {
      const size_t idx = k * n + i;
      const double d = std::fabs(static_cast<double>(y1[idx]) - static_cast<double>(y2[idx]));
      if (std::isnan(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d / (2.0 * bound(ref, k, idx, tolerance)));
    }
  return worst;
}

#define PPSPARSE_MPK_REFERENCE_INSTANTIATE(S)                                                           \
  template MpkReference reference_mpk(const CsrMatrix<S, HostSpace>&, const std::vector<double>&, int); \
  template double max_error_ratio(const std::vector<S>&, const MpkReference&, double);                  \
  template double max_difference_ratio(const std::vector<S>&, const std::vector<S>&, const MpkReference&, double);
PPSPARSE_MPK_REFERENCE_INSTANTIATE(float)
PPSPARSE_MPK_REFERENCE_INSTANTIATE(double)
#undef PPSPARSE_MPK_REFERENCE_INSTANTIATE

}  // namespace ppsparse::mpk
