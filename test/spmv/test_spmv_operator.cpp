// SpmvOperator: the public entry point, its names, its error messages, and the tuner
// driven through it with an injected clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/backend/last_level_cache.hpp>
#include <ppsparse/spmv/spmv.hpp>
#include <ppsparse/spmv/structure_check.hpp>

#include "spmv_test_util.hpp"

#include "test_util.hpp"

namespace ppsparse::test {
namespace {

using spmv::SpmvAlgorithm;
using spmv::SpmvOperator;

// Calls op.apply until its tuner is done (at most max_calls), each call checked against the
// reference (expect_matches_reference, which also calls with alpha = 0: not timed). Each call
// runs through around(apply), for tests that watch a call from both sides.
template <class Host>
void tune_checking_each_call(
    SpmvOperator<Exec, double>& op, const Host& host, std::uint64_t seed, int max_calls,
    const std::function<void(const std::function<void()>&)>& around = [](const std::function<void()>& apply) {
      apply();
    }) {
  for (int calls = 0; !op.tuner()->done() && calls < max_calls; ++calls)
    expect_matches_reference<double>(
        "tuning call " + std::to_string(calls), host,
        [&](double alpha, const auto& x, double beta, const auto& y) { around([&] { op.apply(alpha, x, beta, y); }); },
        seed + calls);
  ASSERT_TRUE(op.tuner()->done());
}

TEST(SpmvOperator, AlgorithmNamesRoundTrip) {
  for (SpmvAlgorithm a : spmv::all_spmv_algorithms()) EXPECT_EQ(spmv::parse_spmv_algorithm(spmv::to_string(a)), a);
  EXPECT_EQ(spmv::all_spmv_algorithms().size(), 6u);
  EXPECT_EQ(message_of<Error>([] { spmv::parse_spmv_algorithm("csr_v3"); }),
            "unknown SpMV algorithm 'csr_v3' (valid: csr_v1, csr_v2, csr_coop, sell, column_panels, auto)");
  EXPECT_EQ(message_of<Error>([] { spmv::parse_spmv_algorithm(""); }),
            "unknown SpMV algorithm '' (valid: csr_v1, csr_v2, csr_coop, sell, column_panels, auto)");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      spmv::parse_spmv_algorithm("CSR_V1"), InvalidArgument,
      "unknown SpMV algorithm 'CSR_V1' (valid: csr_v1, csr_v2, csr_coop, sell, column_panels, auto)");
}

template <class S>
class SpmvOperatorTyped : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpmvOperatorTyped, Scalars);

TYPED_TEST(SpmvOperatorTyped, EveryAlgorithmMatchesTheReferenceOverRepeatedCalls) {
  using S = TypeParam;
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : matrix_families(seed)) {
    const auto a = convert_values<S>(m.a);
    const auto ad = copy_to<Mem>(a);
    spmv::SpmvOptions hyb;
    hyb.sell.hyb_row_max = -1;
    std::vector<std::pair<SpmvAlgorithm, spmv::SpmvOptions>> runs;
    for (SpmvAlgorithm alg : spmv::all_spmv_algorithms()) runs.emplace_back(alg, spmv::SpmvOptions{});
    runs.emplace_back(SpmvAlgorithm::sell, hyb);
    spmv::SpmvOptions cached;
    cached.matrix_loads = spmv::MatrixLoads::cached;
    runs.emplace_back(SpmvAlgorithm::csr_v2, cached);
    runs.emplace_back(SpmvAlgorithm::sell, cached);
    for (const auto& [alg, options] : runs) {
      SpmvOperator<Exec, S> op(alg, ad, options);
      EXPECT_EQ(op.nrows(), a.nrows);
      EXPECT_EQ(op.ncols(), a.ncols);
      EXPECT_EQ(op.nnz(), a.nnz());
      EXPECT_GE(op.setup_seconds(), 0.0);
      // Several rounds: csr_coop changes its parameters between calls while it tunes.
      for (int round = 0; round < 4; ++round)
        expect_matches_reference<S>(
            op.describe() + " round " + std::to_string(round) + " on " + m.name, a,
            [&](S alpha, const auto& x, S beta, const auto& y) { op.apply(alpha, x, beta, y); }, seed + round);
    }
  }
}

