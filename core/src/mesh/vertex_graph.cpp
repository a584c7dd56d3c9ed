#include <ppsparse/mesh/vertex_graph.hpp>

namespace ppsparse::mesh {

Graph vertex_graph(const Mesh& m) {
  validate(m, "vertex_graph: mesh");
  std::vector<std::pair<ordinal_t, ordinal_t>> edges;
  size_t count = 0;
  for (ElementType t : m.types) count += element_edges(t).size();
  edges.reserve(count);
  for (ordinal_t e = 0; e < m.nelements(); ++e) {
    const ordinal_t* v = m.elem_nodes.data() + m.elem_ptr[e];
    for (const auto& ed : element_edges(m.types[e])) edges.emplace_back(v[ed[0]], v[ed[1]]);
  }
  // graph_from_edges symmetrises and removes the duplicates of edges shared by elements.
  return graph_from_edges(m.npoints(), edges);
}

}  // namespace ppsparse::mesh
