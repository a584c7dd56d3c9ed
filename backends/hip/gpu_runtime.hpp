#pragma once
// The HIP runtime under the names the code shared with CUDA uses (backends/common/cuda_hip).
#include <hip/hip_runtime.h>

#include <cstdint>

#include <Kokkos_Core.hpp>

namespace ppsparse::gpu {

using Space = Kokkos::HIP;
using error_t = hipError_t;
using event_t = hipEvent_t;
using stream_t = hipStream_t;
inline constexpr error_t success = hipSuccess;
inline constexpr const char* name = "hip";

inline const char* error_string(error_t e) { return hipGetErrorString(e); }
inline stream_t stream_of(const Space& space) { return space.hip_stream(); }
inline error_t event_create(event_t* e) { return hipEventCreate(e); }
inline error_t event_destroy(event_t e) { return hipEventDestroy(e); }
inline error_t event_record(event_t e, stream_t s) { return hipEventRecord(e, s); }
inline error_t event_synchronize(event_t e) { return hipEventSynchronize(e); }
inline error_t event_elapsed_ms(float* ms, event_t begin, event_t end) { return hipEventElapsedTime(ms, begin, end); }
inline constexpr const char* event_create_name = "hipEventCreate";
inline constexpr const char* event_record_name = "hipEventRecord";
inline constexpr const char* event_synchronize_name = "hipEventSynchronize";
inline constexpr const char* event_elapsed_name = "hipEventElapsedTime";

// What the runtime knows of an address (backend/foreign_memory.hpp). ROCm 6 renamed the
// attribute's memoryType to type.
struct PointerPlace {
  bool device_memory = false, managed = false;
  int device = -1;
};
inline error_t pointer_place(const void* address, PointerPlace& place) {
  hipPointerAttribute_t a{};
  const error_t e = hipPointerGetAttributes(&a, address);
  if (e != success) return e;
#if HIP_VERSION_MAJOR >= 6
  place.device_memory = a.type == hipMemoryTypeDevice;
#else
  place.device_memory = a.memoryType == hipMemoryTypeDevice;
#endif
  place.managed = a.isManaged != 0;
  place.device = a.device;
  return e;
}
inline error_t get_last_error() { return hipGetLastError(); }
inline int device_id(const Space& space) { return space.hip_device(); }
// A stream as __cuda_array_interface__ gives it (CuPy on ROCm): 1 and 2 name the default streams.
inline stream_t stream_from_interface(std::uintptr_t s) {
  return s == 1 ? nullptr : s == 2 ? hipStreamPerThread : reinterpret_cast<stream_t>(s);
}
inline error_t event_create_untimed(event_t* e) { return hipEventCreateWithFlags(e, hipEventDisableTiming); }
inline error_t stream_wait_event(stream_t s, event_t e) { return hipStreamWaitEvent(s, e, 0); }

// Graphs recorded from a stream (backend/device_graph.hpp). Relaxed: the recording thread may
// call the runtime for other work meanwhile (RCCL does).
using graph_t = hipGraph_t;
using graph_exec_t = hipGraphExec_t;
inline error_t begin_capture(stream_t s) { return hipStreamBeginCapture(s, hipStreamCaptureModeRelaxed); }
inline error_t end_capture(stream_t s, graph_t* g) { return hipStreamEndCapture(s, g); }
inline error_t graph_instantiate(graph_exec_t* e, graph_t g) { return hipGraphInstantiate(e, g, nullptr, nullptr, 0); }
inline error_t graph_launch(graph_exec_t e, stream_t s) { return hipGraphLaunch(e, s); }
inline error_t graph_destroy(graph_t g) { return hipGraphDestroy(g); }
inline error_t graph_exec_destroy(graph_exec_t e) { return hipGraphExecDestroy(e); }
inline constexpr const char* begin_capture_name = "hipStreamBeginCapture";
inline constexpr const char* end_capture_name = "hipStreamEndCapture";
inline constexpr const char* graph_instantiate_name = "hipGraphInstantiate";
inline constexpr const char* graph_launch_name = "hipGraphLaunch";

}  // namespace ppsparse::gpu
