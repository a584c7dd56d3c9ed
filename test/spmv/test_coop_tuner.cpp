// The run-time tuner's logic, driven by synthetic cost functions instead of a device clock.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <vector>

#include <ppsparse/spmv/csr_coop.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/spmv/coop_tuner.hpp>

#include "test_util.hpp"

namespace ppsparse::test {
namespace {

using spmv::CoopParams;
using spmv::CoopSearchSpace;
using spmv::CoopTuner;
using spmv::CoopTunerOptions;

CoopSearchSpace gpu_like_space() { return CoopSearchSpace{32, {64, 96, 128, 192, 256, 384, 512}, 64}; }

int log2i(int v) {
  int l = 0;
  while ((1 << (l + 1)) <= v) ++l;
  return l;
}

// Every valid point of a search space.
std::vector<CoopParams> grid(const CoopSearchSpace& s) {
  std::vector<CoopParams> g;
  for (int c = 1; c <= s.max_coop; c *= 2)
    for (int r = 1; r <= s.max_repeat; r *= 2)
      for (int b : s.block_sizes)
        if (b >= c && b % c == 0) g.push_back({c, r, b});
  return g;
}

// Every candidate after the start differs in one parameter from a point measured before it (a
// coop step may also move the block size to the nearest one that coop divides).
void expect_one_parameter_steps(const CoopTuner& t) {
  const auto& h = t.history();
  for (size_t i = 1; i < h.size(); ++i) {
    const CoopParams& p = h[i].first;
    bool stepped = false;
    for (size_t j = 0; j < i && !stepped; ++j) {
      const CoopParams& q = h[j].first;
      const int changed = (p.coop != q.coop) + (p.repeat != q.repeat) + (p.block_size != q.block_size);
      stepped = changed == 1 || (changed == 2 && p.coop != q.coop && p.repeat == q.repeat);
    }
    EXPECT_TRUE(stepped) << "candidate " << i << " " << p.to_string() << " is not one step from a measured point";
  }
}

// Drives the tuner to the end with `cost` as the measured time of each call.
void run_to_end(CoopTuner& t, const std::function<double(const CoopParams&)>& cost, int max_calls = 1000) {
  for (int i = 0; i < max_calls && !t.done(); ++i) t.record(cost(t.candidate()));
  ASSERT_TRUE(t.done());
}

// A separable cost shaped like the paper's observations: coop matters most and its optimum is
// within one power of two of the fixed rule; repeat matters by a few percent per step and its
// optimum lies within two powers of two of the start; block size matters by at most ~1.5 %
// per step, optimum within one step of 128.
struct PaperLikeCost {
  int coop_opt, repeat_opt, block_opt_idx;
  double a_coop, a_repeat, a_block;
  std::vector<int> blocks;
  double operator()(const CoopParams& p) const {
    const double dc = log2i(p.coop) - coop_opt;
    const double dr = std::abs(log2i(p.repeat) - repeat_opt);
    const int bi = static_cast<int>(std::find(blocks.begin(), blocks.end(), p.block_size) - blocks.begin());
    return 1e-3 * (1 + a_coop * dc * dc) * (1 + a_repeat * dr) * (1 + a_block * std::abs(bi - block_opt_idx));
  }
};

TEST(CoopTuner, PaperLikeCostsEndWithinTwoPercentInEightCallsNearlyAlways) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto space = gpu_like_space();
  const auto points = grid(space);
  int missed = 0;
  double worst = 1.0;
  for (int trial = 0; trial < 300; ++trial) {
    // Start: a fixed-rule point (coop 1..32, repeat 1..32, block 128).
    const int c0 = std::uniform_int_distribution<int>(0, 5)(rng);
    const int r0 = std::uniform_int_distribution<int>(0, 5)(rng);
    const CoopParams start{1 << c0, 1 << r0, 128};
    PaperLikeCost cost{std::clamp(c0 + std::uniform_int_distribution<int>(-1, 1)(rng), 0, 5),
                       std::clamp(r0 + std::uniform_int_distribution<int>(-2, 2)(rng), 0, 6),
                       2 + std::uniform_int_distribution<int>(-1, 1)(rng),
                       std::uniform_real_distribution<double>(0.1, 0.5)(rng),
                       std::uniform_real_distribution<double>(0.02, 0.08)(rng),
                       std::uniform_real_distribution<double>(0.002, 0.015)(rng),
                       space.block_sizes};
    double exhaustive = 1e300;
    for (const auto& p : points) exhaustive = std::min(exhaustive, cost(p));
    CoopTunerOptions o;
    o.samples = 1;
    CoopTuner t(start, space, o);
    for (int call = 0; call < 8 && !t.done(); ++call) t.record(cost(t.candidate()));
    SCOPED_TRACE("trial " + std::to_string(trial) + " start " + start.to_string());
    EXPECT_LE(t.calls(), 8);
    EXPECT_LE(cost(t.best()), cost(start));
    missed += cost(t.best()) > 1.02 * exhaustive;
    worst = std::max(worst, cost(t.best()) / exhaustive);
  }
  // Growing repeat steps (CoopTunerOptions::accelerate_repeat) can overshoot this model's steep
  // V along repeat and spend the calls a block step needed: over 100 seeds, 0.6 % of trials
  // ended above 2 % (at most 6 of 300, at worst 9.4 % off); with single steps none did. The
  // measured H100 landscapes (next test) and the H100 runs favour growing steps.
  // Over 40 seeds: 1.4 +- 1.2 misses (at most 4), the worst 1.053 +- 0.027 (at most 1.093);
  // the bounds are 6 and 4 standard deviations out.
  std::cout << "paper-like costs: " << missed << " of 300 trials above 2 %, worst " << worst << "\n";
  EXPECT_LE(missed, 9) << "of 300 trials above 2 %";
  EXPECT_LE(worst, 1.16);
}

// csr_coop's times measured on an H100 over the whole GPU search space, per matrix, with the
// fixed rule's start point (test/data/coop_landscape_h100.txt).
struct MeasuredLandscape {
  std::string matrix;
  ordinal_t nrows = 0;
  offset_t nnz = 0;
  CoopParams start;  // the fixed rule on that device
  // What coop_matrix_shape finds: the stencils, bands and meshes in their own numbering have
  // local columns; tetmesh_shuffled, R-MAT and the random ones do not.
  spmv::CoopMatrixShape shape;
  std::map<std::tuple<int, int, int>, double> us;
  double operator()(const CoopParams& p) const { return us.at({p.coop, p.repeat, p.block_size}); }
  double best() const {
    double b = 1e300;
    for (const auto& [k, t] : us) b = std::min(b, t);
    return b;
  }
};

std::vector<MeasuredLandscape> measured_landscapes(const std::string& file) {
  std::ifstream in(data_file(file));
  if (!in) throw std::runtime_error("cannot read committed test data " + data_file(file).string());
  std::vector<MeasuredLandscape> all;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string points;
    MeasuredLandscape l;
    fields >> l.matrix >> l.nrows >> l.nnz >> points;
    l.start = spmv::coop_fixed_rule(l.nrows, l.nnz, 32, 132 * 2048, true);
    for (const char* local : {"stencil", "band", "tetmesh_1", "mixedmesh", "longrows"})
      l.shape.local_columns = l.shape.local_columns || l.matrix.rfind(local, 0) == 0;
    char comma;
    std::istringstream ps(points);
    std::string point;
    while (std::getline(ps, point, ';')) {
      int c, r, b;
      double t;
      std::istringstream(point) >> c >> comma >> r >> comma >> b >> comma >> t;
      l.us[{c, r, b}] = t;
    }
    all.push_back(std::move(l));
  }
  return all;
}

