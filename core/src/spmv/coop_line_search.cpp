#include <ppsparse/spmv/coop_line_search.hpp>

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

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

CoopLineSearch::CoopLineSearch(const CoopParams& start, const CoopSearchSpace& space,
                               const CoopLineSearchOptions& options)
    : options_(options), start_(start), best_(start) {
  const std::string who = "CoopLineSearch";
  if (options.max_calls < 1)
    throw InvalidArgument(who + ": max_calls = " + std::to_string(options.max_calls) + " must be >= 1");
  if (options.rounds < 1) throw InvalidArgument(who + ": rounds = " + std::to_string(options.rounds) + " must be >= 1");
  if (!(options.contender_margin >= 0.0) || !std::isfinite(options.contender_margin))
    throw InvalidArgument(who + ": contender_margin = " + std::to_string(options.contender_margin) +
                          " must be a finite number >= 0");
  if (!(options.bracket > 0.0) || !std::isfinite(options.bracket))
    throw InvalidArgument(who + ": bracket = " + std::to_string(options.bracket) + " must be a finite number > 0");
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
  const int ci = insert_value(coops_, start.coop), ri = insert_value(repeats_, start.repeat),
            bi = insert_value(blocks_, start.block_size);
  for (const int c : coops_)
    for (const int r : repeats_)
      for (const int b : blocks_) params_.push_back(CoopParams{c, r, b});
  if (coops_.size() > 1) axes_.push_back(0);
  if (repeats_.size() > 1) axes_.push_back(1);
  if (blocks_.size() > 1) axes_.push_back(2);
  searched_at_.assign(3, -1);
  last_time_.assign(params_.size(), -1.0);
  incumbent_ = index_of(ci, ri, bi);
  if (axes_.empty()) {
    done_ = true;  // a single point: nothing to measure
    return;
  }
  choose_next_line();
}

int CoopLineSearch::index_of(int coop_idx, int repeat_idx, int block_idx) const {
  const int c = coops_[static_cast<size_t>(coop_idx)], b = blocks_[static_cast<size_t>(block_idx)];
  if (b < c || b % c != 0) return -1;
  return (coop_idx * static_cast<int>(repeats_.size()) + repeat_idx) * static_cast<int>(blocks_.size()) + block_idx;
}

std::vector<int> CoopLineSearch::axis_points(int through, int axis) const {
  const int nb = static_cast<int>(blocks_.size()), nr = static_cast<int>(repeats_.size());
  int idx[3] = {through / (nr * nb), (through / nb) % nr, through % nb};
  const int n = static_cast<int>(axis == 0 ? coops_.size() : axis == 1 ? repeats_.size() : blocks_.size());
  std::vector<int> points;
  for (int v = 0; v < n; ++v) {
    idx[axis] = v;
    const int p = index_of(idx[0], idx[1], idx[2]);
    if (p >= 0) points.push_back(p);
  }
  return points;
}

void CoopLineSearch::begin_line(int through, int axis) {
  line_ = Line{};
  line_.axis = axis;
  line_.points = axis_points(through, axis);
  line_.base = static_cast<int>(std::find(line_.points.begin(), line_.points.end(), through) - line_.points.begin());
  line_.incumbent = incumbent_;
  line_.seconds.assign(params_.size(), {});
  line_.next = line_.base + 1;
  pending_ = incumbent_;  // a call's first product: the incumbent, on the caller's output
}

double CoopLineSearch::line_fastest() const {
  double fastest = std::numeric_limits<double>::infinity();
  for (const int idx : line_.order) fastest = std::min(fastest, line_.seconds[static_cast<size_t>(idx)].front());
  return fastest;
}

bool CoopLineSearch::next_in_walk() {
  const int base = line_.points[static_cast<size_t>(line_.base)];
  if (line_.seconds[static_cast<size_t>(base)].empty()) {
    pending_ = base;
    line_.walk_pos = -1;
    return true;
  }
  const double limit = (1.0 + options_.bracket) * line_fastest();
  const int n = static_cast<int>(line_.points.size());
  while (true) {
    if (line_.direction == +1 && line_.next >= n) {
      line_.direction = -1;
      line_.next = line_.base - 1;
    }
    if (line_.direction == -1 && line_.next < 0) return false;
    const int pos = line_.next;
    const int idx = line_.points[static_cast<size_t>(pos)];
    line_.next += line_.direction;
    const auto& t = line_.seconds[static_cast<size_t>(idx)];
    if (t.empty()) {
      pending_ = idx;
      line_.walk_pos = pos;
      return true;
    }
    // Timed already in this call (the incumbent on its own line): its time steers the walk.
    if (t.front() > limit) {
      if (line_.direction == +1) {
        line_.direction = -1;
        line_.next = line_.base - 1;
      } else {
        return false;
      }
    }
  }
}

