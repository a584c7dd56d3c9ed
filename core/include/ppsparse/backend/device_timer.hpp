#pragma once
/// @file
/// Times work submitted to an execution-space instance, for decisions that rest on one
/// product's time (csr_coop's run-time tuner).
///
/// Chosen by the execution space: DeviceTimer<Kokkos::Cuda> and DeviceTimer<Kokkos::HIP> record
/// device events on the instance's stream (EventTimer, written once for both in
/// backends/common/cuda_hip): the interval is the device's, without the launch and the host's
/// wake-up after a fence, which on a GPU vary by a few microseconds per call. Any other space
/// uses the template below: start() and stop() fence the instance and read a steady clock.
#include <chrono>
#include <memory>
#include <string>

#include <Kokkos_Core.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {

/// Times work submitted to an instance of ExecSpace (see the file's description for how).
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class DeviceTimer {
 public:
  explicit DeviceTimer(const ExecSpace& space = ExecSpace()) : space_(space) {}

  /// Marks the start: work submitted to the instance before it is not timed.
  void start() {
    space_.fence();
    t0_ = std::chrono::steady_clock::now();
    started_ = true;
  }
  /// Marks the end after the work submitted since start(), waits for it, and returns the
  /// seconds between the two marks. Error if start() was not called first.
  double stop() {
    if (!started_) throw Error("DeviceTimer::stop: start() was not called");
    space_.fence();
    started_ = false;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  /// How it measures: "fences and a steady clock" here, "cuda events" or "hip events".
  static std::string method() { return "fences and a steady clock"; }

 private:
  ExecSpace space_;
  std::chrono::steady_clock::time_point t0_;
  bool started_ = false;
};

/// DeviceTimer's interface with device events on the instance's stream; instantiated by the
/// CUDA and HIP backends for their execution spaces. Error if the events cannot be created.
template <class ExecSpace>
class EventTimer {
 public:
  explicit EventTimer(const ExecSpace& space);
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start();
  double stop();
  static std::string method();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppsparse::backend

// The backends' timers (backend/backends.hpp): events on the instance's stream, the EventTimer
// of backends/common/cuda_hip/device_timer.hpp.
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_DEVICE_TIMER_HOOKS(Exec, NAME)                                   \
  template <>                                                                     \
  class DeviceTimer<Exec> : public EventTimer<Exec> {                             \
   public:                                                                        \
    explicit DeviceTimer(const Exec& space = Exec()) : EventTimer<Exec>(space) {} \
  };
namespace ppsparse::backend {
PPSPARSE_DECLARE_BACKEND_HOOKS(DEVICE_TIMER, PPSPARSE_DEVICE_TIMER_HOOKS)
}  // namespace ppsparse::backend
