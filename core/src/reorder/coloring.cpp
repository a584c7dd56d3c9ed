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

std::vector<ordinal_t> color_sizes(const Coloring& c) {
  std::vector<ordinal_t> sizes(static_cast<size_t>(c.ncolors));
  for (ordinal_t k = 0; k < c.ncolors; ++k) sizes[k] = c.color_offsets[k + 1] - c.color_offsets[k];
  return sizes;
}

Coloring recolor_iterated_greedy(const Graph& g, const Coloring& c, int passes) {
  if (!is_valid_coloring(g, c.color))
    throw InvalidArgument("recolor_iterated_greedy: the colouring is not valid for the graph");
  if (passes < 0) throw InvalidArgument("recolor_iterated_greedy: passes is " + std::to_string(passes) + ", < 0");
  Coloring best = renumber_by_color(c.color);
  auto smallest = [](const Coloring& x) {
    const auto s = color_sizes(x);
    return s.empty() ? 0 : *std::min_element(s.begin(), s.end());
  };
  Coloring current = best;
  std::vector<ordinal_t> color(static_cast<size_t>(g.n));
  std::vector<ordinal_t> mark;  // mark[x] == v: a neighbour of v has colour x
  for (int pass = 0; pass < passes; ++pass) {
    std::fill(color.begin(), color.end(), -1);
    mark.assign(static_cast<size_t>(current.ncolors) + 1, -1);
    for (ordinal_t cls = current.ncolors - 1; cls >= 0; --cls)
      for (ordinal_t p = current.color_offsets[cls]; p < current.color_offsets[cls + 1]; ++p) {
        const ordinal_t v = current.perm.new_to_old[p];
        for (offset_t e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e) {
          const ordinal_t x = color[g.adj[e]];
          if (x >= 0) mark[x] = v;
        }
        ordinal_t x = 0;
        while (mark[x] == v) ++x;  // at most ncolors: the vertex's old class is free of neighbours
        color[v] = x;
      }
    current = renumber_by_color(color);
    if (current.ncolors < best.ncolors || (current.ncolors == best.ncolors && smallest(current) > smallest(best)))
      best = current;
  }
  return best;
}

}  // namespace ppsparse
