// Aggregates by repeated pairwise matching on the device (coarsening.hpp), compiled once on the
// default execution space.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/kokkos_compat.hpp>

#include "coarsening.hpp"
#include "device_lists.hpp"

namespace ppsparse::mcpi::multigrid {

namespace {

/// One matching of a level's rows on exec: partner(i) = j when rows i and j are paired, -1
/// when i stays alone. A round: every unmatched row proposes to its unmatched neighbour of the
/// largest strength (ties: the smaller index); mutual proposals pair.
template <class E>
Kokkos::View<ordinal_t*, typename E::memory_space> match(
    const E& exec, const LevelPattern<typename E::memory_space>& p,
    const Kokkos::View<const double*, typename E::memory_space>& strength, int rounds) {
  using M = typename E::memory_space;
  const ordinal_t n = p.n;
  const auto row_ptr = p.row_ptr;
  const auto col = p.col_idx;
  Kokkos::View<ordinal_t*, M> partner(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.partner"), n);
  Kokkos::View<ordinal_t*, M> choice(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.choice"), n);
  Kokkos::deep_copy(exec, partner, ordinal_t(-1));
  const Kokkos::RangePolicy<E> rows(exec, 0, n);
  for (int r = 0; r < rounds; ++r) {
    Kokkos::parallel_for(
        "ppsparse::mcpi::multigrid::propose", rows, KOKKOS_LAMBDA(const ordinal_t i) {
          ordinal_t best = -1;
          double best_s = -1.0;
          if (partner(i) < 0)
            for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k) {
              const ordinal_t j = col(k);
              if (j == i || partner(j) >= 0) continue;
              const double s = strength(k);
              if (s > best_s || (s == best_s && j < best)) {
                best = j;
                best_s = s;
              }
            }
          choice(i) = best;
        });
    ordinal_t paired = 0;
    Kokkos::parallel_reduce(
        "ppsparse::mcpi::multigrid::accept", rows,
        KOKKOS_LAMBDA(const ordinal_t i, ordinal_t& count) {
          const ordinal_t j = choice(i);
          if (j >= 0 && choice(j) == i) {
            partner(i) = j;
            ++count;
          }
        },
        paired);
    if (paired == 0) break;
  }
  return partner;
}

/// Aggregates of a matching, on exec: a pair each, numbered in the order of their first row; a
/// row left unpaired joins the pair of its strongest paired neighbour (a triple: the matching's
/// rounds leave more rows unpaired on each coarser graph, and coarsening would stall), or else
/// stays alone, numbered after the pairs in row order.
template <class E>
Aggregates<typename E::memory_space> from_partners(
    const E& exec, const LevelPattern<typename E::memory_space>& p,
    const Kokkos::View<const ordinal_t*, typename E::memory_space>& partner,
    const Kokkos::View<const double*, typename E::memory_space>& strength) {
  using M = typename E::memory_space;
  const ordinal_t n = p.n;
  const auto row_ptr = p.row_ptr;
  const auto col = p.col_idx;
  Aggregates<M> a;
  a.fine_rows = n;
  a.of_row = Kokkos::View<ordinal_t*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.of_row"), n);
  const auto of_row = a.of_row;
  // The pairs, numbered at their first row.
  ordinal_t pairs = 0;
  Kokkos::parallel_scan(
      "ppsparse::mcpi::multigrid::number_pairs", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, ordinal_t& count, const bool final) {
        const bool first = partner(i) > i;
        if (final) of_row(i) = first ? count : -1;
        if (first) ++count;
      },
      pairs);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::second_of_pair", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        const ordinal_t j = partner(i);
        if (j >= 0 && j < i) of_row(i) = of_row(j);
      });
  // Unpaired rows: into the strongest paired neighbour's pair, else alone (-2 until numbered).
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::join_pair", Kokkos::RangePolicy<E>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        if (partner(i) >= 0) return;
        ordinal_t best = -1;
        double best_s = -1.0;
        for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k) {
          const ordinal_t j = col(k);
          if (partner(j) < 0) continue;
          if (strength(k) > best_s) {
            best = j;
            best_s = strength(k);
          }
        }
        // A paired row's number is final: of_row(j) is read where partner(j) >= 0 only.
        of_row(i) = best >= 0 ? of_row(best) : -2;
      });
  ordinal_t alone = 0;
  Kokkos::parallel_scan(
      "ppsparse::mcpi::multigrid::number_alone", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i, ordinal_t& count, const bool final) {
        const bool single = of_row(i) == -2;
        if (final && single) of_row(i) = pairs + count;
        if (single) ++count;
      },
      alone);
  a.count = pairs + alone;
  return a;
}

