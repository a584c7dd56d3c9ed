#pragma once
// rows_per_warp_prefetch's SpMV (Walden et al. 2021, fig. 9): rows_per_warp with dQ prefetched
// into team scratch, two buffers in turn: while the lanes multiply block s with buffer s % 2,
// they load dQ of block s + 1 into the other. Called by the sweep functor (sweep_functor.hpp)
// for the rows lane map with prefetch.
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

struct PrefetchBody {
  template <class F, class RAt, class PartAt, class RowOf>
  KOKKOS_INLINE_FUNCTION static void spmv(const F& f, const typename F::member_type& m, const int n_b, const int nb2,
                                          const int rpg, const RAt& r_at, const PartAt&, typename F::Acc* pf_base,
                                          double* d_s, const RowOf& row_of) {
    using Acc = typename F::Acc;
    const auto& v = f.v;
    const ordinal_t row_end = f.row_end;
    // Where O is scaled by block column, lane i buffers dQ_i times column i's scale and the
    // multiply reads unscaled entries: one scale per buffered value instead of one per entry.
    constexpr bool by_column = std::decay_t<decltype(v.O)>::scaled_by_column;
    auto scaled_dq = [&](const offset_t k, const int i) {
      const auto x = v.dq_read(static_cast<size_t>(v.ja(k)) * n_b + i);
      if constexpr (by_column)
        return static_cast<Acc>(x * v.O.column_scale(k, i));
      else
        return static_cast<Acc>(x);
    };
    auto entry = [&](const ordinal_t row, const size_t idx, const offset_t k, const int j) {
      if constexpr (by_column)
        return static_cast<Acc>(v.O.unscaled(idx));
      else
        return static_cast<Acc>(v.O(row, idx, k, j));
    };
    const int len = 3 * rpg * n_b;
    auto buf = [&](int gi, int which) { return pf_base + static_cast<size_t>(gi) * len + which * rpg * n_b; };
    auto acc_at = [&](int gi, int t) -> Acc& { return pf_base[static_cast<size_t>(gi) * len + 2 * rpg * n_b + t]; };
    // The step count must be uniform over the team: the longest row of the team.
    int steps = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(m, f.g.rows_per_team()),
        [&](const int q, int& mx) {
          const ordinal_t row = row_of(0, 0) + q;
          const int l = row < row_end ? static_cast<int>(v.ia(row + 1) - v.ia(row)) : 0;
          mx = l > mx ? l : mx;
        },
        Kokkos::Max<int>(steps));
    f.phase(m, [&](int gi, int t) {
      f.with_staged_d(gi, t, row_of(gi, 0), d_s, [&]() {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg) {
          acc_at(gi, t) = 0.0f;
          if (row < row_end && v.ia(row + 1) > v.ia(row)) buf(gi, 0)[i * rpg + rr] = scaled_dq(v.ia(row), i);
        }
      });
    });
    for (int s = 0; s < steps; ++s) {
      f.phase(m, [&](int gi, int t) {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < row_end) {
          const offset_t k = v.ia(row) + s;
          const offset_t kend = v.ia(row + 1);
          if (k < kend) {
            const Acc* cur = buf(gi, s & 1);
            Acc a = acc_at(gi, t);
            const size_t ob = static_cast<size_t>(k) * nb2 + i;
            for (int j = 0; j < n_b; ++j) a += entry(row, ob + static_cast<size_t>(j) * n_b, k, j) * cur[j * rpg + rr];
            acc_at(gi, t) = a;
            if (k + 1 < kend) buf(gi, (s + 1) & 1)[i * rpg + rr] = scaled_dq(k + 1, i);
          }
        }
      });
    }
    f.phase(m, [&](int gi, int t) {
      const int rr = t / n_b, i = t - rr * n_b;
      const ordinal_t row = row_of(gi, rr);
      if (rr < rpg && row < row_end) r_at(gi, t) = v.R(static_cast<size_t>(row) * n_b + i) - acc_at(gi, t);
    });
  }
};

}  // namespace ppsparse::mcpi::impl
