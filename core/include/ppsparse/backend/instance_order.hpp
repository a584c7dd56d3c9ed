#pragma once
/// @file
/// Ordering between two execution-space instances (streams) without blocking the host where
/// the backend can: work enqueued on `waiter` after order_after(waiter, producer) starts after
/// everything enqueued on `producer` before it. The distributed MCPI orders a colour's interior
/// rows (their own instance) after the previous colour's ghosts, and the next colour after them.
///
/// Chosen by overloading on the execution space: the template is the portable fallback (a
/// fence of producer, which blocks the host); backends/cuda overloads it for Kokkos::Cuda (an
/// event recorded on producer's stream, waited for by waiter's).
#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

template <class ExecSpace>
void order_after(const ExecSpace& /*waiter*/, const ExecSpace& producer) {
  producer.fence();
}

}  // namespace ppsparse::backend

// The backends' overloads (backend/backends.hpp).
#define PPSPARSE_HOOKS_INSTANCE_ORDER
#include <ppsparse/backend/backends.hpp>
