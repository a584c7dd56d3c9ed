// last_level_cache_bytes() on CUDA builds: the L2 of the current device.
#include <cuda_runtime.h>

#include <ppsparse/mpk/last_level_cache.hpp>

namespace ppsparse::mpk {

std::size_t last_level_cache_bytes() {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess ||
      prop.l2CacheSize <= 0)
    return fallback_last_level_cache_bytes;
  return static_cast<std::size_t>(prop.l2CacheSize);
}

}  // namespace ppsparse::mpk