// The five committed H100 landscape sets, 14 matrices each.
const std::vector<std::string> kH100LandscapeFiles{
    "coop_landscape_h100.txt", "coop_landscape_devtimer_h100.txt", "coop_landscape_plateau_h100.txt",
    "coop_landscape_20261123_h100.txt", "coop_landscape_20261123b_h100.txt"};

// The tuner's choice after 8 calls on l from its start, driven as SpmvOperator drives it, each
// product's time scaled by 1 + noise (relative Gaussian noise of the distribution's sigma): the
// matrix's shape where o.repeat_direction_from_shape; the start timed o.start_runs times before
// the first call (record_start); a call's sample the median of o.runs_per_call noisy products,
// or the first alone where it decides the step.
CoopParams best_after_eight_noisy_calls(const MeasuredLandscape& l, const CoopTunerOptions& o,
                                        std::normal_distribution<double>& noise, std::mt19937_64& rng) {
  CoopTuner t(l.start, gpu_like_space(), o, o.repeat_direction_from_shape ? l.shape : spmv::CoopMatrixShape{});
  if (t.wants_start_runs()) {
    std::vector<double> start_runs;
    for (int run = 0; run < o.start_runs; ++run) start_runs.push_back(l(l.start) * (1.0 + noise(rng)));
    t.record_start(start_runs);
  }
  for (int call = 0; call < 8 && !t.done(); ++call) {
    std::vector<double> runs{l(t.candidate()) * (1.0 + noise(rng))};
    if (!t.first_run_decides(runs[0]))
      while (static_cast<int>(runs.size()) < o.runs_per_call) runs.push_back(l(t.candidate()) * (1.0 + noise(rng)));
    t.record_call(runs);
  }
  return t.best();
}

