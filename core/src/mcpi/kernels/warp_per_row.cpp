// warp_per_row: a vector group (nw of them for large nb) per block row, lanes on the block's
// entries (its body, warp_per_row_body.hpp) or, past nb = 16, on its rows (make_geometry).
#include "../sweep_launch.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
void run_warp_per_row(const Sweeper<ExecSpace, OScalar, DScalar, XScalar>& s, const ExecSpace& exec, ordinal_t b,
                      ordinal_t e, bool residual) {
  launch_sweep_functor(s, exec, s.geometry(Kernel::warp_per_row), impl::Stage::fused, false, b, e, residual);
}
PPSPARSE_MCPI_INSTANTIATE_KERNEL(warp_per_row)

}  // namespace ppsparse::mcpi::detail
