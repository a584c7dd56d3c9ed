#pragma once
// CUDA's team hand-off (core/src/backend/team_handoff.hpp), at GPU scope: polls are
// ld.relaxed.gpu, the acquire is fence.acq_rel.gpu and the release increment
// red.release.gpu (instead of fence.sc.gpu, which Kokkos::memory_fence emits, before a
// relaxed atomic). These need sm_70; older GPUs and the host pass use Kokkos.
// Included by core/src/backend/team_handoff.hpp, after its portable:: versions.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

KOKKOS_FORCEINLINE_FUNCTION std::uint64_t handoff_load_relaxed(std::uint64_t* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  std::uint64_t v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  return portable::handoff_load_relaxed(p);
#endif
}

KOKKOS_FORCEINLINE_FUNCTION void handoff_acquire_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
  portable::handoff_acquire_fence();
#endif
}

KOKKOS_FORCEINLINE_FUNCTION void handoff_add_release(std::uint64_t* p, std::uint64_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
  portable::handoff_add_release(p, v);
#endif
}

}  // namespace ppsparse::backend
