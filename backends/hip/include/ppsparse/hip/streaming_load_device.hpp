#pragma once
// HIP's backend::streaming_load (core/src/backend/streaming_load.hpp): a nontemporal load
// (global_load ... nt on CDNA), which marks the line for early eviction.
#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T streaming_load(const T* p) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_nontemporal_load(p);
#else
  return *p;
#endif
}

}  // namespace ppsparse::backend
