#pragma once
/// @file
/// An undirected graph in compressed adjacency form: the coupling pattern that
/// generators, meshes and reorderings exchange. Host-side; symmetric, no self loops,
/// neighbours sorted.
#include <string>
#include <vector>

#include <ppsparse/formats/bsr.hpp>
#include <ppsparse/formats/csr.hpp>

namespace ppsparse {

/// An undirected graph in adjacency (CSR) form: the neighbours of v are
/// adj[row_ptr[v] .. row_ptr[v + 1]).
struct Graph {
  ordinal_t n = 0;
  std::vector<offset_t> row_ptr{0};  ///< n + 1
  std::vector<ordinal_t> adj;        ///< row_ptr[n]

  offset_t num_edges_directed() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
  ordinal_t degree(ordinal_t v) const { return static_cast<ordinal_t>(row_ptr[v + 1] - row_ptr[v]); }
};

/// Builds a graph from an edge list (any order, duplicates and self loops allowed):
/// the result is symmetrised, deduplicated, loop-free and sorted.
Graph graph_from_edges(ordinal_t n, const std::vector<std::pair<ordinal_t, ordinal_t>>& edges);

/// The symmetrised pattern of a square matrix, diagonal dropped. InvalidArgument if not square.
template <class Scalar>
Graph graph_of(const CsrMatrix<Scalar, HostSpace>& a);
/// The block-row graph of a block matrix (one vertex per block row).
template <class Scalar>
Graph graph_of(const BsrMatrix<Scalar, HostSpace>& a);  // block graph

/// Throws InvalidArgument (naming the first defect) unless g is symmetric, loop-free,
/// sorted and in range.
void validate(const Graph& g, const std::string& what = "graph");

}  // namespace ppsparse
