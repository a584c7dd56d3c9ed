// backend/multiprocessors.hpp on CUDA: the current device's properties.
#include <cuda_runtime.h>

#include <ppsparse/backend/multiprocessors.hpp>

namespace ppsparse::backend {

MultiprocessorLimits multiprocessor_limits() {
  MultiprocessorLimits m;
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return m;
  m.count = prop.multiProcessorCount;
  m.shared_bytes = prop.sharedMemPerMultiprocessor;
  m.reserved_per_team = prop.reservedSharedMemPerBlock;
  m.max_threads = prop.maxThreadsPerMultiProcessor;
  m.max_teams = prop.maxBlocksPerMultiProcessor;
  return m;
}

}  // namespace ppsparse::backend
