// Partitioning a distributed system (dist/partition.hpp) on every rank of MPI_COMM_WORLD:
// Zoltan's partition of a scattered share cuts fewer couplings and stays balanced; redistribute
// moves rows with their values so that the result is exactly the share of the new partition;
// bad new ranks are refused on every rank.
#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <ppsparse/distributed/partition.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/distributed.hpp>

#include "dist_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace ppsparse;

using test::world_rank;
using test::world_size;

// Rows scattered over the ranks by a hash of their id: nearly every coupling crosses ranks.
std::vector<int> scattered(ordinal_t n, int parts) {
  std::vector<int> part(static_cast<size_t>(n));
  for (ordinal_t i = 0; i < n; ++i)
    part[i] = static_cast<int>((static_cast<unsigned long long>(i) * 2654435761ull >> 7) % parts);
  return part;
}

// Every rank's new rank of its rows, gathered into the global partition.
std::vector<int> gather_partition(const distributed::LocalSystem& share, const std::vector<int>& new_rank,
                                  ordinal_t n) {
  std::vector<long long> mine;
  for (ordinal_t i = 0; i < share.n; ++i) {
    mine.push_back(share.global_ids[i]);
    mine.push_back(new_rank[i]);
  }
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(world_size())), displs(static_cast<size_t>(world_size()), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (size_t q = 1; q < counts.size(); ++q) displs[q] = displs[q - 1] + counts[q - 1];
  std::vector<long long> all(static_cast<size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_LONG_LONG, all.data(), counts.data(), displs.data(), MPI_LONG_LONG,
                 MPI_COMM_WORLD);
  std::vector<int> part(static_cast<size_t>(n), -1);
  for (size_t k = 0; k < all.size(); k += 2) part[static_cast<size_t>(all[k])] = static_cast<int>(all[k + 1]);
  return part;
}

long long sum_over_ranks(long long v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

void expect_same_share(const distributed::LocalSystem& a, const distributed::LocalSystem& b) {
  EXPECT_EQ(a.nb, b.nb);
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.global_ids, b.global_ids);
  EXPECT_EQ(a.ghost_ids, b.ghost_ids);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.O, b.O);
  EXPECT_EQ(a.D, b.D);
  EXPECT_EQ(a.R, b.R);
}

TEST(DistributedPartition, RedistributeGivesTheShareOfTheNewPartition) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(6, 5, 5), 3, test::test_seed());
  const int p = world_size(), r = world_rank();
  const auto share = distributed::local_share(system, scattered(system.n, p), r);
  // Each row to the rank after the one that holds it, and the last rank's rows to rank 0.
  std::vector<int> next(static_cast<size_t>(share.n), (r + 1) % p);
  const auto moved = distributed::redistribute(MPI_COMM_WORLD, share, next);
  expect_same_share(moved, distributed::local_share(system, gather_partition(share, next, system.n), r));
}

TEST(DistributedPartition, ZoltanCutsFewerCouplingsThanAScatteredShare) {
  if (!distributed::zoltan_available()) GTEST_SKIP() << "built without Zoltan";
  const auto system = gen::make_block_system(gen::tet_mesh_graph(8, 7, 6), 2, test::test_seed());
  const int p = world_size(), r = world_rank();
  const auto share = distributed::local_share(system, scattered(system.n, p), r);
  for (const char* method : {"GRAPH", "HYPERGRAPH"}) {
    SCOPED_TRACE(method);
    distributed::ZoltanOptions options;
    options.method = method;
    const std::vector<int> part =
        distributed::partition_zoltan(MPI_COMM_WORLD, distributed::structure_of(share), options);
    ASSERT_EQ(part.size(), static_cast<size_t>(share.n));
    const auto moved = distributed::redistribute(MPI_COMM_WORLD, share, part);
    expect_same_share(moved, distributed::local_share(system, gather_partition(share, part, system.n), r));
    // Couplings that cross ranks (ghost entries of O), before and after.
    const auto crossing = [](const distributed::LocalSystem& s) {
      long long c = 0;
      for (const ordinal_t col : s.col_idx) c += col >= s.n;
      return sum_over_ranks(c);
    };
    const long long before = crossing(share), after = crossing(moved);
    if (p == 1) {
      EXPECT_EQ(after, 0);
    } else {
      EXPECT_LT(after * 3, before) << "Zoltan: " << after << " crossing couplings, scattered: " << before;
    }
    // Balanced within Zoltan's tolerance (1.05), with a row of slack per rank for rounding.
    long long largest = moved.n;
    MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_LE(largest, 1.05 * system.n / p + 2) << method;
    // The moved shares make a solver.
    auto solver = mcpi::make_distributed_solver<Kokkos::DefaultExecutionSpace>(MPI_COMM_WORLD, mcpi::pattern_of(moved));
    EXPECT_EQ(solver.n_ghost(), static_cast<ordinal_t>(moved.ghost_ids.size()));
  }
}

