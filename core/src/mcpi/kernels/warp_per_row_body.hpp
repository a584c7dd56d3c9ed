#pragma once
// warp_per_row's SpMV (Zubair et al. 2016): a vector group per block row, its lanes on the
// entries of `slots` consecutive blocks, one coalesced load per lane per step, the lanes'
// products then summed per entry row. Called by the sweep functor (sweep_functor.hpp) for
// the entry lane map: warp_per_row's and the split kernel's first pass.
#include <Kokkos_Core.hpp>

#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

struct WarpPerRowBody {
  template <class F, class RAt, class PartAt, class RowOf>
  KOKKOS_INLINE_FUNCTION static void spmv(const F& f, const typename F::member_type& m, const int n_b, const int nb2,
                                          const int, const RAt& r_at, const PartAt& part_at, typename F::Acc*,
                                          double* d_s, const RowOf& row_of) {
    using Acc = typename F::Acc;
    const auto& v = f.v;
    const ordinal_t row_end = f.row_end;
    const int slots = f.g.slots;
    f.phase(m, [&](int gi, int t) {
      f.with_staged_d(gi, t, row_of(gi, 0), d_s, [&]() {
        const ordinal_t row = row_of(gi, 0);
        Acc acc = 0;
        const int s = t / nb2, e = t - s * nb2;
        if (row < row_end && s < slots) {
          const int j = e / n_b, i = e - j * n_b;
          const offset_t kend = v.ia(row + 1);
          // Four independent blocks per step keep several loads in flight per lane.
          Acc a1 = 0, a2 = 0, a3 = 0;
          offset_t k = v.ia(row) + s;
          for (; k + 3 * slots < kend; k += 4 * slots) {
            const ordinal_t c0 = v.ja(k), c1 = v.ja(k + slots), c2 = v.ja(k + 2 * slots), c3 = v.ja(k + 3 * slots);
            acc += static_cast<Acc>(v.O(row, static_cast<size_t>(k) * nb2 + e, k, j)) *
                   v.dq_read(static_cast<size_t>(c0) * n_b + j);
            a1 += static_cast<Acc>(v.O(row, static_cast<size_t>(k + slots) * nb2 + e, k + slots, j)) *
                  v.dq_read(static_cast<size_t>(c1) * n_b + j);
            a2 += static_cast<Acc>(v.O(row, static_cast<size_t>(k + 2 * slots) * nb2 + e, k + 2 * slots, j)) *
                  v.dq_read(static_cast<size_t>(c2) * n_b + j);
            a3 += static_cast<Acc>(v.O(row, static_cast<size_t>(k + 3 * slots) * nb2 + e, k + 3 * slots, j)) *
                  v.dq_read(static_cast<size_t>(c3) * n_b + j);
          }
          for (; k < kend; k += slots)
            acc += static_cast<Acc>(v.O(row, static_cast<size_t>(k) * nb2 + e, k, j)) *
                   v.dq_read(static_cast<size_t>(v.ja(k)) * n_b + j);
          acc += (a1 + a2) + a3;
        }
        part_at(gi, t) = acc;
      });
    });
    f.phase(m, [&](int gi, int t) {
      const ordinal_t row = row_of(gi, 0);
      if (t < n_b && row < row_end) {
        double sum = 0.0;
        for (int s = 0; s < slots; ++s)
          for (int j = 0; j < n_b; ++j) sum += part_at(gi, s * nb2 + j * n_b + t);
        r_at(gi, t) = v.R(static_cast<size_t>(row) * n_b + t) - sum;
      }
    });
  }
};

}  // namespace ppsparse::mcpi::impl
