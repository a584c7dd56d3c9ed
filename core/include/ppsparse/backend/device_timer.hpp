#pragma once
// Times work submitted to Kokkos' default execution space, for decisions that rest on one
// product's time (csr_coop's run-time tuner). A device backend records events on the
// instance's stream (backends/cuda: cudaEvent, backends/hip: hipEvent): the interval is the
// device's, without the launch and the host's wake-up after a fence, which on a GPU vary by a
// few microseconds per call. Elsewhere (core's portable implementation) start() and stop()
// fence the instance and read a steady clock.
#include <memory>
#include <string>

#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

class DeviceTimer {
 public:
  // Error if the backend cannot create its events.
  explicit DeviceTimer(const Kokkos::DefaultExecutionSpace& space = Kokkos::DefaultExecutionSpace());
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;

  // Marks the start: work submitted to the instance before it is not timed.
  void start();
  // Marks the end after the work submitted since start(), waits for it, and returns the
  // seconds between the two marks. Error if start() was not called first.
  double stop();
  // How it measures: "cuda events", "hip events" or "fences and a steady clock".
  static std::string method();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppsparse::backend
