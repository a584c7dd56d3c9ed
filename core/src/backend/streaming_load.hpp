#pragma once
// backend::streaming_load(p) returns *p, loaded as data a kernel reads once: a sparse
// matrix's values and indices in an SpMV. The caches then evict it first, so it does not push
// out x, which many rows share (CUDA: ld.global.cs; HIP: a nontemporal load). A backend
// provides it in ppsparse/<backend>/streaming_load_device.hpp (backends/<backend>/include),
// which its hook list names as PPSPARSE_STREAMING_LOAD_DEVICE; elsewhere it is a plain load.
#include <Kokkos_Core.hpp>

#include <ppsparse/backend/backends.hpp>

#if defined(PPSPARSE_STREAMING_LOAD_DEVICE)
#include PPSPARSE_STREAMING_LOAD_DEVICE
#else
namespace ppsparse::backend {
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T streaming_load(const T* p) {
  return *p;
}
}  // namespace ppsparse::backend
#endif

namespace ppsparse::backend {

// An array read once per kernel: a(k) is streaming_load(data + k) when Streaming, else data[k].
template <class T, bool Streaming>
struct ReadOnceArray {
  const T* data;
  KOKKOS_FORCEINLINE_FUNCTION T operator()(const std::int64_t k) const {
    if constexpr (Streaming)
      return streaming_load(data + k);
    else
      return data[k];
  }
};

}  // namespace ppsparse::backend
