// The MPK variant graph: the blocked launches captured once as a Kokkos graph and replayed (Kokkos >= 4; the plain
// launches before).
#include <cmath>

#include <ppsparse/backend/multiprocessors.hpp>
#include <ppsparse/error.hpp>

#include "../matrix_power_internal.hpp"

namespace ppsparse::mpk {

namespace detail {

template <class ExecSpace, class Scalar, class MemSpace>
void run_graph(MatrixPowerKernel<ExecSpace, Scalar, MemSpace>& mpk) {
#if PPSPARSE_KOKKOS_HAS_GRAPH
  const ExecSpace& space = mpk.matrix_->space();
  if (!mpk.impl_->graph) {
    with_rows(*mpk.matrix_, mpk.plan_.vector_length, mpk.plan_.row_batch, [&](const auto& rows) {
      using Rows = std::decay_t<decltype(rows)>;
      mpk.impl_->graph = Kokkos::Experimental::create_graph(space, [&](const auto& root) {
        Kokkos::Experimental::GraphNodeRef<ExecSpace> node = root;
        for (size_t l = 0; l + 1 < mpk.plan_.launch_block_offsets.size(); ++l) {
          detail::LaunchFunctor<ExecSpace, Scalar, MemSpace, Rows> f{rows, mpk.work_, mpk.work_, mpk.impl_->blocks,
                                                                     mpk.plan_.launch_block_offsets[l]};
          const int nblocks =
              static_cast<int>(mpk.plan_.launch_block_offsets[l + 1] - mpk.plan_.launch_block_offsets[l]);
          node = node.then_parallel_for(
              "ppsparse::mpk_graph_launch",
              Kokkos::TeamPolicy<ExecSpace>(space, nblocks, mpk.plan_.team_size, mpk.plan_.vector_length), f);
        }
      });
    });
    mpk.impl_->graph->instantiate();
  }
  mpk.impl_->graph->submit(space);
#else
  run_blocked(mpk);  // Kokkos < 4: no graph, the same launches one by one
#endif
}

PPSPARSE_MPK_INSTANTIATE_VARIANT(graph)

}  // namespace detail

}  // namespace ppsparse::mpk