/// The strength of each block made symmetric: s(i, j) + s(j, i) where both blocks exist, so
/// that two rows rank their coupling alike and their proposals can meet.
template <class E>
Kokkos::View<double*, typename E::memory_space> symmetric_strengths(
    const E& exec, const LevelPattern<typename E::memory_space>& p,
    const Kokkos::View<const double*, typename E::memory_space>& s) {
  using M = typename E::memory_space;
  const auto t = transposed_blocks(exec, p);
  Kokkos::View<double*, M> sym(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.strength"), s.extent(0));
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::symmetric_strengths", Kokkos::RangePolicy<E>(exec, 0, s.extent(0)),
      KOKKOS_LAMBDA(const size_t k) { sym(k) = t(k) >= 0 ? s(k) + s(static_cast<size_t>(t(k))) : s(k); });
  return sym;
}

}  // namespace

template <class E>
Kokkos::View<offset_t*, typename E::memory_space> transposed_blocks(const E& exec,
                                                                    const LevelPattern<typename E::memory_space>& p) {
  using M = typename E::memory_space;
  const ordinal_t n = p.n;
  const auto row_ptr = p.row_ptr;
  const auto col = p.col_idx;
  Kokkos::View<offset_t*, M> t(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.transposed"),
                               static_cast<size_t>(p.nnzb()));
  // Row j is searched through: a row holds a few dozen blocks, and a user's rows need not be
  // sorted.
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::transposed_blocks", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k) {
          const ordinal_t j = col(k);
          offset_t found = -1;
          if (j >= 0 && j < n)
            for (offset_t q = row_ptr(j); q < row_ptr(j + 1); ++q)
              if (col(q) == i) {
                found = q;
                break;
              }
          t(k) = found;
        }
      });
  return t;
}

template <class E, class Source>
Kokkos::View<double*, typename E::memory_space> block_strengths_from(
    const E& exec, const Source& values, offset_t nnzb, int nb, int index_base,
    const Kokkos::View<const offset_t*, typename E::memory_space>& slot) {
  using M = typename E::memory_space;
  const int nb2 = nb * nb;
  const bool slotted = slot.extent(0) > 0;
  if (nb < 1 || (slotted && slot.extent(0) != static_cast<size_t>(nnzb)))
    throw InvalidArgument("multigrid: a slot map of " + std::to_string(slot.extent(0)) + " entries for " +
                          std::to_string(nnzb) + " blocks of " + std::to_string(nb) + " x " + std::to_string(nb));
  Kokkos::View<double*, M> s(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.strength"), static_cast<size_t>(nnzb));
  Kokkos::View<long long, M> first_bad("mg.first_bad");
  Kokkos::deep_copy(exec, first_bad, LLONG_MAX);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::block_strengths", Kokkos::RangePolicy<E>(exec, 0, nnzb),
      KOKKOS_LAMBDA(const offset_t k) {
        const offset_t p = slotted ? slot(k) : k;
        double sum = 0;
        for (int e = 0; e < nb2; ++e) {
          const double v = static_cast<double>(values(p, e));
          sum += v * v;
        }
        if (!(sum <= 1.7976931348623157e308)) Kokkos::atomic_fetch_min(&first_bad(), static_cast<long long>(k));
        s(k) = compat::sqrt(sum);
      });
  long long bad = LLONG_MAX;
  Kokkos::deep_copy(exec, Kokkos::View<long long, HostSpace>(&bad), first_bad);
  exec.fence();
  if (bad != LLONG_MAX)
    throw NumericalError("multigrid: O block " + std::to_string(bad + index_base) +
                         (index_base ? " (numbered from 1)" : "") + " holds a NaN or Inf");
  return s;
}

