#pragma once
// Counters every kernel benchmark reports, computed from a bytes model and the mean time of
// one call in a repetition (Google Benchmark's median aggregate then takes the median over
// repetitions):
//   gbs        model bytes / time, GB/s (1e9 B/s)
//   pct_copy   gbs as a percentage of the copy bandwidth measured in this run
//   kernel_gbs bytes the kernel's format actually streams / time (SELL: padding included)
//   gflops     flops / time, GFLOP/s
//   copy_gbs   the run's copy bandwidth, for reference
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

namespace ppsparse::bench {

double run_copy_bandwidth_gbs();

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline void set_bandwidth_counters(benchmark::State& state, double model_bytes, double kernel_bytes, double flops,
                                   double seconds_per_call) {
  if (!(seconds_per_call > 0)) return;
  const double gbs = model_bytes / seconds_per_call / 1e9;
  const double copy = run_copy_bandwidth_gbs();
  state.counters["gbs"] = gbs;
  state.counters["kernel_gbs"] = kernel_bytes / seconds_per_call / 1e9;
  state.counters["gflops"] = flops / seconds_per_call / 1e9;
  state.counters["pct_copy"] = copy > 0 ? 100.0 * gbs / copy : 0.0;
  state.counters["copy_gbs"] = copy;
}

}  // namespace ppsparse::bench