// Misses of the 2 % target in 8 calls, summed over a file's matrices: each matrix's share of
// `trials` noisy runs (relative Gaussian noise `sigma` per call) that end above 1.02 x its best.
double expected_misses(const std::vector<MeasuredLandscape>& landscapes, const CoopTunerOptions& o, double sigma,
                       int trials, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0.0, sigma);
  double misses = 0;
  for (const auto& l : landscapes) {
    int missed = 0;
    for (int trial = 0; trial < trials; ++trial)
      missed += l(best_after_eight_noisy_calls(l, o, noise, rng)) > 1.02 * l.best();
    misses += static_cast<double>(missed) / trials;
  }
  return misses;
}

// The tuner in the paper's flow (the first call measures the start; bench_spmv's
// spmv_tuner/.../paper_start: one sample per candidate, 8 calls), started from the fixed rule,
// on the landscapes of five H100 runs (medians of 5 per point;
// test/data/coop_landscape_{h100,devtimer_h100,plateau_h100,20261123_h100,20261123b_h100}.txt).
// Without noise: within 2 % of the exhaustive best on all 14 of each. (With single repeat
// steps, tetmesh of the third and fourth runs reaches coop 4, repeat 16 at the eighth call with
// block 128, 1.021-1.028; blocks of 192-512 are its best.) With 1 % timing noise per call: the
// median over trials within 3 %, at most 3 of the 7000 runs more than 3 % worse than the start,
// and (the plateau walk's purpose, with single repeat steps) fewer expected misses than a
// strict descent: on the second run 0.87 of 14 against 1.67 in a replay of 400 trials per
// matrix, at 0.5 % noise 0.11 against 1.00. Growing repeat steps, against single ones, on the
// third and fourth runs at 0.5 % noise: fewer expected misses by at least 0.8 of 28.
// (Measured before csr_coop's teams interleaved their chunks, stencil7's landscape was rugged
// at coop = 1 and the tuner ended 5 % from its best there.)
TEST(CoopTuner, ReachesTwoPercentOnMeasuredH100LandscapesWithinEightCalls) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.01);
  CoopTunerOptions o;
  o.samples = 1;
  o.runs_per_call = 1;                    // one product per call: the noise as calibrated below
  o.start_runs = 0;                       // the first call measures the start
  o.repeat_direction_from_shape = false;  // repeat halved first: the paper's tuner
  // Noisy runs that end more than 3 % slower than the start: a single sample 3 sigma fast can
  // adopt a worse point (tetmesh, third run: repeat 1 is 4 % slower than the start's repeat 2).
  // About 0.5 expected in the 7000 runs here.
  int regressions = 0;
  double max_median = 0;
  for (const std::string& file : kH100LandscapeFiles) {
    SCOPED_TRACE(file);
    const auto landscapes = measured_landscapes(file);
    ASSERT_EQ(landscapes.size(), 14u);
    int within = 0;
    for (const auto& l : landscapes) {
      SCOPED_TRACE(l.matrix + " from " + l.start.to_string());
      ASSERT_EQ(l.us.size(), grid(gpu_like_space()).size());
      CoopTuner exact(l.start, gpu_like_space(), o);
      for (int call = 0; call < 8 && !exact.done(); ++call) exact.record(l(exact.candidate()));
      EXPECT_LE(exact.calls(), 8);
      const double ratio = l(exact.best()) / l.best();
      within += ratio <= 1.02;
      EXPECT_LE(ratio, 1.025) << exact.best().to_string();
      std::vector<double> noisy;
      for (int trial = 0; trial < 100; ++trial) {
        const CoopParams best = best_after_eight_noisy_calls(l, o, noise, rng);
        noisy.push_back(l(best) / l.best());
        regressions += l(best) > l(l.start) * 1.03;
      }
      std::nth_element(noisy.begin(), noisy.begin() + noisy.size() / 2, noisy.end());
      // tetmesh of the 2026-11-23 landscape ends on coop 4, repeat 16, block 128 in most noisy
      // runs, 1.028 of that file's best (re-timed on the device, 1.011-1.021). The largest
      // median over all matrices, over 25 seeds: 1.016 +- 0.003, at most 1.028; the medians
      // take the landscape's discrete values, so the bound sits above that value.
      EXPECT_LE(noisy[noisy.size() / 2], 1.035);
      max_median = std::max(max_median, noisy[noisy.size() / 2]);
    }
    EXPECT_EQ(within, 14);  // of the file's 14 matrices, without noise
  }
  // Over 40 seeds: 0.15 +- 0.36 regressions (at most 1).
  std::cout << "measured landscapes: " << regressions << " regressions, largest median " << max_median << "\n";
  EXPECT_LE(regressions, 3);
  // Plateau walk against strict descent, on the run where they differ (200 trials per matrix:
  // a standard error of about 0.07 on each sum).
  // Both with single repeat steps, as measured when the walk was added.
  const auto second = measured_landscapes("coop_landscape_devtimer_h100.txt");
  CoopTunerOptions single = o;
  single.accelerate_repeat = false;
  CoopTunerOptions strict = single;
  strict.plateau_tolerance = 0.0;
  const double walk = expected_misses(second, single, 0.005, 200, rng);
  const double descent = expected_misses(second, strict, 0.005, 200, rng);
  // Over 40 seeds: walk 0.026 +- 0.011, descent 0.895 +- 0.023.
  std::cout << "expected misses at 0.5 % noise: walk " << walk << ", strict descent " << descent << "\n";
  EXPECT_LE(walk, 0.4);
  EXPECT_GE(descent, 0.7);
  // Growing repeat steps against single ones, on the two runs where tetmesh's best repeat is
  // three steps from the start and single steps end a block step short of it in 8 calls.
  double grown = 0, unit = 0;
  for (const char* file : {"coop_landscape_plateau_h100.txt", "coop_landscape_20261123_h100.txt"}) {
    const auto l = measured_landscapes(file);
    grown += expected_misses(l, o, 0.005, 200, rng);
    unit += expected_misses(l, single, 0.005, 200, rng);
  }
  // Over 40 seeds: unit - grown = 1.75 +- 0.05.
  std::cout << "expected misses at 0.5 % noise: growing steps " << grown << ", single steps " << unit << "\n";
  EXPECT_LE(grown, unit - 0.8) << "growing steps " << grown << ", single steps " << unit;
}

