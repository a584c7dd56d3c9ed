// backend/last_level_cache.hpp for Kokkos::Cuda: the L2 of the instance's device.
#include <cuda_runtime.h>

#include <ppsparse/backend/last_level_cache.hpp>

namespace ppsparse::backend {

std::size_t last_level_cache_bytes(const Kokkos::Cuda& exec) {
  int bytes = 0;
  if (cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, exec.cuda_device()) != cudaSuccess || bytes <= 0)
    return fallback_last_level_cache_bytes;
  return static_cast<std::size_t>(bytes);
}

}  // namespace ppsparse::backend
