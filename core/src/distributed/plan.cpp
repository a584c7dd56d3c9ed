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
#include <ppsparse/util/names.hpp>

#include "plan_common.hpp"

namespace ppsparse::distributed {

using namespace setup;

namespace {

/// A fixed pseudo-random number per global id (splitmix64).
std::uint64_t priority_hash(global_t id) {
  std::uint64_t z = static_cast<std::uint64_t>(id) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// The colouring's order: larger degree first (fewer colours than a random order on meshes),
/// then the pseudo-random number, then the id; the same on every rank and every partition.
bool before(ordinal_t degree_a, global_t a, ordinal_t degree_b, global_t b) {
  if (degree_a != degree_b) return degree_a > degree_b;
  const auto ha = priority_hash(a), hb = priority_hash(b);
  return ha != hb ? ha > hb : a < b;
}

using Owner = GhostOwner;
struct CrossEdge {
  ordinal_t target;    // the receiver's row (0-based user index)
  ordinal_t source;    // the sender's row
  global_t source_id;  // 0-based
};

/// Rows of neighbouring ranks coupled to owned rows in either direction, and how colours of
/// rows travel between the ranks (both sides list the same rows in the same order).
struct ColourHalo {
  std::vector<int> ranks;                    // ascending
  std::vector<std::vector<ordinal_t>> send;  // per rank: owned rows whose colour it needs
  std::vector<std::vector<ordinal_t>> recv;  // per rank: remote slots (0-based) filled from it
  std::vector<global_t> remote_id;           // per remote slot
  std::vector<int> remote_rank;
  std::vector<ordinal_t> remote_index;  // the owner's user index
};

/// Sends each colour neighbour the values of the owned rows it needs (colours, degrees).
void exchange_colours(MPI_Comm comm, const ColourHalo& h, const std::vector<ordinal_t>& owned,
                      std::vector<ordinal_t>& remote) {
  std::vector<std::vector<ordinal_t>> out(h.ranks.size()), in(h.ranks.size());
  std::vector<MPI_Request> requests;
  constexpr int tag = 4102;
  for (size_t k = 0; k < h.ranks.size(); ++k) {
    in[k].resize(h.recv[k].size());
    requests.emplace_back();
    MPI_Irecv(in[k].data(), static_cast<int>(in[k].size()), MPI_INT, h.ranks[k], tag, comm, &requests.back());
  }
  for (size_t k = 0; k < h.ranks.size(); ++k) {
    for (const ordinal_t i : h.send[k]) out[k].push_back(owned[i]);
    requests.emplace_back();
    MPI_Isend(out[k].data(), static_cast<int>(out[k].size()), MPI_INT, h.ranks[k], tag, comm, &requests.back());
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (size_t k = 0; k < h.ranks.size(); ++k)
    for (size_t t = 0; t < in[k].size(); ++t) remote[h.recv[k][t]] = in[k][t];
}

/// The global colour classes' sizes (collective).
std::vector<long long> class_sizes(MPI_Comm comm, const std::vector<ordinal_t>& color) {
  ordinal_t ncolors = 0;
  for (const ordinal_t c : color) ncolors = std::max(ncolors, c + 1);
  MPI_Allreduce(MPI_IN_PLACE, &ncolors, 1, MPI_INT, MPI_MAX, comm);
  std::vector<long long> sizes(static_cast<size_t>(ncolors), 0);
  for (const ordinal_t c : color) ++sizes[c];
  MPI_Allreduce(MPI_IN_PLACE, sizes.data(), ncolors, MPI_LONG_LONG, MPI_SUM, comm);
  return sizes;
}

/// reorder::recolor_iterated_greedy over the ranks (Culberson 1992): each pass colours the rows
/// first-fit again, class by class from the last colour to the first. A class's rows are never
/// coupled, so a rank colours its rows of a class at once against the new colours of the
/// classes before (remote rows' after an exchange), and the result is the sequential one, on
/// any partition. Keeps the pass with the fewest colours (ties: the larger smallest class), as
/// the sequential function does.
void recolor_iterated_greedy(MPI_Comm comm, const ColourHalo& ch, const std::vector<std::vector<ordinal_t>>& adjacency,
                             ordinal_t n, int passes, std::vector<ordinal_t>& color,
                             std::vector<ordinal_t>& remote_color) {
  std::vector<long long> best_sizes = class_sizes(comm, color), current_sizes = best_sizes;
  std::vector<ordinal_t> current = color, current_remote = remote_color;
  std::vector<ordinal_t> fresh, fresh_remote, by_class(static_cast<size_t>(n)), class_start;
  std::vector<char> taken;
  for (int pass = 0; pass < passes; ++pass) {
    // This rank's rows grouped by class (counting sort), so that each class is one scan.
    const auto ncolors = static_cast<ordinal_t>(current_sizes.size());
    class_start.assign(static_cast<size_t>(ncolors) + 1, 0);
    for (ordinal_t i = 0; i < n; ++i) ++class_start[current[i] + 1];
    for (ordinal_t c = 0; c < ncolors; ++c) class_start[c + 1] += class_start[c];
    std::vector<ordinal_t> next(class_start.begin(), class_start.end() - 1);
    for (ordinal_t i = 0; i < n; ++i) by_class[next[current[i]]++] = i;
    fresh.assign(static_cast<size_t>(n), -1);
    fresh_remote.assign(current_remote.size(), -1);
    for (ordinal_t cls = ncolors - 1; cls >= 0; --cls) {
      for (ordinal_t p = class_start[cls]; p < class_start[cls + 1]; ++p) {
        const ordinal_t i = by_class[p];
        taken.assign(adjacency[i].size() + 1, 0);
        for (const ordinal_t v : adjacency[i]) {
          const ordinal_t f = v < n ? fresh[v] : fresh_remote[v - n];
          if (f >= 0 && static_cast<size_t>(f) < taken.size()) taken[f] = 1;
        }
        fresh[i] = static_cast<ordinal_t>(std::find(taken.begin(), taken.end(), 0) - taken.begin());
      }
      exchange_colours(comm, ch, fresh, fresh_remote);
    }
    current.swap(fresh);
    current_remote.swap(fresh_remote);
    current_sizes = class_sizes(comm, current);
    const auto smallest = [](const std::vector<long long>& z) { return *std::min_element(z.begin(), z.end()); };
    if (current_sizes.size() < best_sizes.size() ||
        (current_sizes.size() == best_sizes.size() && smallest(current_sizes) > smallest(best_sizes))) {
      best_sizes = current_sizes;
      color = current;
      remote_color = current_remote;
    }
  }
}

}  // namespace

namespace {
constexpr const char* kHaloColoringNames[] = {"partition_independent", "boundary_first",
                                              "boundary_pairs"};  // HaloColoring's order
}  // namespace

const char* name(HaloColoring c) { return util::name_of(c, kHaloColoringNames); }

HaloColoring parse_halo_coloring(const std::string& s) {
  return util::parse_name<HaloColoring>(s, kHaloColoringNames, "halo colouring");
}

DistributedPlan make_distributed_plan(MPI_Comm comm, const LocalStructure& s, const std::vector<ordinal_t>& colors,
                                      int recolor_passes, HaloColoring halo_coloring) {
  DistributedPlan plan;
  MPI_Comm_rank(comm, &plan.rank);
  MPI_Comm_size(comm, &plan.size);
  const int size = plan.size, rank = plan.rank;
  const int base = s.index_base;
  const ordinal_t n = s.n, ng = s.n_ghost;
  collectively(comm, [&] {
    if (recolor_passes < 0)
      throw InvalidArgument(who + "recolor_passes is " + std::to_string(recolor_passes) + ", < 0");
  });
  const auto [passes_lo, passes_hi] = range_over_ranks(comm, recolor_passes);
  if (passes_lo != passes_hi)
    throw InvalidArgument(who + "recolor_passes differs between the ranks (" + std::to_string(passes_lo) + " to " +
                          std::to_string(passes_hi) + ")");
  const auto [coloring_lo, coloring_hi] = range_over_ranks(comm, static_cast<int>(halo_coloring));
  if (coloring_lo != coloring_hi)
    throw InvalidArgument(who + "the halo colouring differs between the ranks (" +
                          name(static_cast<HaloColoring>(coloring_lo)) + " on some, " +
                          name(static_cast<HaloColoring>(coloring_hi)) + " on others)");
  // boundary_pairs: the boundary-first order, and rows coupled across ranks in different pairs
  // of colours (c and c ^ 1), so that each pair exchanges once, after its second colour.
  const bool pairs = halo_coloring == HaloColoring::boundary_pairs;
  const bool boundary_first = halo_coloring == HaloColoring::boundary_first || pairs;
  if (boundary_first && recolor_passes > 0 && colors.empty())
    throw InvalidArgument(who + "recolor_passes = " + std::to_string(recolor_passes) + " with the " +
                          distributed::name(halo_coloring) +
                          " colouring: the recolouring would spread the boundary rows over every colour again (use "
                          "one or the other)");
  const std::vector<GhostOwner> ghost_owner = locate_ghosts(comm, s, &plan.n_global);
  const auto name = [&](global_t id) { return "global id " + std::to_string(id + base); };

  // 4. Value requests (each ghost from its owner) and the coupling in both directions.
  std::vector<std::vector<ordinal_t>> requests(size);
  std::vector<std::vector<CrossEdge>> edges_out(size);
  for (ordinal_t j = 0; j < ng; ++j) requests[ghost_owner[j].rank].push_back(ghost_owner[j].index);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = s.row_ptr[i] - base; k < s.row_ptr[i + 1] - base; ++k) {
      const ordinal_t c = s.col_idx[k] - base;
      if (c >= n) {
        const Owner& o = ghost_owner[c - n];
        edges_out[o.rank].push_back({o.index, i, s.global_ids[i] - base});
      }
    }
  const auto requested = all_to_all(comm, requests);
  const auto edges_in = all_to_all(comm, edges_out);

  // 5. The colour halo: remote rows coupled either way; both sides order them by the owner's index.
  ColourHalo ch;
  std::vector<std::vector<ordinal_t>> adjacency(static_cast<size_t>(n));  // < n owned, >= n remote slot + n
  {
    std::map<std::pair<int, ordinal_t>, ordinal_t> slot_of;  // (rank, owner index) -> remote slot
    std::vector<std::vector<ordinal_t>> send_rows(size);
    const auto remote = [&](int q, ordinal_t index, global_t id) {
      const auto [it, fresh] = slot_of.emplace(std::make_pair(q, index), static_cast<ordinal_t>(ch.remote_id.size()));
      if (fresh) {
        ch.remote_id.push_back(id);
        ch.remote_rank.push_back(q);
        ch.remote_index.push_back(index);
      }
      return it->second;
    };
    for (ordinal_t i = 0; i < n; ++i)
      for (offset_t k = s.row_ptr[i] - base; k < s.row_ptr[i + 1] - base; ++k) {
        const ordinal_t c = s.col_idx[k] - base;
        if (c < n) {
          adjacency[i].push_back(c);
          adjacency[c].push_back(i);
        } else {
          const Owner& o = ghost_owner[c - n];
          adjacency[i].push_back(n + remote(o.rank, o.index, s.ghost_ids[c - n] - base));
          send_rows[o.rank].push_back(i);
        }
      }
    for (int q = 0; q < size; ++q)
      for (const CrossEdge& e : edges_in[q]) {
        adjacency[e.target].push_back(n + remote(q, e.source, e.source_id));
        send_rows[q].push_back(e.target);
      }
    std::vector<std::vector<std::pair<ordinal_t, ordinal_t>>> recv(size);  // (owner index, slot)
    for (const auto& [key, slot] : slot_of) recv[key.first].emplace_back(key.second, slot);
    for (int q = 0; q < size; ++q) {
      auto& rows = send_rows[q];
      std::sort(rows.begin(), rows.end());
      rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
      if (rows.empty() && recv[q].empty()) continue;
      ch.ranks.push_back(q);
      ch.send.push_back(std::move(rows));
      std::vector<ordinal_t> slots;
      for (const auto& [index, slot] : recv[q]) slots.push_back(slot);  // the map's order: by owner index
      ch.recv.push_back(std::move(slots));
    }
    for (auto& a : adjacency) {
      std::sort(a.begin(), a.end());
      a.erase(std::unique(a.begin(), a.end()), a.end());
    }
  }
  const auto id_of = [&](ordinal_t v) { return v < n ? s.global_ids[v] - base : ch.remote_id[v - n]; };

  // 6. The colouring: the user's, checked across ranks, or the greedy one in priority order.
  std::vector<ordinal_t> color(static_cast<size_t>(n), -1), remote_color(ch.remote_id.size(), -1);
  const auto color_of = [&](ordinal_t v) { return v < n ? color[v] : remote_color[v - n]; };
  if (!colors.empty()) {
    collectively(comm, [&] {
      if (colors.size() != static_cast<size_t>(n))
        throw InvalidArgument(who + "the colouring has " + std::to_string(colors.size()) + " entries for " +
                              std::to_string(n) + " owned block rows");
      for (ordinal_t i = 0; i < n; ++i)
        if (colors[i] < 0)
          throw InvalidArgument(who + "owned row " + std::to_string(i + base) + " has negative colour " +
                                std::to_string(colors[i]));
    });
    color = colors;
    exchange_colours(comm, ch, color, remote_color);
    collectively(comm, [&] {
      for (ordinal_t i = 0; i < n; ++i)
        for (const ordinal_t v : adjacency[i])
          if (color_of(v) == color[i]) {
            const std::string where = v < n ? "on this rank" : "on rank " + std::to_string(ch.remote_rank[v - n]);
            throw InvalidArgument(who + "inconsistent colouring: coupled rows " + name(id_of(i)) + " and " +
                                  name(id_of(v)) + " (" + where + ") share colour " + std::to_string(color[i]));
          }
    });
    // The same colour ids on every rank, compacted in order.
    std::vector<ordinal_t> used(color.begin(), color.end());
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    int count = static_cast<int>(used.size());
    std::vector<int> counts(size), displs(size, 0);
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
    std::vector<ordinal_t> all(static_cast<size_t>(displs.back() + counts.back()));
    MPI_Allgatherv(used.data(), count, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, comm);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    const auto compact = [&](ordinal_t c) {
      return static_cast<ordinal_t>(std::lower_bound(all.begin(), all.end(), c) - all.begin());
    };
    for (auto& c : color) c = compact(c);
    for (auto& c : remote_color) c = compact(c);
  } else {
    // Boundary rows: coupled to another rank's (every remote row is one, on its own rank). Only
    // the boundary-first order reads them.
    std::vector<char> on_boundary(static_cast<size_t>(n), 0);
    if (boundary_first)
      for (ordinal_t i = 0; i < n; ++i)
        on_boundary[i] = std::any_of(adjacency[i].begin(), adjacency[i].end(), [&](ordinal_t v) { return v >= n; });
    const auto boundary = [&](ordinal_t v) { return v >= n || on_boundary[v] != 0; };
    // Every row's degree in the symmetrised graph, remote rows' from their ranks.
    std::vector<ordinal_t> degree(static_cast<size_t>(n)), remote_degree(ch.remote_id.size(), 0);
    for (ordinal_t i = 0; i < n; ++i) degree[i] = static_cast<ordinal_t>(adjacency[i].size());
    exchange_colours(comm, ch, degree, remote_degree);
    const auto degree_of = [&](ordinal_t v) { return v < n ? degree[v] : remote_degree[v - n]; };
    const auto earlier = [&](ordinal_t a, ordinal_t b) {
      if (boundary_first && boundary(a) != boundary(b)) return boundary(a);
      return before(degree_of(a), id_of(a), degree_of(b), id_of(b));
    };
    std::vector<ordinal_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), earlier);
    std::vector<char> taken;
    long long left = n;
    while (true) {
      long long global_left = left;
      MPI_Allreduce(MPI_IN_PLACE, &global_left, 1, MPI_LONG_LONG, MPI_SUM, comm);
      if (global_left == 0) break;
      // One pass in priority order colours every row whose earlier neighbours are all coloured.
      std::vector<ordinal_t> waiting;
      for (const ordinal_t i : order) {
        bool ready = true;
        // Each neighbour marks one colour (two across ranks with pairs): one stays free.
        taken.assign((pairs ? 2 : 1) * adjacency[i].size() + 1, 0);
        for (const ordinal_t v : adjacency[i]) {
          if (!earlier(v, i)) continue;
          const ordinal_t c = color_of(v);
          if (c < 0) {
            ready = false;
            break;
          }
          if (static_cast<size_t>(c) < taken.size()) taken[c] = 1;
          // A row of another rank takes its whole pair.
          if (pairs && v >= n && static_cast<size_t>(c ^ 1) < taken.size()) taken[c ^ 1] = 1;
        }
        if (!ready) {
          waiting.push_back(i);
          continue;
        }
        color[i] = static_cast<ordinal_t>(std::find(taken.begin(), taken.end(), 0) - taken.begin());
        --left;
      }
      order.swap(waiting);
      exchange_colours(comm, ch, color, remote_color);
    }
    recolor_iterated_greedy(comm, ch, adjacency, n, recolor_passes, color, remote_color);
  }
  ordinal_t ncolors = 0;
  for (const ordinal_t c : color) ncolors = std::max(ncolors, c + 1);
  MPI_Allreduce(MPI_IN_PLACE, &ncolors, 1, MPI_INT, MPI_MAX, comm);
  // The colour after which a colour's rows are exchanged: its own, or its pair's second.
  const auto exchange_colour = [&](ordinal_t c) { return pairs ? std::min<ordinal_t>(c | 1, ncolors - 1) : c; };

