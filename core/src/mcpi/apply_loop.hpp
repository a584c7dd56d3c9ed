#pragma once
/// @file
/// The third layer of the MCPI solver: the apply loop, which runs a colour loop's sweeps
/// (color_loop.hpp) on one LevelArrays (level_arrays.hpp) under a Control's checks and stopping
/// rules and reports a Status. The facade (solver.cpp) stages the user's vectors around it; a
/// multigrid level runs its smoothing sweeps through the colour loop alone.
#include <ppsparse/mcpi/control.hpp>

#include "color_loop.hpp"
#include "level_arrays.hpp"

namespace ppsparse::mcpi::detail {

/// Sweeps on the right-hand side a.sweeper().rhs from the iterate in a.sweeper().dq (zero, or
/// the given guess with its ghosts exchanged) as `control` says: runs of sweeps between residual
/// checks (recorded graphs where control.sweep_graphs), the tolerance, divergence and non-finite
/// stops, and the final true residual. `given`: the iterate is the caller's initial guess, whose
/// residual is then the initial one. NumericalError naming the user's block row for a NaN or
/// Inf in the right-hand side or the given guess. Collective on a distributed solver.
template <class ExecSpace, class OScalar, class DScalar, class XScalar>
Status run_apply(const ExecSpace& exec, LevelArrays<ExecSpace, OScalar, DScalar, XScalar>& a,
                 ColorLoop<ExecSpace, OScalar, DScalar, XScalar>& loop, const Control& control, bool given);

/// z = M^-1 v: `sweeps` sweeps of `variant` on a z = v from z = 0, in colour order, on exec (the
/// iterate widened into z); the stored right-hand side is restored after.
template <class ExecSpace, class OScalar, class DScalar, class XScalar>
void precondition(const ExecSpace& exec, LevelArrays<ExecSpace, OScalar, DScalar, XScalar>& a,
                  ColorLoop<ExecSpace, OScalar, DScalar, XScalar>& loop,
                  const Kokkos::View<const double*, typename ExecSpace::memory_space>& v,
                  const Kokkos::View<double*, typename ExecSpace::memory_space>& z, int sweeps, const Variant& variant);

}  // namespace ppsparse::mcpi::detail
