// The distributed MCPI (mcpi/distributed.hpp) on every rank of MPI_COMM_WORLD: the same dQ as
// the one-rank solver in the same colouring after 1, 5 and 15 sweeps, a colouring that does
// not depend on the partition, odd partitions, and bad input refused on every rank.
#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <ppsparse/distributed/partition.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/distributed.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>

#include "dist_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace ppsparse;
using Exec = Kokkos::DefaultExecutionSpace;
using DSolver = mcpi::Solver<Exec>;

using test::world_rank;
using test::world_size;

template <class T>
Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged> view(const std::vector<T>& v) {
  return Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size());
}

Graph graph_of(const BlockSystem<HostSpace>& s) {
  Graph g;
  g.n = s.n;
  g.row_ptr.assign(s.O.ia.data(), s.O.ia.data() + s.n + 1);
  g.adj.assign(s.O.ja.data(), s.O.ja.data() + s.O.ia(s.n));
  return g;
}

/// Two graphs side by side, without an edge between them.
Graph disjoint_union(const Graph& a, const Graph& b) {
  Graph g = a;
  g.n = a.n + b.n;
  for (ordinal_t v = 0; v < b.n; ++v) {
    for (offset_t k = b.row_ptr[v]; k < b.row_ptr[v + 1]; ++k) g.adj.push_back(b.adj[k] + a.n);
    g.row_ptr.push_back(static_cast<offset_t>(g.adj.size()));
  }
  return g;
}

