// split: the sweep unfused, as a block SpMV launch (r = R_c - O_c dQ into the temporary r_tmp,
// warp_per_row's body) followed by a substitution launch (dQ_c = D_c^-1 r, laid out as
// rows_per_warp). Its two passes cannot form a checked sweep's residual, so a checked sweep
// runs rows_per_warp's fused pass instead.
#include "warp_per_row.hpp"

#include "../sweep_launch.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
void run_split(const Sweeper<ExecSpace, OScalar, DScalar, XScalar>& s, const ExecSpace& exec, ordinal_t b, ordinal_t e,
               bool residual) {
  if (residual) {
    run_rows_per_warp(s, exec, b, e, true);
    return;
  }
  launch_sweep<impl::WarpPerRowBody>(s, exec, s.geometry(Kernel::split), impl::Stage::spmv_only, b, e);
  // The substitution pass reads no O: the same functor, the rows layout.
  launch_sweep<impl::WarpPerRowBody>(s, exec, s.geometry(Kernel::rows_per_warp), impl::Stage::solve_only, b, e);
}
PPSPARSE_MCPI_INSTANTIATE_KERNEL(split)

}  // namespace ppsparse::mcpi::detail