TEST(DistributedPartition, BadNewRanksAreRefusedOnEveryRank) {
  const auto system = gen::make_block_system(gen::tet_mesh_graph(4, 4, 4), 2, test::test_seed());
  const int p = world_size(), bad = p - 1;
  const auto share = distributed::local_share(system, scattered(system.n, p), world_rank());
  std::vector<int> short_list(static_cast<size_t>(share.n), 0);
  if (world_rank() == bad) short_list.pop_back();
  long long n_bad = share.n;
  MPI_Bcast(&n_bad, 1, MPI_LONG_LONG, bad, MPI_COMM_WORLD);
  PPSPARSE_EXPECT_THROW_MESSAGE(distributed::redistribute(MPI_COMM_WORLD, share, short_list), InvalidArgument,
                                "rank " + std::to_string(bad) + ": redistribute: new_rank has " +
                                    std::to_string(n_bad - 1) + " entries for " + std::to_string(n_bad) +
                                    " owned rows");
  std::vector<int> outside(static_cast<size_t>(share.n), 0);
  if (world_rank() == bad) outside[0] = p;
  PPSPARSE_EXPECT_THROW_MESSAGE(distributed::redistribute(MPI_COMM_WORLD, share, outside), InvalidArgument,
                                "rank " + std::to_string(bad) + ": redistribute: new_rank[0] = " + std::to_string(p) +
                                    " is not a rank of the communicator (0.." + std::to_string(p - 1) + ")");
  if (!distributed::zoltan_available()) return;
  distributed::ZoltanOptions options;
  options.method = "RCB";
  PPSPARSE_EXPECT_THROW_MESSAGE(
      distributed::partition_zoltan(MPI_COMM_WORLD, distributed::structure_of(share), options), InvalidArgument,
      "rank 0: partition_zoltan: method 'RCB': GRAPH or HYPERGRAPH");
  // A structure the setup refuses is refused here too, on every rank.
  auto twice = share;
  if (world_rank() == bad && twice.n > 1) twice.global_ids[1] = twice.global_ids[0];
  long long has_two = share.n > 1;
  MPI_Bcast(&has_two, 1, MPI_LONG_LONG, bad, MPI_COMM_WORLD);
  if (has_two)
    PPSPARSE_EXPECT_THROW_MESSAGE(
        distributed::partition_zoltan(MPI_COMM_WORLD, distributed::structure_of(twice)), InvalidArgument,
        "rank " + std::to_string(bad) + ": mcpi distributed setup: owned rows 0 and 1 have the same global id");
}

TEST(DistributedPartition, ABuildWithoutZoltanSaysSo) {
  if (distributed::zoltan_available()) GTEST_SKIP() << "built with Zoltan";
  const auto system = gen::make_block_system(gen::tet_mesh_graph(3, 3, 3), 1, test::test_seed());
  const auto share = distributed::local_share(system, std::vector<int>(static_cast<size_t>(system.n), 0), 0);
  PPSPARSE_EXPECT_THROW_MESSAGE(distributed::partition_zoltan(MPI_COMM_WORLD, distributed::structure_of(share)), Error,
                                "partition_zoltan: this build of ppsparse has no Zoltan");
}

}  // namespace