/// x[gid] from every rank's owned rows (nb entries each).
std::vector<double> gather(const std::vector<distributed::global_t>& ids, const std::vector<double>& x, int nb,
                           ordinal_t n_global) {
  std::vector<double> local(static_cast<size_t>(n_global) * nb, 0.0), all(local.size());
  for (size_t i = 0; i < ids.size(); ++i)
    for (int e = 0; e < nb; ++e) local[static_cast<size_t>(ids[i]) * nb + e] = x[i * nb + e];
  MPI_Allreduce(local.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

std::vector<ordinal_t> gather_colors(const std::vector<distributed::global_t>& ids, const std::vector<ordinal_t>& color,
                                     ordinal_t n_global) {
  std::vector<ordinal_t> local(static_cast<size_t>(n_global), 0), all(local.size());
  for (size_t i = 0; i < ids.size(); ++i) local[static_cast<size_t>(ids[i])] = color[i] + 1;
  MPI_Allreduce(local.data(), all.data(), static_cast<int>(all.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (auto& c : all) c -= 1;  // -1: a row no rank owned
  return all;
}

/// dQ after `sweeps` sweeps of the one-rank solver of `system` in the colouring `colors`.
std::vector<double> one_rank_dq(const BlockSystem<HostSpace>& system, const std::vector<ordinal_t>& colors,
                                int sweeps) {
  mcpi::BlockPattern<HostSpace> p;
  p.nb = system.nb;
  p.n = system.n;
  p.row_ptr = system.O.ia;
  p.col_idx = system.O.ja;
  mcpi::SetupOptions options;
  options.colors = colors;
  mcpi::Solver<Exec> solver(p, options);
  Exec exec;
  solver.update(exec, system.O.values, system.D);
  Kokkos::View<double*, HostSpace> dq("dq", system.R.extent(0));
  mcpi::Control control;
  control.max_sweeps = sweeps;
  control.check_interval = 0;
  solver.apply(exec, system.R, dq, control);
  return std::vector<double>(dq.data(), dq.data() + dq.extent(0));
}

enum class Split { blocks, metis, uneven, scattered };

std::vector<int> partition(const Graph& g, Split split, int parts) {
  std::vector<int> part(static_cast<size_t>(g.n), 0);
  for (ordinal_t i = 0; i < g.n; ++i) {
    switch (split) {
      case Split::blocks:
        part[i] = static_cast<int>(static_cast<long long>(i) * parts / g.n);
        break;
      case Split::uneven:  // rank 0 owns nothing, rank 1 a quarter of rank 2's share, ...
        part[i] = parts == 1 ? 0 : 1 + static_cast<int>(static_cast<long long>(i) * i * (parts - 1) / g.n / g.n);
        break;
      case Split::scattered:
        part[i] = static_cast<int>((static_cast<unsigned long long>(i) * 2654435761ull >> 7) % parts);
        break;
      case Split::metis:
        break;
    }
  }
  return split == Split::metis ? distributed::partition_metis(g, parts) : part;
}

struct Outcome {
  std::vector<double> dq;         // global, gathered
  std::vector<ordinal_t> colors;  // global, gathered
  long long bytes = 0;            // sent by this rank
  long long messages = 0;         // sent by this rank
  mcpi::GraphStats graphs;        // this rank's
  bool has_ghosts = false;
  std::string transport;
  std::vector<int> exchanging;  // per colour: 1 where some rank exchanges
};

Outcome run_distributed(const BlockSystem<HostSpace>& system, const std::vector<int>& part, int sweeps,
                        distributed::Transport transport = distributed::Transport::automatic, int recolor_passes = 0,
                        distributed::HaloColoring halo_coloring = distributed::HaloColoring::partition_independent,
                        bool sweep_graphs = true) {
  const auto share = distributed::local_share(system, part, world_rank());
  mcpi::DistributedOptions options;
  options.transport = transport;
  options.recolor_passes = recolor_passes;
  options.halo_coloring = halo_coloring;
  auto solver = mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(share), options);
  Exec exec;
  solver.update(exec, view(share.O), view(share.D));
  std::vector<double> dq(share.R.size(), std::numeric_limits<double>::quiet_NaN());
  mcpi::Control control;
  control.max_sweeps = sweeps;
  control.check_interval = 0;
  control.sweep_graphs = sweep_graphs;
  const mcpi::Status st = solver.apply(
      exec, view(share.R), Kokkos::View<double*, HostSpace, Kokkos::MemoryUnmanaged>(dq.data(), dq.size()), control);
  EXPECT_EQ(st.sweeps, sweeps);
  Outcome out;
  out.dq = gather(share.global_ids, dq, system.nb, system.n);
  out.colors = gather_colors(share.global_ids, solver.coloring().color, system.n);
  out.bytes = solver.halo()->stats().bytes;
  out.messages = solver.halo()->stats().messages;
  out.graphs = solver.graph_stats();
  out.has_ghosts = !share.ghost_ids.empty();
  out.transport = solver.halo()->transport();
  for (ordinal_t c = 0; c < solver.coloring().ncolors; ++c) out.exchanging.push_back(solver.halo()->active(c) ? 1 : 0);
  MPI_Allreduce(MPI_IN_PLACE, out.exchanging.data(), static_cast<int>(out.exchanging.size()), MPI_INT, MPI_MAX,
                MPI_COMM_WORLD);
  return out;
}

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, scale = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

void expect_same_as_one_rank(const BlockSystem<HostSpace>& system, const std::vector<int>& part, const char* what,
                             distributed::Transport transport = distributed::Transport::automatic) {
  for (const int sweeps : {1, 5, 15}) {
    const Outcome d = run_distributed(system, part, sweeps, transport);
    const auto ref = one_rank_dq(system, d.colors, sweeps);
    // The FP32 iterate, summed in another order where a row's ghosts sort differently.
    EXPECT_LT(max_relative_difference(d.dq, ref), 2e-6)
        << what << ", " << sweeps << " sweeps, rank " << world_rank() << " of " << world_size();
    // The structure is symmetric: a rank with ghosts also sends.
    EXPECT_EQ(d.bytes > 0, d.has_ghosts) << what << ": rank " << world_rank() << " sent " << d.bytes << " bytes";
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible)
      EXPECT_EQ(d.transport, transport == distributed::Transport::staged ? "staged through host buffers" : "host MPI");
    else
      EXPECT_FALSE(d.transport.empty());
  }
}

TEST(DistributedMcpi, SameAsOneRankOnEveryPartition) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(7, 6, 5), 3, test::test_seed());
  const Graph g = graph_of(system);
  for (const Split s : {Split::blocks, Split::metis, Split::scattered})
    expect_same_as_one_rank(system, partition(g, s, world_size()),
                            s == Split::blocks  ? "blocks"
                            : s == Split::metis ? "metis"
                                                : "scattered");
}

