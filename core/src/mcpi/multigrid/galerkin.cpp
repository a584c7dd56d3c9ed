// The Galerkin coarse operator (coarsening.hpp): its pattern and maps formed on the device
// once; its values summed on the device at every numeric refresh. Compiled once on the default
// execution space.
#include <climits>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>

#include "../../util/to_device.hpp"
#include "coarsening.hpp"
#include "device_lists.hpp"

namespace ppsparse::mcpi::multigrid {

template <class M>
LevelPattern<M> level_pattern(ordinal_t n, const std::vector<offset_t>& row_ptr,
                              const std::vector<ordinal_t>& col_idx) {
  if (n < 0 || row_ptr.size() != static_cast<size_t>(n) + 1 || row_ptr.front() != 0 ||
      row_ptr.back() != static_cast<offset_t>(col_idx.size()))
    throw InvalidArgument("multigrid: the pattern's arrays do not fit its " + std::to_string(n) + " rows");
  LevelPattern<M> p;
  p.n = n;
  p.row_ptr = util::to_device<offset_t, M>(row_ptr, "mg.row_ptr");
  p.col_idx = util::to_device<ordinal_t, M>(col_idx, "mg.col_idx");
  return p;
}

template <class E, class Item>
void group_by(const E& exec, const Kokkos::View<const ordinal_t*, typename E::memory_space>& key, ordinal_t groups,
              Kokkos::View<offset_t*, typename E::memory_space>& ptr,
              Kokkos::View<Item*, typename E::memory_space>& items) {
  using M = typename E::memory_space;
  const size_t n = key.extent(0);
  ptr = Kokkos::View<offset_t*, M>("mg.group_ptr", static_cast<size_t>(groups) + 1);
  const auto p = ptr;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::group_count", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const size_t q) { Kokkos::atomic_fetch_add(&p(static_cast<size_t>(key(q))), offset_t(1)); });
  lists::exclusive_scan(exec, p, static_cast<size_t>(groups));
  Kokkos::View<offset_t*, M> cursor(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.group_cursor"),
                                    static_cast<size_t>(groups));
  Kokkos::deep_copy(exec, cursor, Kokkos::subview(p, std::make_pair(size_t(0), static_cast<size_t>(groups))));
  items = Kokkos::View<Item*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.group_items"), n);
  const auto it = items;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::group_fill", Kokkos::RangePolicy<E>(exec, 0, n), KOKKOS_LAMBDA(const size_t q) {
        it(static_cast<size_t>(Kokkos::atomic_fetch_add(&cursor(static_cast<size_t>(key(q))), offset_t(1)))) =
            static_cast<Item>(q);
      });
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::group_sort", Kokkos::RangePolicy<E>(exec, 0, static_cast<size_t>(groups)),
      KOKKOS_LAMBDA(const size_t g) { lists::sort_keys(it.data() + p(g), p(g + 1) - p(g)); });
}

