// Aggregates by repeated pairwise matching on the device (coarsening.hpp), compiled once on the
// default execution space.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/kokkos_compat.hpp>

#include "../../util/to_device.hpp"
#include "coarsening.hpp"

namespace ppsparse::mcpi::multigrid {

namespace {

/// One matching of the n rows of (row_ptr, col, strength), on exec: partner[i] = j when rows i
/// and j are paired, -1 when i stays alone. A round: every unmatched row proposes to its
/// unmatched neighbour of the largest strength (ties: the smaller index); mutual proposals pair.
template <class E>
std::vector<ordinal_t> match(const E& exec, ordinal_t n,
                             const Kokkos::View<const offset_t*, typename E::memory_space>& row_ptr,
                             const Kokkos::View<const ordinal_t*, typename E::memory_space>& col,
                             const Kokkos::View<const double*, typename E::memory_space>& strength, int rounds) {
  using M = typename E::memory_space;
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
  std::vector<ordinal_t> host(static_cast<size_t>(n));
  Kokkos::deep_copy(exec, Kokkos::View<ordinal_t*, HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()),
                    partner);
  exec.fence();
  return host;
}

/// Aggregates of a matching: a pair each, numbered in the order of their first row; a row left
/// unpaired joins the pair of its strongest paired neighbour (a triple: the matching's rounds
/// leave more rows unpaired on each coarser graph, and coarsening would stall), or else stays
/// alone.
Aggregates from_partners(const std::vector<ordinal_t>& partner, const std::vector<offset_t>& row_ptr,
                         const std::vector<ordinal_t>& col, const std::vector<double>& strength) {
  Aggregates a;
  a.fine_rows = static_cast<ordinal_t>(partner.size());
  a.of_row.assign(partner.size(), -1);
  for (size_t i = 0; i < partner.size(); ++i) {
    const ordinal_t p = partner[i];
    if (p < 0) continue;
    a.of_row[i] = static_cast<size_t>(p) < i ? a.of_row[static_cast<size_t>(p)] : a.count++;
  }
  for (size_t i = 0; i < partner.size(); ++i) {
    if (partner[i] >= 0) continue;
    ordinal_t best = -1;
    double best_s = -1.0;
    for (offset_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const ordinal_t j = col[static_cast<size_t>(k)];
      if (partner[static_cast<size_t>(j)] < 0) continue;
      if (strength[static_cast<size_t>(k)] > best_s) {
        best = j;
        best_s = strength[static_cast<size_t>(k)];
      }
    }
    a.of_row[i] = best >= 0 ? a.of_row[static_cast<size_t>(best)] : a.count++;
  }
  return a;
}

/// The graph of the aggregates: an edge between two aggregates for every fine block between
/// them, its strength the sum of theirs in the order of the fine rows and blocks (host). Each
/// aggregate's row is gathered from its member rows through a marker per aggregate, then
/// sorted: no container per row (a map each took seconds on millions of aggregates).
void aggregate_graph(const std::vector<offset_t>& row_ptr, const std::vector<ordinal_t>& col,
                     const std::vector<double>& strength, const Aggregates& a, std::vector<offset_t>& c_ptr,
                     std::vector<ordinal_t>& c_col, std::vector<double>& c_strength) {
  std::vector<offset_t> members_ptr;
  std::vector<ordinal_t> members;
  group_by(a.of_row, static_cast<size_t>(a.count), members_ptr, members);
  std::vector<offset_t> where(static_cast<size_t>(a.count), -1);  // J's entry in the row being built
  std::vector<std::pair<ordinal_t, double>> row;
  c_ptr.assign(1, 0);
  c_col.clear();
  c_strength.clear();
  for (ordinal_t I = 0; I < a.count; ++I) {
    row.clear();
    for (offset_t t = members_ptr[static_cast<size_t>(I)]; t < members_ptr[static_cast<size_t>(I) + 1]; ++t) {
      const size_t i = static_cast<size_t>(members[static_cast<size_t>(t)]);
      for (offset_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const ordinal_t J = a.of_row[static_cast<size_t>(col[static_cast<size_t>(k)])];
        if (J == I) continue;
        offset_t& at = where[static_cast<size_t>(J)];
        if (at < 0) {
          at = static_cast<offset_t>(row.size());
          row.emplace_back(J, strength[static_cast<size_t>(k)]);
        } else {
          row[static_cast<size_t>(at)].second += strength[static_cast<size_t>(k)];
        }
      }
    }
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [J, st] : row) {
      where[static_cast<size_t>(J)] = -1;
      c_col.push_back(J);
      c_strength.push_back(st);
    }
    c_ptr.push_back(static_cast<offset_t>(c_col.size()));
  }
}