TEST(DistributedMcpi, SameAsOneRankStagedThroughHostBuffers) {
  // Scattered rows: most boundary rows are read by several ranks, so messages are packed.
  const auto system = gen::make_block_system(gen::tet_mesh_graph(6, 6, 5), 4, test::test_seed());
  const Graph g = graph_of(system);
  for (const Split s : {Split::metis, Split::scattered})
    expect_same_as_one_rank(system, partition(g, s, world_size()), "staged", distributed::Transport::staged);
}

// The device-initiated exchange (each rank writes into its neighbours' ghost slots, CUDA IPC):
// the one-rank dQ on two partitions, launched and as a graph; where the backend or the GPUs do
// not allow it, every rank refuses the transport with the reason (host memory: plain MPI).
TEST(DistributedMcpi, SameAsOneRankWithDeviceInitiatedCopies) {
  const auto system = gen::make_block_system(gen::mixed_mesh_graph(6, 5, 4, 7), 5, test::test_seed());
  const Graph g = graph_of(system);
  const auto share = distributed::local_share(system, partition(g, Split::metis, world_size()), world_rank());
  mcpi::DistributedOptions options;
  options.transport = distributed::Transport::peer;
  std::string refused;
  try {
    auto probe = mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(share), options);
  } catch (const InvalidArgument& e) {
    refused = e.what();
  }
  if (!refused.empty()) {
    EXPECT_NE(refused.find("transport peer asked for, but"), std::string::npos) << refused;
    GTEST_SKIP() << refused;
  }
  for (const Split s : {Split::metis, Split::scattered})
    expect_same_as_one_rank(system, partition(g, s, world_size()), "peer", distributed::Transport::peer);
  // Launched and as a graph, bit for bit, in the fixed colouring and with boundary pairs: a
  // pair's message holds rows of both its colours, which are not consecutive in dQ, so the
  // messenger gathers them itself (no packing kernel).
  for (const auto coloring :
       {distributed::HaloColoring::partition_independent, distributed::HaloColoring::boundary_pairs})
    for (const Split s : {Split::metis, Split::scattered})
      for (const int sweeps : {1, 5, 15}) {
        const auto part = partition(g, s, world_size());
        const Outcome launched =
            run_distributed(system, part, sweeps, distributed::Transport::peer, 0, coloring, false);
        const Outcome graph = run_distributed(system, part, sweeps, distributed::Transport::peer, 0, coloring);
        EXPECT_LT(max_relative_difference(graph.dq, one_rank_dq(system, graph.colors, sweeps)), 2e-6)
            << distributed::name(coloring) << ", " << sweeps << " sweeps";
        EXPECT_EQ(graph.dq, launched.dq);
        EXPECT_EQ(graph.bytes, launched.bytes);
      }
}

TEST(DistributedMcpi, SameAsOneRankAtSeveralBlockSizes) {
  for (const int nb : {1, 5, 7}) {
    const auto system = gen::make_block_system(gen::mixed_mesh_graph(5, 5, 4, 11), nb, test::test_seed());
    expect_same_as_one_rank(system, partition(graph_of(system), Split::metis, world_size()), "mixed mesh, metis");
  }
}

TEST(DistributedMcpi, SameAsOneRankOnRealMeshes) {
  const auto dir = test::shared_dir() / "meshes";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no ../shared/meshes";
  for (const char* file : {"pipe.su2", "naca0012_hybrid_2d.su2", "brick_pyra.su2"}) {
    const Graph g = mesh::vertex_graph(mesh::read((dir / file).string()));
    const auto system = gen::make_block_system(g, 5, test::test_seed());
    expect_same_as_one_rank(system, partition(g, Split::metis, world_size()), file);
  }
}

TEST(DistributedMcpi, RankWithoutRowsAndUnevenShares) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(6, 6, 6), 2, test::test_seed());
  const auto part = partition(graph_of(system), Split::uneven, world_size());
  if (world_size() > 1) ASSERT_EQ(std::count(part.begin(), part.end(), 0), 0);
  expect_same_as_one_rank(system, part, "uneven");
}

