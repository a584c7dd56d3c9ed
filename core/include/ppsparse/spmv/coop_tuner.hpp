#pragma once
/// @file
/// Run-time tuning of csr_coop's parameters over repeated products with one matrix
/// (Reguly & Giles, section 6). The tuner does not run kernels itself: the caller runs
/// candidate(), measures it and passes the time to record(). SpmvOperator does this with
/// Kokkos fences around a steady_clock reading (or an injected clock, for tests).
///
/// Search: a coordinate search from the start point (the fixed rule), whose time is the median
/// of CoopTunerOptions::start_runs products (record_start; the paper's tuner measures it in the
/// first call). Axes, in order:
///   coop   doubled first (the paper's step 2), halved if that does not help;
///   repeat halved first (the paper's step 1: twice the teams), doubled otherwise; doubled
///          first where the matrix's columns are local (CoopMatrixShape);
///   block  next larger size of the search space first, smaller otherwise.
/// Along an axis the tuner keeps stepping while each step improves the best median time by
/// more than min_gain. A step that does not improve but stays within plateau_tolerance of the
/// point it came from is walked through once more in the same direction: measured times along
/// repeat are not monotone within 1-2 %, and a single noisy sample stops a strict descent on
/// such a bump (docs/perf/kernel_choices.md, "CoopTuner plateaus"). Along repeat, steps grow after each improvement
/// (CoopTunerOptions::accelerate_repeat). Then the next axis; a sweep over all axes repeats
/// while it improved something, up to max_steps measured candidates. Each candidate is measured
/// in `samples` calls and judged on the median (with 3 or more, one slow outlier cannot decide);
/// a call's own sample is the median of its runs_per_call products (record_call), with
/// `paired` each timed relative to a run of the best point beside it (normalised). The best
/// candidate so far is always kept: a regression is never adopted, and after the search
/// candidate() is the best one measured (never worse than the start, in measured medians).
#include <utility>
#include <vector>

#include <ppsparse/spmv/csr_coop.hpp>

namespace ppsparse::spmv {

/// How CoopTuner measures and when it stops.
struct CoopTunerOptions {
  /// Runs per candidate; their median decides (>= 1). One suffices on the landscapes of the
  /// tests (test/data/coop_landscape_*.txt; docs/perf/kernel_choices.md, "CoopTuner samples");
  /// 3 resist outliers on noisy machines at 3x the calls.
  int samples = 1;
  int max_steps = 16;       ///< candidates measured at most, the start included (>= 1)
  double min_gain = 0.005;  ///< relative improvement a step must make to be adopted (>= 0)
  /// A step that is not adopted but is at most this much slower than the point it came from
  /// is taken as a base for one more step in the same direction (0: strict descent). The
  /// best measured point stays the result (docs/perf/kernel_choices.md, "CoopTuner plateau
  /// tolerance").
  double plateau_tolerance = 0.02;
  /// Along repeat (seven powers of two), each step that improves the best doubles the next
  /// one (repeat x2, then x4, then x16); a longer step that fails is retried as a single one
  /// before the axis is left. The best repeat can be three steps from the start, which single
  /// steps reach only at the seventh call (docs/perf/kernel_choices.md, "CoopTuner accelerated
  /// repeat").
  bool accelerate_repeat = true;
  /// Products SpmvOperator times in one tuning call, at most: the caller's product and up to
  /// runs_per_call - 1 more of the same candidate on a scratch output (>= 1). Their median is
  /// the call's sample (record_call), so one slow product of the device's 1-4 % noise cannot
  /// decide a step, and the tuner still moves one parameter per call. Measured with `paired`
  /// (below): see there.
  int runs_per_call = 1;
  /// The extra runs are skipped when the first run alone fails the step by this margin
  /// (first_run_decides): slower than the step's pass threshold x (1 + margin). Never for the
  /// start or a faster run: an adopted time is the reference for the next steps. +infinity:
  /// every tuning call runs runs_per_call products. >= 0.
  double single_run_margin = 0.05;
  /// Each tuning call after the start also times the best point so far, on the scratch output
  /// just before each run of the candidate, and the candidate's time is taken relative to it
  /// (normalised): the device's speed drifts by several percent over tens of milliseconds,
  /// which a comparison with a time taken calls earlier absorbs into the step. Costs one more
  /// product per run. The slightly better choices pay back only after some 10^4 products
  /// (docs/perf/kernel_choices.md, "CoopTuner paired timing"), so one unpaired product per call
  /// stays the default; long-lived operators may prefer runs_per_call = 3, paired.
  bool paired = false;
  /// Products of the start point the first tuning call times on a scratch output before its own
  /// product (>= 0). Their median is the start's time (CoopTuner::record_start), so every later
  /// step is judged against a median rather than one product, and the call's own product is
  /// already the first step: 8 calls measure 8 steps. 0: the first call measures the start
  /// itself, as the paper's tuner does, where a single slow sample of the start can let a slower
  /// point be adopted (docs/perf/kernel_choices.md, "CoopTuner start runs").
  int start_runs = 3;
  /// SpmvOperator passes the matrix's shape (coop_matrix_shape) to the tuner, which then walks
  /// repeat towards fewer teams first on local columns (CoopMatrixShape). false: the paper's
  /// "halve repeat" first on every matrix, as with start_runs = 0 the paper's tuner exactly.
  bool repeat_direction_from_shape = true;
};

/// The run-time tuner of csr_coop: a coordinate descent over CoopParams, one timed product per
/// call, until no neighbour is faster.
class CoopTuner {
 public:
  /// InvalidArgument if start is not a point of `space` (coop a power of two <= max_coop,
  /// block_size one of space.block_sizes and a multiple of coop, repeat >= 1), or the
  /// options are out of range.
  CoopTuner(const CoopParams& start, const CoopSearchSpace& space, const CoopTunerOptions& options = {},
            const CoopMatrixShape& shape = {});

