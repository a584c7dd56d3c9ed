#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>

#include <metis.h>

#include <ppsparse/distributed/collective.hpp>
#include <ppsparse/distributed/partition.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::distributed {

namespace {

// A share's ghosts (the columns it does not own, ascending) and col_idx (an owned column by its
// place in s.global_ids, which is ascending; a ghost as n + its place in ghost_ids), from each
// block's column global id.
void number_columns(LocalSystem& s, const std::vector<global_t>& column_ids) {
  const auto owned = [&](global_t c) { return std::lower_bound(s.global_ids.begin(), s.global_ids.end(), c); };
  s.ghost_ids.clear();
  for (const global_t c : column_ids) {
    const auto at = owned(c);
    if (at == s.global_ids.end() || *at != c) s.ghost_ids.push_back(c);
  }
  std::sort(s.ghost_ids.begin(), s.ghost_ids.end());
  s.ghost_ids.erase(std::unique(s.ghost_ids.begin(), s.ghost_ids.end()), s.ghost_ids.end());
  s.col_idx.clear();
  s.col_idx.reserve(column_ids.size());
  for (const global_t c : column_ids) {
    const auto at = owned(c);
    s.col_idx.push_back(at != s.global_ids.end() && *at == c
                            ? static_cast<ordinal_t>(at - s.global_ids.begin())
                            : s.n + static_cast<ordinal_t>(std::lower_bound(s.ghost_ids.begin(), s.ghost_ids.end(), c) -
                                                           s.ghost_ids.begin()));
  }
}

}  // namespace

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
  for (ordinal_t i = 0; i < system.n; ++i) {
    if (part[i] < 0)
      throw InvalidArgument("local_share: block row " + std::to_string(i) + " has part " + std::to_string(part[i]));
    if (part[i] == rank) {
      ++s.n;
      s.global_ids.push_back(i);
    }
  }
  std::vector<global_t> column_ids;
  s.row_ptr.push_back(0);
  for (const global_t i : s.global_ids) {
    for (offset_t k = system.O.ia(i); k < system.O.ia(i + 1); ++k) {
      column_ids.push_back(system.O.ja(k));
      for (size_t e = 0; e < nb2; ++e) s.O.push_back(system.O.values(static_cast<size_t>(k) * nb2 + e));
    }
    s.row_ptr.push_back(static_cast<offset_t>(column_ids.size()));
    for (size_t e = 0; e < nb2; ++e) s.D.push_back(system.D(static_cast<size_t>(i) * nb2 + e));
    for (int e = 0; e < nb; ++e) s.R.push_back(system.R(static_cast<size_t>(i) * nb + e));
  }
  number_columns(s, column_ids);
  return s;
}

LocalStructure structure_of(const LocalSystem& share) {
  LocalStructure s;
  s.nb = share.nb;
  s.n = share.n;
  s.n_ghost = static_cast<ordinal_t>(share.ghost_ids.size());
  s.row_ptr = share.row_ptr.data();
  s.col_idx = share.col_idx.data();
  s.global_ids = share.global_ids.data();
  s.ghost_ids = share.ghost_ids.data();
  return s;
}

