// rows_per_warp: a vector group handles floor(W / nb) block rows, nb lanes per row, no
// reduction between lanes; its body (the SpMV over that lane map) is rows_per_warp_body.hpp.
#include "../sweep_launch.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
void run_rows_per_warp(const Sweeper<ExecSpace, OScalar, DScalar, XScalar>& s, const ExecSpace& exec, ordinal_t b,
                       ordinal_t e, bool residual) {
  launch_sweep_functor(s, exec, s.geometry(Kernel::rows_per_warp), impl::Stage::fused, false, b, e, residual);
}
PPSPARSE_MCPI_INSTANTIATE_KERNEL(rows_per_warp)

}  // namespace ppsparse::mcpi::detail