  /// The parameters the next product should use: the candidate under measurement while
  /// tuning, the best one once done().
  const CoopParams& candidate() const { return done_ ? fastest_ : current_; }
  /// Time in seconds of one product run with candidate(). Ignored once done().
  /// InvalidArgument if seconds is negative or not finite.
  void record(double seconds);
  /// True while a call should time best() beside candidate() (options().paired, after the start).
  bool wants_pair() const { return options_.paired && !done_ && !measured_.empty(); }
  /// A candidate run of candidate_seconds next to a run of best() of best_seconds, on the scale
  /// of the recorded times: candidate_seconds / best_seconds x best_seconds(). Pass these to
  /// first_run_decides and record_call in paired calls. InvalidArgument for a time that is not
  /// finite and > 0.
  double normalised(double candidate_seconds, double best_seconds) const;
  /// True when a first run of candidate() taking `seconds` decides its step without more runs
  /// (see CoopTunerOptions::single_run_margin); false while done().
  bool first_run_decides(double seconds) const;
  /// True before anything is measured, where options().start_runs > 0: the next call first
  /// times start() that many times (on scratch) and passes the times to record_start.
  bool wants_start_runs() const { return options_.start_runs > 0 && measured_.empty() && samples_.empty() && !done_; }
  /// The start's runs (options().start_runs of them): their median becomes the start's time.
  /// Not a call: calls() does not count it. InvalidArgument unless wants_start_runs(), for
  /// another count, or a time that is not finite and >= 0.
  void record_start(const std::vector<double>& run_seconds);
  /// Seconds of the runs record_start was given (0 before): tuning work outside the calls' own.
  double start_run_seconds() const { return start_run_seconds_; }
  /// One call's runs of candidate(): options().runs_per_call of them, or one that
  /// first_run_decides. Their median counts as one record(). InvalidArgument for another count
  /// or a time that is not finite and >= 0.
  void record_call(const std::vector<double>& run_seconds);
  const CoopTunerOptions& options() const { return options_; }

  bool done() const { return done_; }
  /// The fastest point measured so far (the start before any measurement), and its time (+inf
  /// before the first). It can differ from the point the walk steps from: a step measured
  /// faster by less than min_gain is not walked from, but it is the better answer.
  const CoopParams& best() const { return fastest_; }
  double best_seconds() const { return fastest_seconds_; }
  const CoopParams& start() const { return start_; }
  double start_seconds() const { return start_seconds_; }
  int steps() const { return static_cast<int>(measured_.size()); }  // candidates measured so far
  int calls() const { return calls_; }                              // record() calls that counted
  /// Every measured candidate with its median time, in measurement order.
  const std::vector<std::pair<CoopParams, double>>& history() const { return measured_; }

 private:
  struct Point {
    int coop_idx, repeat_idx, block_idx;
    bool operator==(const Point& o) const {
      return coop_idx == o.coop_idx && repeat_idx == o.repeat_idx && block_idx == o.block_idx;
    }
  };
  CoopParams params_of(const Point& p) const;
  bool valid(const Point& p) const;
  const double* lookup(const CoopParams& p) const;
  void choose_next();                                  ///< sets current_ to the next candidate to measure, or done_
  bool judge(double seconds);                          ///< a step to current_point_ took `seconds`: false if it failed
  void measured(const CoopParams& p, double seconds);  ///< into history(); best() if fastest
  void step_failed();  ///< reverse once on this axis (if nothing moved yet), else the next axis

  CoopTunerOptions options_;
  std::vector<int> coops_, repeats_, blocks_;
  CoopParams start_, best_, current_;  ///< best_: the point the walk adopted (see judge)
  CoopParams fastest_;                 ///< best(): the fastest measured
  double fastest_seconds_;
  Point best_point_{}, current_point_{};
  double best_seconds_, start_seconds_;
  double start_run_seconds_ = 0.0;
  int first_repeat_direction_ = -1;  ///< CoopMatrixShape::local_columns: +1
  std::vector<double> samples_;
  std::vector<std::pair<CoopParams, double>> measured_;
  int calls_ = 0;
  bool done_ = false;
  /// Coordinate-search state.
  std::vector<int> axes_;  ///< 0 coop, 1 repeat, 2 block: the axes with more than one value
  size_t axis_pos_ = 0;
  int direction_ = 0;
  bool tried_reverse_ = false, moved_on_axis_ = false, improved_in_sweep_ = false;
  int step_ = 1;  ///< grid steps per move on the current axis (see accelerate_repeat)
  /// The point the next step starts from: the best, or a plateau point one step past it.
  Point walk_point_{};
};

}  // namespace ppsparse::spmv
