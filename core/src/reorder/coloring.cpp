#include <KokkosGraph_Distance1Color.hpp>
#include <KokkosKernels_Handle.hpp>
#include <algorithm>
#include <ppsparse/error.hpp>
#include <ppsparse/reorder/coloring.hpp>
#include <string>

namespace ppsparse {
namespace {

// Compacts colour ids (nonnegative, checked by the caller) to 0 .. ncolors-1 in their
// order, then groups vertices by colour, keeping the old order inside a colour.
Coloring renumber_by_color(std::vector<ordinal_t> color) {
  Coloring c;
  const auto n = static_cast<ordinal_t>(color.size());
  std::vector<ordinal_t> ids(color);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  c.ncolors = static_cast<ordinal_t>(ids.size());
  for (auto& x : color) x = static_cast<ordinal_t>(std::lower_bound(ids.begin(), ids.end(), x) - ids.begin());
  c.color_offsets.assign(static_cast<size_t>(c.ncolors) + 1, 0);
  for (ordinal_t x : color) ++c.color_offsets[x + 1];
  for (ordinal_t k = 0; k < c.ncolors; ++k) c.color_offsets[k + 1] += c.color_offsets[k];
  std::vector<ordinal_t> next(c.color_offsets.begin(), c.color_offsets.end() - 1);
  std::vector<ordinal_t> new_to_old(color.size());
  for (ordinal_t v = 0; v < n; ++v) new_to_old[next[color[v]]++] = v;  // counting sort: stable
  c.perm = Permutation::from_new_to_old(std::move(new_to_old));
  c.color = std::move(color);
  return c;
}

// True when no edge joins two vertices of one colour (sizes and signs checked by callers).
bool conflict_free(const Graph& g, const std::vector<ordinal_t>& color) {
  for (ordinal_t v = 0; v < g.n; ++v)
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k)
      if (color[g.adj[k]] == color[v]) return false;
  return true;
}

}  // namespace

Coloring color_distance1(const Graph& g) {
  validate(g, "color_distance1: graph");
  if (g.n == 0) return renumber_by_color({});
  using exec = Kokkos::DefaultHostExecutionSpace;
  using mem = Kokkos::HostSpace;
  using handle_t = KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, double, exec, mem, mem>;
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using rowmap_t = Kokkos::View<const offset_t*, mem, unmanaged>;
  using entries_t = Kokkos::View<const ordinal_t*, mem, unmanaged>;
  const rowmap_t rowmap(g.row_ptr.data(), g.row_ptr.size());
  const entries_t entries(g.adj.data(), g.adj.size());
  handle_t handle;
  handle.create_graph_coloring_handle();  // COLORING_DEFAULT: the library's choice for the host space
  KokkosGraph::Experimental::graph_color(&handle, g.n, g.n, rowmap, entries);
  const auto colors = handle.get_graph_coloring_handle()->get_vertex_colors();
  std::vector<ordinal_t> color(static_cast<size_t>(g.n));
  for (ordinal_t v = 0; v < g.n; ++v) color[v] = static_cast<ordinal_t>(colors(v)) - 1;  // KK colours start at 1
  handle.destroy_graph_coloring_handle();
  // Guard against a library defect rather than hand on a wrong colouring.
  const bool in_range = std::all_of(color.begin(), color.end(), [](ordinal_t x) { return x >= 0; });
  if (!in_range || !conflict_free(g, color))
    throw NumericalError("color_distance1: Kokkos Kernels returned an invalid colouring");
  return renumber_by_color(std::move(color));
}

Coloring coloring_from_colors(const Graph& g, std::vector<ordinal_t> color) {
  validate(g, "coloring_from_colors: graph");
  if (color.size() != static_cast<size_t>(g.n))
    throw InvalidArgument("coloring_from_colors: " + std::to_string(color.size()) + " colours for " +
                          std::to_string(g.n) + " vertices");
  for (ordinal_t v = 0; v < g.n; ++v) {
    if (color[v] < 0)
      throw InvalidArgument("coloring_from_colors: vertex " + std::to_string(v) + " has negative colour " +
                            std::to_string(color[v]));
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k)
      if (color[g.adj[k]] == color[v])
        throw InvalidArgument("coloring_from_colors: adjacent vertices " + std::to_string(v) + " and " +
                              std::to_string(g.adj[k]) + " share colour " + std::to_string(color[v]));
  }
  return renumber_by_color(std::move(color));
}

bool is_valid_coloring(const Graph& g, const std::vector<ordinal_t>& color) {
  validate(g, "is_valid_coloring: graph");
  if (color.size() != static_cast<size_t>(g.n)) return false;
  if (std::any_of(color.begin(), color.end(), [](ordinal_t x) { return x < 0; })) return false;
  return conflict_free(g, color);
}

}  // namespace ppsparse
