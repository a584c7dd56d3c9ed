// backend::begin_graph / end_graph / replay_graph: on a GPU build, work enqueued while recording
// does not run, and each replay runs it once, in stream order; a host build records nothing and
// says why. backend::priority_instance runs work like any instance.
#include <gtest/gtest.h>

#include <string>

#include <ppsparse/backend/device_graph.hpp>
#include <ppsparse/backend/instance_order.hpp>
#include <ppsparse/error.hpp>

#include "test_util.hpp"

namespace ppsparse::backend {
namespace {

using Exec = Kokkos::DefaultExecutionSpace;

// A device lambda cannot live in a test's body (CUDA): v(i) = v(i) * 2 + i on exec.
void double_and_add_index(const Exec& exec, const Kokkos::View<double*>& v) {
  Kokkos::parallel_for(
      "ppsparse::test_device_graph", Kokkos::RangePolicy<Exec>(exec, 0, v.extent(0)),
      KOKKOS_LAMBDA(const int i) { v(i) = v(i) * 2 + i; });
}

TEST(DeviceGraph, RecordedWorkRunsOncePerReplayInOrder) {
  const Exec exec;
  Kokkos::View<double*> v("v", 1000);
  Kokkos::deep_copy(v, 1.0);
  exec.fence();
  std::string why;
  if (!can_record_graph(exec, why)) {
    EXPECT_NE(why.find(Exec::name()), std::string::npos) << why;
    EXPECT_THROW(begin_graph(exec), Error);
    EXPECT_THROW(end_graph(exec), Error);
    EXPECT_THROW(replay_graph(exec, DeviceGraph{}), Error);
    return;
  }
  EXPECT_TRUE(why.empty()) << why;
  begin_graph(exec);
  double_and_add_index(exec, v);
  double_and_add_index(exec, v);  // two kernels: the second reads the first's result
  const DeviceGraph g = end_graph(exec);
  ASSERT_TRUE(g);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  EXPECT_EQ(h(7), 1.0);  // recorded, not run
  for (int r = 0; r < 3; ++r) replay_graph(exec, g);
  exec.fence();
  Kokkos::deep_copy(h, v);
  for (const int i : {0, 7, 999}) {
    double x = 1.0;
    for (int k = 0; k < 6; ++k) x = x * 2 + i;
    EXPECT_EQ(h(i), x) << "i = " << i;
  }
  EXPECT_THROW(replay_graph(exec, DeviceGraph{}), Error);
}

TEST(DeviceGraph, PriorityInstanceRunsWorkAfterWhatItWaitsFor) {
  const Exec exec;
  const Exec priority = priority_instance(exec);
  Kokkos::View<double*> v("v", 1000);
  Kokkos::deep_copy(v, 1.0);
  double_and_add_index(exec, v);
  order_after(priority, exec);
  double_and_add_index(priority, v);
  priority.fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  EXPECT_EQ(h(5), (1.0 * 2 + 5) * 2 + 5);
}

}  // namespace
}  // namespace ppsparse::backend
