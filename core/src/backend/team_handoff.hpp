#pragma once
// Hand-off between the teams of one launch (the persistent MPK). A team publishes its results
// with a release increment of a counter, after a team barrier; a waiting team's leader polls
// the counter with relaxed loads, then fences (acquire) before a team barrier, after which
// the team's threads read the published results with ordinary loads (the pattern of
// CUTLASS's split-K semaphores and of cooperative groups' grid barrier).
//   handoff_load_relaxed(p)    a poll: a coherent load that orders nothing
//   handoff_acquire_fence()    after the last poll: later reads see what the increments released
//   handoff_add_release(p, v)  the writes before it (the team's, by the barrier) before the increment
// A backend provides them in ppsparse/<backend>/team_handoff_device.hpp (backends/<backend>/include), with the GPU's
// release increment and acquire fence, which are weaker than the sequentially consistent
// fence Kokkos::memory_fence emits; where it has no instruction of its own (the host pass,
// older GPUs) it calls portable::. Elsewhere they are portable::, Kokkos' fence and atomics.
#include <cstdint>

#include <Kokkos_Core.hpp>
#include <ppsparse/kokkos_compat.hpp>

namespace ppsparse::backend::portable {
KOKKOS_FORCEINLINE_FUNCTION std::uint64_t handoff_load_relaxed(std::uint64_t* p) {
  return compat::atomic_load_relaxed(p);
}
KOKKOS_FORCEINLINE_FUNCTION void handoff_acquire_fence() { Kokkos::memory_fence(); }
KOKKOS_FORCEINLINE_FUNCTION void handoff_add_release(std::uint64_t* p, std::uint64_t v) {
  Kokkos::memory_fence();
  Kokkos::atomic_add(p, v);
}
}  // namespace ppsparse::backend::portable

// The backend's, where its hook list names its team_handoff_device.hpp.
#include <ppsparse/backend/backends.hpp>

#if defined(PPSPARSE_TEAM_HANDOFF_DEVICE)
#include PPSPARSE_TEAM_HANDOFF_DEVICE
#else
namespace ppsparse::backend {
using portable::handoff_acquire_fence;
using portable::handoff_add_release;
using portable::handoff_load_relaxed;
}  // namespace ppsparse::backend
#endif