TEST(DistributedMcpi, RankWithoutNeighbours) {
  // The last rank owns a separate component: no ghosts, no messages.
  const Graph a = gen::tet_mesh_graph(6, 5, 4), b = gen::tet_mesh_graph(3, 3, 3);
  const Graph g = disjoint_union(a, b);
  const auto system = gen::make_block_system(g, 4, test::test_seed());
  std::vector<int> part(static_cast<size_t>(g.n), world_size() - 1);
  if (world_size() > 1) {
    const auto first = partition(a, Split::metis, world_size() - 1);
    std::copy(first.begin(), first.end(), part.begin());
  }
  expect_same_as_one_rank(system, part, "isolated");
  const auto share = distributed::local_share(system, part, world_rank());
  if (world_rank() == world_size() - 1) EXPECT_TRUE(share.ghost_ids.empty());
}

// The InvalidArgument message of the distributed setup of `share` with `options` (every rank).
// The sweeps as one recorded device graph, exchanges included (NCCL on GPUs): the same dQ, bit
// for bit, and the same messages as colour-by-colour launches. Where no graph can be recorded
// (host backends; exchanges through MPI), every rank says why and launches the colours.
TEST(DistributedMcpi, SweepGraphsExchangeAsColourLaunchesDo) {
  const auto system = gen::make_block_system(gen::mixed_mesh_graph(6, 5, 4, 7), 5, test::test_seed());
  const auto part = partition(graph_of(system), Split::metis, world_size());
  for (const distributed::Transport t : {distributed::Transport::automatic, distributed::Transport::staged}) {
    SCOPED_TRACE(distributed::name(t));
    for (const int sweeps : {1, 5}) {
      const Outcome launched =
          run_distributed(system, part, sweeps, t, 0, distributed::HaloColoring::partition_independent, false);
      const Outcome graph =
          run_distributed(system, part, sweeps, t, 0, distributed::HaloColoring::partition_independent);
      EXPECT_EQ(graph.dq, launched.dq) << "rank " << world_rank();
      EXPECT_EQ(graph.bytes, launched.bytes);
      EXPECT_EQ(graph.messages, launched.messages);
      EXPECT_EQ(launched.graphs.recordings, 0);
      if (graph.graphs.recordings > 0) {
        EXPECT_EQ(graph.graphs.replays, 1);  // one run of `sweeps` sweeps, no check between
        EXPECT_TRUE(graph.graphs.why_not.empty()) << graph.graphs.why_not;
        EXPECT_NE(t, distributed::Transport::staged);
      } else {
        EXPECT_EQ(graph.graphs.replays, 0);
        EXPECT_FALSE(graph.graphs.why_not.empty());
        if (t == distributed::Transport::staged &&
            !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible)
          EXPECT_NE(graph.graphs.why_not.find("through the host"), std::string::npos) << graph.graphs.why_not;
      }
      // Every rank decides alike.
      int recorded = graph.graphs.recordings > 0, all = 0, any = 0;
      MPI_Allreduce(&recorded, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      MPI_Allreduce(&recorded, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      EXPECT_EQ(all, any);
    }
  }
}

std::string setup_error(const distributed::LocalSystem& share, const mcpi::DistributedOptions& options) {
  return test::message_of<InvalidArgument>(
      [&] { mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(share), options); });
}

// No two coupled rows of g share a colour.
void expect_valid_colouring(const Graph& g, const std::vector<ordinal_t>& color) {
  for (ordinal_t v = 0; v < g.n; ++v)
    for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k) ASSERT_NE(color[v], color[g.adj[k]]) << v;
}

// The whole system as one rank's share.
distributed::LocalSystem whole_share(const BlockSystem<HostSpace>& system) {
  return distributed::local_share(system, std::vector<int>(static_cast<size_t>(system.n), 0), 0);
}

TEST(DistributedMcpi, ColouringDoesNotDependOnThePartition) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(6, 5, 5), 1, test::test_seed());
  const Graph g = graph_of(system);
  // The whole structure on this rank alone.
  const auto whole = whole_share(system);
  const distributed::LocalStructure s = distributed::structure_of(whole);
  const auto alone = distributed::make_distributed_plan(MPI_COMM_SELF, s);
  for (const Split split : {Split::blocks, Split::scattered}) {
    const Outcome d = run_distributed(system, partition(g, split, world_size()), 1);
    EXPECT_EQ(d.colors, alone.setup.coloring.color);
  }
  expect_valid_colouring(g, alone.setup.coloring.color);
}

