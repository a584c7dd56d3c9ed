#pragma once
// The CUDA runtime under the names the code shared with HIP uses (backends/common/cuda_hip).
#include <cuda_runtime.h>

#include <cstdint>

#include <Kokkos_Core.hpp>

namespace ppsparse::gpu {

using Space = Kokkos::Cuda;
using error_t = cudaError_t;
using event_t = cudaEvent_t;
using stream_t = cudaStream_t;
inline constexpr error_t success = cudaSuccess;
inline constexpr const char* name = "cuda";

inline const char* error_string(error_t e) { return cudaGetErrorString(e); }
inline stream_t stream_of(const Space& space) { return space.cuda_stream(); }
inline error_t event_create(event_t* e) { return cudaEventCreate(e); }
inline error_t event_destroy(event_t e) { return cudaEventDestroy(e); }
inline error_t event_record(event_t e, stream_t s) { return cudaEventRecord(e, s); }
inline error_t event_synchronize(event_t e) { return cudaEventSynchronize(e); }
inline error_t event_elapsed_ms(float* ms, event_t begin, event_t end) { return cudaEventElapsedTime(ms, begin, end); }
inline constexpr const char* event_create_name = "cudaEventCreate";
inline constexpr const char* event_record_name = "cudaEventRecord";
inline constexpr const char* event_synchronize_name = "cudaEventSynchronize";
inline constexpr const char* event_elapsed_name = "cudaEventElapsedTime";

// What the runtime knows of an address (backend/foreign_memory.hpp).
struct PointerPlace {
  bool device_memory = false, managed = false;
  int device = -1;
};
inline error_t pointer_place(const void* address, PointerPlace& place) {
  cudaPointerAttributes a{};
  const error_t e = cudaPointerGetAttributes(&a, address);
  if (e != success) return e;
  place.device_memory = a.type == cudaMemoryTypeDevice;
  place.managed = a.type == cudaMemoryTypeManaged;
  place.device = a.device;
  return e;
}
inline error_t get_last_error() { return cudaGetLastError(); }
inline int device_id(const Space& space) { return space.cuda_device(); }
// A stream as __cuda_array_interface__ gives it: 1 and 2 name the default streams.
inline stream_t stream_from_interface(std::uintptr_t s) {
  return s == 1 ? cudaStreamLegacy : s == 2 ? cudaStreamPerThread : reinterpret_cast<stream_t>(s);
}
inline error_t event_create_untimed(event_t* e) { return cudaEventCreateWithFlags(e, cudaEventDisableTiming); }
inline error_t stream_wait_event(stream_t s, event_t e) { return cudaStreamWaitEvent(s, e, 0); }

// Graphs recorded from a stream (backend/device_graph.hpp). Relaxed: the recording thread may
// call the runtime for other work meanwhile (NCCL does).
using graph_t = cudaGraph_t;
using graph_exec_t = cudaGraphExec_t;
inline error_t begin_capture(stream_t s) { return cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed); }
inline error_t end_capture(stream_t s, graph_t* g) { return cudaStreamEndCapture(s, g); }
// Each kernel keeps the priority of the stream it was recorded from (an exchange on
// backend::priority_instance); without the flag every node runs at the launch stream's priority.
inline error_t graph_instantiate(graph_exec_t* e, graph_t g) {
  return cudaGraphInstantiate(e, g, cudaGraphInstantiateFlagUseNodePriority);
}
inline error_t graph_launch(graph_exec_t e, stream_t s) { return cudaGraphLaunch(e, s); }
inline error_t graph_destroy(graph_t g) { return cudaGraphDestroy(g); }
inline error_t graph_exec_destroy(graph_exec_t e) { return cudaGraphExecDestroy(e); }
inline constexpr const char* begin_capture_name = "cudaStreamBeginCapture";
inline constexpr const char* end_capture_name = "cudaStreamEndCapture";
inline constexpr const char* graph_instantiate_name = "cudaGraphInstantiate";
inline constexpr const char* graph_launch_name = "cudaGraphLaunch";

}  // namespace ppsparse::gpu