template <class E>
GalerkinMap<typename E::memory_space> galerkin_map(const E& exec, const LevelPattern<typename E::memory_space>& fine,
                                                   const Aggregates<typename E::memory_space>& a) {
  using M = typename E::memory_space;
  const ordinal_t n = fine.n;
  if (n < 0 || a.fine_rows != n || a.of_row.extent(0) != static_cast<size_t>(n) ||
      fine.row_ptr.extent(0) != static_cast<size_t>(n) + 1)
    throw InvalidArgument("multigrid: aggregates of " + std::to_string(a.fine_rows) + " rows for a pattern of " +
                          std::to_string(n));
  const auto of_row = a.of_row;
  const ordinal_t nc = a.count;
  {
    ordinal_t first_bad = INT_MAX;
    Kokkos::parallel_reduce(
        "ppsparse::mcpi::multigrid::check_aggregates", Kokkos::RangePolicy<E>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i, ordinal_t& bad) {
          if ((of_row(i) < 0 || of_row(i) >= nc) && i < bad) bad = i;
        },
        Kokkos::Min<ordinal_t>(first_bad));
    if (first_bad != INT_MAX)
      throw InvalidArgument("multigrid: row " + std::to_string(first_bad) + " lies in no aggregate");
  }
  GalerkinMap<M> map;
  map.coarse.n = nc;
  // Each aggregate's rows, increasing: the fine D blocks of its coarse diagonal block.
  group_by(exec, Kokkos::View<const ordinal_t*, M>(of_row), nc, map.diag_d_ptr, map.diag_d_src);
  const auto members_ptr = map.diag_d_ptr;
  const auto members = map.diag_d_src;
  const auto row_ptr = fine.row_ptr;
  const auto col = fine.col_idx;
  // Each aggregate's segment: the blocks of its rows, as (coarse column, fine block) pairs,
  // stably sorted by coarse column, so that each coarse block's fine blocks stay in fine order.
  Kokkos::View<offset_t*, M> seg_ptr("mg.segment_ptr", static_cast<size_t>(nc) + 1);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::segment_length", Kokkos::RangePolicy<E>(exec, 0, nc),
      KOKKOS_LAMBDA(const ordinal_t I) {
        offset_t len = 0;
        for (offset_t t = members_ptr(I); t < members_ptr(I + 1); ++t) {
          const offset_t i = members(t);
          len += row_ptr(i + 1) - row_ptr(i);
        }
        seg_ptr(I) = len;
      });
  const offset_t seg_total = lists::exclusive_scan(exec, seg_ptr, static_cast<size_t>(nc));
  Kokkos::View<ordinal_t*, M> seg_col(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.segment_col"),
                                      static_cast<size_t>(seg_total));
  Kokkos::View<offset_t*, M> seg_block(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.segment_block"),
                                       static_cast<size_t>(seg_total));
  // Per aggregate: its coarse row's length (distinct other aggregates) and its internal blocks.
  Kokkos::View<offset_t*, M> coarse_len("mg.coarse_len", static_cast<size_t>(nc) + 1);
  Kokkos::View<offset_t*, M> inner_len("mg.inner_len", static_cast<size_t>(nc) + 1);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::segment_fill", Kokkos::RangePolicy<E>(exec, 0, nc), KOKKOS_LAMBDA(const ordinal_t I) {
        offset_t at = seg_ptr(I);
        for (offset_t t = members_ptr(I); t < members_ptr(I + 1); ++t) {
          const offset_t i = members(t);
          for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k) {
            seg_col(at) = of_row(col(k));
            seg_block(at++) = k;
          }
        }
        const offset_t b = seg_ptr(I), len = seg_ptr(I + 1) - b;
        lists::sort_pairs(seg_col.data() + b, seg_block.data() + b, len);
        offset_t distinct = 0, inner = 0;
        for (offset_t t = b; t < b + len; ++t) {
          if (seg_col(t) == I)
            ++inner;
          else if (t == b || seg_col(t) != seg_col(t - 1))
            ++distinct;
        }
        coarse_len(I) = distinct;
        inner_len(I) = inner;
      });
  const offset_t nnzb = lists::exclusive_scan(exec, coarse_len, static_cast<size_t>(nc));
  const offset_t inner_total = lists::exclusive_scan(exec, inner_len, static_cast<size_t>(nc));
  const auto coarse_ptr = coarse_len;
  const auto inner_ptr = inner_len;
  map.coarse.row_ptr = coarse_ptr;
  map.coarse.col_idx = Kokkos::View<ordinal_t*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.coarse_col"),
                                                   static_cast<size_t>(nnzb));
  map.off_ptr = Kokkos::View<offset_t*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.galerkin_off"),
                                           static_cast<size_t>(nnzb) + 1);
  map.off_src = Kokkos::View<offset_t*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.galerkin_off"),
                                           static_cast<size_t>(seg_total - inner_total));
  map.diag_o_ptr = inner_ptr;
  map.diag_o_src = Kokkos::View<offset_t*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.galerkin_diag_o"),
                                              static_cast<size_t>(inner_total));
  const auto coarse_col = map.coarse.col_idx;
  const auto off_ptr = map.off_ptr;
  const auto off_src = map.off_src;
  const auto diag_o_src = map.diag_o_src;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::coarse_pattern", Kokkos::RangePolicy<E>(exec, 0, nc),
      KOKKOS_LAMBDA(const ordinal_t I) {
        offset_t s = coarse_ptr(I) - 1;
        offset_t inner = inner_ptr(I);
        offset_t off = seg_ptr(I) - inner_ptr(I);  // the blocks of the aggregates before, less their inner ones
        ordinal_t last = -1;
        for (offset_t t = seg_ptr(I); t < seg_ptr(I + 1); ++t) {
          const ordinal_t J = seg_col(t);
          if (J == I) {
            diag_o_src(inner++) = seg_block(t);
            continue;
          }
          if (J != last) {
            coarse_col(++s) = J;
            off_ptr(s) = off;
            last = J;
          }
          off_src(off++) = seg_block(t);
        }
      });
  Kokkos::deep_copy(exec, Kokkos::subview(map.off_ptr, static_cast<size_t>(nnzb)), seg_total - inner_total);
  exec.fence();
  return map;
}

