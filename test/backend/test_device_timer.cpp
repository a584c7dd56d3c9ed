// backend::DeviceTimer: measures the work between its marks (never more than the host saw
// around them), and refuses stop() without start().
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>

#include <ppsparse/backend/device_timer.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/kokkos_compat.hpp>

#include "test_util.hpp"

namespace {

using Exec = Kokkos::DefaultExecutionSpace;

// Several dependent launches of streaming work, long enough (tens of ms) that the launch and
// wake-up costs are a small part of it.
void busy_work(Kokkos::View<double*> v, int launches) {
  for (int l = 0; l < launches; ++l)
    Kokkos::parallel_for(
        "ppsparse::test_device_timer_work", Kokkos::RangePolicy<Exec>(0, v.extent(0)),
        KOKKOS_LAMBDA(const int i) { v(i) = 0.5 * v(i) + std::sqrt(static_cast<double>(i) + v(i)); });
}

TEST(DeviceTimer, MeasuresTheWorkBetweenItsMarks) {
  const bool gpu = ppsparse::compat::is_gpu_space<Exec>();
  Kokkos::View<double*> v("v", gpu ? (1 << 24) : (1 << 20));
  Kokkos::deep_copy(v, 1.0);
  ppsparse::backend::DeviceTimer<> timer;
  busy_work(v, 1);  // first-launch costs out of the way
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  timer.start();
  busy_work(v, gpu ? 50 : 20);
  const double measured = timer.stop();
  const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(std::isfinite(measured));
  EXPECT_GT(measured, 0.0);
  // The device interval lies inside the host's (an invariant, not a speed: how much of the
  // host interval the work fills depends on the machine's load, so no lower bound is asserted).
  EXPECT_LE(measured, host * 1.001 + 1e-6) << ppsparse::backend::DeviceTimer<>::method();
  // An interval with no work between the marks lies inside its own host interval too.
  const auto t1 = std::chrono::steady_clock::now();
  timer.start();
  const double empty = timer.stop();
  const double empty_host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  EXPECT_GE(empty, 0.0);
  EXPECT_LE(empty, empty_host * 1.001 + 1e-6);
}

TEST(DeviceTimer, StopWithoutStartIsAnError) {
  ppsparse::backend::DeviceTimer<> timer;
  try {
    timer.stop();
    ADD_FAILURE() << "stop() without start() returned";
  } catch (const ppsparse::Error& e) {
    EXPECT_EQ(std::string(e.what()), "DeviceTimer::stop: start() was not called");
  }
  timer.start();
  EXPECT_GE(timer.stop(), 0.0);
  PPSPARSE_EXPECT_THROW_MESSAGE(timer.stop(), ppsparse::Error,
                                "DeviceTimer::stop: start() was not called");  // each stop() needs its own start()
}

TEST(DeviceTimer, SaysHowItMeasures) {
  const std::string m = ppsparse::backend::DeviceTimer<>::method();
  if (ppsparse::compat::is_gpu_space<Exec>())
    EXPECT_TRUE(m == "cuda events" || m == "hip events") << m;
  else
    EXPECT_EQ(m, "fences and a steady clock");
}

}  // namespace