TEST(SpmvOperator, TrafficModel) {
  // 3 x 4 with 5 entries, double: values+columns 5*12, row_ptr 4*8, x 4*8, y 3*8 (+3*8 read).
  EXPECT_EQ(spmv::csr_min_bytes<double>(3, 4, 5, false), 60.0 + 32 + 32 + 24);
  EXPECT_EQ(spmv::csr_min_bytes<double>(3, 4, 5, true), 60.0 + 32 + 32 + 48);
  EXPECT_EQ(spmv::csr_min_bytes<float>(3, 4, 5, false), 40.0 + 32 + 16 + 12);
  EXPECT_EQ(spmv::csr_traffic<double>(3, 4, 5, false).flops, 10.0);
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = copy_to<Mem>(power_law_csr(200, 300, seed));
  SpmvOperator<Exec, double> csr(SpmvAlgorithm::csr_v2, a);
  SpmvOperator<Exec, double> sell(SpmvAlgorithm::sell, a);
  const auto tc = csr.traffic(false), ts = sell.traffic(false);
  EXPECT_EQ(tc.model_bytes, tc.kernel_bytes);
  EXPECT_EQ(ts.model_bytes, tc.model_bytes);  // reports quote the CSR minimum
  // SELL streams its padded entries: at least stored x (8 + 2 or 4) bytes (16-bit column
  // offsets where the columns fit, which the GPU rule picks here), more than the model here.
  EXPECT_GE(ts.kernel_bytes,
            static_cast<double>(sell.sell_matrix()->stored()) * (sizeof(double) + sell.sell_matrix()->column_bytes()));
  EXPECT_GT(ts.kernel_bytes, ts.model_bytes);
  EXPECT_EQ(csr.traffic(true).model_bytes - tc.model_bytes, 200.0 * 8);
  // HYB: same model; its SELL part pads less than plain SELL on power-law rows.
  spmv::SpmvOptions ho;
  ho.sell.hyb_row_max = 16;
  SpmvOperator<Exec, double> hyb(SpmvAlgorithm::sell, a, ho);
  ASSERT_NE(hyb.hyb_matrix(), nullptr);
  EXPECT_EQ(hyb.traffic(false).model_bytes, tc.model_bytes);
  EXPECT_LT(hyb.sell_matrix()->stored(), sell.sell_matrix()->stored());
  EXPECT_GT(hyb.hyb_matrix()->tail.nrows(), 0);
  EXPECT_NE(hyb.describe().find("hyb row_max=16"), std::string::npos);
}

TEST(SpmvOperator, TunesThroughAnInjectedClock) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto host = random_csr<double>(2000, 2000, 0, 10, seed);
  const auto a = copy_to<Mem>(host);
  spmv::SpmvOptions options;
  options.tuner.samples = 3;
  options.tuner.runs_per_call = 1;  // one product per call, timed alone: the clock below
  options.tuner.paired = false;
  SpmvOperator<Exec, double> op(SpmvAlgorithm::csr_coop, a, options);
  // Synthetic time per call: fastest at repeat 8 (the host space only varies repeat).
  const auto start = op.coop_params();
  auto cost = [&](const spmv::CoopParams& p) {
    double c = 1e-3;
    for (int r = p.repeat; r != 8; r = r > 8 ? r / 2 : r * 2) c *= 1.1;
    return c + 1e-6 * (p.block_size + p.coop);
  };
  double now = 100.0;
  bool in_call = false;
  op.set_clock([&] {
    if (!in_call) {
      in_call = true;
      return now;
    }
    in_call = false;
    now += cost(op.coop_params());  // the candidate that just ran
    return now;
  });
  ASSERT_NE(op.tuner(), nullptr);
  tune_checking_each_call(op, host, seed, 200);
  EXPECT_LE(cost(op.coop_params()), cost(start));
  if (spmv::coop_search_space(Exec()).max_coop == 1) EXPECT_EQ(op.coop_params().repeat, 8);
  EXPECT_NE(op.describe().find("tuned in"), std::string::npos);
  // Fixed parameters and no tuning.
  options.coop = spmv::CoopParams{1, 3, 1};
  options.coop_autotune = false;
  SpmvOperator<Exec, double> fixed(SpmvAlgorithm::csr_coop, a, options);
  EXPECT_EQ(fixed.tuner(), nullptr);
  EXPECT_EQ(fixed.coop_params(), (spmv::CoopParams{1, 3, 1}));
}

// A tuning call runs its candidate runs_per_call times, the caller's product once (y changes
// once, checked against the reference with beta != 0 by expect_matches_reference) and the rest
// on scratch; the tuner sees their median. The clock makes each call's first run 10 times
// slower: the recorded times are the true costs, not the outliers.
TEST(SpmvOperator, TuningCallsJudgeTheMedianOfTheirRuns) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto host = random_csr<double>(1500, 1500, 0, 12, seed);
  const auto a = copy_to<Mem>(host);
  spmv::SpmvOptions options;
  options.tuner.samples = 1;
  options.tuner.runs_per_call = 3;
  options.tuner.single_run_margin = std::numeric_limits<double>::infinity();  // every call runs 3
  options.tuner.paired = false;
  SpmvOperator<Exec, double> op(SpmvAlgorithm::csr_coop, a, options);
  ASSERT_NE(op.tuner(), nullptr);
  auto cost = [](const spmv::CoopParams& p) { return 1e-3 * (1.0 + 0.01 * p.repeat) + 1e-6 * (p.block_size + p.coop); };
  double now = 7.0;
  int reads = 0;  // clock reads: two per run
  op.set_clock([&] {
    const int r = reads++;
    if (r % 2 == 0) return now;
    const bool first_run_of_call = (r / 2) % 3 == 0;
    now += cost(op.coop_params()) * (first_run_of_call ? 10.0 : 1.0);
    return now;
  });
  tune_checking_each_call(op, host, seed, 50);
  // Calls that time (alpha != 0; expect_matches_reference also calls with alpha = 0), and the
  // start's 3 runs (start_runs) before the first one, the first of them slow too.
  const int timed = op.tuner()->calls();
  EXPECT_GT(timed, 1);
  EXPECT_EQ(reads, 2 * 3 * (timed + 1));
  EXPECT_EQ(op.tuner()->history().size(), static_cast<size_t>(timed + 1));
  for (const auto& [p, seconds] : op.tuner()->history()) EXPECT_NEAR(seconds, cost(p), 1e-9) << p.to_string();
  // Tuned: one product per call, no clock reads.
  expect_matches_reference<double>(
      "tuned", host, [&](double alpha, const auto& x, double beta, const auto& y) { op.apply(alpha, x, beta, y); },
      seed);
  EXPECT_EQ(reads, 2 * 3 * (timed + 1));
  options.tuner.runs_per_call = 0;
  EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_coop, a, options); }),
            "CoopTuner: runs_per_call = 0 must be >= 1");
}

