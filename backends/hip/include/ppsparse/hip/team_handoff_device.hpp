#pragma once
// HIP's team hand-off (core/src/backend/team_handoff.hpp), at agent (device) scope: relaxed
// atomic polls, an acquire fence, a release fetch-add. The host pass uses Kokkos.
// Included by core/src/backend/team_handoff.hpp, after its portable:: versions.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

KOKKOS_FORCEINLINE_FUNCTION std::uint64_t handoff_load_relaxed(std::uint64_t* p) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
  return portable::handoff_load_relaxed(p);
#endif
}

KOKKOS_FORCEINLINE_FUNCTION void handoff_acquire_fence() {
#if defined(__HIP_DEVICE_COMPILE__)
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
#else
  portable::handoff_acquire_fence();
#endif
}

KOKKOS_FORCEINLINE_FUNCTION void handoff_add_release(std::uint64_t* p, std::uint64_t v) {
#if defined(__HIP_DEVICE_COMPILE__)
  __hip_atomic_fetch_add(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
#else
  portable::handoff_add_release(p, v);
#endif
}

}  // namespace ppsparse::backend