// The median of 3 products per call (CoopTunerOptions::runs_per_call) against one, on
// all five H100 landscape sets at 1.5 % noise per product (the device's spread is 1-4 %):
// expected misses of the 2 % target in 8 calls, per 70 matrix landscapes.
TEST(CoopTuner, MedianOfThreeRunsPerCallMissesLessOnMeasuredLandscapes) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  CoopTunerOptions one;
  one.start_runs = 0;  // the paper's flow, as when these options were measured
  one.repeat_direction_from_shape = false;
  CoopTunerOptions three = one, every = one;
  one.runs_per_call = 1;
  three.runs_per_call = 3;
  every.runs_per_call = 3;
  every.single_run_margin = std::numeric_limits<double>::infinity();
  double misses_one = 0, misses_three = 0, misses_every = 0;
  for (const std::string& file : kH100LandscapeFiles) {
    const auto l = measured_landscapes(file);
    misses_one += expected_misses(l, one, 0.015, 200, rng);
    misses_three += expected_misses(l, three, 0.015, 200, rng);
    misses_every += expected_misses(l, every, 0.015, 200, rng);
  }
  std::cout << "expected misses per 70 at 1.5 % noise: one run per call " << misses_one << ", median of three "
            << misses_three << " (" << misses_every << " without single-run decisions)\n";
  // Over 40 seeds: three / one = 0.452 +- 0.018, three - every = -0.06 +- 0.17.
  EXPECT_LE(misses_three, 0.6 * misses_one);
  // Skipping the extra runs of clearly failed steps costs no accuracy (standard error of each
  // sum about 0.2).
  EXPECT_LE(misses_three, misses_every + 0.8);
}

// The start timed three times before the first call (median) and the repeat walk turned
// towards fewer teams first on local columns, against the paper's flow (the first call
// measures the start; repeat halved first), on the five committed H100 landscape sets at 1 %
// Gaussian noise per product (the local matrices: MeasuredLandscape::shape). With best() the
// fastest point measured, 500 trials per matrix: 3.5-3.8 expected misses of 2 % in 8 calls per
// 70 against 4.1-4.4 over nineteen seeds (differences 0.27-0.90). At 2000 trials per matrix, over
// 25 seeds, the difference is 0.53 +- 0.07: the bound of 0.2 is 5 standard deviations out.
TEST(CoopTuner, StartRunsAndLocalColumnsMissLessOnMeasuredLandscapes) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  CoopTunerOptions paper;
  paper.runs_per_call = 1;
  paper.start_runs = 0;
  paper.repeat_direction_from_shape = false;
  CoopTunerOptions now = paper;
  now.start_runs = 3;
  now.repeat_direction_from_shape = true;
  double misses_paper = 0, misses_now = 0;
  for (const std::string& file : kH100LandscapeFiles) {
    const auto l = measured_landscapes(file);
    misses_paper += expected_misses(l, paper, 0.01, 2000, rng);
    misses_now += expected_misses(l, now, 0.01, 2000, rng);
  }
  std::cout << "expected misses per 70 at 1 % noise: paper's flow " << misses_paper << ", start runs and local columns "
            << misses_now << "\n";
  EXPECT_LE(misses_now, misses_paper - 0.2);
}

