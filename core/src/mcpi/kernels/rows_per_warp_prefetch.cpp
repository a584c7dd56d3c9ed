// rows_per_warp_prefetch: rows_per_warp with dQ prefetched into team scratch, two buffers in
// turn (its body, rows_per_warp_prefetch_body.hpp): while the lanes multiply block s, they load dQ of
// block s + 1. Where nb is too large for
// the rows layout, the group layout falls back to one row per group without prefetch.
#include "../sweep_launch.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
void run_rows_per_warp_prefetch(const Sweeper<ExecSpace, OScalar, DScalar, XScalar>& s, const ExecSpace& exec,
                                ordinal_t b, ordinal_t e, bool residual) {
  const Geometry g = s.geometry(Kernel::rows_per_warp_prefetch);
  launch_sweep_functor(s, exec, g, impl::Stage::fused, g.map == LaneMap::rows, b, e, residual);
}
PPSPARSE_MCPI_INSTANTIATE_KERNEL(rows_per_warp_prefetch)

}  // namespace ppsparse::mcpi::detail
