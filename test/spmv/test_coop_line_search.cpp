// csr_coop's run-time tuner by line searches (CoopLineSearch, CoopTuner's default search),
// driven by synthetic cost functions and measured H100 landscapes instead of a device clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/spmv/coop_line_search.hpp>
#include <ppsparse/spmv/coop_tuner.hpp>

#include "coop_landscapes.hpp"
#include "test_util.hpp"

namespace ppsparse::test {
namespace {

using spmv::CoopLineSearch;
using spmv::CoopLineSearchOptions;
using spmv::CoopParams;
using spmv::CoopSearchSpace;

using Cost = std::function<double(const CoopParams&)>;

// One tuning call as SpmvOperator makes it: products of candidate() until between_calls().
// Returns the points the call timed, in order.
std::vector<CoopParams> one_call(CoopLineSearch& t, const Cost& cost) {
  std::vector<CoopParams> timed;
  do {
    timed.push_back(t.candidate());
    t.record(cost(t.candidate()));
  } while (!t.between_calls());
  return timed;
}

// Calls until done (at most max_calls); the points each call timed.
std::vector<std::vector<CoopParams>> run_to_end(CoopLineSearch& t, const Cost& cost, int max_calls = 100) {
  std::vector<std::vector<CoopParams>> calls;
  for (int i = 0; i < max_calls && !t.done(); ++i) calls.push_back(one_call(t, cost));
  EXPECT_TRUE(t.done());
  return calls;
}

int differing(const CoopParams& p, const CoopParams& q) {
  return (p.coop != q.coop) + (p.repeat != q.repeat) + (p.block_size != q.block_size);
}

// A separable cost: a bowl in log2 coop and log2 repeat and in the block's index.
struct BowlCost {
  int coop_log, repeat_log, block_idx;
  std::vector<int> blocks;
  double operator()(const CoopParams& p) const {
    const double dc = std::log2(p.coop) - coop_log, dr = std::log2(p.repeat) - repeat_log;
    const int bi = static_cast<int>(std::find(blocks.begin(), blocks.end(), p.block_size) - blocks.begin());
    return 1e-3 * (1 + 0.3 * dc * dc) * (1 + 0.04 * std::abs(dr)) * (1 + 0.01 * std::abs(bi - block_idx));
  }
};

double grid_minimum(const Cost& cost, const CoopSearchSpace& space) {
  double m = std::numeric_limits<double>::infinity();
  for (const auto& p : grid(space)) m = std::min(m, cost(p));
  return m;
}

// Each call changes one parameter: its first product is the incumbent, and every other point it
// times lies on one axis line (the descent's through the incumbent, the exploration's through
// its base); the incumbent after a call is the fastest point that call timed.
TEST(CoopLineSearch, EachCallSearchesOneAxisFromTheIncumbent) {
  const auto seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto space = gpu_like_space();
  for (int trial = 0; trial < 50; ++trial) {
    std::uniform_int_distribution<int> c(0, 5), r(0, 6), b(0, 6), s(0, 5);
    const BowlCost cost{c(rng), r(rng), b(rng), space.block_sizes};
    const CoopParams start{1 << s(rng), 1 << s(rng), 128};
    CoopLineSearch t(start, space);
    CoopParams incumbent = start;
    while (!t.done()) {
      const auto timed = one_call(t, cost);
      ASSERT_FALSE(timed.empty());
      EXPECT_EQ(timed.front(), incumbent);
      // The line: the points after the incumbent (and, exploring, after the line's base) differ
      // from each other in one parameter, the same one throughout the call.
      std::vector<CoopParams> line(timed.begin() + 1, timed.end());
      int axis = -1;
      for (size_t i = 1; i < line.size(); ++i) {
        if (line[i] == line[0]) continue;
        ASSERT_EQ(differing(line[i], line[0]), 1) << line[i].to_string() << " against " << line[0].to_string();
        const int a = line[i].coop != line[0].coop ? 0 : line[i].repeat != line[0].repeat ? 1 : 2;
        if (axis < 0) axis = a;
        EXPECT_EQ(a, axis);
      }
      for (const auto& p : timed) EXPECT_GE(cost(p), cost(t.best()));
      EXPECT_LE(cost(t.best()), cost(incumbent));
      incumbent = t.best();
    }
    EXPECT_LE(t.calls(), CoopLineSearchOptions{}.max_calls);
  }
}

// A separable cost has its minimum on the axes through any point: the descent reaches it
// exactly, well within 8 calls.
TEST(CoopLineSearch, SeparableCostsEndOnTheGridMinimum) {
  const auto seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto space = gpu_like_space();
  for (int trial = 0; trial < 100; ++trial) {
    std::uniform_int_distribution<int> c(0, 5), r(0, 6), b(0, 6), s(0, 5);
    const BowlCost cost{c(rng), r(rng), b(rng), space.block_sizes};
    const CoopParams start{1 << s(rng), 1 << s(rng), space.block_sizes[static_cast<size_t>(b(rng))]};
    if (start.block_size % start.coop != 0) continue;
    CoopLineSearch t(start, space);
    run_to_end(t, cost);
    EXPECT_DOUBLE_EQ(cost(t.best()), grid_minimum(cost, space)) << "start " << start.to_string();
    EXPECT_DOUBLE_EQ(t.best_seconds(), cost(t.best()));
  }
}

// The contenders' further products decide by their median: the best point's second product in
// every call 10x slow (a preempted launch) does not move the result with 5 rounds; with 2 (the
// mean of two products) it does.
TEST(CoopLineSearch, MediansIgnoreASlowProduct) {
  const auto space = gpu_like_space();
  const BowlCost bowl{2, 3, 2, space.block_sizes};
  const CoopParams optimum{4, 8, 128};
  for (const int rounds : {5, 2}) {
    CoopLineSearchOptions o;
    o.rounds = rounds;
    CoopLineSearch t({4, 2, 128}, space, o);
    while (!t.done()) {
      int optimum_products = 0;  // in this call
      one_call(t, [&](const CoopParams& p) {
        const bool slow = p == optimum && ++optimum_products == 2;
        return bowl(p) * (slow ? 10.0 : 1.0);
      });
    }
    if (rounds == 5) EXPECT_EQ(t.best(), optimum);
    else EXPECT_NE(t.best(), optimum);
  }
}

// A direction of a line ends past a point more than `bracket` slower than the line's fastest:
// coop 16 and 32, 4x and 16x the best here, are not timed after coop 8 was 2x.
TEST(CoopLineSearch, BracketSkipsTheFarEndOfALine) {
  const auto space = gpu_like_space();
  const Cost cost = [](const CoopParams& p) { return 1e-3 * (p.coop <= 2 ? 1.0 : p.coop / 2.0 * p.coop / 2.0) * (1 + 1e-3 * p.repeat); };
  CoopLineSearch t({2, 1, 128}, space);
  const auto calls = run_to_end(t, cost);
  for (const auto& call : calls)
    for (const auto& p : call) EXPECT_LE(p.coop, 8) << p.to_string();
  EXPECT_EQ(t.best().coop <= 2, true);
  EXPECT_EQ(t.best().repeat, 1);
}

// A valley across two axes (as mixedmesh's: coop 8 repeat 4 is the descent's end, coop 4 repeat 2
// the best, coop 4 repeat 4 slow): the exploration from the best point of another coop finds
// it; the descent alone does not.
TEST(CoopLineSearch, ExplorationCrossesAValleyBetweenAxes) {
  const auto space = gpu_like_space();
  const Cost cost = [](const CoopParams& p) {
    double t = 1.10;
    if (p.coop == 8 && p.repeat == 4) t = 1.03;
    if (p.coop == 4) t = p.repeat == 2 ? 1.00 : 1.08;
    return 1e-3 * t * (1 + 1e-3 * std::abs(p.block_size - 256) / 64.0);
  };
  CoopLineSearch explore({8, 4, 128}, space);
  run_to_end(explore, cost);
  EXPECT_EQ(explore.best(), (CoopParams{4, 2, 256}));
  EXPECT_LE(explore.calls(), 8);
  CoopLineSearchOptions descent;
  descent.explore = false;
  CoopLineSearch t({8, 4, 128}, space, descent);
  run_to_end(t, cost);
  EXPECT_EQ(t.best().coop, 8);
}

// Where only repeat varies (CPU spaces: coop 1, one-thread teams) the search is one line.
TEST(CoopLineSearch, CpuSpaceTunesRepeatOnly) {
  const CoopSearchSpace cpu{1, {1}, 64};
  const Cost cost = [](const CoopParams& p) { return 1e-3 * (1 + 0.05 * std::abs(std::log2(p.repeat) - 5)); };
  CoopLineSearch t({1, 3, 1}, cpu);  // a repeat that is not a power of two is a grid point
  const auto calls = run_to_end(t, cost);
  EXPECT_EQ(t.best(), (CoopParams{1, 32, 1}));
  EXPECT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].front(), (CoopParams{1, 3, 1}));
  CoopLineSearch single({1, 1, 1}, CoopSearchSpace{1, {1}, 1});
  EXPECT_TRUE(single.done());
  EXPECT_EQ(single.candidate(), (CoopParams{1, 1, 1}));
}

