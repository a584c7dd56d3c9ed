#pragma once
// Size of the cache the matrix power kernel blocks for: the last-level cache of the default
// execution space's device (a GPU's L2, a CPU's L3).
#include <cstddef>

namespace ppsparse::mpk {

// Last-level cache of the default device in bytes:
//  * CUDA builds: cudaDeviceProp::l2CacheSize of the current device (backends/cuda);
//  * other builds: host_last_level_cache_bytes().
// Never 0: falls back to fallback_last_level_cache_bytes when the size cannot be read.
std::size_t last_level_cache_bytes();

// Largest data or unified cache the host's CPU 0 sees: /sys/devices/system/cpu/cpu0/cache
// (the per-instance size, i.e. what one core can use), else sysconf(_SC_LEVEL3_CACHE_SIZE)
// and _SC_LEVEL2_CACHE_SIZE, else the fallback.
std::size_t host_last_level_cache_bytes();

// Used when no query answers (and on GPU backends without a query, e.g. HIP): 8 MiB.
inline constexpr std::size_t fallback_last_level_cache_bytes = std::size_t{8} << 20;

}  // namespace ppsparse::mpk
