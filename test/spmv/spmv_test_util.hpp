#pragma once
// Shared pieces of the SpMV tests: matrix families with the awkward cases, device copies,
// and one routine that runs a product and compares it with the FP64 host reference.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/spmv/reference.hpp>
#include <ppsparse/spmv/vectors.hpp>

#include "test_util.hpp"

namespace ppsparse::test {

using Exec = DefaultExecSpace;
using Mem = DefaultMemSpace;

struct NamedMatrix {
  std::string name;
  CsrMatrix<double, HostSpace> a;
};

// Host CSR from per-row sorted column lists; values uniform in [-1, 1], never 0.
inline CsrMatrix<double, HostSpace> csr_from_rows(ordinal_t ncols, const std::vector<std::vector<ordinal_t>>& rows,
                                                  std::mt19937_64& rng) {
  offset_t nnz = 0;
  for (const auto& r : rows) nnz += static_cast<offset_t>(r.size());
  CsrMatrix<double, HostSpace> a(static_cast<ordinal_t>(rows.size()), ncols, nnz, "test");
  std::uniform_real_distribution<double> v(-1.0, 1.0);
  offset_t pos = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (ordinal_t c : rows[i]) {
      a.col_idx(pos) = c;
      const double x = v(rng);
      a.values(pos++) = x == 0.0 ? 0.25 : x;
    }
    a.row_ptr(i + 1) = pos;
  }
  return a;
}

// Distinct sorted random columns.
inline std::vector<ordinal_t> random_columns(ordinal_t ncols, ordinal_t len, std::mt19937_64& rng) {
  std::vector<ordinal_t> all(static_cast<size_t>(ncols));
  for (ordinal_t c = 0; c < ncols; ++c) all[c] = c;
  len = std::min(len, ncols);
  for (ordinal_t k = 0; k < len; ++k)
    std::swap(all[k], all[k + std::uniform_int_distribution<ordinal_t>(0, ncols - 1 - k)(rng)]);
  std::vector<ordinal_t> r(all.begin(), all.begin() + len);
  std::sort(r.begin(), r.end());
  return r;
}

// Row lengths of a power law: P(len >= l) ~ l^-1.3, from 0 up to ncols.
inline CsrMatrix<double, HostSpace> power_law_csr(ordinal_t nrows, ordinal_t ncols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::vector<ordinal_t>> rows(static_cast<size_t>(nrows));
  for (auto& r : rows) {
    const double l = std::floor(std::pow(1.0 - u(rng), -1.0 / 1.3)) - 1.0;  // 0, 1, 2, ... heavy tail
    r = random_columns(ncols, static_cast<ordinal_t>(std::min<double>(l, ncols)), rng);
  }
  // One full row so that the longest row is certain.
  rows[static_cast<size_t>(nrows / 3)] = random_columns(ncols, ncols, rng);
  return csr_from_rows(ncols, rows, rng);
}

// The families every kernel is run on (sizes small: the whole suite stays fast).
inline std::vector<NamedMatrix> matrix_families(std::uint64_t seed) {
  std::vector<NamedMatrix> m;
  std::mt19937_64 rng(seed ^ 0x5eed);
  m.push_back({"random_with_empty_rows", random_csr<double>(300, 200, 0, 12, seed)});
  {
    auto rows = std::vector<std::vector<ordinal_t>>(150);
    for (auto& r : rows) r = random_columns(150, std::uniform_int_distribution<ordinal_t>(0, 5)(rng), rng);
    rows[17] = random_columns(150, 150, rng);  // a single dense row
    m.push_back({"single_dense_row", csr_from_rows(150, rows, rng)});
  }
  m.push_back({"power_law", power_law_csr(500, 3000, seed + 1)});
  m.push_back({"empty_0x0", CsrMatrix<double, HostSpace>(0, 0, 0)});
  m.push_back({"empty_0x7", CsrMatrix<double, HostSpace>(0, 7, 0)});
  m.push_back({"rows_without_columns_6x0", CsrMatrix<double, HostSpace>(6, 0, 0)});
  m.push_back({"all_rows_empty_9x9", CsrMatrix<double, HostSpace>(9, 9, 0)});
  m.push_back({"one_by_one", random_csr<double>(1, 1, 1, 1, seed + 2)});
  m.push_back({"one_dense_row_1x50", random_csr<double>(1, 50, 50, 50, seed + 3)});
  m.push_back({"wide_40x400", random_csr<double>(40, 400, 0, 60, seed + 4)});
  m.push_back({"tall_400x40", random_csr<double>(400, 40, 0, 9, seed + 5)});
  return m;
}

template <class S>
Kokkos::View<S*, Mem> to_device(const std::vector<S>& v, const char* label = "v") {
  Kokkos::View<S*, Mem> d(std::string(label), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

using util::to_host;

struct AlphaBeta {
  double alpha, beta;
};
// Exactly representable in float; beta == 0 cases run on a NaN-poisoned y.
inline const std::vector<AlphaBeta>& alpha_beta_cases() {
  static const std::vector<AlphaBeta> cases{{1.0, 0.0}, {-2.5, 0.0}, {0.5, 1.5}, {1.0, -1.0}, {0.0, 0.0}, {0.0, 2.0}};
  return cases;
}

// Runs `run(alpha, x, beta, y)` for every alpha/beta case on fresh x and y (y poisoned with
// NaN when beta == 0, random otherwise) and checks every entry of y against the FP64
// reference within the rounding bound of S. `what` names the case in failure messages.
template <class S, class Run>
void expect_matches_reference(const std::string& what, const CsrMatrix<S, HostSpace>& a, Run&& run,
                              std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const AlphaBeta& ab : alpha_beta_cases()) {
    std::vector<S> x(static_cast<size_t>(a.ncols)), y0(static_cast<size_t>(a.nrows));
    for (auto& v : x) v = static_cast<S>(u(rng));
    for (auto& v : y0) v = ab.beta == 0.0 ? std::numeric_limits<S>::quiet_NaN() : static_cast<S>(u(rng));
    const auto xd = to_device(x, "x");
    const auto yd = to_device(y0, "y");
    run(static_cast<S>(ab.alpha), spmv::ConstVector<S, Mem>(xd), static_cast<S>(ab.beta), yd);
    Kokkos::fence();
    const std::vector<S> y = to_host(yd);
    const std::vector<double> x64(x.begin(), x.end()), y064(y0.begin(), y0.end());
    const auto ref = spmv::reference_spmv(ab.alpha, a, x64, ab.beta, y064);
    const double ratio = spmv::max_error_ratio(y, ref, spmv::default_tolerance<S>());
    if (!(ratio <= 1.0)) {
      size_t worst = 0;
      for (size_t i = 0; i < y.size(); ++i)
        if (!(std::fabs(y[i] - ref.y[i]) <= std::fabs(y[worst] - ref.y[worst]))) worst = i;
      ADD_FAILURE() << what << ", alpha " << ab.alpha << ", beta " << ab.beta << ": error ratio " << ratio << " (row "
                    << worst << ": got " << (y.empty() ? 0.0 : static_cast<double>(y[worst])) << ", expected "
                    << (y.empty() ? 0.0 : ref.y[worst]) << ")";
      return;
    }
  }
}

}  // namespace ppsparse::test
