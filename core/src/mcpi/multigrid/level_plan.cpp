// A coarse level's setup plan formed on the device (coarsening.hpp): its colouring by Kokkos
// Kernels on the execution space itself, the colour order and each block's slot. The finest
// level's plan stays make_setup_plan's on the host: that one checks the user's arrays. Compiled
// once on the default execution space.
#include <KokkosGraph_Distance1Color.hpp>
#include <KokkosKernels_Handle.hpp>

#include <climits>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>

#include "../../util/to_device.hpp"
#include "coarsening.hpp"
#include "device_lists.hpp"

namespace ppsparse::mcpi::multigrid {

namespace {

/// The pattern made symmetric (every block (i, j) with its (j, i)), rows sorted: the graph
/// Kokkos Kernels colours. The pattern itself where it is symmetric already (a Galerkin product
/// of a symmetric pattern is).
template <class E>
LevelPattern<typename E::memory_space> symmetric_graph(const E& exec, const LevelPattern<typename E::memory_space>& p) {
  using M = typename E::memory_space;
  const ordinal_t n = p.n;
  const auto row_ptr = p.row_ptr;
  const auto col = p.col_idx;
  const auto t = transposed_blocks(exec, p);
  Kokkos::View<offset_t*, M> len("mg.symmetric_ptr", static_cast<size_t>(n) + 1);
  offset_t missing = 0;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::multigrid::count_unpaired_blocks", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, offset_t& count) {
        for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k)
          if (t(k) < 0) {
            Kokkos::atomic_fetch_add(&len(static_cast<size_t>(col(k))), offset_t(1));
            ++count;
          }
      },
      missing);
  if (missing == 0) return p;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::symmetric_length", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) { len(i) += row_ptr(i + 1) - row_ptr(i); });
  LevelPattern<M> g;
  g.n = n;
  g.row_ptr = len;
  const offset_t nnz = lists::exclusive_scan(exec, len, static_cast<size_t>(n));
  g.col_idx = Kokkos::View<ordinal_t*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.symmetric_col"),
                                          static_cast<size_t>(nnz));
  const auto ptr = g.row_ptr;
  const auto adj = g.col_idx;
  Kokkos::View<offset_t*, M> cursor(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.symmetric_cursor"),
                                    static_cast<size_t>(n));
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::symmetric_own", Kokkos::RangePolicy<E>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        offset_t at = ptr(i);
        for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k) adj(at++) = col(k);
        cursor(i) = at;
      });
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::symmetric_added", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k)
          if (t(k) < 0) adj(Kokkos::atomic_fetch_add(&cursor(static_cast<size_t>(col(k))), offset_t(1))) = i;
      });
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::symmetric_sort", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) { lists::sort_keys(adj.data() + ptr(i), ptr(i + 1) - ptr(i)); });
  return g;
}

}  // namespace