TEST(DistributedMcpi, RecolouringOverTheRanksIsTheSequentialOne) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(6, 5, 5), 2, test::test_seed());
  const Graph g = graph_of(system);
  const auto whole = whole_share(system);
  const distributed::LocalStructure s = distributed::structure_of(whole);
  const auto greedy = distributed::make_distributed_plan(MPI_COMM_SELF, s);
  const Coloring want = recolor_iterated_greedy(g, coloring_from_colors(g, greedy.setup.coloring.color), 2);
  EXPECT_LE(want.ncolors, greedy.setup.coloring.ncolors);
  EXPECT_NE(want.color, greedy.setup.coloring.color);  // the passes recoloured
  EXPECT_EQ(distributed::make_distributed_plan(MPI_COMM_SELF, s, {}, 2).setup.coloring.color, want.color);
  for (const Split split : {Split::blocks, Split::scattered}) {
    const Outcome d =
        run_distributed(system, partition(g, split, world_size()), 3, distributed::Transport::automatic, 2);
    EXPECT_EQ(d.colors, want.color);
    EXPECT_LT(max_relative_difference(d.dq, one_rank_dq(system, d.colors, 3)), 2e-6);
  }
  // A bad count, or counts that differ between the ranks: an error on every rank.
  EXPECT_THROW(distributed::make_distributed_plan(MPI_COMM_WORLD, s, {}, -1), InvalidArgument);
  if (world_size() > 1) {
    const auto share = distributed::local_share(system, partition(g, Split::blocks, world_size()), world_rank());
    mcpi::DistributedOptions options;
    options.recolor_passes = world_rank();
    const std::string m = setup_error(share, options);
    EXPECT_NE(m.find("recolor_passes differs between the ranks (0 to "), std::string::npos) << m;
  }
}

// Boundary-first: the rows coupled to other ranks take the first colours, so that only those
// colours exchange (fewer than in the partition-independent colouring); the result is the
// one-rank solver's in the same colouring.
TEST(DistributedMcpi, BoundaryFirstColouringExchangesInFewerColours) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(14, 13, 12), 2, test::test_seed());
  const Graph g = graph_of(system);
  for (const Split split : {Split::metis, Split::blocks}) {
    const auto part = partition(g, split, world_size());
    const Outcome fixed = run_distributed(system, part, 1);
    for (const int sweeps : {1, 5, 15}) {
      const Outcome d = run_distributed(system, part, sweeps, distributed::Transport::automatic, 0,
                                        distributed::HaloColoring::boundary_first);
      EXPECT_LT(max_relative_difference(d.dq, one_rank_dq(system, d.colors, sweeps)), 2e-6) << sweeps << " sweeps";
      expect_valid_colouring(g, d.colors);
      // The exchanging colours are the first ones, and fewer than with the fixed order.
      const auto first_quiet = std::find(d.exchanging.begin(), d.exchanging.end(), 0);
      EXPECT_TRUE(std::all_of(first_quiet, d.exchanging.end(), [](int e) { return e == 0; }));
      const long long with_boundary_first = std::count(d.exchanging.begin(), d.exchanging.end(), 1);
      const long long with_fixed_order = std::count(fixed.exchanging.begin(), fixed.exchanging.end(), 1);
      if (world_size() == 1)
        EXPECT_EQ(with_boundary_first, 0);
      else
        EXPECT_LT(with_boundary_first, with_fixed_order);
    }
  }
  // With recolouring, or differing between the ranks: an error on every rank.
  const auto share = distributed::local_share(system, partition(g, Split::blocks, world_size()), world_rank());
  mcpi::DistributedOptions options;
  options.halo_coloring = distributed::HaloColoring::boundary_first;
  options.recolor_passes = 1;
  const std::string m = setup_error(share, options);
  EXPECT_NE(m.find("recolor_passes = 1 with the boundary_first colouring"), std::string::npos) << m;
  if (world_size() > 1) {
    options.recolor_passes = 0;
    options.halo_coloring = world_rank() == 0 ? distributed::HaloColoring::boundary_first
                                              : distributed::HaloColoring::partition_independent;
    const std::string d = setup_error(share, options);
    EXPECT_NE(d.find("the halo colouring differs between the ranks (partition_independent on some, boundary_first on "
                     "others)"),
              std::string::npos)
        << d;
  }
  EXPECT_EQ(distributed::parse_halo_coloring("boundary_first"), distributed::HaloColoring::boundary_first);
  PPSPARSE_EXPECT_THROW_MESSAGE(distributed::parse_halo_coloring("boundary"), InvalidArgument,
                                "unknown halo colouring 'boundary' (valid: partition_independent, boundary_first, "
                                "boundary_pairs)");
}