/// Each block's transposed partner: for block k = (i, j), the block (j, i), or -1 where there
/// is none (or j is outside 0..n-1), by a binary search of each row's sorted columns (host).
std::vector<offset_t> transposed_blocks(ordinal_t n, const std::vector<offset_t>& row_ptr,
                                        const std::vector<ordinal_t>& col) {
  // Rows whose columns increase (an assembled pattern's) are searched in place; others through
  // a sorted copy of their (column, block) pairs.
  bool increasing = true;
  for (ordinal_t i = 0; i < n && increasing; ++i)
    for (offset_t k = row_ptr[static_cast<size_t>(i)] + 1; k < row_ptr[static_cast<size_t>(i) + 1] && increasing; ++k)
      increasing = col[static_cast<size_t>(k)] > col[static_cast<size_t>(k) - 1];
  std::vector<std::pair<ordinal_t, offset_t>> sorted;
  if (!increasing) {
    sorted.resize(col.size());
    for (ordinal_t i = 0; i < n; ++i) {
      for (offset_t k = row_ptr[static_cast<size_t>(i)]; k < row_ptr[static_cast<size_t>(i) + 1]; ++k)
        sorted[static_cast<size_t>(k)] = {col[static_cast<size_t>(k)], k};
      std::sort(sorted.begin() + row_ptr[static_cast<size_t>(i)], sorted.begin() + row_ptr[static_cast<size_t>(i) + 1]);
    }
  }
  // The block (j, i), or -1.
  auto find = [&](ordinal_t j, ordinal_t i) -> offset_t {
    const auto b = static_cast<std::ptrdiff_t>(row_ptr[static_cast<size_t>(j)]);
    const auto e = static_cast<std::ptrdiff_t>(row_ptr[static_cast<size_t>(j) + 1]);
    if (increasing) {
      const auto it = std::lower_bound(col.begin() + b, col.begin() + e, i);
      return it != col.begin() + e && *it == i ? static_cast<offset_t>(it - col.begin()) : -1;
    }
    const auto it = std::lower_bound(sorted.begin() + b, sorted.begin() + e, std::make_pair(i, offset_t(-1)));
    return it != sorted.begin() + e && it->first == i ? it->second : -1;
  };
  std::vector<offset_t> partner(col.size(), -1);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = row_ptr[static_cast<size_t>(i)]; k < row_ptr[static_cast<size_t>(i) + 1]; ++k) {
      const ordinal_t j = col[static_cast<size_t>(k)];
      if (j >= 0 && j < n) partner[static_cast<size_t>(k)] = find(j, i);
    }
  return partner;
}

/// The strength of each block made symmetric: s(i, j) + s(j, i) where both blocks exist, so that
/// two rows rank their coupling alike and their proposals can meet (host).
std::vector<double> symmetric_strengths(ordinal_t n, const std::vector<offset_t>& row_ptr,
                                        const std::vector<ordinal_t>& col, const std::vector<double>& s) {
  const std::vector<offset_t> partner = transposed_blocks(n, row_ptr, col);
  std::vector<double> sym(s);
  for (size_t k = 0; k < sym.size(); ++k)
    if (partner[k] >= 0) sym[k] += s[static_cast<size_t>(partner[k])];
  return sym;
}

}  // namespace

