#pragma once
/// @file
/// Device-to-device copy bandwidth, measured in the same run as the kernels it judges:
/// the ceiling every memory-bound kernel's GB/s is divided by.
#include <algorithm>
#include <vector>

#include <ppsparse/types.hpp>

namespace ppsparse {

/// The device-to-device copy bandwidth measured in this run: the reference every kernel's
/// achieved bandwidth is quoted against.
struct CopyBandwidth {
  double gbs = 0.0;         ///< (bytes read + bytes written) / median time, in 1e9 B/s
  size_t buffer_bytes = 0;  ///< size of each of the two buffers
  int repetitions = 0;
};

/// Default buffer size: far larger than any last-level cache (1 GiB on GPUs, 256 MiB on CPUs).
template <class ExecSpace>
size_t default_copy_buffer_bytes() {
  return compat::is_gpu_space<ExecSpace>() ? (size_t{1} << 30) : (size_t{256} << 20);
}

/// Copies a buffer of buffer_bytes (0: a size well past the last-level cache) device to
/// device `repetitions` times and reports the median bandwidth, counting bytes read and written.
template <class ExecSpace = DefaultExecSpace>
CopyBandwidth measure_copy_bandwidth(size_t buffer_bytes = 0, int repetitions = 15) {
  if (buffer_bytes == 0) buffer_bytes = default_copy_buffer_bytes<ExecSpace>();
  using V = Kokkos::View<double*, typename ExecSpace::memory_space>;
  const size_t n = buffer_bytes / sizeof(double);
  V a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "copy.src"), n);
  V b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "copy.dst"), n);
  Kokkos::parallel_for(
      "ppsparse::copy_bandwidth::init", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const size_t i) { a(i) = 1.0 + static_cast<double>(i % 1024); });
  ExecSpace exec;
  std::vector<double> t;
  for (int r = 0; r < repetitions + 2; ++r) {
    exec.fence();
    Kokkos::Timer timer;
    Kokkos::deep_copy(exec, b, a);
    exec.fence();
    if (r >= 2) t.push_back(timer.seconds());  // two warm-ups
  }
  std::sort(t.begin(), t.end());
  CopyBandwidth c;
  c.buffer_bytes = n * sizeof(double);
  c.repetitions = repetitions;
  c.gbs = 2.0 * static_cast<double>(c.buffer_bytes) / t[t.size() / 2] * 1e-9;
  return c;
}

}  // namespace ppsparse
