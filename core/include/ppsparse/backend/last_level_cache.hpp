#pragma once
/// @file
/// Size of the last-level cache of an execution-space instance's device (a GPU's L2, a CPU's
/// L3): what the matrix power kernel blocks for and SpMV's column panels are sized to. Chosen by overloading on the
/// execution space: backends/cuda answers for Kokkos::Cuda (its device's L2); the portable
/// template answers host_last_level_cache_bytes() on host spaces and the fallback on GPUs
/// without a query (HIP).
#include <cstddef>

#include <Kokkos_Core.hpp>
#include <ppsparse/kokkos_compat.hpp>

namespace ppsparse::backend {

/// Used when no query answers (and on GPU backends without a query, e.g. HIP): 8 MiB.
inline constexpr std::size_t fallback_last_level_cache_bytes = std::size_t{8} << 20;

/// Largest data or unified cache the host's CPU 0 sees: /sys/devices/system/cpu/cpu0/cache
/// (the per-instance size, i.e. what one core can use), else sysconf(_SC_LEVEL3_CACHE_SIZE)
/// and _SC_LEVEL2_CACHE_SIZE, else the fallback.
std::size_t host_last_level_cache_bytes();

/// Last-level cache of exec's device in bytes; never 0 (the fallback when the size cannot be read).
template <class ExecSpace>
std::size_t last_level_cache_bytes(const ExecSpace&) {
  return compat::is_gpu_space<ExecSpace>() ? fallback_last_level_cache_bytes : host_last_level_cache_bytes();
}

}  // namespace ppsparse::backend

// The backends' overloads (backend/backends.hpp).
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_LAST_LEVEL_CACHE_HOOKS(Exec, NAME) std::size_t last_level_cache_bytes(const Exec& exec);

namespace ppsparse::backend {
PPSPARSE_DECLARE_BACKEND_HOOKS(LAST_LEVEL_CACHE, PPSPARSE_LAST_LEVEL_CACHE_HOOKS)

/// Of the default execution space's instance.
inline std::size_t last_level_cache_bytes() { return last_level_cache_bytes(Kokkos::DefaultExecutionSpace()); }

}  // namespace ppsparse::backend
