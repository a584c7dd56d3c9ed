#pragma once
// EventTimer (core/include/ppsparse/backend/device_timer.hpp) for CUDA and HIP, written once
// over the runtime names of gpu_runtime.hpp (Ginkgo's common/cuda_hip): each backend's
// device_timer_<backend>.cpp includes its gpu_runtime.hpp, then this file, and instantiates
// EventTimer<gpu::Space>.
#include <string>

#include <ppsparse/backend/device_timer.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {

namespace event_timer_detail {
inline void check(gpu::error_t e, const char* what) {
  if (e != gpu::success) throw Error(std::string("DeviceTimer: ") + what + ": " + gpu::error_string(e));
}
}  // namespace event_timer_detail

template <class ExecSpace>
struct EventTimer<ExecSpace>::Impl {
  gpu::stream_t stream = nullptr;
  gpu::event_t begin = nullptr, end = nullptr;
  bool started = false;
  ~Impl() {
    // Destructors must not throw; a failure here leaves nothing to restore.
    if (begin) (void)gpu::event_destroy(begin);
    if (end) (void)gpu::event_destroy(end);
  }
};

template <class ExecSpace>
EventTimer<ExecSpace>::EventTimer(const ExecSpace& space) : impl_(new Impl) {
  impl_->stream = gpu::stream_of(space);
  event_timer_detail::check(gpu::event_create(&impl_->begin), gpu::event_create_name);
  event_timer_detail::check(gpu::event_create(&impl_->end), gpu::event_create_name);
}

template <class ExecSpace>
EventTimer<ExecSpace>::~EventTimer() = default;

template <class ExecSpace>
void EventTimer<ExecSpace>::start() {
  event_timer_detail::check(gpu::event_record(impl_->begin, impl_->stream), gpu::event_record_name);
  impl_->started = true;
}

template <class ExecSpace>
double EventTimer<ExecSpace>::stop() {
  if (!impl_->started) throw Error("DeviceTimer::stop: start() was not called");
  impl_->started = false;
  event_timer_detail::check(gpu::event_record(impl_->end, impl_->stream), gpu::event_record_name);
  event_timer_detail::check(gpu::event_synchronize(impl_->end), gpu::event_synchronize_name);
  float ms = 0.f;
  event_timer_detail::check(gpu::event_elapsed_ms(&ms, impl_->begin, impl_->end), gpu::event_elapsed_name);
  return 1e-3 * static_cast<double>(ms);
}

template <class ExecSpace>
std::string EventTimer<ExecSpace>::method() {
  return std::string(gpu::name) + " events";
}

}  // namespace ppsparse::backend