// A step that lands level with where it came from is walked through once: along repeat the
// times 1.00 (start), 1.005, 0.97 reach 0.97 with the walk, and stop at the start without it.
// Two level steps in a row are not walked through.
TEST(CoopTuner, PlateauWalkCrossesOneLevelStep) {
  const CoopSearchSpace cpu{1, {1}, 64};
  const std::map<int, double> along_repeat{{1, 1.10},  {2, 1.08}, {4, 1.00}, {8, 1.005},
                                           {16, 0.97}, {32, 1.2}, {64, 1.3}};
  auto cost = [&](const CoopParams& p) { return along_repeat.at(p.repeat); };
  CoopTunerOptions o;
  o.samples = 1;
  CoopTuner walk({1, 4, 1}, cpu, o);
  run_to_end(walk, cost);
  EXPECT_EQ(walk.best(), (CoopParams{1, 16, 1}));
  o.plateau_tolerance = 0.0;
  CoopTuner strict({1, 4, 1}, cpu, o);
  run_to_end(strict, cost);
  EXPECT_EQ(strict.best(), (CoopParams{1, 4, 1}));
  // 1.00, 1.005, 1.01, 0.9: the second level step ends the walk.
  const std::map<int, double> two_level{{1, 1.10}, {2, 1.08}, {4, 1.00}, {8, 1.005}, {16, 1.01}, {32, 0.9}, {64, 1.3}};
  o.plateau_tolerance = 0.02;
  CoopTuner twice({1, 4, 1}, cpu, o);
  run_to_end(twice, [&](const CoopParams& p) { return two_level.at(p.repeat); });
  EXPECT_EQ(twice.best(), (CoopParams{1, 4, 1}));
  // The best measured point is the result.
  for (const auto& [p, s] : walk.history()) EXPECT_LE(walk.best_seconds(), s);
  expect_one_parameter_steps(walk);
}

TEST(CoopTuner, NeverWorseThanStartOnArbitraryCosts) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto space = gpu_like_space();
  for (int trial = 0; trial < 200; ++trial) {
    std::map<std::tuple<int, int, int>, double> table;  // random, non-separable, cached per point
    auto cost = [&](const CoopParams& p) {
      auto key = std::make_tuple(p.coop, p.repeat, p.block_size);
      auto it = table.find(key);
      if (it == table.end()) it = table.emplace(key, std::uniform_real_distribution<double>(1.0, 2.0)(rng)).first;
      return it->second;
    };
    const CoopParams start{
        1 << std::uniform_int_distribution<int>(0, 5)(rng), 1 << std::uniform_int_distribution<int>(0, 6)(rng),
        space.block_sizes[std::uniform_int_distribution<size_t>(0, space.block_sizes.size() - 1)(rng)]};
    CoopTunerOptions o;
    o.samples = 1 + trial % 3;
    o.max_steps = 4 + trial % 20;
    o.min_gain = trial % 2 ? 0.0 : 0.01;
    o.plateau_tolerance = trial % 4 < 2 ? 0.02 : (trial % 4 == 2 ? 0.0 : 0.5);
    CoopTuner t(start, space, o);
    run_to_end(t, cost);
    EXPECT_EQ(t.history().front().first, start);
    EXPECT_LE(t.steps(), o.max_steps);
    EXPECT_LE(t.best_seconds(), t.start_seconds());
    EXPECT_LE(cost(t.best()), cost(start));
    // The best is the fastest point measured, up to min_gain (a smaller gain is not a step):
    // no regression was kept.
    for (const auto& [p, s] : t.history()) EXPECT_LE(t.best_seconds() * (1 - o.min_gain), s);
    expect_one_parameter_steps(t);
    // After the search: the best is run, further times are ignored.
    EXPECT_EQ(t.candidate(), t.best());
    const int calls = t.calls();
    t.record(1e-9);
    EXPECT_EQ(t.calls(), calls);
    EXPECT_EQ(t.candidate(), t.best());
  }
}

TEST(CoopTuner, MedianIgnoresOutliersAndNoiseStaysBounded) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto space = gpu_like_space();
  const double eps = 0.03;
  for (int trial = 0; trial < 100; ++trial) {
    const CoopParams start{4, 8, 128};
    PaperLikeCost cost{std::uniform_int_distribution<int>(1, 3)(rng),
                       std::uniform_int_distribution<int>(1, 5)(rng),
                       2,
                       0.3,
                       0.05,
                       0.01,
                       space.block_sizes};
    CoopTunerOptions o;
    o.samples = 3;
    // Deterministic cost, but the first run of every candidate is 10x slow (a cold start):
    // the median must ignore it and the search must end where the clean search ends.
    CoopTuner clean(start, space, CoopTunerOptions{1, o.max_steps, o.min_gain});
    run_to_end(clean, cost);
    CoopTuner t(start, space, o);
    int run_of_candidate = 0;
    CoopParams last{};
    for (int i = 0; i < 1000 && !t.done(); ++i) {
      run_of_candidate = t.candidate() == last ? run_of_candidate + 1 : 0;
      last = t.candidate();
      t.record(cost(t.candidate()) * (run_of_candidate % 3 == 0 ? 10.0 : 1.0));
    }
    ASSERT_TRUE(t.done());
    EXPECT_EQ(t.best(), clean.best());
    EXPECT_EQ(t.calls(), 3 * clean.calls());
    // Uniform noise of +-eps: the adopted best can be worse than the start by at most the
    // noise band, (1 + eps) / (1 - eps), never more.
    CoopTuner noisy(start, space, o);
    std::uniform_real_distribution<double> noise(1 - eps, 1 + eps);
    run_to_end(noisy, [&](const CoopParams& p) { return cost(p) * noise(rng); });
    EXPECT_LE(cost(noisy.best()), cost(start) * (1 + eps) / (1 - eps));
  }
}