template <class E, class Scalar>
Kokkos::View<double*, typename E::memory_space> block_strengths(
    const E& exec, const Kokkos::View<const Scalar*, typename E::memory_space>& values, offset_t nnzb, int nb,
    int index_base, const Kokkos::View<const offset_t*, typename E::memory_space>& slot) {
  if (nb < 1 || values.extent(0) < static_cast<size_t>(nnzb) * nb * nb)
    throw InvalidArgument("multigrid: " + std::to_string(values.extent(0)) + " O values for " + std::to_string(nnzb) +
                          " blocks of " + std::to_string(nb) + " x " + std::to_string(nb));
  return block_strengths_from(exec,
                              impl::SlotValues<Kokkos::View<const Scalar*, typename E::memory_space>>{values, nb * nb},
                              nnzb, nb, index_base, slot);
}

template <class E, class Scalar>
double block_asymmetry(const E& exec, const Kokkos::View<const Scalar*, typename E::memory_space>& values,
                       const LevelPattern<typename E::memory_space>& pattern, int nb,
                       const Kokkos::View<const offset_t*, typename E::memory_space>& slot) {
  const auto t = transposed_blocks(exec, pattern);
  const bool slotted = slot.extent(0) > 0;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  double diff = 0, total = 0;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::multigrid::block_asymmetry", Kokkos::RangePolicy<E>(exec, 0, t.extent(0)),
      KOKKOS_LAMBDA(const size_t k, double& d, double& a) {
        const size_t at = static_cast<size_t>(slotted ? slot(k) : static_cast<offset_t>(k)) * nb2;
        const offset_t p = t(k);
        const size_t pt = p < 0 ? 0 : static_cast<size_t>(slotted ? slot(static_cast<size_t>(p)) : p) * nb2;
        for (int c = 0; c < nb; ++c)
          for (int r = 0; r < nb; ++r) {
            const double v = static_cast<double>(values(at + static_cast<size_t>(c * nb + r)));
            const double w = p < 0 ? 0.0 : static_cast<double>(values(pt + static_cast<size_t>(r * nb + c)));
            d += (v - w) * (v - w);
            a += v * v;
          }
      },
      diff, total);
  return total > 0 ? std::sqrt(diff / total) : 0.0;
}

