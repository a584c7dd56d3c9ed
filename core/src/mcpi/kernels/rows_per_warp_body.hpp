#pragma once
// rows_per_warp's SpMV (Walden et al. 2021, fig. 7): nb consecutive lanes own one block row,
// lane i its entry row i, and sweep the row's blocks with no reduction between lanes. Where O is
// scaled by block column (F::rows_on_columns) lane j owns column j instead, as the CUDA kernel's
// lanes do: it scales its dQ value once per block, where a lane on a row would scale each entry,
// and the lanes add their nb row sums through scratch. Called by the sweep functor
// (sweep_functor.hpp) for the rows lane map without prefetch.
#include <Kokkos_Core.hpp>

#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

struct RowsPerWarpBody {
  template <class F, class RAt, class PartAt, class RowOf>
  KOKKOS_INLINE_FUNCTION static void spmv(const F& f, const typename F::member_type& m, const int n_b, const int nb2,
                                          const int rpg, const RAt& r_at, const PartAt& part_at, typename F::Acc*,
                                          double* d_s, const RowOf& row_of) {
    if constexpr (F::rows_on_columns) {
      by_columns(f, m, rpg, r_at, part_at, d_s, row_of);
    } else {
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
  }

  /// Lane j of a block row's nb lanes: sum over the row's blocks of column j times its scaled dQ
  /// value, for every row i into part_at(gi, (rr * nb + i) * nb + j); then lane i adds its row's.
  template <class F, class RAt, class PartAt, class RowOf>
  KOKKOS_INLINE_FUNCTION static void by_columns(const F& f, const typename F::member_type& m, const int rpg,
                                                const RAt& r_at, const PartAt& part_at, double* d_s,
                                                const RowOf& row_of) {
    using Acc = typename F::Acc;
    constexpr int NB = F::block_size;
    constexpr int NB2 = NB * NB;
    const auto& v = f.v;
    f.phase(m, [&](int gi, int t) {
      f.with_staged_d(gi, t, row_of(gi, 0), d_s, [&]() {
        const int rr = t / NB, j = t - rr * NB;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < f.row_end) {
          Acc a[NB] = {};
          const offset_t kend = v.ia(row + 1);
          offset_t k = v.ia(row);
          // Two blocks per step so that their ja -> dQ chains overlap.
          for (; k + 1 < kend; k += 2) {
            const Acc x0 = static_cast<Acc>(v.dq_read(static_cast<size_t>(v.ja(k)) * NB + j) * v.O.column_scale(k, j));
            const Acc x1 =
                static_cast<Acc>(v.dq_read(static_cast<size_t>(v.ja(k + 1)) * NB + j) * v.O.column_scale(k + 1, j));
            const size_t o0 = static_cast<size_t>(k) * NB2 + j * NB;
            PPSPARSE_UNROLL
            for (int i = 0; i < NB; ++i) {
              a[i] += static_cast<Acc>(v.O.unscaled(o0 + i)) * x0;
              a[i] += static_cast<Acc>(v.O.unscaled(o0 + NB2 + i)) * x1;
            }
          }
          if (k < kend) {
            const Acc x = static_cast<Acc>(v.dq_read(static_cast<size_t>(v.ja(k)) * NB + j) * v.O.column_scale(k, j));
            const size_t o = static_cast<size_t>(k) * NB2 + j * NB;
            PPSPARSE_UNROLL
            for (int i = 0; i < NB; ++i) a[i] += static_cast<Acc>(v.O.unscaled(o + i)) * x;
          }
          PPSPARSE_UNROLL
          for (int i = 0; i < NB; ++i) part_at(gi, (rr * NB + i) * NB + j) = a[i];
        }
      });
    });
    f.phase(m, [&](int gi, int t) {
      const int rr = t / NB, i = t - rr * NB;
      const ordinal_t row = row_of(gi, rr);
      if (rr < rpg && row < f.row_end) {
        Acc sum = 0;
        PPSPARSE_UNROLL
        for (int j = 0; j < NB; ++j) sum += part_at(gi, (rr * NB + i) * NB + j);
        r_at(gi, t) = v.R(static_cast<size_t>(row) * NB + i) - sum;
      }
    });
  }
};

}  // namespace ppsparse::mcpi::impl
