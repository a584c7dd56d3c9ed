// The distributed setup's first collective step: every rank's ghosts located on their owners,
// with the checks of each rank's structure (distributed/plan.hpp, locate_ghosts).
#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <ppsparse/distributed/collective.hpp>
#include <ppsparse/distributed/plan.hpp>
#include <ppsparse/error.hpp>

#include "plan_common.hpp"

namespace ppsparse::distributed {

using namespace setup;

namespace {

using Owner = GhostOwner;
struct Placed {
  global_t id;  // 0-based
  ordinal_t index;
};

}  // namespace

std::vector<GhostOwner> locate_ghosts(MPI_Comm comm, const LocalStructure& s, global_t* n_global_out) {
  int size = 1, rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int base = s.index_base;
  const ordinal_t n = s.n, ng = s.n_ghost;

  // 1. Sizes, pointers and index ranges, locally.
  collectively(comm, [&] {
    if (s.nb < 1 || s.nb > 64)
      throw InvalidArgument(who + "block size nb = " + std::to_string(s.nb) + " is outside the supported 1..64");
    if (n < 0) throw InvalidArgument(who + "negative number of owned block rows n = " + std::to_string(n));
    if (ng < 0) throw InvalidArgument(who + "negative number of ghosts " + std::to_string(ng));
    if (base != 0 && base != 1) throw InvalidArgument(who + "index_base must be 0 or 1, got " + std::to_string(base));
    if (s.row_ptr == nullptr) throw InvalidArgument(who + "row_ptr is null");
    if (n > 0 && s.global_ids == nullptr) throw InvalidArgument(who + "global_ids is null");
    if (ng > 0 && s.ghost_ids == nullptr) throw InvalidArgument(who + "ghost_ids is null");
    if (s.row_ptr[0] != base)
      throw InvalidArgument(who + "row_ptr[0] = " + std::to_string(s.row_ptr[0]) + ", expected index_base " +
                            std::to_string(base));
    for (ordinal_t i = 0; i < n; ++i)
      if (s.row_ptr[i + 1] < s.row_ptr[i])
        throw InvalidArgument(who + "row_ptr[" + std::to_string(i + 1) + "] = " + std::to_string(s.row_ptr[i + 1]) +
                              " < row_ptr[" + std::to_string(i) + "]");
    const offset_t nnzb = s.row_ptr[n] - base;
    if (nnzb > 0 && s.col_idx == nullptr) throw InvalidArgument(who + "col_idx is null but row_ptr holds blocks");
    for (offset_t k = 0; k < nnzb; ++k) {
      const long long c = static_cast<long long>(s.col_idx[k]) - base;
      if (c < 0 || c >= static_cast<long long>(n) + ng)
        throw InvalidArgument(who + "col_idx[" + std::to_string(k) + "] = " + std::to_string(s.col_idx[k]) +
                              " is outside the owned rows and ghosts " + std::to_string(base) + ".." +
                              std::to_string(static_cast<long long>(n) + ng - 1 + base));
    }
  });
  const auto [nb_lo, nb_hi] = range_over_ranks(comm, s.nb);
  if (nb_lo != nb_hi)
    throw InvalidArgument(who + "the ranks' block sizes differ (nb from " + std::to_string(nb_lo) + " to " +
                          std::to_string(nb_hi) + ")");
  long long n_global = n;
  MPI_Allreduce(MPI_IN_PLACE, &n_global, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (n_global_out) *n_global_out = n_global;
  const global_t chunk = std::max<global_t>(1, (n_global + size - 1) / size);
  const auto directory_rank = [&](global_t id) { return static_cast<int>(id / chunk); };
  const auto name = [&](global_t id) { return "global id " + std::to_string(id + base); };

  // 2. Owned ids: in range and distinct here; then each owned by exactly one rank.
  std::unordered_map<global_t, ordinal_t> local_of;  // owned id -> user index
  collectively(comm, [&] {
    local_of.reserve(static_cast<size_t>(n));
    for (ordinal_t i = 0; i < n; ++i) {
      const global_t id = s.global_ids[i] - base;
      if (id < 0 || id >= n_global)
        throw InvalidArgument(who + "global_ids[" + std::to_string(i) + "] = " + std::to_string(s.global_ids[i]) +
                              " is outside " + std::to_string(base) + ".." + std::to_string(n_global - 1 + base) +
                              " (the ranks own " + std::to_string(n_global) + " rows in all)");
      if (!local_of.emplace(id, i).second)
        throw InvalidArgument(who + "owned rows " + std::to_string(local_of[id] + base) + " and " +
                              std::to_string(i + base) + " have the same " + name(id));
    }
  });
  std::vector<std::vector<Placed>> to_dir(size);
  for (ordinal_t i = 0; i < n; ++i) {
    const global_t id = s.global_ids[i] - base;
    to_dir[directory_rank(id)].push_back({id, i});
  }
  const auto placed = all_to_all(comm, to_dir);
  const global_t lo = std::min<global_t>(n_global, static_cast<global_t>(rank) * chunk);
  const global_t hi = std::min<global_t>(n_global, lo + chunk);
  std::vector<Owner> owner(static_cast<size_t>(hi - lo), Owner{-1, 0});
  collectively(comm, [&] {
    for (int q = 0; q < size; ++q)
      for (const Placed& p : placed[q]) {
        Owner& o = owner[static_cast<size_t>(p.id - lo)];
        if (o.rank >= 0)
          throw InvalidArgument(who + "the partition is inconsistent: " + name(p.id) + " is owned by ranks " +
                                std::to_string(o.rank) + " and " + std::to_string(q));
        o = {q, p.index};
      }
    for (global_t id = lo; id < hi; ++id)
      if (owner[static_cast<size_t>(id - lo)].rank < 0)
        throw InvalidArgument(who + "the partition does not cover every row: " + name(id) + " is owned by no rank");
  });

  // 3. Ghost ids: in range, not owned here, distinct; then their owners.
  collectively(comm, [&] {
    std::unordered_map<global_t, ordinal_t> seen;
    seen.reserve(static_cast<size_t>(ng));
    for (ordinal_t j = 0; j < ng; ++j) {
      const global_t id = s.ghost_ids[j] - base;
      const std::string at = "ghost_ids[" + std::to_string(j) + "] = " + std::to_string(s.ghost_ids[j]);
      if (id < 0 || id >= n_global)
        throw InvalidArgument(who + at + " is outside " + std::to_string(base) + ".." +
                              std::to_string(n_global - 1 + base));
      if (local_of.count(id)) throw InvalidArgument(who + at + " is a row this rank owns");
      if (!seen.emplace(id, j).second)
        throw InvalidArgument(who + at + " repeats ghost_ids[" + std::to_string(seen[id]) + "]");
    }
  });
  std::vector<std::vector<global_t>> queries(size);
  for (ordinal_t j = 0; j < ng; ++j) {
    const global_t id = s.ghost_ids[j] - base;
    queries[directory_rank(id)].push_back(id);
  }
  const auto asked = all_to_all(comm, queries);
  std::vector<std::vector<Owner>> answers(size);
  for (int q = 0; q < size; ++q)
    for (const global_t id : asked[q]) answers[q].push_back(owner[static_cast<size_t>(id - lo)]);
  const auto answered = all_to_all(comm, answers);
  std::vector<Owner> ghost_owner(static_cast<size_t>(ng));
  {
    std::vector<size_t> next(size, 0);
    for (ordinal_t j = 0; j < ng; ++j) {
      const int d = directory_rank(s.ghost_ids[j] - base);
      ghost_owner[j] = answered[d][next[d]++];
    }
  }

  return ghost_owner;
}

}  // namespace ppsparse::distributed