template <class E, class Scalar>
Kokkos::View<double*, typename E::memory_space> block_strengths(
    const E& exec, const Kokkos::View<const Scalar*, typename E::memory_space>& values, offset_t nnzb, int nb,
    int index_base, const Kokkos::View<const offset_t*, typename E::memory_space>& slot) {
  using M = typename E::memory_space;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  const bool slotted = slot.extent(0) > 0;
  if (nb < 1 || values.extent(0) < static_cast<size_t>(nnzb) * nb2 ||
      (slotted && slot.extent(0) != static_cast<size_t>(nnzb)))
    throw InvalidArgument("multigrid: " + std::to_string(values.extent(0)) + " O values for " + std::to_string(nnzb) +
                          " blocks of " + std::to_string(nb) + " x " + std::to_string(nb));
  Kokkos::View<double*, M> s(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.strength"), static_cast<size_t>(nnzb));
  Kokkos::View<long long, M> first_bad("mg.first_bad");
  Kokkos::deep_copy(exec, first_bad, LLONG_MAX);
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::block_strengths", Kokkos::RangePolicy<E>(exec, 0, nnzb),
      KOKKOS_LAMBDA(const offset_t k) {
        const size_t at = static_cast<size_t>(slotted ? slot(k) : k) * nb2;
        double sum = 0;
        for (size_t e = 0; e < nb2; ++e) {
          const double v = static_cast<double>(values(at + e));
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
double block_asymmetry(const E& exec, const Kokkos::View<const Scalar*, typename E::memory_space>& values,
                       const std::vector<offset_t>& row_ptr, const std::vector<ordinal_t>& col_idx, int nb,
                       const Kokkos::View<const offset_t*, typename E::memory_space>& slot) {
  using M = typename E::memory_space;
  const ordinal_t n = static_cast<ordinal_t>(row_ptr.size()) - 1;
  const std::vector<offset_t> partner = transposed_blocks(n, row_ptr, col_idx);
  const auto t = util::to_device<offset_t, M>(partner, "mg.transposed");
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
Aggregates pairwise_aggregates(const E& exec, ordinal_t n, const std::vector<offset_t>& row_ptr,
                               const std::vector<ordinal_t>& col_idx,
                               const Kokkos::View<const double*, typename E::memory_space>& strength, int passes,
                               int rounds) {
  using M = typename E::memory_space;
  if (passes < 1 || rounds < 1)
    throw InvalidArgument("multigrid: pairwise matching needs passes >= 1 and rounds >= 1, got " +
                          std::to_string(passes) + " and " + std::to_string(rounds));
  if (n < 0 || row_ptr.size() != static_cast<size_t>(n) + 1 ||
      row_ptr.back() != static_cast<offset_t>(col_idx.size()) || strength.extent(0) != col_idx.size())
    throw InvalidArgument("multigrid: the pattern's arrays do not fit its " + std::to_string(n) + " rows");
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = row_ptr[static_cast<size_t>(i)]; k < row_ptr[static_cast<size_t>(i) + 1]; ++k)
      if (col_idx[static_cast<size_t>(k)] < 0 || col_idx[static_cast<size_t>(k)] >= n)
        throw InvalidArgument("multigrid: block " + std::to_string(k) + " of row " + std::to_string(i) +
                              " has column " + std::to_string(col_idx[static_cast<size_t>(k)]) + ", outside 0.." +
                              std::to_string(n - 1));
  std::vector<double> s_host(strength.extent(0));
  Kokkos::deep_copy(exec, Kokkos::View<double*, HostSpace, Kokkos::MemoryUnmanaged>(s_host.data(), s_host.size()),
                    strength);
  exec.fence();
  s_host = symmetric_strengths(n, row_ptr, col_idx, s_host);
  Aggregates total;
  total.fine_rows = n;
  total.count = n;
  total.of_row.resize(static_cast<size_t>(n));
  for (ordinal_t i = 0; i < n; ++i) total.of_row[static_cast<size_t>(i)] = i;
  std::vector<offset_t> ptr = row_ptr;
  std::vector<ordinal_t> col = col_idx;
  for (int pass = 0; pass < passes; ++pass) {
    const ordinal_t m = total.count;
    const auto d_ptr = util::to_device<offset_t, M>(ptr, "mg.row_ptr");
    const auto d_col = util::to_device<ordinal_t, M>(col, "mg.col");
    const auto d_s = util::to_device<double, M>(s_host, "mg.strength");
    const Aggregates step = from_partners(match(exec, m, d_ptr, d_col, d_s, rounds), ptr, col, s_host);
    for (auto& a : total.of_row) a = step.of_row[static_cast<size_t>(a)];
    total.count = step.count;
    if (step.count == m || pass + 1 == passes) break;  // nothing paired: no further pass pairs either
    std::vector<offset_t> c_ptr;
    std::vector<ordinal_t> c_col;
    std::vector<double> c_s;
    aggregate_graph(ptr, col, s_host, step, c_ptr, c_col, c_s);
    ptr = std::move(c_ptr);
    col = std::move(c_col);
    s_host = std::move(c_s);
  }
  return total;
}

template Kokkos::View<double*, DefaultMemSpace> block_strengths(const DefaultExecSpace&,
                                                                const Kokkos::View<const float*, DefaultMemSpace>&,
                                                                offset_t, int, int,
                                                                const Kokkos::View<const offset_t*, DefaultMemSpace>&);
template Kokkos::View<double*, DefaultMemSpace> block_strengths(const DefaultExecSpace&,
                                                                const Kokkos::View<const double*, DefaultMemSpace>&,
                                                                offset_t, int, int,
                                                                const Kokkos::View<const offset_t*, DefaultMemSpace>&);
template double block_asymmetry(const DefaultExecSpace&, const Kokkos::View<const float*, DefaultMemSpace>&,
                                const std::vector<offset_t>&, const std::vector<ordinal_t>&, int,
                                const Kokkos::View<const offset_t*, DefaultMemSpace>&);
template Aggregates pairwise_aggregates(const DefaultExecSpace&, ordinal_t, const std::vector<offset_t>&,
                                        const std::vector<ordinal_t>&,
                                        const Kokkos::View<const double*, DefaultMemSpace>&, int, int);

}  // namespace ppsparse::mcpi::multigrid