template <class E>
mcpi::detail::SetupPlan coarse_level_plan(const E& exec, int nb, const LevelPattern<typename E::memory_space>& p) {
  using M = typename E::memory_space;
  const ordinal_t n = p.n;
  const offset_t nnzb = p.nnzb();
  if (nb < 1 || nb > 64) throw InvalidArgument("multigrid: block size " + std::to_string(nb) + " is outside 1..64");
  if (static_cast<long long>(n) * nb > static_cast<long long>(max_ordinal))
    throw InvalidArgument("multigrid: a coarse level of " + std::to_string(n) + " block rows of " + std::to_string(nb) +
                          " exceeds 2^31 - 1 unknowns");
  const LevelPattern<M> g = symmetric_graph(exec, p);

  // Kokkos Kernels' colours, from 1; VBDBIT: the same colours on every run (Deveci et al.
  // 2016). Its plain VBD left rows uncoloured on Kokkos Kernels 3.4.
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, double, E, M, M>;
  Handle handle;
  handle.create_graph_coloring_handle(KokkosGraph::COLORING_VBDBIT);
  KokkosGraph::Experimental::graph_color(&handle, n, n, Kokkos::View<const offset_t*, M>(g.row_ptr),
                                         Kokkos::View<const ordinal_t*, M>(g.col_idx));
  const auto kk_color = handle.get_graph_coloring_handle()->get_vertex_colors();
  Kokkos::View<ordinal_t*, M> color(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.color"), n);
  Kokkos::deep_copy(exec, color, kk_color);
  handle.destroy_graph_coloring_handle();
  const auto ptr = g.row_ptr;
  const auto adj = g.col_idx;
  ordinal_t top = 0;
  ordinal_t conflicts = 0;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::multigrid::check_colouring", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, ordinal_t& hi, ordinal_t& bad) {
        if (color(i) < 1) ++bad;
        if (color(i) > hi) hi = color(i);
        for (offset_t k = ptr(i); k < ptr(i + 1); ++k)
          if (color(adj(k)) == color(i)) ++bad;
      },
      Kokkos::Max<ordinal_t>(top), conflicts);
  if (conflicts > 0 || (n > 0 && top < 1))
    throw NumericalError("multigrid: Kokkos Kernels returned an invalid colouring of a coarse level (" +
                         std::to_string(conflicts) + " conflicts)");

  // Colours compacted to 0 .. ncolors-1 in their order (every one used), rows grouped by colour,
  // keeping their order inside a colour.
  Kokkos::View<offset_t*, M> per_color("mg.color_rows", static_cast<size_t>(top) + 1);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::color_rows", Kokkos::RangePolicy<E>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        Kokkos::atomic_fetch_add(&per_color(static_cast<size_t>(color(i))), offset_t(1));
      });
  const std::vector<offset_t> rows_of = util::to_host(per_color);
  std::vector<ordinal_t> compact(rows_of.size(), -1);
  mcpi::detail::SetupPlan plan;
  plan.nb = nb;
  plan.n = n;
  Coloring& c = plan.coloring;
  c.color_offsets.assign(1, 0);
  for (size_t k = 1; k < rows_of.size(); ++k)
    if (rows_of[k] > 0) {
      compact[k] = c.ncolors++;
      c.color_offsets.push_back(c.color_offsets.back() + static_cast<ordinal_t>(rows_of[k]));
    }
  const auto compact_d = util::to_device<ordinal_t, M>(compact, "mg.color_ids");
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::compact_colors", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) { color(i) = compact_d(static_cast<size_t>(color(i))); });
  Kokkos::View<ordinal_t*, M> new_to_old(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.new_to_old"), n);
  Kokkos::View<ordinal_t*, M> old_to_new(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.old_to_new"), n);
  for (ordinal_t x = 0; x < c.ncolors; ++x) {  // a scan per colour: a handful of passes over the rows
    const ordinal_t first = c.color_offsets[static_cast<size_t>(x)];
    Kokkos::parallel_scan(
        "ppsparse::mcpi::multigrid::color_order", Kokkos::RangePolicy<E>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i, ordinal_t& at, const bool final) {
          if (color(i) != x) return;
          if (final) {
            new_to_old(first + at) = i;
            old_to_new(i) = first + at;
          }
          ++at;
        });
  }

  // The colour-ordered block CSR, each row's columns sorted, and each block's slot in it.
  const auto row_ptr = p.row_ptr;
  const auto col = p.col_idx;
  Kokkos::View<offset_t*, M> ia("mg.ia", static_cast<size_t>(n) + 1);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::colour_row_length", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t q) {
        const ordinal_t i = new_to_old(q);
        ia(q) = row_ptr(i + 1) - row_ptr(i);
      });
  lists::exclusive_scan(exec, ia, static_cast<size_t>(n));
  Kokkos::View<ordinal_t*, M> ja(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.ja"), static_cast<size_t>(nnzb));
  Kokkos::View<offset_t*, M> block(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.block"),
                                   static_cast<size_t>(nnzb));
  Kokkos::View<offset_t*, M> o_slot(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.o_slot"),
                                    static_cast<size_t>(nnzb));
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::colour_rows", Kokkos::RangePolicy<E>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t q) {
        const ordinal_t i = new_to_old(q);
        offset_t at = ia(q);
        for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k) {
          ja(at) = old_to_new(col(k));
          block(at++) = k;
        }
        lists::sort_pairs(ja.data() + ia(q), block.data() + ia(q), ia(q + 1) - ia(q));
        for (offset_t s = ia(q); s < ia(q + 1); ++s) o_slot(block(s)) = s;
      });
  exec.fence();
  plan.ia = util::to_host(ia);
  plan.ja = util::to_host(ja);
  plan.o_slot = util::to_host(o_slot);
  c.color = util::to_host(color);
  c.perm = Permutation::from_new_to_old(util::to_host(new_to_old));
  return plan;
}

template mcpi::detail::SetupPlan coarse_level_plan(const DefaultExecSpace&, int, const LevelPattern<DefaultMemSpace>&);

}  // namespace ppsparse::mcpi::multigrid
