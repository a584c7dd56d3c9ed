// backend/multiprocessors.hpp for Kokkos::Cuda: the properties of the instance's device.
#include <cuda_runtime.h>

#include <ppsparse/backend/multiprocessors.hpp>

namespace ppsparse::backend {

MultiprocessorLimits multiprocessor_limits(const Kokkos::Cuda& exec) {
  MultiprocessorLimits m;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, exec.cuda_device()) != cudaSuccess) return m;
  m.count = prop.multiProcessorCount;
  m.shared_bytes = prop.sharedMemPerMultiprocessor;
  m.reserved_per_team = prop.reservedSharedMemPerBlock;
  m.max_threads = prop.maxThreadsPerMultiProcessor;
  m.max_teams = prop.maxBlocksPerMultiProcessor;
  return m;
}

}  // namespace ppsparse::backend
