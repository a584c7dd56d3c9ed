#include <algorithm>
#include <cmath>
#include <ppsparse/error.hpp>
#include <ppsparse/gen/counter_rng.hpp>
#include <ppsparse/gen/grid.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <vector>

namespace ppsparse::gen {
namespace {

constexpr std::uint64_t offdiag_stream = 0x6f6666;  // "off"
constexpr std::uint64_t diag_stream = 0x64696167;   // "diag"

// A pattern supplies degree(v) (off-diagonal count) and for_each_neighbour(v, f), which
// calls f(u) for the off-diagonal neighbours of v in increasing order. The pattern must be
// symmetric; values are then filled as documented in scalar_matrix.hpp.
template <class Pattern>
CsrMatrix<double, HostSpace> dominant_matrix(const Pattern& pattern, ordinal_t n, std::uint64_t seed,
                                             const std::string& label) {
  CsrMatrix<double, HostSpace> a;
  a.nrows = a.ncols = n;
  a.row_ptr = Kokkos::View<offset_t*, HostSpace>(label + ".row_ptr", static_cast<size_t>(n) + 1);
  auto row_ptr = a.row_ptr;
  using host_policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;
  Kokkos::parallel_for("ppsparse::gen::count", host_policy(0, n),
                       [=](ordinal_t v) { row_ptr(v + 1) = static_cast<offset_t>(pattern.degree(v)) + 1; });
  Kokkos::DefaultHostExecutionSpace().fence();
  for (ordinal_t v = 0; v < n; ++v) row_ptr(v + 1) += row_ptr(v);
  const auto nnz = static_cast<size_t>(row_ptr(n));
  a.col_idx =
      Kokkos::View<ordinal_t*, HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + ".col_idx"), nnz);
  a.values = Kokkos::View<double*, HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + ".values"), nnz);
  auto col_idx = a.col_idx;
  auto values = a.values;
  const CounterRng off_rng(seed, offdiag_stream), diag_rng(seed, diag_stream);
  Kokkos::parallel_for("ppsparse::gen::fill", host_policy(0, n), [=](ordinal_t v) {
    const ordinal_t deg_v = pattern.degree(v);
    offset_t pos = row_ptr(v);
    offset_t diag_pos = -1;
    double offdiag_sum = 0.0;
    pattern.for_each_neighbour(v, [&](ordinal_t u) {
      if (diag_pos < 0 && u > v) diag_pos = pos++;  // leave the diagonal's slot in sorted place
      // Keyed by the unordered pair so that a_uv == a_vu.
      const auto lo = static_cast<std::uint64_t>(std::min(u, v)), hi = static_cast<std::uint64_t>(std::max(u, v));
      const double x = off_rng.nonzero(0.1, lo, hi) / static_cast<double>(std::max(deg_v, pattern.degree(u)));
      col_idx(pos) = u;
      values(pos) = x;
      offdiag_sum += std::abs(x);
      ++pos;
    });
    if (diag_pos < 0) diag_pos = pos;
    col_idx(diag_pos) = v;
    values(diag_pos) = (1.25 + 0.25 * diag_rng.uniform(static_cast<std::uint64_t>(v), 0)) * offdiag_sum + 0.05 +
                       0.2 * diag_rng.uniform(static_cast<std::uint64_t>(v), 1);
  });
  Kokkos::DefaultHostExecutionSpace().fence();
  return a;
}

// Points of a grid coupled to a fixed set of offsets (in increasing neighbour-index order).
struct StencilPattern {
  Grid3 grid;
  bool box;  // 27-point (whole 3x3x3 box) rather than 7-point (axis neighbours)
  int noffsets = 0;
  int di[26], dj[26], dk[26];

  StencilPattern(const Grid3& g, bool full_box) : grid(g), box(full_box) {
    for (int z = -1; z <= 1; ++z)
      for (int y = -1; y <= 1; ++y)
        for (int x = -1; x <= 1; ++x) {
          const int nonzero = (x != 0) + (y != 0) + (z != 0);
          if (nonzero == 0 || (!full_box && nonzero != 1)) continue;
          di[noffsets] = x;
          dj[noffsets] = y;
          dk[noffsets] = z;
          ++noffsets;
        }
  }
  template <class F>
  void for_each_neighbour(ordinal_t v, F&& f) const {
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    for (int o = 0; o < noffsets; ++o)
      if (grid.contains(i + di[o], j + dj[o], k + dk[o])) f(grid.index(i + di[o], j + dj[o], k + dk[o]));
  }
  ordinal_t degree(ordinal_t v) const {
    // Per axis, how many of the positions -1, 0, +1 lie inside the grid.
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    const int cx = 1 + (i > 0) + (i < grid.nx - 1), cy = 1 + (j > 0) + (j < grid.ny - 1),
              cz = 1 + (k > 0) + (k < grid.nz - 1);
    return box ? cx * cy * cz - 1 : (cx - 1) + (cy - 1) + (cz - 1);
  }
};

struct BandPattern {
  ordinal_t n, h;
  ordinal_t first(ordinal_t v) const { return v > h ? v - h : 0; }
  ordinal_t last(ordinal_t v) const { return v < n - 1 - h ? v + h : n - 1; }  // no overflow for large h
  template <class F>
  void for_each_neighbour(ordinal_t v, F&& f) const {
    for (ordinal_t u = first(v), e = last(v); u <= e; ++u)
      if (u != v) f(u);
  }
  ordinal_t degree(ordinal_t v) const { return last(v) - first(v); }
};

struct GraphPattern {
  const Graph* g;
  template <class F>
  void for_each_neighbour(ordinal_t v, F&& f) const {
    for (offset_t k = g->row_ptr[v]; k < g->row_ptr[v + 1]; ++k) f(g->adj[k]);
  }
  ordinal_t degree(ordinal_t v) const { return g->degree(v); }
};

}  // namespace

CsrMatrix<double, HostSpace> stencil_7pt(ordinal_t nx, ordinal_t ny, ordinal_t nz, std::uint64_t seed) {
  const auto grid = Grid3::checked(nx, ny, nz, "stencil_7pt");
  return dominant_matrix(StencilPattern(grid, false), grid.size(), seed, "stencil_7pt");
}

CsrMatrix<double, HostSpace> stencil_27pt(ordinal_t nx, ordinal_t ny, ordinal_t nz, std::uint64_t seed) {
  const auto grid = Grid3::checked(nx, ny, nz, "stencil_27pt");
  return dominant_matrix(StencilPattern(grid, true), grid.size(), seed, "stencil_27pt");
}

CsrMatrix<double, HostSpace> band_matrix(ordinal_t n, ordinal_t half_bandwidth, std::uint64_t seed) {
  if (n <= 0) throw InvalidArgument("band_matrix: size " + std::to_string(n) + " is not positive");
  if (half_bandwidth < 0)
    throw InvalidArgument("band_matrix: half bandwidth " + std::to_string(half_bandwidth) + " is negative");
  return dominant_matrix(BandPattern{n, half_bandwidth}, n, seed, "band_matrix");
}

CsrMatrix<double, HostSpace> matrix_of_graph(const Graph& g, std::uint64_t seed) {
  validate(g, "matrix_of_graph: graph");
  return dominant_matrix(GraphPattern{&g}, g.n, seed, "matrix_of_graph");
}

}  // namespace ppsparse::gen