// With the default margin a call stops after its first run where that run decides the step:
// here every step is 30 % slower than the start, so every call runs one product (after the
// start's 3 runs before the first).
TEST(SpmvOperator, TuningCallsStopAtADecisiveFirstRun) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto host = random_csr<double>(800, 800, 0, 9, seed);
  const auto a = copy_to<Mem>(host);
  spmv::SpmvOptions options;
  options.tuner.samples = 1;
  options.tuner.runs_per_call = 3;
  options.tuner.paired = false;
  SpmvOperator<Exec, double> op(SpmvAlgorithm::csr_coop, a, options);
  ASSERT_NE(op.tuner(), nullptr);
  const spmv::CoopParams start = op.coop_params();
  double now = 1.0;
  int reads = 0;
  op.set_clock([&] {
    if (reads++ % 2 == 0) return now;
    now += op.coop_params() == start ? 1e-3 : 1.3e-3;
    return now;
  });
  tune_checking_each_call(op, host, seed, 50);
  EXPECT_EQ(op.coop_params(), start);
  const int timed = op.tuner()->calls();
  EXPECT_GT(timed, 1);
  EXPECT_EQ(reads, 2 * (3 + timed));
}

// Paired calls time the best point beside the candidate. The synthetic device here runs every
// other call 30 % slower (a drift): paired, the tuner compares within a call and ends on the
// cost's optimum (repeat 8 where only repeat varies); each call after the start runs two
// products, the caller's y changing once.
TEST(SpmvOperator, PairedTuningCallsCompareWithinACall) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto host = random_csr<double>(1200, 1200, 0, 10, seed);
  const auto a = copy_to<Mem>(host);
  spmv::SpmvOptions options;
  options.tuner.samples = 1;
  options.tuner.runs_per_call = 1;
  options.tuner.paired = true;
  options.tuner.start_runs = 0;  // the first call times the start alone; the clock below follows calls
  SpmvOperator<Exec, double> op(SpmvAlgorithm::csr_coop, a, options);
  ASSERT_NE(op.tuner(), nullptr);
  const spmv::CoopParams start = op.coop_params();
  auto cost = [](const spmv::CoopParams& p) {
    double c = 1e-3;
    for (int r = p.repeat; r != 8; r = r > 8 ? r / 2 : r * 2) c *= 1.05;
    return c + 1e-6 * (p.block_size + p.coop);
  };
  double now = 3.0;
  int reads = 0, reads_in_call = 0, timed_calls = 0;
  bool pair = false;
  op.set_clock([&] {
    ++reads;
    if (reads_in_call++ % 2 == 0) return now;
    // In a paired call the first product is the best's, the second the candidate's.
    const bool best_run = pair && reads_in_call == 2;
    const spmv::CoopParams ran = best_run ? op.tuner()->best() : op.coop_params();
    now += cost(ran) * (timed_calls % 2 ? 1.3 : 1.0);
    return now;
  });
  tune_checking_each_call(op, host, seed, 60, [&](const std::function<void()>& apply) {
    pair = op.tuner()->wants_pair();
    reads_in_call = 0;
    const int before = op.tuner()->calls();
    apply();
    timed_calls += op.tuner()->calls() - before;
  });
  const int timed = op.tuner()->calls();
  EXPECT_EQ(reads, 2 * (1 + 2 * (timed - 1)));
  EXPECT_EQ(op.tuner()->start_run_seconds(), 0.0);
  EXPECT_LE(cost(op.coop_params()), cost(start));
  if (spmv::coop_search_space(Exec()).max_coop == 1) EXPECT_EQ(op.coop_params().repeat, 8);
}

