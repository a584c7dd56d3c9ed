// The Galerkin coarse operator (coarsening.hpp): its pattern and maps on the host, once; its
// values summed on the device at every numeric refresh. Compiled once on the default execution
// space.
#include <algorithm>
#include <string>

#include <ppsparse/error.hpp>

#include "../../util/to_device.hpp"
#include "coarsening.hpp"

namespace ppsparse::mcpi::multigrid {

namespace {

/// The indices q grouped by key[q] (group_by) as device views.
template <class M, class Key>
void grouped(const std::vector<Key>& key, size_t groups, Kokkos::View<offset_t*, M>& ptr,
             Kokkos::View<offset_t*, M>& src, const char* label) {
  std::vector<offset_t> p, s;
  group_by(key, groups, p, s);
  ptr = util::to_device<offset_t, M>(p, label);
  src = util::to_device<offset_t, M>(s, label);
}

}  // namespace

template <class M>
GalerkinMap<M> galerkin_map(ordinal_t n, const std::vector<offset_t>& row_ptr, const std::vector<ordinal_t>& col_idx,
                            const Aggregates& a) {
  if (n < 0 || a.fine_rows != n || a.of_row.size() != static_cast<size_t>(n) ||
      row_ptr.size() != static_cast<size_t>(n) + 1 || row_ptr.back() != static_cast<offset_t>(col_idx.size()))
    throw InvalidArgument("multigrid: aggregates of " + std::to_string(a.fine_rows) + " rows for a pattern of " +
                          std::to_string(n));
  for (ordinal_t i = 0; i < n; ++i)
    if (a.of_row[static_cast<size_t>(i)] < 0 || a.of_row[static_cast<size_t>(i)] >= a.count)
      throw InvalidArgument("multigrid: row " + std::to_string(i) + " lies in no aggregate");
  const size_t nc = static_cast<size_t>(a.count);
  // Each coarse row's columns, sorted, gathered from its aggregate's member rows through a
  // marker per aggregate (no container per coarse row); then, while those rows are at hand,
  // each of their blocks' coarse block (off) or aggregate (diag_o, where both rows share one),
  // -1 where it is of the other kind.
  std::vector<offset_t> members_ptr;
  std::vector<ordinal_t> members;
  group_by(a.of_row, nc, members_ptr, members);
  std::vector<offset_t> where(nc, -1);  // J's coarse block in the row being built
  std::vector<offset_t> off(col_idx.size(), -1), diag_o(col_idx.size(), -1);
  GalerkinMap<M> map;
  map.coarse_rows = a.count;
  for (size_t I = 0; I < nc; ++I) {
    const size_t first = map.col_idx.size();
    auto each_block = [&](auto&& f) {
      for (offset_t t = members_ptr[I]; t < members_ptr[I + 1]; ++t) {
        const size_t i = static_cast<size_t>(members[static_cast<size_t>(t)]);
        for (offset_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
          f(k, a.of_row[static_cast<size_t>(col_idx[static_cast<size_t>(k)])]);
      }
    };
    each_block([&](offset_t, ordinal_t J) {
      if (static_cast<size_t>(J) == I || where[static_cast<size_t>(J)] >= 0) return;
      where[static_cast<size_t>(J)] = 0;
      map.col_idx.push_back(J);
    });
    std::sort(map.col_idx.begin() + static_cast<std::ptrdiff_t>(first), map.col_idx.end());
    for (size_t q = first; q < map.col_idx.size(); ++q)
      where[static_cast<size_t>(map.col_idx[q])] = static_cast<offset_t>(q);
    each_block([&](offset_t k, ordinal_t J) {
      if (static_cast<size_t>(J) == I)
        diag_o[static_cast<size_t>(k)] = static_cast<offset_t>(I);
      else
        off[static_cast<size_t>(k)] = where[static_cast<size_t>(J)];
    });
    for (size_t q = first; q < map.col_idx.size(); ++q) where[static_cast<size_t>(map.col_idx[q])] = -1;
    map.row_ptr.push_back(static_cast<offset_t>(map.col_idx.size()));
  }
  // Each fine row's aggregate (diag_d).
  grouped(off, map.col_idx.size(), map.off_ptr, map.off_src, "mg.galerkin_off");
  grouped(diag_o, nc, map.diag_o_ptr, map.diag_o_src, "mg.galerkin_diag_o");
  grouped(a.of_row, nc, map.diag_d_ptr, map.diag_d_src, "mg.galerkin_diag_d");
  return map;
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
  if (coarse_o_slot.extent(0) != static_cast<size_t>(map.nnzb()) ||
      coarse_d_slot.extent(0) != static_cast<size_t>(map.coarse_rows))
    throw InvalidArgument("multigrid: coarse slot maps of " + std::to_string(coarse_o_slot.extent(0)) + " and " +
                          std::to_string(coarse_d_slot.extent(0)) + " entries for " + std::to_string(map.nnzb()) +
                          " blocks and " + std::to_string(map.coarse_rows) + " rows");
  compose(exec, map.off_src, fine_o_slot);
  compose(exec, map.diag_o_src, fine_o_slot);
  compose(exec, map.diag_d_src, fine_d_slot);
  map.o_dst = coarse_o_slot;
  map.d_dst = coarse_d_slot;
}

template <class E, class OS, class DS, class OC, class DC>
void galerkin_values(const E& exec, const GalerkinMap<typename E::memory_space>& map, int nb,
                     const Kokkos::View<const OS*, typename E::memory_space>& fine_O,
                     const Kokkos::View<const DS*, typename E::memory_space>& fine_D,
                     const Kokkos::View<OC*, typename E::memory_space>& coarse_O,
                     const Kokkos::View<DC*, typename E::memory_space>& coarse_D) {
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  if (nb < 1 || coarse_O.extent(0) < static_cast<size_t>(map.nnzb()) * nb2 ||
      coarse_D.extent(0) < static_cast<size_t>(map.coarse_rows) * nb2)
    throw InvalidArgument("multigrid: coarse arrays of " + std::to_string(coarse_O.extent(0)) + " and " +
                          std::to_string(coarse_D.extent(0)) + " values for " + std::to_string(map.nnzb()) +
                          " blocks and " + std::to_string(map.coarse_rows) + " rows of " + std::to_string(nb) + " x " +
                          std::to_string(nb));
  const auto off_ptr = map.off_ptr;
  const auto off_src = map.off_src;
  const auto o_dst = map.o_dst;
  const bool o_placed = o_dst.extent(0) > 0;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::galerkin_off",
      Kokkos::RangePolicy<E>(exec, 0, map.nnzb() * static_cast<offset_t>(nb2)), KOKKOS_LAMBDA(const offset_t q) {
        const offset_t s = q / static_cast<offset_t>(nb2);
        const size_t e = static_cast<size_t>(q - s * static_cast<offset_t>(nb2));
        double sum = 0;
        for (offset_t t = off_ptr(s); t < off_ptr(s + 1); ++t)
          sum += static_cast<double>(fine_O(static_cast<size_t>(off_src(t)) * nb2 + e));
        coarse_O(static_cast<size_t>(o_placed ? o_dst(s) : s) * nb2 + e) = static_cast<OC>(sum);
      });
  const auto d_ptr = map.diag_d_ptr;
  const auto d_src = map.diag_d_src;
  const auto o_ptr = map.diag_o_ptr;
  const auto o_src = map.diag_o_src;
  const auto d_dst = map.d_dst;
  const bool d_placed = d_dst.extent(0) > 0;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::galerkin_diag",
      Kokkos::RangePolicy<E>(exec, 0, static_cast<offset_t>(map.coarse_rows) * static_cast<offset_t>(nb2)),
      KOKKOS_LAMBDA(const offset_t q) {
        const offset_t I = q / static_cast<offset_t>(nb2);
        const size_t e = static_cast<size_t>(q - I * static_cast<offset_t>(nb2));
        double sum = 0;
        for (offset_t t = d_ptr(I); t < d_ptr(I + 1); ++t)
          sum += static_cast<double>(fine_D(static_cast<size_t>(d_src(t)) * nb2 + e));
        for (offset_t t = o_ptr(I); t < o_ptr(I + 1); ++t)
          sum += static_cast<double>(fine_O(static_cast<size_t>(o_src(t)) * nb2 + e));
        coarse_D(static_cast<size_t>(d_placed ? static_cast<offset_t>(d_dst(I)) : I) * nb2 + e) = static_cast<DC>(sum);
      });
}

template GalerkinMap<DefaultMemSpace> galerkin_map(ordinal_t, const std::vector<offset_t>&,
                                                   const std::vector<ordinal_t>&, const Aggregates&);
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
PPSPARSE_MG_INSTANTIATE_GALERKIN(float, double, float, double)   // level to level, in the storage
#undef PPSPARSE_MG_INSTANTIATE_GALERKIN

}  // namespace ppsparse::mcpi::multigrid
