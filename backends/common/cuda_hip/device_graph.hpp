#pragma once
// backend/device_graph.hpp for CUDA and HIP, written once over the runtime names of
// gpu_runtime.hpp: each backend's device_graph_<backend>.cpp includes its gpu_runtime.hpp, then
// this file.
#include <string>

#include <ppsparse/backend/device_graph.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {

namespace {

void check_graph_call(gpu::error_t e, const char* call) {
  if (e != gpu::success) throw Error(std::string(call) + ": " + gpu::error_string(e));
}

}  // namespace

bool can_record_graph(const gpu::Space& /*exec*/, std::string& why_not) {
  why_not.clear();
  return true;
}

void begin_graph(const gpu::Space& exec) {
  check_graph_call(gpu::begin_capture(gpu::stream_of(exec)), gpu::begin_capture_name);
}

DeviceGraph end_graph(const gpu::Space& exec) {
  gpu::graph_t graph = nullptr;
  // Ends the recording even when a call inside it failed (then it returns that failure), so
  // that the stream runs work again.
  const gpu::error_t ended = gpu::end_capture(gpu::stream_of(exec), &graph);
  (void)gpu::get_last_error();
  if (ended != gpu::success) {
    if (graph) (void)gpu::graph_destroy(graph);
    throw Error(std::string("recording a device graph failed: ") + gpu::end_capture_name + ": " +
                gpu::error_string(ended));
  }
  gpu::graph_exec_t executable = nullptr;
  const gpu::error_t made = gpu::graph_instantiate(&executable, graph);
  (void)gpu::graph_destroy(graph);  // the instantiated graph keeps what it needs
  check_graph_call(made, gpu::graph_instantiate_name);
  DeviceGraph g;
  g.executable = std::shared_ptr<void>(
      executable, [](void* e) { (void)gpu::graph_exec_destroy(static_cast<gpu::graph_exec_t>(e)); });
  return g;
}

void replay_graph(const gpu::Space& exec, const DeviceGraph& g) {
  if (!g) throw Error("replay_graph: an empty graph");
  check_graph_call(gpu::graph_launch(static_cast<gpu::graph_exec_t>(g.executable.get()), gpu::stream_of(exec)),
                   gpu::graph_launch_name);
}

}  // namespace ppsparse::backend