template <class E>
Aggregates<typename E::memory_space> pairwise_aggregates(
    const E& exec, const LevelPattern<typename E::memory_space>& pattern,
    const Kokkos::View<const double*, typename E::memory_space>& strength, int passes, int rounds) {
  using M = typename E::memory_space;
  if (passes < 1 || rounds < 1)
    throw InvalidArgument("multigrid: pairwise matching needs passes >= 1 and rounds >= 1, got " +
                          std::to_string(passes) + " and " + std::to_string(rounds));
  const ordinal_t n = pattern.n;
  if (n < 0 || pattern.row_ptr.extent(0) != static_cast<size_t>(n) + 1 ||
      strength.extent(0) != static_cast<size_t>(pattern.nnzb()))
    throw InvalidArgument("multigrid: the pattern's arrays do not fit its " + std::to_string(n) + " rows");
  {
    const auto row_ptr = pattern.row_ptr;
    const auto col = pattern.col_idx;
    long long first_bad = LLONG_MAX;
    Kokkos::parallel_reduce(
        "ppsparse::mcpi::multigrid::check_columns", Kokkos::RangePolicy<E>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i, long long& bad) {
          for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k)
            if ((col(k) < 0 || col(k) >= n) && k < bad) bad = k;
        },
        Kokkos::Min<long long>(first_bad));
    if (first_bad != LLONG_MAX) {
      const auto host_ptr = Kokkos::create_mirror_view_and_copy(HostSpace(), row_ptr);
      const ordinal_t row = static_cast<ordinal_t>(
          std::upper_bound(host_ptr.data(), host_ptr.data() + n + 1, static_cast<offset_t>(first_bad)) -
          host_ptr.data() - 1);
      ordinal_t c = 0;
      Kokkos::deep_copy(Kokkos::View<ordinal_t, HostSpace>(&c), Kokkos::subview(col, static_cast<size_t>(first_bad)));
      throw InvalidArgument("multigrid: block " + std::to_string(first_bad) + " of row " + std::to_string(row) +
                            " has column " + std::to_string(c) + ", outside 0.." + std::to_string(n - 1));
    }
  }
  Kokkos::View<double*, M> s = symmetric_strengths(exec, pattern, strength);
  Aggregates<M> total;
  total.fine_rows = n;
  total.count = n;
  total.of_row = Kokkos::View<ordinal_t*, M>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.of_row"), n);
  const auto of_row = total.of_row;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::each_alone", Kokkos::RangePolicy<E>(exec, 0, n),
      KOKKOS_LAMBDA(const ordinal_t i) { of_row(i) = i; });
  LevelPattern<M> graph = pattern;
  for (int pass = 0; pass < passes; ++pass) {
    const ordinal_t m = total.count;
    const Aggregates<M> step =
        from_partners(exec, graph, Kokkos::View<const ordinal_t*, M>(match(exec, graph, s, rounds)),
                      Kokkos::View<const double*, M>(s));
    const auto step_of = step.of_row;
    Kokkos::parallel_for(
        "ppsparse::mcpi::multigrid::compose_aggregates", Kokkos::RangePolicy<E>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t i) { of_row(i) = step_of(of_row(i)); });
    total.count = step.count;
    if (step.count == m || pass + 1 == passes) break;  // nothing paired: no further pass pairs either
    // The graph of the aggregates: an edge for every fine block between two of them, its
    // strength the sum of theirs in fine order (the Galerkin map's order).
    const GalerkinMap<M> map = galerkin_map(exec, graph, step);
    const auto off_ptr = map.off_ptr;
    const auto off_src = map.off_src;
    const auto fine_s = s;
    Kokkos::View<double*, M> coarse_s(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.strength"),
                                      static_cast<size_t>(map.nnzb()));
    Kokkos::parallel_for(
        "ppsparse::mcpi::multigrid::aggregate_strengths", Kokkos::RangePolicy<E>(exec, 0, map.nnzb()),
        KOKKOS_LAMBDA(const offset_t c) {
          double sum = 0;
          for (offset_t t = off_ptr(c); t < off_ptr(c + 1); ++t) sum += fine_s(off_src(t));
          coarse_s(c) = sum;
        });
    graph = map.coarse;
    s = coarse_s;
  }
  exec.fence();
  return total;
}

template Kokkos::View<offset_t*, DefaultMemSpace> transposed_blocks(const DefaultExecSpace&,
                                                                    const LevelPattern<DefaultMemSpace>&);
template Kokkos::View<double*, DefaultMemSpace> block_strengths(const DefaultExecSpace&,
                                                                const Kokkos::View<const float*, DefaultMemSpace>&,
                                                                offset_t, int, int,
                                                                const Kokkos::View<const offset_t*, DefaultMemSpace>&);
template Kokkos::View<double*, DefaultMemSpace> block_strengths(const DefaultExecSpace&,
                                                                const Kokkos::View<const double*, DefaultMemSpace>&,
                                                                offset_t, int, int,
                                                                const Kokkos::View<const offset_t*, DefaultMemSpace>&);
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary)                                                            \
  template Kokkos::View<double*, DefaultMemSpace> block_strengths_from(                                       \
      const DefaultExecSpace&, const impl::StoredValues<DefaultMemSpace, detail::codec>&, offset_t, int, int, \
      const Kokkos::View<const offset_t*, DefaultMemSpace>&);
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
template double block_asymmetry(const DefaultExecSpace&, const Kokkos::View<const float*, DefaultMemSpace>&,
                                const LevelPattern<DefaultMemSpace>&, int,
                                const Kokkos::View<const offset_t*, DefaultMemSpace>&);
template Aggregates<DefaultMemSpace> pairwise_aggregates(const DefaultExecSpace&, const LevelPattern<DefaultMemSpace>&,
                                                         const Kokkos::View<const double*, DefaultMemSpace>&, int, int);

}  // namespace ppsparse::mcpi::multigrid