// coop_matrix_shape: band and stencil matrices have local columns, random ones do not; so
// does a wide band matrix whose diagonal runs at ncols / nrows.
TEST(SpmvOperator, CoopMatrixShapeFindsLocalColumns) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto local = [](const CsrMatrix<double, HostSpace>& h) {
    return spmv::coop_matrix_shape(Exec(), copy_to<Mem>(h)).local_columns;
  };
  EXPECT_TRUE(local(gen::band_matrix(5000, 20, seed)));
  EXPECT_TRUE(local(gen::stencil_7pt(20, 20, 20, seed)));
  EXPECT_FALSE(local(random_csr<double>(5000, 5000, 4, 12, seed)));
  EXPECT_FALSE(local(random_csr<double>(3000, 12000, 4, 12, seed)));
  // Columns 4i .. 4i + 3 of a 1000 x 4000 matrix: on its diagonal.
  CsrMatrix<double, HostSpace> wide(1000, 4000, 4000, "wide band");
  for (ordinal_t i = 0; i <= 1000; ++i) wide.row_ptr(i) = 4 * static_cast<offset_t>(i);
  for (ordinal_t k = 0; k < 4000; ++k) {
    wide.col_idx(k) = k;
    wide.values(k) = 1.0;
  }
  EXPECT_TRUE(local(wide));
  EXPECT_FALSE(local(random_csr<double>(100, 100, 0, 0, seed)));  // no entries
  EXPECT_FALSE(local(random_csr<double>(0, 0, 0, 0, seed)));
}

TEST(SpmvOperator, RejectsWrongVectors) {
  const auto a = copy_to<Mem>(random_csr<double>(5, 4, 1, 3, 1));
  for (SpmvAlgorithm alg : spmv::all_spmv_algorithms()) {
    SpmvOperator<Exec, double> op(alg, a);
    const std::string who = op.algorithm() == SpmvAlgorithm::sell            ? "sell_spmv"
                            : op.algorithm() == SpmvAlgorithm::column_panels ? "column_panels_spmv"
                                                                             : spmv::to_string(op.algorithm());
    Kokkos::View<double*, Mem> x("x", 4), y("y", 5), x_short("x", 3), y_long("y", 6), both("both", 9);
    EXPECT_EQ(message_of<Error>([&] { op.apply(1.0, x_short, 0.0, y); }),
              who + ": x has 3 entries, the matrix has 4 columns");
    EXPECT_EQ(message_of<Error>([&] { op.apply(1.0, x, 0.0, y_long); }),
              who + ": y has 6 entries, the matrix has 5 rows");
    const auto xo = Kokkos::subview(both, std::make_pair(0, 4));
    const auto yo = Kokkos::subview(both, std::make_pair(3, 8));
    EXPECT_EQ(message_of<Error>([&] { op.apply(1.0, xo, 0.0, yo); }),
              who + ": x and y overlap in memory; y must be a separate vector");
  }
}

TEST(SpmvOperator, RejectsMalformedMatrices) {
  auto good = random_csr<double>(5, 5, 2, 2, 3);
  {
    auto a = random_csr<double>(5, 5, 2, 2, 3);
    a.col_idx(6) = 7;  // row 3
    EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v2, copy_to<Mem>(a)); }),
              "csr_v2 setup: column index 7 out of range [0, 5) in row 3");
    a.col_idx(6) = -1;
    EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v1, copy_to<Mem>(a)); }),
              "csr_v1 setup: column index -1 out of range [0, 5) in row 3");
  }
  {
    auto a = random_csr<double>(5, 5, 2, 2, 3);
    a.row_ptr(2) = 1;  // row 1 ends before it starts
    EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_coop, copy_to<Mem>(a)); }),
              "csr_coop setup: row_ptr decreases or leaves [0, nnz] at row 1");
    a = random_csr<double>(5, 5, 2, 2, 3);
    a.row_ptr(0) = 1;
    EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::sell, copy_to<Mem>(a)); }),
              "sell setup: row_ptr[0] = 1, expected 0");
    a = random_csr<double>(5, 5, 2, 2, 3);
    a.row_ptr(5) = 9;
    EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v1, copy_to<Mem>(a)); }),
              "csr_v1 setup: row_ptr[nrows] = 9 but col_idx and values hold 10 entries");
  }
  {
    auto a = copy_to<Mem>(good);
    a.values = Kokkos::View<double*, Mem>("short", 3);
    EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v1, a); }),
              "csr_v1 setup: col_idx has 10 entries but values has 3");
    auto b = copy_to<Mem>(good);
    b.row_ptr = Kokkos::View<offset_t*, Mem>("rp", 3);
    EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v1, b); }),
              "csr_v1 setup: row_ptr has 3 entries, expected nrows+1 = 6");
  }
  // Without the check a valid matrix still works, and the kernels' own O(1) checks remain.
  spmv::SpmvOptions no_check;
  no_check.check_structure = false;
  EXPECT_NO_THROW((SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v1, copy_to<Mem>(good), no_check)));
}

