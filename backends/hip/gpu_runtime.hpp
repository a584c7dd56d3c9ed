#pragma once
// The HIP runtime under the names the code shared with CUDA uses (backends/common/cuda_hip).
#include <hip/hip_runtime.h>

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

}  // namespace ppsparse::gpu
