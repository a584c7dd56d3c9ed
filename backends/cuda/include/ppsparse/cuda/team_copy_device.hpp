#pragma once
// CUDA's team copy into scratch (core/src/backend/team_copy.hpp): cp.async
// (__pipeline_memcpy_async, sm_80 on), one instruction per 4-, 8- or 16-byte element, completed
// by __pipeline_wait_prior(0). Elements of 1 or 2 bytes go as 4-byte words where both ends are
// 4-byte aligned and the bytes a whole number of words (SELL's 16-bit column offsets over whole
// chunks), else through registers (portable::), as on the host pass and on GPUs before sm_80.
#include <cstdint>

#include <Kokkos_Core.hpp>
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#include <cuda_pipeline.h>
#endif

namespace ppsparse::backend {

template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_copy_start(const Member& team, const T* src, const std::int64_t count, T* dst) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) {
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, count),
                         [&](const std::int64_t e) { __pipeline_memcpy_async(dst + e, src + e, sizeof(T)); });
    __pipeline_commit();
    return;
  } else {
    const std::int64_t bytes = count * static_cast<std::int64_t>(sizeof(T));
    if (bytes % 4 == 0 && reinterpret_cast<std::uintptr_t>(src) % 4 == 0 &&
        reinterpret_cast<std::uintptr_t>(dst) % 4 == 0) {
      const auto* s = reinterpret_cast<const std::uint32_t*>(src);
      auto* d = reinterpret_cast<std::uint32_t*>(dst);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, bytes / 4),
                           [&](const std::int64_t w) { __pipeline_memcpy_async(d + w, s + w, 4); });
      __pipeline_commit();
      return;
    }
  }
#endif
  portable::team_copy_start(team, src, count, dst);
}

KOKKOS_INLINE_FUNCTION void team_copy_finish() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __pipeline_wait_prior(0);
#endif
}

}  // namespace ppsparse::backend
