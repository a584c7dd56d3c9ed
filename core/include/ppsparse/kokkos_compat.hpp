#pragma once
/// @file
/// The one place where Kokkos 3.4 (Debian, CI) and Kokkos >= 4.6 (GPU builds) differ.
/// Everything else in ppsparse is written against the names defined here.
#include <type_traits>

#include <Kokkos_Core.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas2_gemv.hpp>

#if !defined(KOKKOS_VERSION)
#error "ppsparse: Kokkos_Core.hpp did not define KOKKOS_VERSION"
#endif

#define PPSPARSE_KOKKOS_4 (KOKKOS_VERSION >= 40000)

// Kokkos::Experimental::Graph (include <Kokkos_Graph.hpp>) is used from Kokkos 4 on; on
// Kokkos 3.4 code that would capture a graph issues its kernels one by one instead.
#define PPSPARSE_KOKKOS_HAS_GRAPH PPSPARSE_KOKKOS_4

namespace ppsparse::compat {

#if PPSPARSE_KOKKOS_4
/// Kokkos 4 dropped Kokkos::Impl::is_view in favour of Kokkos::is_view_v.
template <class T>
inline constexpr bool is_view_v = Kokkos::is_view_v<T>;
#else
template <class T>
inline constexpr bool is_view_v = Kokkos::is_view<T>::value;
#endif

/// Relaxed atomic load (a polled counter). Kokkos 4's Kokkos::atomic_load is, on GPUs, a
/// compare-and-swap loop (desul's generic fetch_oper): a read-modify-write that the L2
/// serialises per address, so every team polling a counter delays the increment it waits
/// for (the persistent MPK ran one block at a time). On the device a volatile load is the
/// plain relaxed load (ld.volatile on CUDA, a coherent global load on HIP); the caller's
/// fence supplies the acquire. On the host Kokkos' atomic_load is a true load.
/// Kokkos 3.4 only has Kokkos::Impl::atomic_load with an explicit order (a plain load).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T atomic_load_relaxed(T* ptr) {
#if PPSPARSE_KOKKOS_4
  KOKKOS_IF_ON_DEVICE((return *static_cast<const volatile T*>(ptr);))
  KOKKOS_IF_ON_HOST((return Kokkos::atomic_load(ptr);))
#else
  return Kokkos::Impl::atomic_load(ptr, Kokkos::Impl::memory_order_relaxed);
#endif
}

// Device-callable math: Kokkos 3.4 has these in Kokkos::Experimental only.
#if PPSPARSE_KOKKOS_4
using Kokkos::fabs;
using Kokkos::fmax;
using Kokkos::isfinite;
using Kokkos::pow;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::fmax;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sqrt;
#endif

// Unroll a loop with a compile-time trip count (register arrays stay in registers).
// nvcc and hipcc take "#pragma unroll" in both their host and device passes.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define PPSPARSE_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define PPSPARSE_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define PPSPARSE_UNROLL _Pragma("GCC unroll 16")
#else
#define PPSPARSE_UNROLL
#endif

/// Name of the default device backend, for reports.
inline const char* default_backend_name() { return Kokkos::DefaultExecutionSpace::name(); }

/// The vector-group width W kernels lay lanes out for on ExecSpace: 1 on host spaces, where
/// vector lanes are a loop the compiler vectorises; a GPU backend specialises it (its hook list
/// gives the width: the warp, 32, on CUDA; the wavefront on HIP).
template <class ExecSpace>
struct VectorWidth : std::integral_constant<int, 1> {};
template <class ExecSpace>
constexpr int vector_width_for() {
  return VectorWidth<ExecSpace>::value;
}

/// True when the execution space runs teams of SIMT threads (GPUs).
template <class ExecSpace>
constexpr bool is_gpu_space() {
  return vector_width_for<ExecSpace>() > 1;
}

/// Host memory a GPU copies to and from at full speed (pinned), for staged messages.
#if PPSPARSE_KOKKOS_4 && defined(KOKKOS_HAS_SHARED_HOST_PINNED_SPACE)
using PinnedHostSpace = Kokkos::SharedHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

/// A second instance of exec's space (its own stream on GPUs), for work that overlaps exec's:
/// Kokkos 4's partition_space; Kokkos 3.4 (host backends only here) has none: exec itself.
template <class ExecSpace>
ExecSpace second_instance(const ExecSpace& exec) {
#if PPSPARSE_KOKKOS_4
  if constexpr (is_gpu_space<ExecSpace>()) return Kokkos::Experimental::partition_space(exec, 1)[0];
#endif
  return exec;
}

/// Kokkos Kernels' BLAS on the caller's instance: Kokkos Kernels 4 takes the execution-space
/// instance, 3.4 runs on the default instance (synchronous on the host backends it is built for).
template <class ExecSpace, class AView, class XView, class YView>
void gemv(const ExecSpace& exec, const char* trans, double alpha, const AView& a, const XView& x, double beta,
          const YView& y) {
#if PPSPARSE_KOKKOS_4
  KokkosBlas::gemv(exec, trans, alpha, a, x, beta, y);
#else
  exec.fence();
  KokkosBlas::gemv(trans, alpha, a, x, beta, y);
#endif
}
/// y = alpha x (Kokkos Kernels' scal), as gemv.
template <class ExecSpace, class YView, class XView>
void scal(const ExecSpace& exec, const YView& y, double alpha, const XView& x) {
#if PPSPARSE_KOKKOS_4
  KokkosBlas::scal(exec, y, alpha, x);
#else
  exec.fence();
  KokkosBlas::scal(y, alpha, x);
#endif
}

}  // namespace ppsparse::compat

// The backends' vector widths (backend/backends.hpp: PPSPARSE_<NAME>_VECTOR_WIDTH of its hook list).
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_COMPAT_HOOKS(Exec, NAME) \
  template <>                             \
  struct VectorWidth<Exec> : std::integral_constant<int, PPSPARSE_##NAME##_VECTOR_WIDTH> {};
namespace ppsparse::compat {
PPSPARSE_DECLARE_BACKEND_HOOKS(COMPAT, PPSPARSE_COMPAT_HOOKS)
}  // namespace ppsparse::compat