template <class E>
void transfers(const E& exec, const Aggregates<typename E::memory_space>& a,
               const Kokkos::View<const ordinal_t*, typename E::memory_space>& above_order,
               const Kokkos::View<const ordinal_t*, typename E::memory_space>& here_order,
               Kokkos::View<ordinal_t*, typename E::memory_space>& to_coarse,
               Kokkos::View<offset_t*, typename E::memory_space>& from_ptr,
               Kokkos::View<ordinal_t*, typename E::memory_space>& from_rows) {
  using M = typename E::memory_space;
  if (above_order.extent(0) != static_cast<size_t>(a.fine_rows) || here_order.extent(0) != static_cast<size_t>(a.count))
    throw InvalidArgument("multigrid: colour orders of " + std::to_string(above_order.extent(0)) + " and " +
                          std::to_string(here_order.extent(0)) + " rows for aggregates of " +
                          std::to_string(a.fine_rows) + " into " + std::to_string(a.count));
  to_coarse = Kokkos::View<ordinal_t*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.to_coarse"),
                                          static_cast<size_t>(a.fine_rows));
  const auto to = to_coarse;
  const auto of_row = a.of_row;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::to_coarse", Kokkos::RangePolicy<E>(exec, 0, a.fine_rows),
      KOKKOS_LAMBDA(const ordinal_t i) { to(above_order(i)) = here_order(of_row(i)); });
  group_by(exec, Kokkos::View<const ordinal_t*, M>(to_coarse), a.count, from_ptr, from_rows);
}

/// src(t) = slot(src(t)) for every entry, on exec.
template <class E, class Slot>
void compose(const E& exec, const Kokkos::View<offset_t*, typename E::memory_space>& src, const Slot& slot) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::place", Kokkos::RangePolicy<E>(exec, 0, src.extent(0)),
      KOKKOS_LAMBDA(const size_t t) { src(t) = static_cast<offset_t>(slot(static_cast<size_t>(src(t)))); });
}

template <class E>
void place_in_storage(const E& exec, GalerkinMap<typename E::memory_space>& map,
                      const Kokkos::View<const offset_t*, typename E::memory_space>& fine_o_slot,
                      const Kokkos::View<const ordinal_t*, typename E::memory_space>& fine_d_slot,
                      const Kokkos::View<const offset_t*, typename E::memory_space>& coarse_o_slot,
                      const Kokkos::View<const ordinal_t*, typename E::memory_space>& coarse_d_slot) {
  using M = typename E::memory_space;
  if (coarse_o_slot.extent(0) != static_cast<size_t>(map.nnzb()) ||
      coarse_d_slot.extent(0) != static_cast<size_t>(map.coarse_rows()))
    throw InvalidArgument("multigrid: coarse slot maps of " + std::to_string(coarse_o_slot.extent(0)) + " and " +
                          std::to_string(coarse_d_slot.extent(0)) + " entries for " + std::to_string(map.nnzb()) +
                          " blocks and " + std::to_string(map.coarse_rows()) + " rows");
  compose(exec, map.off_src, fine_o_slot);
  compose(exec, map.diag_o_src, fine_o_slot);
  compose(exec, map.diag_d_src, fine_d_slot);
  // The off-diagonal sums reordered by their coarse slots, so that a coarse slot's sum is found
  // where an encoder reading slot by slot looks for it (GalerkinOffSum); each keeps its order.
  const size_t nnzb = static_cast<size_t>(map.nnzb());
  const auto old_ptr = map.off_ptr;
  const auto old_src = map.off_src;
  Kokkos::View<offset_t*, M> ptr("mg.galerkin_off", nnzb + 1);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::slot_lengths", Kokkos::RangePolicy<E>(exec, 0, nnzb),
      KOKKOS_LAMBDA(const size_t s) { ptr(static_cast<size_t>(coarse_o_slot(s))) = old_ptr(s + 1) - old_ptr(s); });
  lists::exclusive_scan(exec, ptr, nnzb);
  Kokkos::View<offset_t*, M> src(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.galerkin_off"), old_src.extent(0));
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::slot_sources", Kokkos::RangePolicy<E>(exec, 0, nnzb), KOKKOS_LAMBDA(const size_t s) {
        offset_t to = ptr(static_cast<size_t>(coarse_o_slot(s)));
        for (offset_t t = old_ptr(s); t < old_ptr(s + 1); ++t) src(static_cast<size_t>(to++)) = old_src(t);
      });
  map.off_ptr = ptr;
  map.off_src = src;
  map.d_dst = coarse_d_slot;
}