TEST(SpmvOperator, RejectsBadOptions) {
  const auto a = copy_to<Mem>(random_csr<double>(20, 20, 1, 5, 5));
  spmv::SpmvOptions o;
  o.csr_v2.team_threads = -2;
  EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v2, a, o); }),
            "csr_v2 options: team_threads = -2 must be >= 1");
  // A team larger than the execution space allows: an error at the first product, not an abort.
  o = {};
  o.csr_v2.team_threads = 4096;
  o.csr_v2.vector_length = 1;
  o.csr_v2.tile_nnz = 64;  // scratch that any execution space offers: the team size is what fails
  {
    SpmvOperator<Exec, double> big_teams(SpmvAlgorithm::csr_v2, a, o);
    Kokkos::View<double*, Mem> x("x", 20), y("y", 20);
    EXPECT_NE(message_of<Error>([&] { big_teams.apply(1.0, x, 0.0, y); })
                  .find("csr_v2: team_threads = 4096 with vector_length = 1 asks for 4096 threads per team; this "
                        "execution space allows at most"),
              std::string::npos);
  }
  o = {};
  o.csr_v2.vector_length = 3;
  EXPECT_NE(message_of<Error>([&] {
              SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v2, a, o);
            }).find("csr_v2 options: vector_length = 3 must be a power of two"),
            std::string::npos);
  o = {};
  o.csr_v2.tile_nnz = 100;
  o.csr_v2.split_row_min = 10;
  EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v2, a, o); }),
            "csr_v2 options: split_row_min = 10 must be >= tile_nnz = 100");
  o = {};
  o.csr_v2.short_row_max = -5;
  EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v2, a, o); }),
            "csr_v2 options: short_row_max = -5 must be >= 0 (or -1 for the default)");
  o = {};
  o.coop = spmv::CoopParams{1, 0, 1};
  EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::csr_coop, a, o); }),
            "csr_coop setup: repeat = 0 must be >= 1");
  o.coop = spmv::CoopParams{128, 1, 128};
  EXPECT_NE(message_of<Error>([&] {
              SpmvOperator<Exec, double>(SpmvAlgorithm::csr_coop, a, o);
            }).find("csr_coop setup: coop = 128 must be a power of two in [1, "),
            std::string::npos);
  o = {};
  o.sell.C = -1;
  EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::sell, a, o); }),
            "sell options: C = -1 must be >= 1");
  o = {};
  o.sell.sigma = -4;
  EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::sell, a, o); }),
            "sell options: sigma = -4 must be >= 1");
  o = {};
  o.sell.hyb_row_max = -2;
  EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::sell, a, o); }),
            "sell options: hyb_row_max = -2 must be >= 1, 0 (pure SELL) or -1 (automatic)");
  EXPECT_EQ(
      message_of<Error>([&] { spmv::make_hyb<Exec, double, Mem>(Exec(), random_csr<double>(4, 4, 1, 2, 1), 8, 1, 0); }),
      "hyb setup: row_max = 0 must be >= 1");
  EXPECT_EQ(message_of<Error>(
                [&] { spmv::make_hyb<Exec, double, Mem>(Exec(), random_csr<double>(4, 4, 1, 2, 1), 8, 1, 2, 8); }),
            "hyb setup: index_bits = 8 must be 0, 16 or 32");
  // Direct kernel calls check their own parameters.
  Kokkos::View<double*, Mem> x("x", 20), y("y", 20);
  EXPECT_EQ(message_of<Error>([&] {
              spmv::csr_coop(Exec(), 1.0, a, x, 0.0, y, spmv::CoopParams{1, 1, 0});
            }),
            "csr_coop: block_size = 0 must be a positive multiple of coop = 1");
  if (spmv::coop_search_space(Exec()).max_coop == 1)
    EXPECT_NE(message_of<Error>([&] {
                spmv::csr_coop(Exec(), 1.0, a, x, 0.0, y, spmv::CoopParams{1, 1, 4096});
              }).find("threads per team; this execution space allows at most"),
              std::string::npos);
  const auto other = copy_to<Mem>(random_csr<double>(20, 20, 1, 5, 6));
  const auto plan = spmv::make_csr_v2_plan(Exec(), a);
  if (other.nnz() != a.nnz())
    EXPECT_NE(message_of<Error>([&] {
                spmv::csr_v2(Exec(), 1.0, other, plan, x, 0.0, y);
              }).find("csr_v2: the plan was built for"),
              std::string::npos);
}