TEST(CoopTuner, CpuSpaceTunesRepeatOnly) {
  const CoopSearchSpace cpu{1, {1}, 64};
  auto cost = [](const CoopParams& p) { return 1.0 + std::abs(log2i(p.repeat) - 3); };  // best repeat 8
  CoopTunerOptions o;
  o.samples = 1;
  CoopTuner t({1, 32, 1}, cpu, o);
  run_to_end(t, cost);
  EXPECT_EQ(t.best(), (CoopParams{1, 8, 1}));
  for (const auto& [p, s] : t.history()) {
    EXPECT_EQ(p.coop, 1);
    EXPECT_EQ(p.block_size, 1);
  }
  // A start that is not a power of two is part of the grid.
  CoopTuner odd({1, 6, 1}, cpu, o);
  run_to_end(odd, cost);
  EXPECT_EQ(odd.best(), (CoopParams{1, 8, 1}));
}

TEST(CoopTuner, StartThatIsBestIsKept) {
  const auto space = gpu_like_space();
  PaperLikeCost cost{2, 3, 2, 0.3, 0.05, 0.01, space.block_sizes};  // optimum coop 4, repeat 8, block 128
  CoopTunerOptions o;
  o.samples = 1;
  CoopTuner t({4, 8, 128}, space, o);
  run_to_end(t, cost);
  EXPECT_EQ(t.best(), (CoopParams{4, 8, 128}));
  EXPECT_EQ(t.best_seconds(), t.start_seconds());
}

TEST(CoopTuner, RejectsBadInput) {
  const auto space = gpu_like_space();
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({3, 1, 128}, space);
            }),
            "CoopTuner start: coop = 3 must be a power of two in [1, 32] (the vector width of this execution space)");
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({4, 0, 128}, space);
            }),
            "CoopTuner start: repeat = 0 must be >= 1");
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({8, 1, 100}, space);
            }),
            "CoopTuner start: block_size = 100 must be a positive multiple of coop = 8");
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({4, 1, 160}, space);
            }),
            "CoopTuner: start block_size = 160 is not one of the search space's block sizes");
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({4, 1, 128}, space, CoopTunerOptions{0, 16, 0.0});
            }),
            "CoopTuner: samples = 0 must be >= 1");
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({4, 1, 128}, space, CoopTunerOptions{1, 0, 0.0});
            }),
            "CoopTuner: max_steps = 0 must be >= 1");
  EXPECT_NE(invalid_argument_message([&] {
              CoopTuner({4, 1, 128}, space, CoopTunerOptions{1, 4, -0.5});
            }).find("min_gain"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              CoopTuner({4, 1, 128}, space, CoopTunerOptions{1, 4, 0.0, 1.5});
            }).find("plateau_tolerance = 1.500000 must be in [0, 1)"),
            std::string::npos);
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({4, 1, 128}, CoopSearchSpace{32, {}, 64});
            }),
            "CoopTuner: empty search space");
  CoopTuner t({4, 1, 128}, space);
  EXPECT_NE(invalid_argument_message([&] { t.record(-1.0); }).find("is not a finite nonnegative number"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { t.record(std::nan("")); }).find("is not a finite nonnegative number"),
            std::string::npos);
  CoopTunerOptions three;
  three.runs_per_call = 3;
  CoopTuner t3({4, 1, 128}, space, three);
  EXPECT_EQ(invalid_argument_message([&] {
              t3.record_call({1e-3, 2e-3});
            }),
            "CoopTuner::record_call: 2 run times, expected runs_per_call = 3 (or 1 that decides its step)");
  // The start's time is the reference: one run never decides it.
  EXPECT_EQ(invalid_argument_message([&] { t3.record_call({1e-3}); }),
            "CoopTuner::record_call: 1 run time, expected runs_per_call = 3 (or 1 that decides its step)");
  EXPECT_NE(invalid_argument_message([&] {
              t3.record_call({1e-3, -1.0, 2e-3});
            }).find("is not a finite nonnegative number"),
            std::string::npos);
  CoopTunerOptions one;
  one.runs_per_call = 1;
  CoopTuner t1({4, 1, 128}, space, one);
  EXPECT_EQ(invalid_argument_message([&] {
              t1.record_call({1e-3, 2e-3});
            }),
            "CoopTuner::record_call: 2 run times, expected runs_per_call = 1");
  EXPECT_EQ(t.calls(), 0);
  EXPECT_EQ(t3.calls(), 0);
  CoopTunerOptions o;
  o.runs_per_call = 0;
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({4, 1, 128}, space, o);
            }),
            "CoopTuner: runs_per_call = 0 must be >= 1");
  o.runs_per_call = 3;
  o.single_run_margin = -0.1;
  EXPECT_EQ(invalid_argument_message([&] {
              CoopTuner({4, 1, 128}, space, o);
            }),
            "CoopTuner: single_run_margin = -0.100000 must be >= 0");
  o.single_run_margin = std::nan("");
  EXPECT_NE(invalid_argument_message([&] {
              CoopTuner({4, 1, 128}, space, o);
            }).find("single_run_margin"),
            std::string::npos);
}

