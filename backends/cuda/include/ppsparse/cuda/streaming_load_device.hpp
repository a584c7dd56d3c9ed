#pragma once
// CUDA's backend::streaming_load (core/src/backend/streaming_load.hpp): ld.global.cs, which
// allocates the line evict-first in L1 and L2.
#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T streaming_load(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldcs(p);
#else
  return *p;
#endif
}

}  // namespace ppsparse::backend