TEST(SpmvOperator, AutomaticPicksByRowLengthsAndDevice) {
  const spmv::RowLengthStats regular{100000, 700000, 7, 0};
  const spmv::RowLengthStats few_long{100000, 900000, 50000, 100};
  const spmv::RowLengthStats power_law{100000, 900000, 5000, 101};
  const auto pick = [](const spmv::RowLengthStats& s, bool gpu) { return spmv::choose_spmv_algorithm(s, gpu); };
  EXPECT_EQ(pick(regular, true).algorithm, SpmvAlgorithm::sell);
  EXPECT_FALSE(pick(regular, true).hyb);
  EXPECT_EQ(pick(few_long, true).algorithm, SpmvAlgorithm::sell);
  EXPECT_TRUE(pick(few_long, true).hyb);
  EXPECT_EQ(pick(power_law, true).algorithm, SpmvAlgorithm::csr_v2);
  EXPECT_EQ(pick(regular, false).algorithm, SpmvAlgorithm::csr_v2);
  EXPECT_EQ(pick(few_long, false).algorithm, SpmvAlgorithm::csr_v2);
  EXPECT_EQ(pick(spmv::RowLengthStats{}, true).algorithm, SpmvAlgorithm::sell);

  // Scattered columns and an x larger than half the cache: column panels, on GPUs only.
  spmv::RowLengthStats scattered = regular;
  scattered.ncols = 5000000;  // 40 MB of FP64 x
  scattered.far_entries = 600000;
  const std::size_t l2 = 50u << 20;
  EXPECT_EQ(spmv::choose_spmv_algorithm(scattered, true, l2, 8).algorithm, SpmvAlgorithm::column_panels);
  EXPECT_EQ(spmv::choose_spmv_algorithm(scattered, true, l2, 4).algorithm, SpmvAlgorithm::sell);  // 20 MB
  EXPECT_EQ(spmv::choose_spmv_algorithm(scattered, true, 0, 8).algorithm, SpmvAlgorithm::sell);   // cache unknown
  EXPECT_EQ(spmv::choose_spmv_algorithm(scattered, false, l2, 8).algorithm, SpmvAlgorithm::csr_v2);
  scattered.far_entries = 300000;  // most entries near the diagonal
  EXPECT_EQ(spmv::choose_spmv_algorithm(scattered, true, l2, 8).algorithm, SpmvAlgorithm::sell);
  spmv::RowLengthStats scattered_few_long = few_long;
  scattered_few_long.ncols = 5000000;
  scattered_few_long.far_entries = 800000;
  EXPECT_EQ(spmv::choose_spmv_algorithm(scattered_few_long, true, l2, 8).algorithm, SpmvAlgorithm::column_panels);
  spmv::RowLengthStats scattered_power_law = power_law;
  scattered_power_law.ncols = 5000000;
  scattered_power_law.far_entries = 900000;
  EXPECT_EQ(spmv::choose_spmv_algorithm(scattered_power_law, true, l2, 8).algorithm, SpmvAlgorithm::csr_v2);

  const auto a = copy_to<Mem>(random_csr<double>(50, 40, 0, 9, 3));
  const auto stats = spmv::row_length_stats(a);
  EXPECT_EQ(stats.nrows, 50);
  EXPECT_EQ(stats.nnz, a.nnz());
  const auto h = copy_to<HostSpace>(a);
  offset_t max_len = 0;
  for (ordinal_t i = 0; i < h.nrows; ++i) max_len = std::max(max_len, h.row_ptr(i + 1) - h.row_ptr(i));
  EXPECT_EQ(stats.max_len, max_len);
  long long long_rows = 0;
  for (ordinal_t i = 0; i < h.nrows; ++i)
    long_rows += h.row_ptr(i + 1) - h.row_ptr(i) > spmv::hyb_auto_row_max(h.nrows, h.nnz());
  EXPECT_EQ(stats.long_rows, long_rows);
  EXPECT_EQ(stats.ncols, 40);
  offset_t far = 0;
  for (ordinal_t i = 0; i < h.nrows; ++i)
    for (offset_t k = h.row_ptr(i); k < h.row_ptr(i + 1); ++k)
      far += std::fabs(h.col_idx(k) - 40.0 / 50.0 * i) > spmv::RowLengthStats::kNearColumns;
  EXPECT_EQ(stats.far_entries, far);
  // Far entries, counted on the device: a 3 x 200000 matrix whose rows read both ends of x.
  {
    std::mt19937_64 rng(test_seed());
    const auto wide = copy_to<Mem>(csr_from_rows(200000, {{0, 100000, 199999}, {5, 66000}, {133000, 199000}}, rng));
    const auto w = spmv::row_length_stats(wide);
    // Diagonals 0, 66666.7 and 133333.3: far are 100000 and 199999 (row 0), 5 (row 1), 199000 (row 2).
    EXPECT_EQ(w.far_entries, 4);
  }
  SpmvOperator<Exec, double> op(SpmvAlgorithm::automatic, a);
  EXPECT_TRUE(op.automatic());
  const auto choice = spmv::choose_spmv_algorithm(stats, compat::is_gpu_space<Exec>(),
                                                  ppsparse::backend::last_level_cache_bytes(Exec()), sizeof(double));
  EXPECT_EQ(op.algorithm(), choice.algorithm);
  EXPECT_EQ(op.hyb_matrix() != nullptr, choice.hyb);
  EXPECT_EQ(op.describe().rfind("auto: ", 0), 0u) << op.describe();
}

