#pragma once
// Shared pieces of the matrix power kernel tests: awkward matrix families, a run of every
// variant against the FP64 reference, and a watchdog for kernels that could hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/mpk/matrix_power.hpp>
#include <ppsparse/mpk/reference.hpp>

#include "test_util.hpp"

namespace ppsparse::test {

using Exec = DefaultExecSpace;
using Mem = DefaultMemSpace;

// Host CSR from an edge list of a square matrix (duplicates merged) plus the diagonal;
// values uniform in [-1, 1], never 0.
inline CsrMatrix<double, HostSpace> csr_from_entries(ordinal_t n, std::vector<std::pair<ordinal_t, ordinal_t>> entries,
                                                     std::uint64_t seed) {
  for (ordinal_t i = 0; i < n; ++i) entries.emplace_back(i, i);
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  CsrMatrix<double, HostSpace> a(n, n, static_cast<offset_t>(entries.size()), "entries");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> v(-1.0, 1.0);
  for (size_t e = 0; e < entries.size(); ++e) {
    a.row_ptr(entries[e].first + 1) = static_cast<offset_t>(e + 1);
    a.col_idx(e) = entries[e].second;
    const double x = v(rng);
    a.values(e) = x == 0.0 ? 0.5 : x;
  }
  for (ordinal_t i = 0; i < n; ++i) a.row_ptr(i + 1) = std::max(a.row_ptr(i + 1), a.row_ptr(i));
  return a;
}

// Scales the values so that the largest absolute row sum is 1: powers neither overflow nor vanish.
template <class Scalar>
void normalise_rows(CsrMatrix<Scalar, HostSpace>& a) {
  double norm = 0;
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    double s = 0;
    for (offset_t e = a.row_ptr(i); e < a.row_ptr(i + 1); ++e) s += std::abs(static_cast<double>(a.values(e)));
    norm = std::max(norm, s);
  }
  if (norm > 0)
    for (offset_t e = 0; e < a.nnz(); ++e) a.values(e) = static_cast<Scalar>(static_cast<double>(a.values(e)) / norm);
}