// One run decides a step only when it fails the step by the margin: after a start of 1 ms
// (plateau 0.02, margin 0.05), above 1.02 x 1.05 ms. Never for the start, never for a faster
// run (its time would become the reference), never with an infinite margin.
TEST(CoopTuner, FirstRunDecidesOnlyClearSteps) {
  CoopTunerOptions o;
  o.samples = 1;
  o.runs_per_call = 3;
  CoopTuner t({4, 8, 128}, gpu_like_space(), o);
  EXPECT_FALSE(t.first_run_decides(1.0));
  t.record_call({1e-3, 1.1e-3, 0.9e-3});
  EXPECT_EQ(t.start_seconds(), 1e-3);
  EXPECT_TRUE(t.first_run_decides(1.2e-3));
  EXPECT_TRUE(t.first_run_decides(1.0711e-3));
  EXPECT_FALSE(t.first_run_decides(1.0709e-3));
  EXPECT_FALSE(t.first_run_decides(1.0e-3));
  EXPECT_FALSE(t.first_run_decides(0.5e-3));
  const CoopParams step = t.candidate();
  t.record_call({1.3e-3});  // clearly slower: judged on the one run
  EXPECT_EQ(t.calls(), 2);
  ASSERT_EQ(t.history().size(), 2u);
  EXPECT_EQ(t.history()[1], std::make_pair(step, 1.3e-3));
  EXPECT_EQ(t.best(), (CoopParams{4, 8, 128}));
  o.single_run_margin = std::numeric_limits<double>::infinity();
  CoopTuner every(CoopParams{4, 8, 128}, gpu_like_space(), o);
  every.record_call({1e-3, 1e-3, 1e-3});
  EXPECT_FALSE(every.first_run_decides(10e-3));
}

// Paired times are scaled to the recorded ones: a candidate 10 % slower than the best in the
// same call counts as 1.1 x the best's recorded time, whatever the device's speed then.
TEST(CoopTuner, NormalisedTimesFollowTheBestsRecordedTime) {
  CoopTunerOptions o;
  o.runs_per_call = 1;
  o.paired = true;
  CoopTuner t({4, 8, 128}, gpu_like_space(), o);
  EXPECT_FALSE(t.wants_pair());  // the start is the reference, timed alone
  EXPECT_NE(invalid_argument_message([&] { t.normalised(1.0, 1.0); }).find("no best measured yet"), std::string::npos);
  t.record_call({2e-3});
  EXPECT_TRUE(t.wants_pair());
  EXPECT_DOUBLE_EQ(t.normalised(5.5e-3, 5e-3), 2.2e-3);
  EXPECT_NE(invalid_argument_message([&] { t.normalised(0.0, 1e-3); }).find("is not a finite positive number"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { t.normalised(1e-3, std::nan("")); }).find("is not a finite positive number"),
            std::string::npos);
  t.record_call({t.normalised(4e-3, 5e-3)});  // 20 % faster than the best, in a slow moment
  EXPECT_DOUBLE_EQ(t.best_seconds(), 1.6e-3);
  CoopTunerOptions unpaired;
  unpaired.runs_per_call = 1;
  unpaired.paired = false;
  CoopTuner u({4, 8, 128}, gpu_like_space(), unpaired);
  u.record_call({2e-3});
  EXPECT_FALSE(u.wants_pair());
}

