// split: the sweep unfused, as a block SpMV launch (r = R_c - O_c dQ into the temporary r_tmp)
// followed by a substitution launch (dQ_c = D_c^-1 r). Its two passes cannot form a checked
// sweep's residual, so a checked sweep runs the fused rows_per_warp pass instead.
#include "../sweep_launch.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
void run_split(const Sweeper<ExecSpace, OScalar, DScalar, XScalar>& s, const ExecSpace& exec, ordinal_t b, ordinal_t e,
               bool residual) {
  if (residual) {
    launch_sweep_functor(s, exec, s.geometry(Kernel::rows_per_warp), impl::Stage::fused, false, b, e, true);
    return;
  }
  launch_sweep_functor(s, exec, s.geometry(Kernel::split), impl::Stage::spmv_only, false, b, e);
  launch_sweep_functor(s, exec, s.geometry(Kernel::rows_per_warp), impl::Stage::solve_only, false, b, e);
}
PPSPARSE_MCPI_INSTANTIATE_KERNEL(split)

}  // namespace ppsparse::mcpi::detail