// Ends after max_calls; records nothing once done; history holds each call's points.
TEST(CoopLineSearch, StopsAfterMaxCallsAndKeepsHistory) {
  const auto space = gpu_like_space();
  const BowlCost cost{0, 6, 6, space.block_sizes};
  CoopLineSearchOptions two;
  two.max_calls = 2;
  CoopLineSearch t({32, 1, 64}, space, two);
  const auto calls = run_to_end(t, cost);
  EXPECT_EQ(calls.size(), 2u);
  EXPECT_EQ(t.calls(), 2);
  size_t distinct_per_call = 0;
  for (const auto& call : calls) {
    std::vector<CoopParams> d;
    for (const auto& p : call)
      if (std::find(d.begin(), d.end(), p) == d.end()) d.push_back(p);
    distinct_per_call += d.size();
  }
  EXPECT_EQ(t.history().size(), distinct_per_call);
  for (const auto& [p, s] : t.history()) EXPECT_DOUBLE_EQ(s, cost(p));
  const CoopParams best = t.best();
  t.record(1.0);
  EXPECT_EQ(t.best(), best);
  EXPECT_EQ(t.candidate(), best);
  EXPECT_EQ(t.start_seconds(), cost({32, 1, 64}));
}

TEST(CoopLineSearch, RejectsBadInput) {
  const auto space = gpu_like_space();
  auto with = [&](const std::function<void(CoopLineSearchOptions&)>& set) {
    CoopLineSearchOptions o;
    set(o);
    return invalid_argument_message([&] { CoopLineSearch({4, 1, 128}, space, o); });
  };
  EXPECT_EQ(with([](auto& o) { o.max_calls = 0; }), "CoopLineSearch: max_calls = 0 must be >= 1");
  EXPECT_EQ(with([](auto& o) { o.rounds = 0; }), "CoopLineSearch: rounds = 0 must be >= 1");
  EXPECT_EQ(with([](auto& o) { o.contender_margin = -0.01; }),
            "CoopLineSearch: contender_margin = -0.010000 must be a finite number >= 0");
  EXPECT_NE(with([](auto& o) { o.contender_margin = std::nan(""); }).find("contender_margin"), std::string::npos);
  EXPECT_EQ(with([](auto& o) { o.bracket = 0.0; }), "CoopLineSearch: bracket = 0.000000 must be a finite number > 0");
  EXPECT_NE(with([](auto& o) { o.bracket = std::numeric_limits<double>::infinity(); }).find("bracket"), std::string::npos);
  EXPECT_EQ(invalid_argument_message([&] { CoopLineSearch({3, 1, 128}, space); }),
            "CoopLineSearch start: coop = 3 must be a power of two in [1, 32] (the vector width of this execution space)");
  EXPECT_EQ(invalid_argument_message([&] { CoopLineSearch({4, 1, 160}, space); }),
            "CoopLineSearch: start block_size = 160 is not one of the search space's block sizes");
  EXPECT_EQ(invalid_argument_message([&] { CoopLineSearch({4, 1, 128}, CoopSearchSpace{32, {}, 64}); }),
            "CoopLineSearch: empty search space");
  CoopLineSearch t({4, 1, 128}, space);
  EXPECT_EQ(invalid_argument_message([&] { t.record(-1.0); }),
            "CoopLineSearch::record: time -1.000000 s is not a finite nonnegative number");
  EXPECT_NE(invalid_argument_message([&] { t.record(std::nan("")); }).find("not a finite"), std::string::npos);
  EXPECT_EQ(t.products(), 0);
  // Through CoopTuner: the walk's calls are refused.
  spmv::CoopTuner tuner({4, 1, 128}, space);
  EXPECT_FALSE(tuner.wants_start_runs());
  EXPECT_FALSE(tuner.wants_pair());
  EXPECT_EQ(invalid_argument_message([&] { tuner.record_call({1e-3}); }),
            "CoopTuner::record_call: the walk's (this tuner runs the line search: record)");
  EXPECT_EQ(invalid_argument_message([&] { tuner.record_start({1e-3, 1e-3, 1e-3}); }),
            "CoopTuner::record_start: the walk's (this tuner runs the line search)");
}

