// The device-to-device copy bandwidth (util/copy_bandwidth.hpp).
#include <ppsparse/util/copy_bandwidth.hpp>

#include <algorithm>
#include <vector>

namespace ppsparse {

template <class ExecSpace>
CopyBandwidth measure_copy_bandwidth(size_t buffer_bytes, int repetitions) {
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

template CopyBandwidth measure_copy_bandwidth<DefaultExecSpace>(size_t, int);

}  // namespace ppsparse
