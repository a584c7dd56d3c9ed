#pragma once
/// @file
/// Work recorded once from an execution-space instance's stream and replayed as one unit (CUDA
/// and HIP graphs): one launch per replay instead of one per kernel, and no host work between
/// the kernels. The MCPI solver records its sweeps between residual checks, exchanges included
/// where they stay on the device (NCCL).
///
///   if (backend::can_record_graph(exec, why_not)) {
///     backend::DeviceGraph g = backend::record_graph(exec, [&] {
///       ...enqueue on exec (and on instances that wait for exec and that exec waits for)...
///     });                                                  // instantiated
///     backend::replay_graph(exec, g);                      // as often as needed
///   }
///
/// Chosen by overloading on the execution space: the templates are the portable fallback (host
/// backends record nothing: can_record_graph is false); backends/cuda and backends/hip overload
/// them by the code they share (backends/common/cuda_hip/device_graph.hpp).
#include <memory>
#include <string>

#include <Kokkos_Core.hpp>

#include <ppsparse/error.hpp>

namespace ppsparse::backend {

/// A recorded and instantiated graph, ready to replay; empty where nothing was recorded. Copies
/// share the graph, which is destroyed with the last one.
struct DeviceGraph {
  std::shared_ptr<void> executable;
  explicit operator bool() const { return static_cast<bool>(executable); }
};

/// Whether exec's backend records graphs; if not, why_not says why.
template <class ExecSpace>
bool can_record_graph(const ExecSpace& /*exec*/, std::string& why_not) {
  why_not = std::string(ExecSpace::name()) + " records no device graphs";
  return false;
}

/// Starts recording what is enqueued on exec's stream (and on streams that join it through
/// events) instead of running it. Error where the backend records nothing.
template <class ExecSpace>
void begin_graph(const ExecSpace& /*exec*/) {
  throw Error(std::string("begin_graph: ") + ExecSpace::name() + " records no device graphs");
}

/// Ends the recording begun on exec and instantiates it. Error, with the runtime's words, where
/// something recorded could not be (the stream is usable again either way).
template <class ExecSpace>
DeviceGraph end_graph(const ExecSpace& /*exec*/) {
  throw Error(std::string("end_graph: ") + ExecSpace::name() + " records no device graphs");
}

/// Enqueues one replay of g on exec's stream (asynchronous).
template <class ExecSpace>
void replay_graph(const ExecSpace& /*exec*/, const DeviceGraph& /*g*/) {
  throw Error(std::string("replay_graph: ") + ExecSpace::name() + " records no device graphs");
}

}  // namespace ppsparse::backend

// The backends' overloads (backend/backends.hpp).
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_DEVICE_GRAPH_HOOKS(Exec, NAME)                  \
  bool can_record_graph(const Exec& exec, std::string& why_not); \
  void begin_graph(const Exec& exec);                            \
  DeviceGraph end_graph(const Exec& exec);                       \
  void replay_graph(const Exec& exec, const DeviceGraph& g);
namespace ppsparse::backend {
PPSPARSE_DECLARE_BACKEND_HOOKS(DEVICE_GRAPH, PPSPARSE_DEVICE_GRAPH_HOOKS)

// After the backends' overloads, which its calls resolve to.
/// The work that `enqueue()` puts on exec's stream, recorded and instantiated (begin_graph,
/// end_graph). Where enqueue() throws, the recording is ended first (so that the stream runs
/// work again) and enqueue's error is the one that propagates.
template <class ExecSpace, class Enqueue>
DeviceGraph record_graph(const ExecSpace& exec, Enqueue&& enqueue) {
  begin_graph(exec);
  try {
    enqueue();
  } catch (...) {
    try {
      end_graph(exec);
    } catch (...) {
    }
    throw;
  }
  return end_graph(exec);
}

}  // namespace ppsparse::backend