  // 7. Boundary rows (read by other ranks) first in each colour, grouped by the ranks that read
  // them (so that the rows one rank reads are consecutive where they can be), then the interior.
  std::vector<std::vector<int>> readers(static_cast<size_t>(n));
  for (int q = 0; q < size; ++q)
    for (const ordinal_t i : requested[q]) readers[i].push_back(q);
  Coloring coloring;
  coloring.ncolors = ncolors;
  coloring.color = color;
  coloring.color_offsets.assign(static_cast<size_t>(ncolors) + 1, 0);
  std::vector<std::vector<ordinal_t>> boundary_rows(static_cast<size_t>(ncolors)), interior_rows(boundary_rows);
  for (ordinal_t i = 0; i < n; ++i) {
    ++coloring.color_offsets[color[i] + 1];
    (readers[i].empty() ? interior_rows : boundary_rows)[color[i]].push_back(i);
  }
  std::partial_sum(coloring.color_offsets.begin(), coloring.color_offsets.end(), coloring.color_offsets.begin());
  std::vector<ordinal_t> new_to_old;
  new_to_old.reserve(static_cast<size_t>(n));
  std::vector<ordinal_t> boundary_end(static_cast<size_t>(ncolors));
  for (ordinal_t c = 0; c < ncolors; ++c) {
    auto& rows = boundary_rows[c];
    std::stable_sort(rows.begin(), rows.end(), [&](ordinal_t a, ordinal_t b) { return readers[a] < readers[b]; });
    new_to_old.insert(new_to_old.end(), rows.begin(), rows.end());
    boundary_end[c] = static_cast<ordinal_t>(new_to_old.size());
    new_to_old.insert(new_to_old.end(), interior_rows[c].begin(), interior_rows[c].end());
  }
  coloring.perm = Permutation::from_new_to_old(std::move(new_to_old));

