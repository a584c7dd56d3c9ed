#pragma once
// The local matrix approach's element product, shared by op_lma_atomic.cpp and
// op_lma_colored.cpp: gather the element's x, multiply by its m x m matrix (value-major over
// `stride` elements), add into y, with atomics or (elements of one colour share no node) without.
#include "poisson_kernel.hpp"

namespace ppsparse::fem::detail {

template <class Scalar, class Mem, int M, bool Atomic>
struct LmaProduct {
  Kokkos::View<const ordinal_t*, Mem> elem_nodes;  // element-major, M per element
  Kokkos::View<const Scalar*, Mem> local;          // (i*M + j)*stride + e
  Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> x;
  Kokkos::View<Scalar*, Mem> y;
  size_t stride;    // elements in the local array
  ordinal_t first;  // the first element of the launch (a colour's)

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t t) const {
    const size_t e = static_cast<size_t>(first) + t;
    ordinal_t node[M];
    Scalar xe[M];
    for (int j = 0; j < M; ++j) {
      node[j] = elem_nodes(e * M + j);
      xe[j] = x(node[j]);
    }
    for (int i = 0; i < M; ++i) {
      Scalar sum = 0;
      for (int j = 0; j < M; ++j) sum += local((static_cast<size_t>(i) * M + j) * stride + e) * xe[j];
      if constexpr (Atomic)
        Kokkos::atomic_add(&y(node[i]), sum);
      else
        y(node[i]) += sum;
    }
  }
};

// The LMA's own bytes: every element's m x m values and m node ids.
inline double lma_matrix_bytes(ordinal_t nelements, int m, size_t scalar_bytes) {
  return static_cast<double>(nelements) * m * (m * static_cast<double>(scalar_bytes) + sizeof(ordinal_t));
}

}  // namespace ppsparse::fem::detail
