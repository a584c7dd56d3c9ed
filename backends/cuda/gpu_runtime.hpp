#pragma once
// The CUDA runtime under the names the code shared with HIP uses (backends/common/cuda_hip).
#include <cuda_runtime.h>

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

}  // namespace ppsparse::gpu