// The start's runs before the first call: their median is the start's time, not a call, and
// the first call's candidate is already a step.
TEST(CoopTuner, RecordStartTakesTheMedianAndIsNotACall) {
  CoopTunerOptions o;
  o.runs_per_call = 1;
  o.start_runs = 3;
  CoopTuner t({4, 8, 128}, gpu_like_space(), o);
  EXPECT_TRUE(t.wants_start_runs());
  EXPECT_NE(invalid_argument_message([&] {
              t.record_start({1e-3, 2e-3});
            }).find("expected start_runs = 3"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              t.record_start({1e-3, -1.0, 2e-3});
            }).find("is not a finite nonnegative"),
            std::string::npos);
  t.record_start({5e-3, 1e-3, 2e-3});
  EXPECT_FALSE(t.wants_start_runs());
  EXPECT_EQ(t.calls(), 0);
  EXPECT_EQ(t.start_seconds(), 2e-3);
  EXPECT_EQ(t.best_seconds(), 2e-3);
  EXPECT_DOUBLE_EQ(t.start_run_seconds(), 8e-3);
  ASSERT_EQ(t.history().size(), 1u);
  EXPECT_NE(t.candidate(), (CoopParams{4, 8, 128}));
  EXPECT_NE(invalid_argument_message([&] {
              t.record_start({1e-3, 1e-3, 1e-3});
            }).find("measured already"),
            std::string::npos);
  t.record_call({1e-3});  // the first call: a step, faster than the start's median
  EXPECT_EQ(t.calls(), 1);
  EXPECT_EQ(t.best_seconds(), 1e-3);
  // Without start runs the first call measures the start, as before.
  o.start_runs = 0;
  CoopTuner paper({4, 8, 128}, gpu_like_space(), o);
  EXPECT_FALSE(paper.wants_start_runs());
  EXPECT_NE(invalid_argument_message([&] { paper.record_start({}); }).find("start_runs = 0"), std::string::npos);
  paper.record_call({2e-3});
  EXPECT_EQ(paper.start_seconds(), 2e-3);
  o.start_runs = -1;
  EXPECT_NE(invalid_argument_message([&] {
              CoopTuner({4, 8, 128}, gpu_like_space(), o);
            }).find("start_runs = -1"),
            std::string::npos);
}

// On a space where only repeat varies, the first step halves repeat (the paper's "twice the
// teams"), or doubles it where the matrix's columns are local.
TEST(CoopTuner, LocalColumnsWalkRepeatUpFirst) {
  const CoopSearchSpace repeat_only{1, {1}, 64};
  CoopTunerOptions o;
  o.start_runs = 0;
  CoopTuner random({1, 8, 1}, repeat_only, o, spmv::CoopMatrixShape{false});
  random.record(1e-3);
  EXPECT_EQ(random.candidate(), (CoopParams{1, 4, 1}));
  CoopTuner local({1, 8, 1}, repeat_only, o, spmv::CoopMatrixShape{true});
  local.record(1e-3);
  EXPECT_EQ(local.candidate(), (CoopParams{1, 16, 1}));
  // A failed first step still turns back: local columns, but fewer teams are slower.
  local.record(2e-3);
  EXPECT_EQ(local.candidate(), (CoopParams{1, 4, 1}));
}

// best() is the fastest point measured, also where a step was faster by less than min_gain and
// the walk did not adopt it.
TEST(CoopTuner, BestIsTheFastestMeasuredEvenBelowMinGain) {
  const CoopSearchSpace repeat_only{1, {1}, 64};
  CoopTunerOptions o;
  o.start_runs = 0;
  o.min_gain = 0.005;
  CoopTuner t({1, 8, 1}, repeat_only, o);
  t.record(1e-3);
  ASSERT_EQ(t.candidate(), (CoopParams{1, 4, 1}));
  t.record(0.997e-3);  // 0.3 % faster: a level step for the walk, the best answer so far
  EXPECT_EQ(t.best(), (CoopParams{1, 4, 1}));
  EXPECT_EQ(t.best_seconds(), 0.997e-3);
  for (int i = 0; i < 50 && !t.done(); ++i) t.record(1.2e-3);  // every other point slower
  ASSERT_TRUE(t.done());
  EXPECT_EQ(t.best(), (CoopParams{1, 4, 1}));
  EXPECT_EQ(t.candidate(), (CoopParams{1, 4, 1}));
}

// A call's runs count as one sample, their median: a slow outlier among them is not seen.
TEST(CoopTuner, RecordCallTakesTheMedianOfItsRuns) {
  CoopTunerOptions o;
  o.samples = 1;
  o.runs_per_call = 3;
  CoopTuner t({4, 8, 128}, gpu_like_space(), o);
  t.record_call({5e-3, 1e-3, 1.1e-3});
  EXPECT_EQ(t.calls(), 1);
  ASSERT_EQ(t.history().size(), 1u);
  EXPECT_EQ(t.history()[0].second, 1.1e-3);
  EXPECT_EQ(t.start_seconds(), 1.1e-3);
}

}  // namespace
}  // namespace ppsparse::test