// Boundary pairs: rows coupled across ranks lie in different pairs of colours (0-1, 2-3, ...),
// only a pair's second colour (or the last colour) exchanges, and the result is still the
// one-rank solver's in the same colouring, also when the exchanges run on the device.
TEST(DistributedMcpi, BoundaryPairsExchangeOncePerPairOfColours) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(14, 13, 12), 2, test::test_seed());
  const Graph g = graph_of(system);
  for (const Split split : {Split::metis, Split::scattered}) {
    const auto part = partition(g, split, world_size());
    const Outcome first = run_distributed(system, part, 1, distributed::Transport::automatic, 0,
                                          distributed::HaloColoring::boundary_first);
    for (const int sweeps : {1, 5, 15}) {
      const Outcome d = run_distributed(system, part, sweeps, distributed::Transport::automatic, 0,
                                        distributed::HaloColoring::boundary_pairs);
      EXPECT_LT(max_relative_difference(d.dq, one_rank_dq(system, d.colors, sweeps)), 2e-6) << sweeps << " sweeps";
      expect_valid_colouring(g, d.colors);
      for (ordinal_t v = 0; v < g.n; ++v)
        for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k)
          if (part[v] != part[g.adj[k]])
            ASSERT_NE(d.colors[v] / 2, d.colors[g.adj[k]] / 2) << "rows " << v << " and " << g.adj[k];
      const auto ncolors = static_cast<ordinal_t>(d.exchanging.size());
      for (ordinal_t c = 0; c + 1 < ncolors; c += 2) EXPECT_EQ(d.exchanging[c], 0) << "colour " << c;
      const long long pairs = std::count(d.exchanging.begin(), d.exchanging.end(), 1);
      const long long colours = std::count(first.exchanging.begin(), first.exchanging.end(), 1);
      if (world_size() == 1)
        EXPECT_EQ(pairs, 0);
      else
        EXPECT_LT(pairs, colours) << "boundary_first exchanges in " << colours << " colours";
    }
  }
  EXPECT_EQ(distributed::parse_halo_coloring("boundary_pairs"), distributed::HaloColoring::boundary_pairs);
  const auto share = distributed::local_share(system, partition(g, Split::blocks, world_size()), world_rank());
  mcpi::DistributedOptions options;
  options.halo_coloring = distributed::HaloColoring::boundary_pairs;
  options.recolor_passes = 2;
  const std::string m = setup_error(share, options);
  EXPECT_NE(m.find("recolor_passes = 2 with the boundary_pairs colouring"), std::string::npos) << m;
}

TEST(DistributedMcpi, StoppingCriteriaAgreeOnEveryRank) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(6, 6, 5), 5, test::test_seed());
  const auto share =
      distributed::local_share(system, partition(graph_of(system), Split::metis, world_size()), world_rank());
  auto solver = mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(share));
  Exec exec;
  solver.update(exec, view(share.O), view(share.D));
  Kokkos::View<double*, HostSpace> dq("dq", share.R.size());
  mcpi::Control control;
  control.max_sweeps = 200;
  control.rtol = 1e-5;
  control.check_interval = 3;
  const mcpi::Status st = solver.apply(exec, view(share.R), dq, control);
  EXPECT_EQ(st.reason, mcpi::StopReason::converged);
  EXPECT_LE(st.final_residual, 1e-5 * st.initial_residual);
  // ||R|| over all ranks is the initial residual.
  double rr = 0.0;
  for (const double r : share.R) rr += r * r;
  double all = 0.0;
  MPI_Allreduce(&rr, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_NEAR(st.initial_residual, std::sqrt(all), 1e-12 * std::sqrt(all));
  // Every rank took the same decisions.
  int sweeps[2] = {-st.sweeps, st.sweeps};
  MPI_Allreduce(MPI_IN_PLACE, sweeps, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(-sweeps[0], sweeps[1]);
  // The true residual of the gathered dQ, on one rank's solver, is the status's.
  const auto x =
      gather(share.global_ids, std::vector<double>(dq.data(), dq.data() + dq.extent(0)), system.nb, system.n);
  std::vector<double> y(x.size());
  mcpi::BlockPattern<HostSpace> p{system.nb, system.n, system.O.ia, system.O.ja};
  mcpi::Solver<Exec> one(p);
  one.update(exec, system.O.values, system.D);
  one.multiply(exec, view(x), Kokkos::View<double*, HostSpace, Kokkos::MemoryUnmanaged>(y.data(), y.size()));
  double res = 0.0;
  for (size_t q = 0; q < y.size(); ++q) res += (system.R(q) - y[q]) * (system.R(q) - y[q]);
  EXPECT_NEAR(st.final_residual, std::sqrt(res), 1e-6 * st.initial_residual);
}

// ---- bad input: every rank throws, naming the failing rank ----

distributed::LocalSystem share_for_errors(int nb = 2) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(5, 5, 4), nb, test::test_seed());
  return distributed::local_share(system, partition(graph_of(system), Split::blocks, world_size()), world_rank());
}