// Runs f on another thread; false if it has not returned after `limit` (the thread is then
// abandoned). An exception thrown by f is rethrown here.
template <class F>
bool completes_within(std::chrono::seconds limit, F f) {
  auto promise = std::make_shared<std::promise<void>>();
  auto future = promise->get_future();
  std::thread worker([f, promise]() mutable {
    try {
      f();
      promise->set_value();
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  });
  if (future.wait_for(limit) != std::future_status::ready) {
    worker.detach();
    return false;
  }
  worker.join();
  future.get();
  return true;
}

// A hung kernel cannot be cancelled: report and end the process, so that the test fails
// instead of hanging (ctest records the failure).
inline void fail_and_exit_on_hang(const std::string& what) {
  std::fprintf(stderr, "FATAL: %s did not complete within the watchdog limit (hang)\n", what.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

// Small-problem settings that make many tiny groups and blocks, so that every path of the
// schedule and of the kernels is exercised.
inline mpk::MpkOptions tiny_group_options(int powers, std::size_t cache_bytes = 4096) {
  mpk::MpkOptions o;
  o.powers = powers;
  o.cache_bytes = cache_bytes;
  o.align_rows = 1;
  o.rows_per_block = 7;
  o.matrix.baseline = spmv::SpmvAlgorithm::csr_v1;
  return o;
}

// Runs `variant` through apply() (user numbering) with a fresh random x, and returns the
// error ratio of every power against the FP64 reference (<= 1 passes).
template <class Scalar>
double run_against_reference(mpk::MatrixPowerKernel<Exec, Scalar, Mem>& mpk, const CsrMatrix<Scalar, HostSpace>& a,
                             mpk::MpkVariant variant, std::uint64_t seed) {
  const ordinal_t n = a.nrows;
  const int p = mpk.powers();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Kokkos::View<Scalar*, HostSpace> xh("x", static_cast<size_t>(n));
  std::vector<double> x(static_cast<size_t>(n));
  for (ordinal_t i = 0; i < n; ++i) {
    xh(i) = static_cast<Scalar>(u(rng));
    x[i] = static_cast<double>(xh(i));
  }
  Kokkos::View<Scalar*, Mem> xd("x", static_cast<size_t>(n));
  Kokkos::deep_copy(xd, xh);
  typename mpk::MatrixPowerKernel<Exec, Scalar, Mem>::MultiVector y("Y", static_cast<size_t>(n),
                                                                    static_cast<size_t>(p) + 1);
  Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
  // Poison the operator's own vectors too, so that no variant can pass on values an earlier
  // run left behind (a row it skipped would stay NaN).
  Kokkos::deep_copy(mpk.work(), std::numeric_limits<Scalar>::quiet_NaN());
  mpk.apply(variant, xd, y);
  auto yh = Kokkos::create_mirror_view_and_copy(HostSpace(), y);
  std::vector<Scalar> flat(static_cast<size_t>(n) * (p + 1));
  for (int k = 0; k <= p; ++k)
    for (ordinal_t i = 0; i < n; ++i) flat[static_cast<size_t>(k) * n + i] = yh(i, k);
  for (ordinal_t i = 0; i < n; ++i)
    if (!(flat[i] == xh(i))) return std::numeric_limits<double>::infinity();  // column 0 must be x
  const auto ref = mpk::reference_mpk(a, x, p);
  return mpk::max_error_ratio(flat, ref, mpk::default_tolerance<Scalar>());
}

// Runs each of `variants` `runs` times (x from seed + run) against the FP64 reference under a
// 180 s watchdog, and returns the largest error ratio. A run takes well under a second, also on
// a loaded 2-core machine: the margin is for load, not speed. A run that does not finish (a
// hung single-launch kernel) ends the process with a message naming the variants.
template <class Scalar>
double max_error_under_watchdog(mpk::MatrixPowerKernel<Exec, Scalar, Mem>& mpk, const CsrMatrix<Scalar, HostSpace>& a,
                                const std::vector<mpk::MpkVariant>& variants, int runs, std::uint64_t seed) {
  double err = -1;
  const bool finished = completes_within(std::chrono::seconds(180), [&]() {
    for (int run = 0; run < runs; ++run)
      for (mpk::MpkVariant v : variants) err = std::max(err, run_against_reference(mpk, a, v, seed + run));
  });
  if (!finished) {
    std::string names;
    for (mpk::MpkVariant v : variants) names += (names.empty() ? "" : " or ") + std::string(mpk::to_string(v));
    fail_and_exit_on_hang("the " + names + " MPK kernel");
  }
  return err;
}

// Every concrete variant and automatic, for p = 1..max_p, on one matrix.
template <class Scalar>
void expect_all_variants_match(const CsrMatrix<Scalar, HostSpace>& a, const mpk::MpkOptions& base, int max_p,
                               std::uint64_t seed) {
  auto matrix = std::make_shared<mpk::LevelOrderedMatrix<Exec, Scalar, Mem>>(a, base.matrix);
  for (int p = 1; p <= max_p; ++p) {
    mpk::MpkOptions o = base;
    o.powers = p;
    mpk::MatrixPowerKernel<Exec, Scalar, Mem> mpk(matrix, o);
    std::vector<mpk::MpkVariant> variants = mpk::concrete_variants();
    variants.push_back(mpk::MpkVariant::automatic);
    for (mpk::MpkVariant v : variants) {
      const double err = run_against_reference(mpk, a, v, seed + p);
      if (std::getenv("MPK_TEST_VERBOSE"))
        std::printf("%s %s err=%.3g\n", mpk::to_string(v), mpk.describe().c_str(), err);
      ASSERT_LE(err, 1.0) << "p=" << p << " variant " << mpk::to_string(v) << ": " << mpk.describe();
    }
  }
}

}  // namespace ppsparse::test
