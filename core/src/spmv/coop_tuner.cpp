#include <ppsparse/spmv/coop_tuner.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <ppsparse/error.hpp>

namespace ppsparse::spmv {
namespace {

// Sorted, deduplicated list with v in it; returns v's index.
int insert_value(std::vector<int>& list, int v) {
  auto it = std::lower_bound(list.begin(), list.end(), v);
  if (it == list.end() || *it != v) it = list.insert(it, v);
  return static_cast<int>(it - list.begin());
}

// A measured time must be finite and >= 0; `who` names the member that was given it.
void check_run_seconds(const char* who, double seconds) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds))
    throw InvalidArgument(std::string(who) + ": time " + std::to_string(seconds) +
                          " s is not a finite nonnegative number");
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

CoopTuner::CoopTuner(const CoopParams& start, const CoopSearchSpace& space, const CoopTunerOptions& options,
                     const CoopMatrixShape& shape)
    : options_(options),
      start_(start),
      best_(start),
      current_(start),
      fastest_(start),
      fastest_seconds_(std::numeric_limits<double>::infinity()),
      best_seconds_(std::numeric_limits<double>::infinity()),
      start_seconds_(std::numeric_limits<double>::infinity()),
      first_repeat_direction_(shape.local_columns ? +1 : -1) {
  const std::string who = "CoopTuner";
  if (options.samples < 1)
    throw InvalidArgument(who + ": samples = " + std::to_string(options.samples) + " must be >= 1");
  if (options.runs_per_call < 1)
    throw InvalidArgument(who + ": runs_per_call = " + std::to_string(options.runs_per_call) + " must be >= 1");
  if (options.start_runs < 0)
    throw InvalidArgument(who + ": start_runs = " + std::to_string(options.start_runs) + " must be >= 0");
  if (!(options.single_run_margin >= 0.0))
    throw InvalidArgument(who + ": single_run_margin = " + std::to_string(options.single_run_margin) + " must be >= 0");
  if (options.max_steps < 1)
    throw InvalidArgument(who + ": max_steps = " + std::to_string(options.max_steps) + " must be >= 1");
  if (!(options.min_gain >= 0.0 && options.min_gain < 1.0))
    throw InvalidArgument(who + ": min_gain = " + std::to_string(options.min_gain) + " must be in [0, 1)");
  if (!(options.plateau_tolerance >= 0.0 && options.plateau_tolerance < 1.0))
    throw InvalidArgument(who + ": plateau_tolerance = " + std::to_string(options.plateau_tolerance) +
                          " must be in [0, 1)");
  if (space.max_coop < 1 || space.max_repeat < 1 || space.block_sizes.empty())
    throw InvalidArgument(who + ": empty search space");
  check_coop_params(start, space.max_coop, who + " start");
  if (std::find(space.block_sizes.begin(), space.block_sizes.end(), start.block_size) == space.block_sizes.end())
    throw InvalidArgument(who + ": start block_size = " + std::to_string(start.block_size) +
                          " is not one of the search space's block sizes");
  for (int c = 1; c <= space.max_coop; c *= 2) coops_.push_back(c);
  for (int r = 1; r <= space.max_repeat; r *= 2) repeats_.push_back(r);
  blocks_ = space.block_sizes;
  std::sort(blocks_.begin(), blocks_.end());
  blocks_.erase(std::unique(blocks_.begin(), blocks_.end()), blocks_.end());
  // The start is a point of the grid even when its repeat is not a power of two.
  current_point_ = Point{insert_value(coops_, start.coop), insert_value(repeats_, start.repeat),
                         insert_value(blocks_, start.block_size)};
  best_point_ = walk_point_ = current_point_;
  if (coops_.size() > 1) axes_.push_back(0);
  if (repeats_.size() > 1) axes_.push_back(1);
  if (blocks_.size() > 1) axes_.push_back(2);
}

