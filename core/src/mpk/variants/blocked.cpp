// The MPK variant blocked: the level-blocked wavefront: one launch per launch of the schedule.
#include <cmath>

#include <ppsparse/backend/multiprocessors.hpp>
#include <ppsparse/error.hpp>

#include "../matrix_power_internal.hpp"

namespace ppsparse::mpk {

namespace detail {

template <class ExecSpace, class Scalar, class MemSpace>
void run_blocked(MatrixPowerKernel<ExecSpace, Scalar, MemSpace>& mpk) {
  const ExecSpace& space = mpk.matrix_->space();
  with_rows(*mpk.matrix_, mpk.plan_.vector_length, mpk.plan_.row_batch, [&](const auto& rows) {
    using Rows = std::decay_t<decltype(rows)>;
    detail::LaunchFunctor<ExecSpace, Scalar, MemSpace, Rows> f{rows, mpk.work_, mpk.work_, mpk.impl_->blocks, 0};
    for (size_t l = 0; l + 1 < mpk.plan_.launch_block_offsets.size(); ++l) {
      f.first_block = mpk.plan_.launch_block_offsets[l];
      const int nblocks = static_cast<int>(mpk.plan_.launch_block_offsets[l + 1] - mpk.plan_.launch_block_offsets[l]);
      Kokkos::parallel_for("ppsparse::mpk_blocked_launch",
                           Kokkos::TeamPolicy<ExecSpace>(space, nblocks, mpk.plan_.team_size, mpk.plan_.vector_length),
                           f);
    }
  });
}

PPSPARSE_MPK_INSTANTIATE_VARIANT(blocked)

}  // namespace detail

}  // namespace ppsparse::mpk
