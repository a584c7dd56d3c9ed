#pragma once
// rows_per_warp's SpMV (Walden et al. 2021, fig. 7): nb consecutive lanes own one block row,
// lane i its entry row i, and sweep the row's blocks with no reduction between lanes. Called by
// the sweep functor (sweep_functor.hpp) for the rows lane map without prefetch.
#include <Kokkos_Core.hpp>

#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

struct RowsPerWarpBody {
  template <class F, class RAt, class PartAt, class RowOf>
  KOKKOS_INLINE_FUNCTION static void spmv(const F& f, const typename F::member_type& m, const int n_b, const int nb2,
                                          const int rpg, const RAt& r_at, const PartAt&, typename F::Acc*, double* d_s,
                                          const RowOf& row_of) {
    f.phase(m, [&](int gi, int t) {
      f.with_staged_d(gi, t, row_of(gi, 0), d_s, [&]() {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < f.row_end) {
          r_at(gi, t) = f.v.R(static_cast<size_t>(row) * n_b + i) - f.block_row_dot(row, i, 0, 1, n_b, nb2);
        }
      });
    });
  }
};

}  // namespace ppsparse::mcpi::impl
