#pragma once
/// @file
/// Ordering between two execution-space instances (streams) without blocking the host where
/// the backend can: work enqueued on `waiter` after order_after(waiter, producer) starts after
/// everything enqueued on `producer` before it. The distributed MCPI orders a colour's interior
/// rows (their own instance) after the previous colour's ghosts, and the next colour after them.
///
/// priority_instance gives an instance whose work the device schedules ahead of other
/// instances' as their thread blocks retire: the distributed MCPI's exchanges run there, so that
/// they start as soon as their boundary rows are done, not after the interior rows' blocks.
///
/// Chosen by overloading on the execution space: the templates are the portable fallbacks (a
/// fence of producer, which blocks the host; exec itself); backends/cuda overloads them for
/// Kokkos::Cuda (an event recorded on producer's stream, waited for by waiter's; a stream of
/// the device's highest priority).
#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

template <class ExecSpace>
void order_after(const ExecSpace& /*waiter*/, const ExecSpace& producer) {
  producer.fence();
}

/// A new instance on exec's device whose work is scheduled first; where the backend has no
/// priorities, exec itself.
template <class ExecSpace>
ExecSpace priority_instance(const ExecSpace& exec) {
  return exec;
}

}  // namespace ppsparse::backend

// The backends' overloads (backend/backends.hpp).
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_INSTANCE_ORDER_HOOKS(Exec, NAME)             \
  void order_after(const Exec& waiter, const Exec& producer); \
  Exec priority_instance(const Exec& exec);
namespace ppsparse::backend {
PPSPARSE_DECLARE_BACKEND_HOOKS(INSTANCE_ORDER, PPSPARSE_INSTANCE_ORDER_HOOKS)
}  // namespace ppsparse::backend
