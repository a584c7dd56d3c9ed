// DeviceTimer (core/include/ppsparse/backend/device_timer.hpp) with CUDA events on the
// instance's stream.
#include <cuda_runtime.h>

#include <string>

#include <ppsparse/backend/device_timer.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("DeviceTimer: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

struct DeviceTimer::Impl {
  cudaStream_t stream = nullptr;
  cudaEvent_t begin = nullptr, end = nullptr;
  bool started = false;
  ~Impl() {
    // Destructors must not throw; a failure here leaves nothing to restore.
    if (begin) (void)cudaEventDestroy(begin);
    if (end) (void)cudaEventDestroy(end);
  }
};

DeviceTimer::DeviceTimer(const Kokkos::DefaultExecutionSpace& space) : impl_(new Impl) {
  impl_->stream = space.cuda_stream();
  check(cudaEventCreate(&impl_->begin), "cudaEventCreate");
  check(cudaEventCreate(&impl_->end), "cudaEventCreate");
}
DeviceTimer::~DeviceTimer() = default;

void DeviceTimer::start() {
  check(cudaEventRecord(impl_->begin, impl_->stream), "cudaEventRecord");
  impl_->started = true;
}

double DeviceTimer::stop() {
  if (!impl_->started) throw Error("DeviceTimer::stop: start() was not called");
  impl_->started = false;
  check(cudaEventRecord(impl_->end, impl_->stream), "cudaEventRecord");
  check(cudaEventSynchronize(impl_->end), "cudaEventSynchronize");
  float ms = 0.f;
  check(cudaEventElapsedTime(&ms, impl_->begin, impl_->end), "cudaEventElapsedTime");
  return 1e-3 * static_cast<double>(ms);
}

std::string DeviceTimer::method() { return "cuda events"; }

}  // namespace ppsparse::backend
