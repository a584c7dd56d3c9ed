#pragma once
// The yardstick of every bandwidth figure: Kokkos::deep_copy between two large views on the
// default device, measured in the same run as the kernels it is compared with.
#include <cstddef>

#include "common/bench_config.hpp"

namespace ppsparse::bench {

// Median over `runs` copies of a view of total_bytes/2 bytes into another (after one warm-up
// copy), counting bytes read + written: 2 * (total_bytes / 2) / time, in GB/s (1e9 B/s).
// total_bytes should be at least 8x the last-level cache (2 GiB on GPUs, 256 MiB on CPUs).
double measure_copy_bandwidth_gbs(std::size_t total_bytes, int runs = 11);

// The copy bandwidth measured once for this run (by register_copy_benchmark); 0 before.
double run_copy_bandwidth_gbs();

// Measures the copy bandwidth with config.copy_mb and registers "copy/<MiB>MiB", a Google
// Benchmark of the same copy (manual time, counters gbs and pct_copy), so that the JSON
// output holds the yardstick next to the kernels. Returns the measured GB/s.
double register_copy_benchmark(const BenchConfig& config);

}  // namespace ppsparse::bench