// The tuner's choice after 8 calls on l, each product's time scaled by 1 + noise.
CoopParams line_search_after_eight_calls(const MeasuredLandscape& l, const CoopLineSearchOptions& o,
                                         std::normal_distribution<double>& noise, std::mt19937_64& rng) {
  CoopLineSearch t(l.start, gpu_like_space(), o);
  for (int call = 0; call < 8 && !t.done(); ++call) one_call(t, [&](const CoopParams& p) { return l(p) * (1.0 + noise(rng)); });
  return t.best();
}

// The walk as SpmvOperator drives it by default (start runs, repeat direction from the shape).
CoopParams walk_after_eight_calls(const MeasuredLandscape& l, std::normal_distribution<double>& noise,
                                  std::mt19937_64& rng) {
  spmv::CoopTunerOptions o;
  o.search = spmv::CoopSearch::walk;
  const bool local = l.matrix.find("rmat") == std::string::npos && l.matrix.find("uniform") == std::string::npos &&
                     l.matrix.find("wide") == std::string::npos && l.matrix.find("shuffled") == std::string::npos;
  spmv::CoopTuner t(l.start, gpu_like_space(), o, spmv::CoopMatrixShape{local});
  std::vector<double> start_runs;
  for (int run = 0; run < o.start_runs; ++run) start_runs.push_back(l(l.start) * (1.0 + noise(rng)));
  t.record_start(start_runs);
  for (int call = 0; call < 8 && !t.done(); ++call) t.record_call({l(t.candidate()) * (1.0 + noise(rng))});
  return t.best();
}

