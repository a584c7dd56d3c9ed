#include <algorithm>
#include <string>

#include <metis.h>

#include <ppsparse/dist/partition.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::dist {

std::vector<int> partition_metis(const Graph& g, int parts) {
  if (parts < 1) throw InvalidArgument("partition_metis: parts = " + std::to_string(parts) + " must be >= 1");
  std::vector<int> part(static_cast<size_t>(g.n), 0);
  if (parts == 1 || g.n == 0) return part;
  // METIS takes a symmetric graph without self loops, in its own index type.
  std::vector<std::pair<idx_t, idx_t>> edges;
  edges.reserve(2 * g.adj.size());
  for (ordinal_t v = 0; v < g.n; ++v)
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k)
      if (g.adj[k] != v) {
        edges.emplace_back(v, g.adj[k]);
        edges.emplace_back(g.adj[k], v);
      }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<idx_t> xadj(static_cast<size_t>(g.n) + 1, 0), adjncy(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) {
    ++xadj[edges[e].first + 1];
    adjncy[e] = edges[e].second;
  }
  for (ordinal_t v = 0; v < g.n; ++v) xadj[v + 1] += xadj[v];
  idx_t n = g.n, ncon = 1, nparts = parts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the same partition on every run
  std::vector<idx_t> result(static_cast<size_t>(g.n));
  const int status = METIS_PartGraphKway(&n, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &nparts,
                                         nullptr, nullptr, options, &objval, result.data());
  if (status != METIS_OK)
    throw InvalidArgument("partition_metis: METIS_PartGraphKway failed (status " + std::to_string(status) + ")");
  std::copy(result.begin(), result.end(), part.begin());
  return part;
}

LocalSystem local_share(const BlockSystem<HostSpace>& system, const std::vector<int>& part, int rank) {
  if (part.size() != static_cast<size_t>(system.n))
    throw InvalidArgument("local_share: the partition has " + std::to_string(part.size()) + " entries for " +
                          std::to_string(system.n) + " block rows");
  const int nb = system.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  LocalSystem s;
  s.nb = nb;
  std::vector<ordinal_t> local(static_cast<size_t>(system.n), -1);
  for (ordinal_t i = 0; i < system.n; ++i) {
    if (part[i] < 0)
      throw InvalidArgument("local_share: block row " + std::to_string(i) + " has part " + std::to_string(part[i]));
    if (part[i] == rank) {
      local[i] = s.n++;
      s.global_ids.push_back(i);
    }
  }
  // Ghosts: the non-owned columns of owned rows, ascending.
  for (const global_t i : s.global_ids)
    for (offset_t k = system.O.ia(i); k < system.O.ia(i + 1); ++k)
      if (part[system.O.ja(k)] != rank) s.ghost_ids.push_back(system.O.ja(k));
  std::sort(s.ghost_ids.begin(), s.ghost_ids.end());
  s.ghost_ids.erase(std::unique(s.ghost_ids.begin(), s.ghost_ids.end()), s.ghost_ids.end());
  const auto column = [&](ordinal_t c) {
    if (local[c] >= 0) return local[c];
    return s.n +
           static_cast<ordinal_t>(std::lower_bound(s.ghost_ids.begin(), s.ghost_ids.end(), c) - s.ghost_ids.begin());
  };
  s.row_ptr.push_back(0);
  for (const global_t i : s.global_ids) {
    for (offset_t k = system.O.ia(i); k < system.O.ia(i + 1); ++k) {
      s.col_idx.push_back(column(system.O.ja(k)));
      for (size_t e = 0; e < nb2; ++e) s.O.push_back(system.O.values(static_cast<size_t>(k) * nb2 + e));
    }
    s.row_ptr.push_back(static_cast<offset_t>(s.col_idx.size()));
    for (size_t e = 0; e < nb2; ++e) s.D.push_back(system.D(static_cast<size_t>(i) * nb2 + e));
    for (int e = 0; e < nb; ++e) s.R.push_back(system.R(static_cast<size_t>(i) * nb + e));
  }
  return s;
}

}  // namespace ppsparse::dist
