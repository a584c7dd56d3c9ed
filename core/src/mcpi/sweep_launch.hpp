#pragma once
/// @file
/// The portable MCPI functor's launch (sweep_functor.hpp): what a portable kernel
/// (kernels/<id>.cpp) runs for each of its passes over a colour's rows. The Sweeper dispatches
/// to the kernels; the kernels call down to this launcher, never back into the Sweeper.
#include <ppsparse/mcpi/geometry.hpp>
#include <ppsparse/types.hpp>

#include "sweep_stage.hpp"
#include "sweeper.hpp"

namespace ppsparse::mcpi::detail {

/// One launch of the portable functor over rows [b, e) of s's arrays, asynchronously on exec:
/// lanes laid out as g, the pass `stage`, dQ prefetched into scratch (`prefetch`), and with
/// `residual` each row's squared residual before its update added to s.residual_sq. `full_o`:
/// O read from its FP32 copy (a coded format's keep_fp32) instead of its stored format.
template <class ExecSpace, class OScalar, class DScalar, class XScalar>
void launch_sweep_functor(const Sweeper<ExecSpace, OScalar, DScalar, XScalar>& s, const ExecSpace& exec,
                          const Geometry& g, impl::Stage stage, bool prefetch, ordinal_t b, ordinal_t e,
                          bool residual = false, bool full_o = false);

}  // namespace ppsparse::mcpi::detail
