#pragma once
// csr_coop's run-time tuner by line searches: each tuning call changes one parameter, trying
// the values of one axis (coop, repeat or block size) through the best point so far, and keeps
// the fastest by the median of the products timed in that call.
//
// Why not the paper's walk (CoopTuner's CoopSearch::walk), one candidate per call: on the H100
// one product's time varies by 1-4 %, the landscape near the best holds several points within
// 1-3 % of each other, and single-sample steps stop one step short of the best in 3-5 % of
// tuner runs (docs/perf/bench_spmv_h100.md). Here every decision is taken inside one call:
//   1. the call's first product (on the caller's output) times the incumbent; the line's other
//      values follow on a scratch output, walked outwards from the line's base in both
//      directions until a point is more than `bracket` slower than the line's fastest so far
//      (coop 32 on a 7-point stencil takes 5x the best: no need to time the far end twice);
//   2. the points within `contender_margin` of the fastest first product are timed again,
//      round-robin, until each has `rounds` products (interleaved, so that a drift of the
//      device's speed during the call affects them alike);
//   3. the contender with the smallest median becomes the incumbent. The incumbent is on every
//      line and timed in every call, so a step is adopted only when it was measured faster
//      than the incumbent beside it: a regression is never kept.
// Calls cycle through the axes (coop, repeat, block) until each axis was searched at the
// current incumbent (a coordinate descent with exact line searches). Then, with `explore`,
// remaining calls search from the best point measured with another coop value, along repeat
// and block, with the incumbent timed beside each line: the landscapes have valleys across
// axes (mixedmesh: coop 8 repeat 4 against coop 4 repeat 2) that a descent along one axis at
// a time does not cross.
#include <optional>
#include <utility>
#include <vector>

#include <ppsparse/spmv/csr_coop.hpp>

namespace ppsparse::spmv {

struct CoopLineSearchOptions {
  int max_calls = 8;               // tuning calls at most (>= 1); done after them
  int rounds = 5;                  // products of each contender per call; the median decides (>= 1)
  double contender_margin = 0.03;  // first products within this of the call's fastest are timed again (>= 0)
  double bracket = 0.25;           // a direction ends past a point this much slower than the line's fastest (> 0)
  bool explore = true;             // after the descent, search from the best point of another coop
};

class CoopLineSearch {
 public:
  // InvalidArgument if start is not a point of `space` (see CoopTuner) or the options are out
  // of range.
  CoopLineSearch(const CoopParams& start, const CoopSearchSpace& space, const CoopLineSearchOptions& options = {});

  // The parameters of the next product: while tuning, the point the current call times next
  // (a call's first product is the incumbent); once done(), the best.
  const CoopParams& candidate() const { return done_ ? best_ : params_[static_cast<size_t>(pending_)]; }
  // Seconds of one product with candidate(). Ignored once done(). InvalidArgument for a time
  // that is not finite and >= 0.
  void record(double seconds);
  // True when the last record() ended a call (and before the first): the next product starts
  // a new call. A caller times products until this holds again.
  bool between_calls() const { return between_calls_; }

  bool done() const { return done_; }
  const CoopParams& best() const { return best_; }  // the incumbent (the start before any call)
  double best_seconds() const { return best_seconds_; }  // its median in the last call that timed it
  const CoopParams& start() const { return start_; }
  double start_seconds() const { return start_seconds_; }  // the start's median in the first call
  int calls() const { return calls_; }          // completed calls
  long long products() const { return products_; }  // products timed, all calls
  // Every point a completed call timed, with its time in that call (the median of its products
  // for contenders, else its one product), call after call; the incumbent appears in each call.
  const std::vector<std::pair<CoopParams, double>>& history() const { return history_; }
  const CoopLineSearchOptions& options() const { return options_; }

 private:
  enum class Phase { descent, explore };
  // One call's line: points (indices into params_), their products, and the walk's state.
  struct Line {
    int axis = 0;
    std::vector<int> points;               // along the axis, increasing values
    int base = 0;                          // position in points the walk starts from
    int incumbent = -1;                    // the incumbent's index into params_
    std::vector<std::vector<double>> seconds;  // per params_ index touched this call
    std::vector<int> order;                // params_ indices in the order first timed
    int direction = +1, next = 0;          // round one: the walk's direction and next position
    int walk_pos = -1;                     // position of the pending point in points (-1: not walked)
    bool walking = true;
    std::vector<int> contenders;           // params_ indices timed again after the walk
    std::vector<int> queue;                // their further products, round-robin
    size_t queue_pos = 0;
  };

  int index_of(int coop_idx, int repeat_idx, int block_idx) const;  // into params_, -1 if invalid
  std::vector<int> axis_points(int through, int axis) const;       // valid points of the line
  void begin_line(int through, int axis);
  bool next_in_walk();           // sets pending_ to the walk's next point; false at the walk's end
  void end_line();               // decides, records history, chooses the next line or done
  bool choose_next_line();       // false when the search has nothing left
  double line_fastest() const;   // fastest first product of the current call
  std::vector<double>& seconds_of(int idx) { return line_.seconds[static_cast<size_t>(idx)]; }

  CoopLineSearchOptions options_;
  std::vector<int> coops_, repeats_, blocks_;
  std::vector<CoopParams> params_;  // every grid point, valid or not (coop x repeat x block)
  std::vector<int> axes_;           // axes with more than one value: 0 coop, 1 repeat, 2 block
  CoopParams start_, best_;
  int incumbent_ = 0;               // index into params_
  double best_seconds_ = 0.0, start_seconds_ = 0.0;
  Phase phase_ = Phase::descent;
  std::vector<int> searched_at_;    // per axis: the base of its last line (-1: none)
  int last_axis_pos_ = -1;          // position in axes_ of the last line's axis
  int explore_base_ = -1;
  std::vector<double> last_time_;   // per params_ index: its time in the last call that timed it (-1: never)
  Line line_;
  int pending_ = 0;
  bool between_calls_ = true;
  bool done_ = false;
  int calls_ = 0;
  long long products_ = 0;
  std::vector<std::pair<CoopParams, double>> history_;
};

}  // namespace ppsparse::spmv