CoopParams CoopTuner::params_of(const Point& p) const {
  return CoopParams{coops_[p.coop_idx], repeats_[p.repeat_idx], blocks_[p.block_idx]};
}

bool CoopTuner::valid(const Point& p) const {
  if (p.coop_idx < 0 || p.coop_idx >= static_cast<int>(coops_.size())) return false;
  if (p.repeat_idx < 0 || p.repeat_idx >= static_cast<int>(repeats_.size())) return false;
  if (p.block_idx < 0 || p.block_idx >= static_cast<int>(blocks_.size())) return false;
  const int c = coops_[p.coop_idx], b = blocks_[p.block_idx];
  return b >= c && b % c == 0;
}

const double* CoopTuner::lookup(const CoopParams& p) const {
  for (const auto& m : measured_)
    if (m.first == p) return &m.second;
  return nullptr;
}

void CoopTuner::record(double seconds) {
  if (done_) return;
  check_run_seconds("CoopTuner::record", seconds);
  ++calls_;
  samples_.push_back(seconds);
  if (static_cast<int>(samples_.size()) < options_.samples) return;
  const double t = median_of(samples_);
  samples_.clear();
  measured(current_, t);
  if (measured_.size() == 1) {
    best_seconds_ = start_seconds_ = t;
  } else if (!judge(t)) {
    step_failed();
  }
  choose_next();
}

double CoopTuner::normalised(const double candidate_seconds, const double best_seconds) const {
  for (const double s : {candidate_seconds, best_seconds})
    if (!(s > 0.0) || !std::isfinite(s))
      throw InvalidArgument("CoopTuner::normalised: time " + std::to_string(s) + " s is not a finite positive number");
  if (measured_.empty())
    throw InvalidArgument("CoopTuner::normalised: no best measured yet (the start's call is not paired)");
  return candidate_seconds / best_seconds * fastest_seconds_;
}

bool CoopTuner::first_run_decides(const double seconds) const {
  // Only a step is judged against a reference: the start's own time is that reference, and a
  // candidate measured over several calls (samples > 1) is judged on all of them.
  if (done_ || measured_.empty() || !samples_.empty() || options_.samples > 1) return false;
  if (!std::isfinite(options_.single_run_margin)) return false;
  const double improves = best_seconds_ * (1.0 - options_.min_gain);
  // What judge() lets pass without an improvement: a level step walked through once.
  const bool plateau = walk_point_ == best_point_ && options_.plateau_tolerance > 0.0;
  const double passes = plateau ? best_seconds_ * (1.0 + options_.plateau_tolerance) : improves;
  // Only a clearly failed step: an adopted point's time becomes the reference for the next
  // steps, so it is always the median of all runs.
  return seconds > passes * (1.0 + options_.single_run_margin);
}

void CoopTuner::record_start(const std::vector<double>& run_seconds) {
  if (!wants_start_runs())
    throw InvalidArgument("CoopTuner::record_start: the start is measured already or start_runs = 0");
  if (static_cast<int>(run_seconds.size()) != options_.start_runs)
    throw InvalidArgument("CoopTuner::record_start: " + std::to_string(run_seconds.size()) +
                          " run times, expected start_runs = " + std::to_string(options_.start_runs));
  for (const double s : run_seconds) check_run_seconds("CoopTuner::record_start", s);
  for (const double s : run_seconds) start_run_seconds_ += s;
  const double t = median_of(run_seconds);
  measured(current_, t);
  best_seconds_ = start_seconds_ = t;
  choose_next();
}

void CoopTuner::record_call(const std::vector<double>& run_seconds) {
  const bool single = run_seconds.size() == 1 && first_run_decides(run_seconds[0]);
  if (static_cast<int>(run_seconds.size()) != options_.runs_per_call && !single)
    throw InvalidArgument("CoopTuner::record_call: " + std::to_string(run_seconds.size()) +
                          (run_seconds.size() == 1 ? " run time" : " run times") +
                          ", expected runs_per_call = " + std::to_string(options_.runs_per_call) +
                          (options_.runs_per_call > 1 ? " (or 1 that decides its step)" : ""));
  for (const double s : run_seconds) check_run_seconds("CoopTuner::record_call", s);
  record(median_of(run_seconds));
}