  // 8. Ghosts ordered by exchange (their colour, or their pair), owner and the owner's colour
  // order: each exchange's ghosts, and those of one owner within it, are then consecutive, and a
  // message lands where the sweep reads it. Each owner says where the rows asked of it lie in
  // its colour order.
  std::vector<ordinal_t> ghost_color(static_cast<size_t>(ng)), owner_position(static_cast<size_t>(ng));
  {
    std::map<std::pair<int, ordinal_t>, ordinal_t> slot_of;
    for (size_t v = 0; v < ch.remote_id.size(); ++v)
      slot_of[{ch.remote_rank[v], ch.remote_index[v]}] = static_cast<ordinal_t>(v);
    for (ordinal_t j = 0; j < ng; ++j)
      ghost_color[j] = remote_color[slot_of.at({ghost_owner[j].rank, ghost_owner[j].index})];
    std::vector<std::vector<ordinal_t>> positions(size);
    for (int q = 0; q < size; ++q)
      for (const ordinal_t i : requested[q]) positions[q].push_back(coloring.perm.old_to_new[i]);
    const auto answered_positions = all_to_all(comm, positions);
    std::vector<size_t> next(size, 0);
    for (ordinal_t j = 0; j < ng; ++j)
      owner_position[j] = answered_positions[ghost_owner[j].rank][next[ghost_owner[j].rank]++];
  }
  std::vector<ordinal_t> ghost_order(static_cast<size_t>(ng)), ghost_slot(static_cast<size_t>(ng));
  std::iota(ghost_order.begin(), ghost_order.end(), 0);
  std::sort(ghost_order.begin(), ghost_order.end(), [&](ordinal_t a, ordinal_t b) {
    return std::make_tuple(exchange_colour(ghost_color[a]), ghost_owner[a].rank, owner_position[a]) <
           std::make_tuple(exchange_colour(ghost_color[b]), ghost_owner[b].rank, owner_position[b]);
  });
  for (ordinal_t p = 0; p < ng; ++p) ghost_slot[ghost_order[p]] = p;
  const offset_t nnzb = s.row_ptr[n] - base;
  std::vector<ordinal_t> columns(s.col_idx, s.col_idx + nnzb);
  for (auto& col : columns)
    if (col - base >= n) col = n + ghost_slot[col - base - n] + base;
  collectively(comm, [&] {
    plan.setup = mcpi::detail::make_setup_plan(s.nb, n, s.row_ptr, columns.data(), base, {}, &coloring, ng);
  });
  plan.setup.boundary_end = std::move(boundary_end);
  plan.setup.global_ids.assign(s.global_ids, s.global_ids + n);
  plan.setup.global_ids.resize(static_cast<size_t>(n) + ng);
  for (ordinal_t j = 0; j < ng; ++j) plan.setup.global_ids[static_cast<size_t>(n + ghost_slot[j])] = s.ghost_ids[j];