TEST(DistributedMcpiErrors, MismatchedGhostId) {
  const int bad = world_size() - 1;
  auto s = share_for_errors();
  // The last rank's extra ghost: where it is and the id it names, known to every rank.
  long long at[2] = {static_cast<long long>(s.ghost_ids.size()), s.global_ids.front()};
  MPI_Bcast(at, 2, MPI_LONG_LONG, bad, MPI_COMM_WORLD);
  if (world_rank() == bad) s.ghost_ids.push_back(s.global_ids.front());  // a row it owns
  PPSPARSE_EXPECT_THROW_MESSAGE(
      mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s)), InvalidArgument,
      "rank " + std::to_string(bad) + ": mcpi distributed setup: ghost_ids[" + std::to_string(at[0]) +
          "] = " + std::to_string(at[1]) + " is a row this rank owns");
  auto t = share_for_errors();
  if (world_rank() == bad) t.ghost_ids.push_back(100000);
  PPSPARSE_EXPECT_THROW_MESSAGE(mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(t)),
                                InvalidArgument,
                                "rank " + std::to_string(bad) + ": mcpi distributed setup: ghost_ids[" +
                                    std::to_string(at[0]) + "] = 100000 is outside 0..99");
}

TEST(DistributedMcpiErrors, PartitionThatDoesNotCoverEveryRow) {
  auto s = share_for_errors();
  const int bad = world_size() - 1;
  if (world_size() == 1) {
    s.global_ids.back() = s.global_ids.front();
    PPSPARSE_EXPECT_THROW_MESSAGE(mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s)),
                                  InvalidArgument, "rank 0: mcpi distributed setup: owned rows 0 and ");
    return;
  }
  // The last rank claims rank 0's first row instead of its own last one: that one is then
  // owned by no rank, rank 0's by two.
  distributed::global_t first_of_rank0 = s.global_ids.empty() ? 0 : s.global_ids.front();
  MPI_Bcast(&first_of_rank0, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (world_rank() == bad) s.global_ids.back() = first_of_rank0;
  PPSPARSE_EXPECT_THROW_MESSAGE(mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s)),
                                InvalidArgument, "mcpi distributed setup: the partition ");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s)), InvalidArgument,
      "global id " + std::to_string(first_of_rank0) + " is owned by ranks 0 and " + std::to_string(bad));
}

TEST(DistributedMcpiErrors, InconsistentColourings) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(5, 5, 4), 2, test::test_seed());
  const auto part = partition(graph_of(system), Split::blocks, world_size());
  const auto s = distributed::local_share(system, part, world_rank());
  const Outcome good = run_distributed(system, part, 1);
  mcpi::DistributedOptions options;
  for (const auto id : s.global_ids) options.colors.push_back(good.colors[id]);
  // Valid colours are taken as they are.
  EXPECT_NO_THROW(mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s), options));
  // The last rank gives its first row with a ghost the colour of that ghost (another rank's row).
  const int bad = world_size() - 1;
  if (world_size() > 1 && world_rank() == bad) {
    for (ordinal_t i = 0; i < s.n; ++i) {
      const auto ghost = std::find_if(s.col_idx.begin() + s.row_ptr[i], s.col_idx.begin() + s.row_ptr[i + 1],
                                      [&](ordinal_t c) { return c >= s.n; });
      if (ghost == s.col_idx.begin() + s.row_ptr[i + 1]) continue;
      options.colors[i] = good.colors[s.ghost_ids[*ghost - s.n]];
      break;
    }
  } else if (world_size() == 1) {
    options.colors.assign(options.colors.size(), 0);
  }
  PPSPARSE_EXPECT_THROW_MESSAGE(mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s), options),
                                InvalidArgument, "mcpi distributed setup: inconsistent colouring: coupled rows ");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s), options), InvalidArgument,
      world_size() > 1 ? " (on rank " + std::to_string(bad) + ") share colour " : " (on this rank) share colour 0");
}

