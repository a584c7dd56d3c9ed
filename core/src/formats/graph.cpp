#include <ppsparse/formats/graph.hpp>

#include <algorithm>

#include <ppsparse/error.hpp>

namespace ppsparse {

Graph graph_from_edges(ordinal_t n, const std::vector<std::pair<ordinal_t, ordinal_t>>& edges) {
  if (n < 0) throw InvalidArgument("graph_from_edges: negative vertex count");
  std::vector<offset_t> count(static_cast<size_t>(n) + 1, 0);
  for (const auto& [u, v] : edges) {
    if (u < 0 || u >= n || v < 0 || v >= n)
      throw InvalidArgument("graph_from_edges: edge (" + std::to_string(u) + ", " + std::to_string(v) +
                            ") out of range for " + std::to_string(n) + " vertices");
    if (u == v) continue;
    ++count[u + 1];
    ++count[v + 1];
  }
  for (ordinal_t i = 0; i < n; ++i) count[i + 1] += count[i];
  std::vector<ordinal_t> adj(static_cast<size_t>(count[n]));
  std::vector<offset_t> fill(count.begin(), count.end() - 1);
  for (const auto& [u, v] : edges) {
    if (u == v) continue;
    adj[fill[u]++] = v;
    adj[fill[v]++] = u;
  }
  Graph g;
  g.n = n;
  g.row_ptr.assign(static_cast<size_t>(n) + 1, 0);
  g.adj.reserve(adj.size());
  for (ordinal_t i = 0; i < n; ++i) {
    auto b = adj.begin() + count[i], e = adj.begin() + count[i + 1];
    std::sort(b, e);
    e = std::unique(b, e);
    g.adj.insert(g.adj.end(), b, e);
    g.row_ptr[i + 1] = static_cast<offset_t>(g.adj.size());
  }
  return g;
}

template <class Scalar>
Graph graph_of(const CsrMatrix<Scalar, HostSpace>& a) {
  if (a.nrows != a.ncols)
    throw InvalidArgument("graph_of: matrix is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) +
                          ", not square");
  std::vector<std::pair<ordinal_t, ordinal_t>> edges;
  edges.reserve(static_cast<size_t>(a.nnz()));
  for (ordinal_t i = 0; i < a.nrows; ++i)
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) edges.emplace_back(i, a.col_idx(k));
  return graph_from_edges(a.nrows, edges);
}

template <class Scalar>
Graph graph_of(const BsrMatrix<Scalar, HostSpace>& a) {
  if (a.nblockrows != a.nblockcols) throw InvalidArgument("graph_of: block matrix is not square");
  std::vector<std::pair<ordinal_t, ordinal_t>> edges;
  edges.reserve(static_cast<size_t>(a.nnzb()));
  for (ordinal_t i = 0; i < a.nblockrows; ++i)
    for (offset_t k = a.ia(i); k < a.ia(i + 1); ++k) edges.emplace_back(i, a.ja(k));
  return graph_from_edges(a.nblockrows, edges);
}

void validate(const Graph& g, const std::string& what) {
  if (g.row_ptr.size() != static_cast<size_t>(g.n) + 1 || g.row_ptr[0] != 0 ||
      g.row_ptr.back() != static_cast<offset_t>(g.adj.size()))
    throw InvalidArgument(what + ": row_ptr does not match n and adj");
  for (ordinal_t v = 0; v < g.n; ++v) {
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k) {
      const ordinal_t u = g.adj[k];
      if (u < 0 || u >= g.n) throw InvalidArgument(what + ": neighbour out of range at vertex " + std::to_string(v));
      if (u == v) throw InvalidArgument(what + ": self loop at vertex " + std::to_string(v));
      if (k > g.row_ptr[v] && u <= g.adj[k - 1])
        throw InvalidArgument(what + ": neighbours not strictly increasing at vertex " + std::to_string(v));
      if (!std::binary_search(g.adj.begin() + g.row_ptr[u], g.adj.begin() + g.row_ptr[u + 1], v))
        throw InvalidArgument(what + ": edge " + std::to_string(v) + "-" + std::to_string(u) + " is not symmetric");
    }
  }
}

template Graph graph_of<float>(const CsrMatrix<float, HostSpace>&);
template Graph graph_of<double>(const CsrMatrix<double, HostSpace>&);
template Graph graph_of<float>(const BsrMatrix<float, HostSpace>&);
template Graph graph_of<double>(const BsrMatrix<double, HostSpace>&);

}  // namespace ppsparse
