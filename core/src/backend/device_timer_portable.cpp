// The portable DeviceTimer (backend/device_timer.hpp), linked when no device backend supplies
// one: fences around a steady clock.
#if !defined(PPSPARSE_HAVE_DEVICE_TIMER_BACKEND)
#include <chrono>

#include <ppsparse/backend/device_timer.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {

struct DeviceTimer::Impl {
  Kokkos::DefaultExecutionSpace space;
  std::chrono::steady_clock::time_point t0;
  bool started = false;
};

DeviceTimer::DeviceTimer(const Kokkos::DefaultExecutionSpace& space) : impl_(new Impl{space, {}, false}) {}
DeviceTimer::~DeviceTimer() = default;

void DeviceTimer::start() {
  impl_->space.fence();
  impl_->t0 = std::chrono::steady_clock::now();
  impl_->started = true;
}

double DeviceTimer::stop() {
  if (!impl_->started) throw Error("DeviceTimer::stop: start() was not called");
  impl_->space.fence();
  impl_->started = false;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->t0).count();
}

std::string DeviceTimer::method() { return "fences and a steady clock"; }

}  // namespace ppsparse::backend
#endif