TEST(DistributedMcpiErrors, BlockSizesThatDiffer) {
  auto s = share_for_errors();
  if (world_rank() == world_size() - 1) s.nb = 3;
  const std::string expect = world_size() > 1 ? "the ranks' block sizes differ (nb from 2 to 3)" : "";
  if (world_size() > 1)
    PPSPARSE_EXPECT_THROW_MESSAGE(mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s)),
                                  InvalidArgument, expect);
}

TEST(DistributedMcpiErrors, NumericalErrorsOnOneRankStopEveryRank) {
  const int bad = world_size() - 1;
  auto s = share_for_errors(3);
  auto solver = mcpi::make_distributed_solver<Exec>(MPI_COMM_WORLD, mcpi::pattern_of(s));
  Exec exec;
  // The bad rank's first row and its first ghost column, by global id, known to every rank.
  long long ids[2] = {s.n > 0 ? static_cast<long long>(s.global_ids[0]) : -1, -1};
  offset_t ghost_block = -1;
  for (offset_t k = 0; k < s.row_ptr[s.n] && ghost_block < 0; ++k)
    if (s.col_idx[k] >= s.n) {
      ghost_block = k;
      ids[1] = s.ghost_ids[s.col_idx[k] - s.n];
    }
  MPI_Bcast(ids, 2, MPI_LONG_LONG, bad, MPI_COMM_WORLD);
  // A singular diagonal block on the last rank, named by its local index and its global id.
  auto d = s.D;
  if (world_rank() == bad && s.n > 0) std::fill(d.begin(), d.begin() + 9, 0.0);
  PPSPARSE_EXPECT_THROW_MESSAGE(solver.update(exec, view(s.O), view(d)), NumericalError,
                                "rank " + std::to_string(bad) + ": diagonal block 0 (global id " +
                                    std::to_string(ids[0]) + "): zero or tiny pivot at row 0");
  // NaN in an O block whose column is a ghost: named by the ghost's global id.
  if (ids[1] >= 0) {
    auto o = s.O;
    if (world_rank() == bad) o[static_cast<size_t>(ghost_block) * 9] = std::numeric_limits<double>::quiet_NaN();
    PPSPARSE_EXPECT_THROW_MESSAGE(solver.update(exec, view(o), view(s.D)), NumericalError,
                                  "ghost with global id " + std::to_string(ids[1]) + ") holds a NaN or Inf");
  }
  solver.update(exec, view(s.O), view(s.D));
  // NaN in R on the last rank.
  auto r = s.R;
  if (world_rank() == bad && s.n > 0) r[1] = std::numeric_limits<double>::quiet_NaN();
  Kokkos::View<double*, HostSpace> dq("dq", r.size());
  mcpi::Control control;
  control.rtol = 1e-6;
  PPSPARSE_EXPECT_THROW_MESSAGE(solver.apply(exec, view(r), dq, control), NumericalError,
                                "rank " + std::to_string(bad) +
                                    ": mcpi: R holds a NaN or Inf in block row 0 (global id " + std::to_string(ids[0]) +
                                    ")");
  // A wrong size on one rank.
  auto shorter = s.R;
  if (world_rank() == bad) shorter.pop_back();
  PPSPARSE_EXPECT_THROW_MESSAGE(solver.apply(exec, view(shorter), dq, control), InvalidArgument,
                                "rank " + std::to_string(bad) + ": mcpi apply: R has ");
  // The solver still works on every rank.
  const mcpi::Status st = solver.apply(exec, view(s.R), dq, control);
  EXPECT_TRUE(st.converged());
}

}  // namespace