// Replays on seven H100 landscape sets (98 matrix landscapes, medians of 5 per point) from each
// matrix's fixed-rule start. Each point's time is a single measurement of a noisy device, so the
// replay judges against each landscape's own minimum, a stricter target than the benchmark's
// (which re-times the exhaustive search's best points): "within 3 %" here is about the
// benchmark's 2 %. Without noise the line search ends within 2 % on all 98. At 1 % Gaussian
// noise per product, 300 trials per landscape: expected misses of 3 % per 98 landscapes, line
// search 0.22-0.26, the walk 2.1-2.2.
TEST(CoopLineSearch, MissesLessThanTheWalkOnMeasuredH100Landscapes) {
  const auto seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<std::string> files{"coop_landscape_h100.txt",          "coop_landscape_devtimer_h100.txt",
                                       "coop_landscape_plateau_h100.txt",  "coop_landscape_20261123_h100.txt",
                                       "coop_landscape_20261123b_h100.txt", "coop_landscape_20261125a_h100.txt",
                                       "coop_landscape_20261125b_h100.txt"};
  std::normal_distribution<double> quiet(0.0, 0.0), noise(0.0, 0.01);
  int within2 = 0, within3 = 0, landscapes = 0;
  double line_misses = 0, walk_misses = 0;
  constexpr int kTrials = 300;
  for (const auto& file : files) {
    const auto all = measured_landscapes(file);
    ASSERT_EQ(all.size(), 14u) << file;
    for (const auto& l : all) {
      ++landscapes;
      const double r = l(line_search_after_eight_calls(l, {}, quiet, rng)) / l.best();
      within2 += r <= 1.02;
      within3 += r <= 1.03;
      int line_missed = 0, walk_missed = 0;
      for (int trial = 0; trial < kTrials; ++trial) {
        line_missed += l(line_search_after_eight_calls(l, {}, noise, rng)) > 1.03 * l.best();
        walk_missed += l(walk_after_eight_calls(l, noise, rng)) > 1.03 * l.best();
      }
      line_misses += static_cast<double>(line_missed) / kTrials;
      walk_misses += static_cast<double>(walk_missed) / kTrials;
    }
  }
  std::cout << "without noise: within 2 % " << within2 << ", within 3 % " << within3 << " of " << landscapes
            << "; expected misses of 3 % at 1 % noise: line search " << line_misses << ", walk " << walk_misses << "\n";
  EXPECT_EQ(landscapes, 98);
  EXPECT_EQ(within3, 98);
  EXPECT_GE(within2, 97);
  EXPECT_LT(line_misses, 1.0);
  EXPECT_LT(line_misses, 0.5 * walk_misses);
}

}  // namespace
}  // namespace ppsparse::test
