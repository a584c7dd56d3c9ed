#include <array>
#include <ppsparse/gen/counter_rng.hpp>
#include <ppsparse/gen/grid.hpp>
#include <ppsparse/gen/mesh_graph.hpp>

namespace ppsparse::gen {
namespace {

// Stream of the per-cell element-type draws (kept apart from other generators' streams).
constexpr std::uint64_t cell_type_stream = 0x6d657368;  // "mesh"

struct Offset {
  int di, dj, dk;
  bool kuhn;  // an edge of the Kuhn tetrahedra: all nonzero components share one sign
};

// The 26 offsets in increasing order of (dk, dj, di), which is increasing order of the
// neighbour's index, so rows come out sorted without a sort.
std::array<Offset, 26> neighbour_offsets() {
  std::array<Offset, 26> out{};
  int n = 0;
  for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        if (di == 0 && dj == 0 && dk == 0) continue;
        const bool has_pos = di > 0 || dj > 0 || dk > 0;
        const bool has_neg = di < 0 || dj < 0 || dk < 0;
        out[n++] = Offset{di, dj, dk, !(has_pos && has_neg)};
      }
  return out;
}

// Decides which of the 26 candidate couplings exist: Kuhn edges always, the others
// when a cell containing both end points is a fully coupled hexahedron.
class MeshRule {
 public:
  MeshRule(const Grid3& grid, double hex_probability, std::uint64_t seed)
      : grid_(grid), p_(hex_probability), rng_(seed, cell_type_stream) {}

  bool has_edge(ordinal_t i, ordinal_t j, ordinal_t k, const Offset& o) const {
    if (!grid_.contains(i + o.di, j + o.dj, k + o.dk)) return false;
    if (o.kuhn) return true;
    if (p_ <= 0.0) return false;
    // Cells holding both points: along an axis where the offset is nonzero the cell's
    // lower corner is the smaller coordinate; where it is zero, either side.
    const std::array<int, 3> x{i, j, k}, d{o.di, o.dj, o.dk};
    const std::array<int, 3> n{grid_.nx, grid_.ny, grid_.nz};
    std::array<int, 3> lo{}, hi{};
    for (int a = 0; a < 3; ++a) {
      if (d[a] != 0) {
        lo[a] = hi[a] = x[a] < x[a] + d[a] ? x[a] : x[a] + d[a];
      } else {
        lo[a] = x[a] - 1;
        hi[a] = x[a];
      }
      if (lo[a] < 0) lo[a] = 0;
      if (hi[a] > n[a] - 2) hi[a] = n[a] - 2;
    }
    for (int ck = lo[2]; ck <= hi[2]; ++ck)
      for (int cj = lo[1]; cj <= hi[1]; ++cj)
        for (int ci = lo[0]; ci <= hi[0]; ++ci)
          if (cell_is_hex(ci, cj, ck)) return true;
    return false;
  }

 private:
  bool cell_is_hex(ordinal_t ci, ordinal_t cj, ordinal_t ck) const {
    return rng_.uniform(static_cast<std::uint64_t>(grid_.index(ci, cj, ck))) < p_;
  }

  Grid3 grid_;
  double p_;
  CounterRng rng_;
};

Graph build_mesh_graph(const Grid3& grid, double hex_probability, std::uint64_t seed) {
  const auto offsets = neighbour_offsets();
  const MeshRule rule(grid, hex_probability, seed);
  const ordinal_t n = grid.size();
  Graph g;
  g.n = n;
  g.row_ptr.assign(static_cast<size_t>(n) + 1, 0);
  offset_t* row_ptr = g.row_ptr.data();
  using host_policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;
  // Two passes (count, fill): rows are independent, so the host backend may run them in parallel.
  Kokkos::parallel_for("ppsparse::gen::mesh_graph::count", host_policy(0, n), [=](ordinal_t v) {
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    offset_t c = 0;
    for (const auto& o : offsets) c += rule.has_edge(i, j, k, o) ? 1 : 0;
    row_ptr[v + 1] = c;
  });
  Kokkos::DefaultHostExecutionSpace().fence();
  for (ordinal_t v = 0; v < n; ++v) row_ptr[v + 1] += row_ptr[v];
  g.adj.resize(static_cast<size_t>(row_ptr[n]));
  ordinal_t* adj = g.adj.data();
  Kokkos::parallel_for("ppsparse::gen::mesh_graph::fill", host_policy(0, n), [=](ordinal_t v) {
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    offset_t pos = row_ptr[v];
    for (const auto& o : offsets)
      if (rule.has_edge(i, j, k, o)) adj[pos++] = grid.index(i + o.di, j + o.dj, k + o.dk);
  });
  Kokkos::DefaultHostExecutionSpace().fence();
  return g;
}

}  // namespace

Graph tet_mesh_graph(ordinal_t nx, ordinal_t ny, ordinal_t nz) {
  return build_mesh_graph(Grid3::checked(nx, ny, nz, "tet_mesh_graph"), 0.0, 0);
}

Graph mixed_mesh_graph(ordinal_t nx, ordinal_t ny, ordinal_t nz, std::uint64_t seed) {
  return build_mesh_graph(Grid3::checked(nx, ny, nz, "mixed_mesh_graph"), mixed_mesh_hex_probability, seed);
}

}  // namespace ppsparse::gen