TEST(SpmvOptionsText, ParsesEveryKeyAndRejectsBadPairs) {
  const auto o = spmv::parse_spmv_options(
      "v2.team_threads=64,v2.vector_length=4,v2.tile_nnz=2048,v2.max_rows_per_block=100,v2.short_row_max=9,"
      "v2.flat_row_max=5,v2.split_row_min=9000,v2.split_tile_nnz=3000,v2.x_in_scratch=1,v2.x_window=512,coop.coop=2,"
      "coop.repeat=4,"
      "coop.block_size=8,coop.autotune=0,coop.tuner_runs_per_call=5,coop.tuner_paired=1,coop.tuner_start_runs=0,coop."
      "tuner_shape=0,sell.C=16,sell.sigma=1,sell.hyb_row_max=-1,sell.index_bits=32,"
      "check_structure=0,persist_x=1,streaming_loads=0");
  EXPECT_EQ(o.csr_v2.team_threads, 64);
  EXPECT_EQ(o.csr_v2.vector_length, 4);
  EXPECT_EQ(o.csr_v2.tile_nnz, 2048);
  EXPECT_EQ(o.csr_v2.max_rows_per_block, 100);
  EXPECT_EQ(o.csr_v2.short_row_max, 9);
  EXPECT_EQ(o.csr_v2.flat_row_max, 5);
  EXPECT_EQ(o.csr_v2.split_row_min, 9000);
  EXPECT_EQ(o.csr_v2.split_tile_nnz, 3000);
  EXPECT_TRUE(o.csr_v2.x_in_scratch);
  EXPECT_EQ(o.csr_v2.x_window, 512);
  ASSERT_TRUE(o.coop.has_value());
  EXPECT_EQ(*o.coop, (spmv::CoopParams{2, 4, 8}));
  EXPECT_FALSE(o.coop_autotune);
  EXPECT_EQ(o.tuner.runs_per_call, 5);
  EXPECT_TRUE(o.tuner.paired);
  EXPECT_EQ(o.tuner.start_runs, 0);
  EXPECT_FALSE(o.tuner.repeat_direction_from_shape);
  EXPECT_EQ(o.sell.C, 16);
  EXPECT_EQ(o.sell.sigma, 1);
  EXPECT_EQ(o.sell.hyb_row_max, -1);
  EXPECT_EQ(o.sell.index_bits, 32);
  EXPECT_FALSE(o.check_structure);
  EXPECT_TRUE(o.persist_x);
  EXPECT_EQ(o.matrix_loads, spmv::MatrixLoads::cached);

  const auto empty = spmv::parse_spmv_options("");
  EXPECT_EQ(empty.matrix_loads, spmv::MatrixLoads::streaming);
  EXPECT_EQ(spmv::parse_spmv_options("streaming_loads=1", o).matrix_loads, spmv::MatrixLoads::streaming);
  EXPECT_FALSE(empty.coop.has_value());
  EXPECT_EQ(empty.csr_v2.tile_nnz, 0);
  EXPECT_EQ(spmv::parse_spmv_options("sell.C=4,").sell.C, 4);

  EXPECT_EQ(message_of<Error>([] {
              spmv::parse_spmv_options("v2.tile=8");
            }).rfind("spmv options: 'v2.tile=8': unknown key (valid: v2.team_threads, ", 0),
            0u);
  EXPECT_EQ(message_of<Error>([] { spmv::parse_spmv_options("sell.C"); }),
            "spmv options: 'sell.C': expected key=value");
  EXPECT_EQ(message_of<Error>([] { spmv::parse_spmv_options("sell.C=8x"); }),
            "spmv options: 'sell.C=8x': '8x' is not an integer");
  EXPECT_EQ(message_of<Error>([] { spmv::parse_spmv_options("sell.C="); }),
            "spmv options: 'sell.C=': '' is not an integer");
  EXPECT_EQ(message_of<Error>([] { spmv::parse_spmv_options("v2.tile_nnz=99999999999"); }),
            "spmv options: 'v2.tile_nnz=99999999999': 99999999999 is outside the 32-bit range");
  // Out-of-range values are caught where they are used, naming the field.
  const auto a = copy_to<Mem>(random_csr<double>(5, 4, 1, 3, 1));
  EXPECT_EQ(message_of<Error>([&] {
              SpmvOperator<Exec, double>(SpmvAlgorithm::sell, a, spmv::parse_spmv_options("sell.C=0,sell.sigma=-3"));
            }),
            "sell options: sigma = -3 must be >= 1");
  EXPECT_EQ(message_of<Error>([&] {
              SpmvOperator<Exec, double>(SpmvAlgorithm::sell, a, spmv::parse_spmv_options("sell.index_bits=8"));
            }),
            "sell options: index_bits = 8 must be 0 (16 where the columns fit, else 32), 16 or 32");
  EXPECT_EQ(message_of<Error>([&] {
              SpmvOperator<Exec, double>(SpmvAlgorithm::csr_v2, a, spmv::parse_spmv_options("v2.flat_row_max=-2"));
            }),
            "csr_v2 options: flat_row_max = -2 must be >= 0 (or -1 for the default)");
}