LocalSystem redistribute(MPI_Comm comm, const LocalSystem& mine, const std::vector<int>& new_rank) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int nb = mine.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  collectively(comm, [&] {
    const std::string who = "redistribute: ";
    if (new_rank.size() != static_cast<size_t>(mine.n))
      throw InvalidArgument(who + "new_rank has " + std::to_string(new_rank.size()) + " entries for " +
                            std::to_string(mine.n) + " owned rows");
    if (mine.row_ptr.size() != static_cast<size_t>(mine.n) + 1 ||
        mine.global_ids.size() != static_cast<size_t>(mine.n) ||
        mine.col_idx.size() != static_cast<size_t>(mine.row_ptr.back()) || mine.O.size() != mine.col_idx.size() * nb2 ||
        mine.D.size() != static_cast<size_t>(mine.n) * nb2 || mine.R.size() != static_cast<size_t>(mine.n) * nb)
      throw InvalidArgument(who + "the share's arrays do not match its n = " + std::to_string(mine.n) +
                            " and nb = " + std::to_string(nb));
    const size_t columns = static_cast<size_t>(mine.n) + mine.ghost_ids.size();
    for (size_t k = 0; k < mine.col_idx.size(); ++k)
      if (mine.col_idx[k] < 0 || static_cast<size_t>(mine.col_idx[k]) >= columns)
        throw InvalidArgument(who + "col_idx[" + std::to_string(k) + "] = " + std::to_string(mine.col_idx[k]) +
                              " is outside the owned rows and ghosts 0.." + std::to_string(columns - 1));
    for (ordinal_t i = 0; i < mine.n; ++i)
      if (new_rank[i] < 0 || new_rank[i] >= size)
        throw InvalidArgument(who + "new_rank[" + std::to_string(i) + "] = " + std::to_string(new_rank[i]) +
                              " is not a rank of the communicator (0.." + std::to_string(size - 1) + ")");
  });
  // Per destination: each row's id and block count, its columns' global ids, and its values.
  std::vector<std::vector<global_t>> rows(size), columns(size);
  std::vector<std::vector<float>> o(size);
  std::vector<std::vector<double>> dr(size);
  for (ordinal_t i = 0; i < mine.n; ++i) {
    const int q = new_rank[i];
    rows[q].push_back(mine.global_ids[i]);
    rows[q].push_back(mine.row_ptr[i + 1] - mine.row_ptr[i]);
    for (offset_t k = mine.row_ptr[i]; k < mine.row_ptr[i + 1]; ++k) {
      const ordinal_t c = mine.col_idx[k];
      columns[q].push_back(c < mine.n ? mine.global_ids[c] : mine.ghost_ids[c - mine.n]);
    }
    o[q].insert(o[q].end(), mine.O.begin() + static_cast<std::ptrdiff_t>(mine.row_ptr[i] * nb2),
                mine.O.begin() + static_cast<std::ptrdiff_t>(mine.row_ptr[i + 1] * nb2));
    dr[q].insert(dr[q].end(), mine.D.begin() + static_cast<std::ptrdiff_t>(i * nb2),
                 mine.D.begin() + static_cast<std::ptrdiff_t>((i + 1) * nb2));
    dr[q].insert(dr[q].end(), mine.R.begin() + static_cast<std::ptrdiff_t>(i) * nb,
                 mine.R.begin() + static_cast<std::ptrdiff_t>(i + 1) * nb);
  }
  const auto rows_in = all_to_all(comm, rows);
  const auto columns_in = all_to_all(comm, columns);
  const auto o_in = all_to_all(comm, o);
  const auto dr_in = all_to_all(comm, dr);
  // The rows received, with where their data lie, in ascending global id.
  struct Row {
    global_t id;
    int from;
    size_t blocks, column_at, row_at;
  };
  std::vector<Row> received;
  for (int q = 0; q < size; ++q)
    for (size_t r = 0, at = 0; r < rows_in[q].size(); r += 2) {
      const size_t blocks = static_cast<size_t>(rows_in[q][r + 1]);
      received.push_back({rows_in[q][r], q, blocks, at, r / 2});
      at += blocks;
    }
  std::sort(received.begin(), received.end(), [](const Row& a, const Row& b) { return a.id < b.id; });
  LocalSystem s;
  s.nb = nb;
  s.n = static_cast<ordinal_t>(received.size());
  for (const Row& r : received) s.global_ids.push_back(r.id);
  std::vector<global_t> column_ids;
  s.row_ptr.push_back(0);
  for (const Row& r : received) {
    const auto& ids = columns_in[r.from];
    column_ids.insert(column_ids.end(), ids.begin() + static_cast<std::ptrdiff_t>(r.column_at),
                      ids.begin() + static_cast<std::ptrdiff_t>(r.column_at + r.blocks));
    s.row_ptr.push_back(static_cast<offset_t>(column_ids.size()));
    const auto& values = o_in[r.from];
    s.O.insert(s.O.end(), values.begin() + static_cast<std::ptrdiff_t>(r.column_at * nb2),
               values.begin() + static_cast<std::ptrdiff_t>((r.column_at + r.blocks) * nb2));
    const auto& d = dr_in[r.from];
    const size_t at = r.row_at * (nb2 + static_cast<size_t>(nb));
    s.D.insert(s.D.end(), d.begin() + static_cast<std::ptrdiff_t>(at),
               d.begin() + static_cast<std::ptrdiff_t>(at + nb2));
    s.R.insert(s.R.end(), d.begin() + static_cast<std::ptrdiff_t>(at + nb2),
               d.begin() + static_cast<std::ptrdiff_t>(at + nb2 + static_cast<size_t>(nb)));
  }
  number_columns(s, column_ids);
  return s;
}

}  // namespace ppsparse::distributed
