// DeviceTimer (core/include/ppsparse/backend/device_timer.hpp) with HIP events on the
// instance's stream.
#include <hip/hip_runtime.h>

#include <string>

#include <ppsparse/backend/device_timer.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {
namespace {

void check(hipError_t e, const char* what) {
  if (e != hipSuccess) throw Error(std::string("DeviceTimer: ") + what + ": " + hipGetErrorString(e));
}

}  // namespace

struct DeviceTimer::Impl {
  hipStream_t stream = nullptr;
  hipEvent_t begin = nullptr, end = nullptr;
  bool started = false;
  ~Impl() {
    // Destructors must not throw; a failure here leaves nothing to restore.
    if (begin) (void)hipEventDestroy(begin);
    if (end) (void)hipEventDestroy(end);
  }
};

DeviceTimer::DeviceTimer(const Kokkos::DefaultExecutionSpace& space) : impl_(new Impl) {
  impl_->stream = space.hip_stream();
  check(hipEventCreate(&impl_->begin), "hipEventCreate");
  check(hipEventCreate(&impl_->end), "hipEventCreate");
}
DeviceTimer::~DeviceTimer() = default;

void DeviceTimer::start() {
  check(hipEventRecord(impl_->begin, impl_->stream), "hipEventRecord");
  impl_->started = true;
}

double DeviceTimer::stop() {
  if (!impl_->started) throw Error("DeviceTimer::stop: start() was not called");
  impl_->started = false;
  check(hipEventRecord(impl_->end, impl_->stream), "hipEventRecord");
  check(hipEventSynchronize(impl_->end), "hipEventSynchronize");
  float ms = 0.f;
  check(hipEventElapsedTime(&ms, impl_->begin, impl_->end), "hipEventElapsedTime");
  return 1e-3 * static_cast<double>(ms);
}

std::string DeviceTimer::method() { return "hip events"; }

}  // namespace ppsparse::backend