// y = A x by `op` into a NaN-poisoned y, against the FP64 reference of host matrix h: the
// error ratio (<= 1 passes).
double product_error(SpmvOperator<Exec, double>& op, const CsrMatrix<double, HostSpace>& h,
                     const std::vector<double>& x) {
  Kokkos::View<double*, Mem> xd("x", x.size()), y("y", static_cast<size_t>(h.nrows));
  auto xh = Kokkos::create_mirror_view(xd);
  for (size_t i = 0; i < x.size(); ++i) xh(i) = x[i];
  Kokkos::deep_copy(xd, xh);
  Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());
  op.apply(1.0, xd, 0.0, y);
  const auto yh = Kokkos::create_mirror_view_and_copy(HostSpace(), y);
  return spmv::max_error_ratio(std::vector<double>(yh.data(), yh.data() + yh.extent(0)),
                               spmv::reference_spmv(1.0, h, x, 0.0, {}), spmv::default_tolerance<double>());
}

// 16-bit column offsets: chosen where every column is within 32767 of its row, refused
// (index_bits = 16) or skipped (index_bits = 0) otherwise; results equal the reference. Pure
// SELL and HYB (whose SELL part takes the same option; three long rows go to its tail).
TEST(SpmvOperator, SellCompressedColumnsWhereTheyFit) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr ordinal_t kLongRow = 1000, kLongRows = 3, kLongLength = 300;
  // Periodic band of half-width 40000: too wide; 30000: fits. Rows kLongRow.. are long, with
  // columns within kLongLength of the row.
  for (const ordinal_t half : {30000, 40000}) {
    const ordinal_t n = 2 * half + 500;
    const offset_t nnz = 3 * static_cast<offset_t>(n) + kLongRows * (kLongLength - 3);
    CsrMatrix<double, HostSpace> h(n, n, nnz, "band");
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    offset_t k = 0;
    for (ordinal_t i = 0; i < n; ++i) {
      std::vector<ordinal_t> cols;
      if (i >= kLongRow && i < kLongRow + kLongRows) {
        for (ordinal_t j = 0; j < kLongLength; ++j) cols.push_back(i - kLongLength / 2 + j);
      } else {
        // Distinct, sorted columns at distance 0, half and n - half (a periodic band).
        cols = {i, (i + half) % n, (i + n - half) % n};
        std::sort(cols.begin(), cols.end());
      }
      for (const ordinal_t c : cols) {
        h.col_idx(k) = c;
        h.values(k++) = u(rng);
      }
      h.row_ptr(i + 1) = k;
    }
    ASSERT_EQ(k, nnz);
    const auto a = copy_to<Mem>(h);
    std::vector<double> x(static_cast<size_t>(n));
    for (auto& v : x) v = u(rng);
    for (const bool hyb : {false, true}) {
      for (const int bits : {0, 16, 32}) {
        SCOPED_TRACE("half-width " + std::to_string(half) + ", index_bits " + std::to_string(bits) +
                     (hyb ? ", hyb" : ""));
        spmv::SpmvOptions o;
        o.sell.index_bits = bits;
        o.sell.hyb_row_max = hyb ? -1 : 0;
        if (bits == 16 && half > 32767) {
          EXPECT_EQ(message_of<Error>([&] { SpmvOperator<Exec, double>(SpmvAlgorithm::sell, a, o); }),
                    hyb ? "hyb setup: index_bits = 16, but a column lies more than 32767 columns from its row"
                        : "sell setup: sell.index_bits = 16, but a column lies more than 32767 columns from its row");
          continue;
        }
        SpmvOperator<Exec, double> op(SpmvAlgorithm::sell, a, o);
        ASSERT_EQ(op.hyb_matrix() != nullptr, hyb);
        if (hyb) EXPECT_EQ(op.hyb_matrix()->tail.nrows(), kLongRows);
        const bool expect_compressed = bits != 32 && half <= 32767;
        EXPECT_EQ(op.sell_matrix()->compressed_columns(), expect_compressed);
        EXPECT_EQ(op.traffic(false).kernel_bytes < op.traffic(false).model_bytes, expect_compressed);
        EXPECT_LE(product_error(op, h, x), 1.0);
      }
    }
  }
}

// persist_x: products stay exact when x moves between calls; without a persisting L2 (CPUs)
// describe() says the window is off.
TEST(SpmvOperator, PersistXKeepsResultsAndSaysWhatItSet) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto h = random_csr<double>(300, 200, 0, 12, seed);
  const auto a = copy_to<Mem>(h);
  spmv::SpmvOptions o;
  o.persist_x = true;
  SpmvOperator<Exec, double> op(SpmvAlgorithm::automatic, a, o);
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int call = 0; call < 2; ++call) {  // a different x (address) each call
    std::vector<double> x(200);
    for (auto& v : x) v = u(rng);
    EXPECT_LE(product_error(op, h, x), 1.0);
  }
  if (!compat::is_gpu_space<Exec>())
    EXPECT_NE(op.describe().find("[no persisting-L2 window on "), std::string::npos) << op.describe();
}

}  // namespace
}  // namespace ppsparse::test
