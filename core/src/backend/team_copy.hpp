#pragma once
// A team's copy of a contiguous global array into its scratch, every element independent of
// the others, so that all of them can be in flight at once:
//   team_copy_start(team, src, count, dst)  the calling thread's share of dst[e] = src[e], e < count
//   team_copy_finish()                      each thread, before the team barrier after which any
//                                           thread reads dst
// Portable: the team's threads and lanes load kUnroll elements each, all before any store, in
// as many rounds as the count needs (each round one memory latency). A backend with
// asynchronous global-to-shared copies provides them in team_copy_device.hpp
// (backends/<device>/): no registers are held per element, so one round takes any count.
#include <cstdint>

#include <Kokkos_Core.hpp>
#include <ppsparse/kokkos_compat.hpp>

namespace ppsparse::backend::portable {

constexpr int kTeamCopyUnroll = 8;

template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_copy_start(const Member& team, const T* src, const std::int64_t count, T* dst) {
  constexpr int U = kTeamCopyUnroll;
  const std::int64_t groups = (count + U - 1) / U;
  // Element g + u * groups for u < U: consecutive threads on consecutive elements.
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, groups), [&](const std::int64_t g) {
    T v[U];
    PPSPARSE_UNROLL
    for (int u = 0; u < U; ++u)
      if (g + u * groups < count) v[u] = src[g + u * groups];
    PPSPARSE_UNROLL
    for (int u = 0; u < U; ++u)
      if (g + u * groups < count) dst[g + u * groups] = v[u];
  });
}

KOKKOS_INLINE_FUNCTION void team_copy_finish() {}

}  // namespace ppsparse::backend::portable

// The backend's, where its hook list names its team_copy_device.hpp.
#include <ppsparse/backend/backends.hpp>

#if defined(PPSPARSE_TEAM_COPY_DEVICE)
#include PPSPARSE_TEAM_COPY_DEVICE
#else
namespace ppsparse::backend {
using portable::team_copy_finish;
using portable::team_copy_start;
}  // namespace ppsparse::backend
#endif