void CoopTuner::measured(const CoopParams& p, const double seconds) {
  measured_.emplace_back(p, seconds);
  if (seconds < fastest_seconds_) {
    fastest_ = p;
    fastest_seconds_ = seconds;
  }
}

bool CoopTuner::judge(const double seconds) {
  if (seconds < best_seconds_ * (1.0 - options_.min_gain)) {
    best_ = params_of(current_point_);
    best_point_ = walk_point_ = current_point_;
    best_seconds_ = seconds;
    moved_on_axis_ = true;
    improved_in_sweep_ = true;
    if (options_.accelerate_repeat && axis_pos_ < axes_.size() && axes_[axis_pos_] == 1) step_ *= 2;
    return true;
  }
  // Not better than the best: a step from the best (not from a plateau point) that is level
  // with it is walked through once.
  if (walk_point_ == best_point_ && options_.plateau_tolerance > 0.0 &&
      seconds <= best_seconds_ * (1.0 + options_.plateau_tolerance)) {
    walk_point_ = current_point_;
    return true;
  }
  return false;
}

void CoopTuner::step_failed() {
  // The next step starts from the best again; a failed long step is retried as a single one.
  walk_point_ = best_point_;
  if (step_ > 1) {
    step_ = 1;
    return;
  }
  if (!moved_on_axis_ && !tried_reverse_) {
    direction_ = -direction_;
    tried_reverse_ = true;
  } else {
    ++axis_pos_;
    direction_ = 0;
  }
}

void CoopTuner::choose_next() {
  // Walks the coordinate search until it finds a point not yet measured, or ends.
  while (true) {
    if (static_cast<int>(measured_.size()) >= options_.max_steps) break;
    if (axis_pos_ >= axes_.size()) {
      if (!improved_in_sweep_) break;
      axis_pos_ = 0;
      direction_ = 0;
      improved_in_sweep_ = false;
    }
    const int axis = axes_.empty() ? -1 : axes_[axis_pos_];
    if (axis < 0) break;
    if (direction_ == 0) {
      // A fresh axis: the paper's first moves are "double coop", "halve repeat", "larger block"
      // ("double repeat" for local columns).
      direction_ = axis == 1 ? first_repeat_direction_ : +1;
      tried_reverse_ = false;
      moved_on_axis_ = false;
      step_ = 1;
    }
    Point next = walk_point_;
    if (axis == 0) next.coop_idx += direction_;
    if (axis == 1) next.repeat_idx += direction_ * step_;
    if (axis == 2) next.block_idx += direction_;
    // A coop step keeps the block size when valid, else moves to the nearest valid one.
    if (axis == 0 && next.coop_idx >= 0 && next.coop_idx < static_cast<int>(coops_.size()) && !valid(next)) {
      int bi = -1;
      for (int b = 0; b < static_cast<int>(blocks_.size()); ++b)
        if (valid(Point{next.coop_idx, next.repeat_idx, b}) &&
            (bi < 0 ||
             std::abs(blocks_[b] - blocks_[next.block_idx]) < std::abs(blocks_[bi] - blocks_[next.block_idx])))
          bi = b;
      if (bi >= 0) next.block_idx = bi;
    }
    if (valid(next)) {
      const double* seconds = lookup(params_of(next));
      if (seconds == nullptr) {
        current_point_ = next;
        current_ = params_of(next);
        return;
      }
      // Measured already: judged on its time, without a call.
      current_point_ = next;
      if (judge(*seconds)) continue;
    }
    // Out of range, or measured already and not a step: a failed step.
    step_failed();
  }
  done_ = true;
  current_ = best_;
  current_point_ = best_point_;
}

}  // namespace ppsparse::spmv