template <class E, class FineO, class OC>
void galerkin_off_values(const E& exec, const GalerkinMap<typename E::memory_space>& map, int nb, const FineO& fine_O,
                         const Kokkos::View<OC*, typename E::memory_space>& coarse_O) {
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  if (nb < 1 || coarse_O.extent(0) < static_cast<size_t>(map.nnzb()) * nb2)
    throw InvalidArgument("multigrid: coarse O of " + std::to_string(coarse_O.extent(0)) + " values for " +
                          std::to_string(map.nnzb()) + " blocks of " + std::to_string(nb) + " x " + std::to_string(nb));
  const auto sums = galerkin_off_sum(map, fine_O);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::galerkin_off",
      Kokkos::RangePolicy<E>(exec, 0, map.nnzb() * static_cast<offset_t>(nb2)), KOKKOS_LAMBDA(const offset_t q) {
        const offset_t s = q / static_cast<offset_t>(nb2);
        const int e = static_cast<int>(q - s * static_cast<offset_t>(nb2));
        coarse_O(static_cast<size_t>(q)) = static_cast<OC>(sums.sum(s, e));
      });
}

template <class E, class FineO, class DS, class DC>
void galerkin_diagonal_values(const E& exec, const GalerkinMap<typename E::memory_space>& map, int nb,
                              const FineO& fine_O, const Kokkos::View<const DS*, typename E::memory_space>& fine_D,
                              const Kokkos::View<DC*, typename E::memory_space>& coarse_D) {
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  if (nb < 1 || coarse_D.extent(0) < static_cast<size_t>(map.coarse_rows()) * nb2)
    throw InvalidArgument("multigrid: coarse D of " + std::to_string(coarse_D.extent(0)) + " values for " +
                          std::to_string(map.coarse_rows()) + " rows of " + std::to_string(nb) + " x " +
                          std::to_string(nb));
  const auto d_ptr = map.diag_d_ptr;
  const auto d_src = map.diag_d_src;
  const auto o_ptr = map.diag_o_ptr;
  const auto o_src = map.diag_o_src;
  const auto d_dst = map.d_dst;
  const bool d_placed = d_dst.extent(0) > 0;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::galerkin_diag",
      Kokkos::RangePolicy<E>(exec, 0, static_cast<offset_t>(map.coarse_rows()) * static_cast<offset_t>(nb2)),
      KOKKOS_LAMBDA(const offset_t q) {
        const offset_t I = q / static_cast<offset_t>(nb2);
        const int e = static_cast<int>(q - I * static_cast<offset_t>(nb2));
        double sum = 0;
        for (offset_t t = d_ptr(I); t < d_ptr(I + 1); ++t)
          sum += static_cast<double>(fine_D(static_cast<size_t>(d_src(t)) * nb2 + static_cast<size_t>(e)));
        for (offset_t t = o_ptr(I); t < o_ptr(I + 1); ++t) sum += static_cast<double>(fine_O(o_src(t), e));
        coarse_D(static_cast<size_t>(d_placed ? static_cast<offset_t>(d_dst(I)) : I) * nb2 + static_cast<size_t>(e)) =
            static_cast<DC>(sum);
      });
}

