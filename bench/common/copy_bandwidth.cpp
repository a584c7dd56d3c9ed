#include "common/copy_bandwidth.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <ppsparse/util/copy_bandwidth.hpp>

#include "common/counters.hpp"

namespace ppsparse::bench {
namespace {

double g_copy_gbs = 0;

using CopyView = Kokkos::View<double*, Kokkos::DefaultExecutionSpace::memory_space>;

struct CopyPair {
  CopyView src, dst;
  explicit CopyPair(std::size_t total_bytes)
      : src(Kokkos::view_alloc(Kokkos::WithoutInitializing, "copy.src"),
            std::max<std::size_t>(1, total_bytes / 2 / sizeof(double))),
        dst(Kokkos::view_alloc(Kokkos::WithoutInitializing, "copy.dst"), src.extent(0)) {
    // Touch both (first-touch page faults must not be timed).
    Kokkos::deep_copy(src, 1.0);
    Kokkos::deep_copy(dst, 0.0);
    Kokkos::fence();
  }
  double bytes_moved() const { return 2.0 * static_cast<double>(src.extent(0)) * sizeof(double); }
  double time_one() const {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), dst, src);
    Kokkos::fence();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

}  // namespace

double measure_copy_bandwidth_gbs(std::size_t total_bytes, int runs) {
  // The library's measurement (also used by the mcpi app), so every report divides by the same yardstick.
  return ppsparse::measure_copy_bandwidth<Kokkos::DefaultExecutionSpace>(
             std::max<std::size_t>(total_bytes / 2, sizeof(double)), std::max(1, runs))
      .gbs;
}

double run_copy_bandwidth_gbs() { return g_copy_gbs; }

double register_copy_benchmark(const BenchConfig& config) {
  const auto bytes = static_cast<std::size_t>(config.copy_mb * 1024.0 * 1024.0);
  g_copy_gbs = measure_copy_bandwidth_gbs(bytes);
  const std::string name = "copy/" + std::to_string(static_cast<long long>(config.copy_mb)) + "MiB";
  benchmark::RegisterBenchmark(name.c_str(),
                               [bytes](benchmark::State& state) {
                                 CopyPair p(bytes);
                                 p.time_one();
                                 double total = 0;
                                 long long iterations = 0;
                                 for (auto _ : state) {
                                   const double dt = p.time_one();
                                   state.SetIterationTime(dt);
                                   total += dt;
                                   ++iterations;
                                 }
                                 set_bandwidth_counters(state, p.bytes_moved(), p.bytes_moved(), 0.0,
                                                        total / std::max(1LL, iterations));
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Repetitions(config.reps)
      ->MinTime(config.min_time)
      ->DisplayAggregatesOnly(true);
  return g_copy_gbs;
}

}  // namespace ppsparse::bench
