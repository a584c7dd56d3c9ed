#include <ppsparse/spmv/reference.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <ppsparse/error.hpp>

namespace ppsparse::spmv {

template <class Scalar>
SpmvReference reference_spmv(double alpha, const CsrMatrix<Scalar, HostSpace>& a, const std::vector<double>& x,
                             double beta, const std::vector<double>& y_in) {
  const std::string who = "reference_spmv";
  if (x.size() != static_cast<size_t>(a.ncols))
    throw InvalidArgument(who + ": x has " + std::to_string(x.size()) + " entries, the matrix has " +
                          std::to_string(a.ncols) + " columns");
  const bool reads_y = beta != 0.0;
  if (y_in.size() != static_cast<size_t>(a.nrows) && (reads_y || !y_in.empty()))
    throw InvalidArgument(who + ": y has " + std::to_string(y_in.size()) + " entries, the matrix has " +
                          std::to_string(a.nrows) + " rows");
  SpmvReference r;
  r.y.resize(a.nrows);
  r.magnitude.resize(a.nrows);
  r.length.resize(a.nrows);
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    double sum = 0, mag = 0;
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
      const double p = static_cast<double>(a.values(k)) * x[a.col_idx(k)];
      sum += p;
      mag += std::fabs(p);
    }
    r.y[i] = alpha * sum + (reads_y ? beta * y_in[i] : 0.0);
    r.magnitude[i] = std::fabs(alpha) * mag + (reads_y ? std::fabs(beta * y_in[i]) : 0.0);
    r.length[i] = static_cast<ordinal_t>(a.row_ptr(i + 1) - a.row_ptr(i));
  }
  return r;
}

template <class Scalar>
double max_error_ratio(const std::vector<Scalar>& y, const SpmvReference& ref, double tolerance) {
  if (y.size() != ref.y.size())
    throw InvalidArgument("max_error_ratio: result has " + std::to_string(y.size()) + " entries, the reference " +
                          std::to_string(ref.y.size()));
  double worst = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double v = static_cast<double>(y[i]);
    if (std::isnan(v)) return std::numeric_limits<double>::infinity();
    const double terms = ref.length[i] + 2.0;
    const double bound =
        tolerance * std::min(terms, 2.0 * std::sqrt(terms)) * ref.magnitude[i] + std::numeric_limits<double>::min();
    worst = std::max(worst, std::fabs(v - ref.y[i]) / bound);
  }
  return worst;
}

#define PPSPARSE_INSTANTIATE_REFERENCE(S)                                                                              \
  template SpmvReference reference_spmv<S>(double, const CsrMatrix<S, HostSpace>&, const std::vector<double>&, double, \
                                           const std::vector<double>&);                                                \
  template double max_error_ratio<S>(const std::vector<S>&, const SpmvReference&, double);

PPSPARSE_INSTANTIATE_REFERENCE(float)
PPSPARSE_INSTANTIATE_REFERENCE(double)

}  // namespace ppsparse::spmv
