#pragma once
// The blocked kernel's launch functor: one launch of the wavefront schedule.
#include "row_sources.hpp"

namespace ppsparse::mpk::detail {

// One launch of the blocked schedule: team i computes block first_block + i.
template <class ExecSpace, class Scalar, class MemSpace, class Rows>
struct LaunchFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Rows rows;
  // Between launches the values are final, so y_{k-1} may use the read-only path.
  Kokkos::View<const Scalar**, Kokkos::LayoutLeft, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>> y_in;
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> y_out;
  Kokkos::View<const Block*, MemSpace> blocks;
  long long first_block;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const Block b = blocks(first_block + team.league_rank());
    compute_block(team, rows, b, y_in, y_out);
  }
};

}  // namespace ppsparse::mpk::detail
