// backend::locate_memory and order_after_stream: a GPU build tells its own device memory from
// host memory and names the GPU; a host build calls everything host memory.
#include <gtest/gtest.h>

#include <vector>

#include <ppsparse/backend/foreign_memory.hpp>
#include <ppsparse/kokkos_compat.hpp>

#include "test_util.hpp"

namespace ppsparse::backend {
namespace {

using Exec = Kokkos::DefaultExecutionSpace;

// A device lambda cannot live in a test's body (CUDA): the sum of v on exec, here.
double sum_on(const Exec& exec, const Kokkos::View<double*>& v) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "ppsparse::test_foreign_memory_sum", Kokkos::RangePolicy<Exec>(exec, 0, v.extent(0)),
      KOKKOS_LAMBDA(const int i, double& s) { s += v(i); }, sum);
  return sum;
}

TEST(ForeignMemory, DeviceArraysAreOnTheExecutionSpacesGpuAndHostArraysOnTheHost) {
  const Exec exec;
  const bool gpu = compat::is_gpu_space<Exec>();
  Kokkos::View<double*> device_array("device_array", 100);
  std::vector<double> host_array(100, 1.0);
  const MemoryLocation on_device = locate_memory(exec, device_array.data());
  const MemoryLocation on_host = locate_memory(exec, host_array.data());
  EXPECT_EQ(on_host.kind, MemoryKind::host);
  EXPECT_EQ(on_host.device, -1);
  if (gpu) {
    EXPECT_GE(device_of(exec), 0);
    EXPECT_EQ(on_device.kind, MemoryKind::device);
    EXPECT_EQ(on_device.device, device_of(exec));
    // Inside an allocation too, as an array's view of part of a larger one is.
    EXPECT_EQ(locate_memory(exec, device_array.data() + 50).kind, MemoryKind::device);
  } else {
    EXPECT_EQ(device_of(exec), -1);
    EXPECT_EQ(on_device.kind, MemoryKind::host);
  }
}

TEST(ForeignMemory, TheDefaultStreamsOfTheArrayInterfaceCanBeWaitedFor) {
  const Exec exec;
  Kokkos::View<double*> v("v", 1000);
  Kokkos::deep_copy(v, 2.0);
  // 1 and 2: the legacy and the per-thread default streams of __cuda_array_interface__.
  EXPECT_NO_THROW(order_after_stream(exec, 1));
  EXPECT_NO_THROW(order_after_stream(exec, 2));
  EXPECT_EQ(sum_on(exec, v), 2000.0);
}

}  // namespace
}  // namespace ppsparse::backend