template <class E, class OS, class DS, class OC, class DC>
void galerkin_values(const E& exec, const GalerkinMap<typename E::memory_space>& map, int nb,
                     const Kokkos::View<const OS*, typename E::memory_space>& fine_O,
                     const Kokkos::View<const DS*, typename E::memory_space>& fine_D,
                     const Kokkos::View<OC*, typename E::memory_space>& coarse_O,
                     const Kokkos::View<DC*, typename E::memory_space>& coarse_D) {
  const impl::SlotValues<Kokkos::View<const OS*, typename E::memory_space>> fine{fine_O, nb * nb};
  galerkin_off_values(exec, map, nb, fine, coarse_O);
  galerkin_diagonal_values(exec, map, nb, fine, fine_D, coarse_D);
}

template LevelPattern<DefaultMemSpace> level_pattern(ordinal_t, const std::vector<offset_t>&,
                                                     const std::vector<ordinal_t>&);
template void group_by(const DefaultExecSpace&, const Kokkos::View<const ordinal_t*, DefaultMemSpace>&, ordinal_t,
                       Kokkos::View<offset_t*, DefaultMemSpace>&, Kokkos::View<offset_t*, DefaultMemSpace>&);
template void group_by(const DefaultExecSpace&, const Kokkos::View<const ordinal_t*, DefaultMemSpace>&, ordinal_t,
                       Kokkos::View<offset_t*, DefaultMemSpace>&, Kokkos::View<ordinal_t*, DefaultMemSpace>&);
template void transfers(const DefaultExecSpace&, const Aggregates<DefaultMemSpace>&,
                        const Kokkos::View<const ordinal_t*, DefaultMemSpace>&,
                        const Kokkos::View<const ordinal_t*, DefaultMemSpace>&,
                        Kokkos::View<ordinal_t*, DefaultMemSpace>&, Kokkos::View<offset_t*, DefaultMemSpace>&,
                        Kokkos::View<ordinal_t*, DefaultMemSpace>&);
template GalerkinMap<DefaultMemSpace> galerkin_map(const DefaultExecSpace&, const LevelPattern<DefaultMemSpace>&,
                                                   const Aggregates<DefaultMemSpace>&);
template void place_in_storage(const DefaultExecSpace&, GalerkinMap<DefaultMemSpace>&,
                               const Kokkos::View<const offset_t*, DefaultMemSpace>&,
                               const Kokkos::View<const ordinal_t*, DefaultMemSpace>&,
                               const Kokkos::View<const offset_t*, DefaultMemSpace>&,
                               const Kokkos::View<const ordinal_t*, DefaultMemSpace>&);
#define PPSPARSE_MG_INSTANTIATE_GALERKIN(OS, DS, OC, DC)                                           \
  template void galerkin_values(const DefaultExecSpace&, const GalerkinMap<DefaultMemSpace>&, int, \
                                const Kokkos::View<const OS*, DefaultMemSpace>&,                   \
                                const Kokkos::View<const DS*, DefaultMemSpace>&,                   \
                                const Kokkos::View<OC*, DefaultMemSpace>&, const Kokkos::View<DC*, DefaultMemSpace>&);
PPSPARSE_MG_INSTANTIATE_GALERKIN(float, double, double, double)  // the tests' reference
#undef PPSPARSE_MG_INSTANTIATE_GALERKIN
// Level to level, in the storage: from every O format into a coarse FP32 O (the coded coarse
// formats encode from GalerkinOffSum) and into the coarse FP64 D.
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary)                                                          \
  template void galerkin_off_values(const DefaultExecSpace&, const GalerkinMap<DefaultMemSpace>&, int,      \
                                    const impl::StoredValues<DefaultMemSpace, detail::codec>&,              \
                                    const Kokkos::View<float*, DefaultMemSpace>&);                          \
  template void galerkin_diagonal_values(const DefaultExecSpace&, const GalerkinMap<DefaultMemSpace>&, int, \
                                         const impl::StoredValues<DefaultMemSpace, detail::codec>&,         \
                                         const Kokkos::View<const double*, DefaultMemSpace>&,               \
                                         const Kokkos::View<double*, DefaultMemSpace>&);
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT

}  // namespace ppsparse::mcpi::multigrid