void CoopLineSearch::record(double seconds) {
  if (done_) return;
  if (!(seconds >= 0.0) || !std::isfinite(seconds))
    throw InvalidArgument("CoopLineSearch::record: time " + std::to_string(seconds) +
                          " s is not a finite nonnegative number");
  between_calls_ = false;
  ++products_;
  auto& t = seconds_of(pending_);
  if (t.empty()) line_.order.push_back(pending_);
  t.push_back(seconds);
  if (line_.walking) {
    // A walked point far slower than the line's fastest ends its direction.
    if (line_.walk_pos >= 0 && seconds > (1.0 + options_.bracket) * line_fastest()) {
      if (line_.direction == +1) {
        line_.direction = -1;
        line_.next = line_.base - 1;
      } else {
        line_.next = -1;
      }
    }
    if (next_in_walk()) return;
    line_.walking = false;
    const double fastest = line_fastest();
    for (const int idx : line_.order)
      if (line_.seconds[static_cast<size_t>(idx)].front() <= (1.0 + options_.contender_margin) * fastest)
        line_.contenders.push_back(idx);
    if (line_.contenders.size() > 1)
      for (int round = 1; round < options_.rounds; ++round)
        line_.queue.insert(line_.queue.end(), line_.contenders.begin(), line_.contenders.end());
    line_.queue_pos = 0;
  } else {
    ++line_.queue_pos;
  }
  if (line_.queue_pos < line_.queue.size()) {
    pending_ = line_.queue[line_.queue_pos];
    return;
  }
  end_line();
}

void CoopLineSearch::end_line() {
  // Each point's time in this call: the median of a contender's products, else its one product.
  std::vector<std::pair<int, double>> times;
  for (const int idx : line_.order) times.emplace_back(idx, median_of(line_.seconds[static_cast<size_t>(idx)]));
  auto time_of = [&](int idx) {
    for (const auto& [i, s] : times)
      if (i == idx) return s;
    return std::numeric_limits<double>::infinity();
  };
  // The fastest contender by median; the incumbent wins ties.
  int winner = -1;
  for (const int idx : line_.contenders) {
    const double s = time_of(idx);
    if (winner < 0 || s < time_of(winner) || (s == time_of(winner) && idx == incumbent_)) winner = idx;
  }
  for (const auto& [idx, s] : times) {
    history_.emplace_back(params_[static_cast<size_t>(idx)], s);
    last_time_[static_cast<size_t>(idx)] = s;
  }
  if (calls_ == 0) start_seconds_ = time_of(incumbent_);
  const bool on_line = std::find(line_.points.begin(), line_.points.end(), winner) != line_.points.end();
  if (phase_ == Phase::descent) {
    incumbent_ = winner;  // descent lines pass through the incumbent: the winner is on the line
    searched_at_[static_cast<size_t>(line_.axis)] = incumbent_;
  } else {
    if (on_line) incumbent_ = winner;
    // The exploration moves to the line's fastest point, measured beside the incumbent.
    int base = -1;
    for (const int idx : line_.points)
      if (!line_.seconds[static_cast<size_t>(idx)].empty() && (base < 0 || time_of(idx) < time_of(base))) base = idx;
    explore_base_ = base;
    searched_at_[static_cast<size_t>(line_.axis)] = explore_base_;
  }
  best_ = params_[static_cast<size_t>(incumbent_)];
  best_seconds_ = time_of(incumbent_);
  ++calls_;
  between_calls_ = true;
  if (calls_ >= options_.max_calls || !choose_next_line()) done_ = true;
}

bool CoopLineSearch::choose_next_line() {
  const int n = static_cast<int>(axes_.size());
  if (phase_ == Phase::descent) {
    for (int k = 1; k <= n; ++k) {
      const int pos = ((last_axis_pos_ + k) % n + n) % n;
      const int axis = axes_[static_cast<size_t>(pos)];
      if (searched_at_[static_cast<size_t>(axis)] != incumbent_) {
        last_axis_pos_ = pos;
        begin_line(incumbent_, axis);
        return true;
      }
    }
    // Converged: each axis searched at the incumbent.
    if (!options_.explore || coops_.size() < 2 || n < 2) return false;
    const int coop_of_incumbent = params_[static_cast<size_t>(incumbent_)].coop;
    explore_base_ = -1;
    for (size_t idx = 0; idx < params_.size(); ++idx)
      if (last_time_[idx] >= 0.0 && params_[idx].coop != coop_of_incumbent &&
          (explore_base_ < 0 || last_time_[idx] < last_time_[static_cast<size_t>(explore_base_)]))
        explore_base_ = static_cast<int>(idx);
    if (explore_base_ < 0) return false;
    phase_ = Phase::explore;
    std::fill(searched_at_.begin(), searched_at_.end(), -1);
    last_axis_pos_ = 0;  // the coop axis: exploration walks repeat and block only
  }
  for (int k = 1; k <= n; ++k) {
    const int pos = ((last_axis_pos_ + k) % n + n) % n;
    const int axis = axes_[static_cast<size_t>(pos)];
    if (axis == 0) continue;
    if (searched_at_[static_cast<size_t>(axis)] != explore_base_) {
      last_axis_pos_ = pos;
      begin_line(explore_base_, axis);
      return true;
    }
  }
  return false;
}

}  // namespace ppsparse::spmv
