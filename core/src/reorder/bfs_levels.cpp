#include <algorithm>
#include <numeric>
#include <ppsparse/reorder/bfs_levels.hpp>

namespace ppsparse {
namespace {

// Breadth-first search over one component, reusing its buffers across searches:
// a vertex is seen in the current search when stamp[v] == search id.
class LevelSearch {
 public:
  explicit LevelSearch(const Graph& g) : g_(g), stamp_(static_cast<size_t>(g.n), 0) {}

  // BFS from root: order() lists the component in BFS order, offsets() delimits its levels.
  void run(ordinal_t root) {
    if (++id_ == 0) {  // the stamp wrapped: forget every earlier search
      std::fill(stamp_.begin(), stamp_.end(), 0u);
      id_ = 1;
    }
    order_.clear();
    offsets_.assign(1, 0);
    order_.push_back(root);
    stamp_[root] = id_;
    size_t level_begin = 0;
    while (level_begin < order_.size()) {
      const size_t level_end = order_.size();
      for (size_t q = level_begin; q < level_end; ++q) {
        const ordinal_t v = order_[q];
        for (offset_t k = g_.row_ptr[v]; k < g_.row_ptr[v + 1]; ++k) {
          const ordinal_t u = g_.adj[k];
          if (stamp_[u] != id_) {
            stamp_[u] = id_;
            order_.push_back(u);
          }
        }
      }
      offsets_.push_back(static_cast<ordinal_t>(level_end));
      level_begin = level_end;
    }
  }

  const std::vector<ordinal_t>& order() const { return order_; }
  const std::vector<ordinal_t>& offsets() const { return offsets_; }
  size_t nlevels() const { return offsets_.size() - 1; }

  // Lowest-degree vertex among order()[begin, end), ties to the lowest index.
  ordinal_t min_degree_vertex(size_t begin, size_t end) const {
    ordinal_t best = order_[begin];
    for (size_t q = begin + 1; q < end; ++q) {
      const ordinal_t v = order_[q];
      if (g_.degree(v) < g_.degree(best) || (g_.degree(v) == g_.degree(best) && v < best)) best = v;
    }
    return best;
  }

 private:
  const Graph& g_;
  std::vector<unsigned> stamp_;
  unsigned id_ = 0;
  std::vector<ordinal_t> order_;
  std::vector<ordinal_t> offsets_;
};

}  // namespace

BfsLevels bfs_levels(const Graph& g) {
  validate(g, "bfs_levels: graph");
  BfsLevels out;
  std::vector<ordinal_t> new_to_old;
  new_to_old.reserve(static_cast<size_t>(g.n));
  std::vector<char> placed(static_cast<size_t>(g.n), 0);
  LevelSearch search(g);
  for (ordinal_t s = 0; s < g.n; ++s) {
    if (placed[s]) continue;
    // Find the component, start from its lowest-degree vertex, then George-Liu.
    search.run(s);
    search.run(search.min_degree_vertex(0, search.order().size()));
    while (true) {
      const size_t depth = search.nlevels();
      const auto& off = search.offsets();
      const ordinal_t candidate = search.min_degree_vertex(off[depth - 1], off[depth]);
      search.run(candidate);
      if (search.nlevels() <= depth) break;  // not longer: keep this (equally deep) structure
    }
    const ordinal_t base = static_cast<ordinal_t>(new_to_old.size());
    for (ordinal_t v : search.order()) {
      placed[v] = 1;
      new_to_old.push_back(v);
    }
    for (size_t l = 1; l < search.offsets().size(); ++l) out.level_offsets.push_back(base + search.offsets()[l]);
  }
  out.perm = Permutation::from_new_to_old(std::move(new_to_old));
  return out;
}

BfsLevels input_order_levels(const Graph& g) {
  validate(g, "input_order_levels: graph");
  BfsLevels out;
  std::vector<ordinal_t> identity(static_cast<size_t>(g.n));
  std::iota(identity.begin(), identity.end(), 0);
  out.perm = Permutation::from_new_to_old(std::move(identity));
  // A level [begin, end) ends past the farthest neighbour of every vertex below begin: an
  // edge (u, v), u < v, u in level l, then has v below the end of level l + 1.
  ordinal_t far = -1;  // the farthest of the vertices below `scanned` and their neighbours
  ordinal_t scanned = 0;
  for (ordinal_t begin = 0; begin < g.n;) {
    for (; scanned < begin; ++scanned) {
      far = std::max(far, scanned);
      if (g.degree(scanned) > 0)
        far = std::max(far, g.adj[g.row_ptr[scanned + 1] - 1]);  // sorted: the last is the largest
    }
    const ordinal_t end = std::min(g.n, std::max(begin + 1, far + 1));
    out.level_offsets.push_back(end);
    begin = end;
  }
  return out;
}

ordinal_t widest_adjacent_levels(const BfsLevels& levels) {
  const auto& off = levels.level_offsets;
  const ordinal_t n = levels.nlevels();
  if (n <= 1) return off.back() - off.front();
  ordinal_t widest = 0;
  for (ordinal_t l = 0; l + 2 < static_cast<ordinal_t>(off.size()); ++l) widest = std::max(widest, off[l + 2] - off[l]);
  return widest;
}

}  // namespace ppsparse