  // 9. Per exchange colour and neighbour: the rows to send in colour order, and the ghost slots
  // they fill, in the same order on both sides (a pair's first colour sends nothing).
  HaloLists& h = plan.halo;
  for (int q = 0; q < size; ++q)
    if (!requested[q].empty() || !requests[q].empty()) h.neighbours.push_back(q);
  const size_t nn = h.neighbours.size();
  std::vector<std::vector<ordinal_t>> send(ncolors * nn), recv(ncolors * nn);
  for (size_t k = 0; k < nn; ++k) {
    const int q = h.neighbours[k];
    std::vector<ordinal_t> rows;
    for (const ordinal_t i : requested[q]) rows.push_back(plan.setup.coloring.perm.old_to_new[i]);
    std::sort(rows.begin(), rows.end());
    for (const ordinal_t p : rows)
      send[exchange_colour(color[plan.setup.coloring.perm.new_to_old[p]]) * nn + k].push_back(p);
  }
  for (const ordinal_t j : ghost_order) {
    const size_t k =
        std::lower_bound(h.neighbours.begin(), h.neighbours.end(), ghost_owner[j].rank) - h.neighbours.begin();
    recv[exchange_colour(ghost_color[j]) * nn + k].push_back(ghost_slot[j]);
  }
  h.send_offsets.assign(1, 0);
  h.recv_offsets.assign(1, 0);
  for (size_t e = 0; e < send.size(); ++e) {
    h.send_rows.insert(h.send_rows.end(), send[e].begin(), send[e].end());
    h.recv_ghosts.insert(h.recv_ghosts.end(), recv[e].begin(), recv[e].end());
    h.send_offsets.push_back(static_cast<offset_t>(h.send_rows.size()));
    h.recv_offsets.push_back(static_cast<offset_t>(h.recv_ghosts.size()));
  }
  return plan;
}

}  // namespace ppsparse::distributed
