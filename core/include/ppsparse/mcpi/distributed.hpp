#pragma once
/// @file
/// The MCPI solver on many MPI ranks (FUN3D's configuration): each rank owns block rows, its O
/// has ghost columns (rows of other ranks, named by global ids), and a sweep relaxes each
/// colour's boundary rows first, sends their new dQ to the ranks that read them while the
/// interior rows run, and writes the received ghosts before the next colour. The result equals
/// the one-rank sweep in the same colouring.
///
///   mcpi::DistributedPattern<> p{nb, n, row_ptr, col_idx, global_ids, ghost_ids};
///   auto solver = mcpi::make_distributed_solver(MPI_COMM_WORLD, p);   // collective setup
///   solver.update(exec, O, D);                                         // this rank's values
///   mcpi::Status st = solver.apply(exec, R, dQ, control);              // owned rows of R, dQ
///
/// The solver is mcpi::Solver with a Halo: update, storage/factor, apply (norms and stopping
/// decisions over all ranks), precondition and solve work as on one rank; every call is
/// collective, and an error on any rank is thrown on every rank (naming that rank).
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <ppsparse/distributed/collective.hpp>
#include <ppsparse/distributed/partition.hpp>
#include <ppsparse/distributed/plan.hpp>
#include <ppsparse/distributed/transport.hpp>
#include <ppsparse/mcpi/halo.hpp>
#include <ppsparse/mcpi/solver.hpp>

namespace ppsparse::mcpi {

using distributed::global_t;
using distributed::Transport;

/// One rank's block structure of O: block rows 0 .. n - 1 are owned; col_idx names owned rows
/// (0 .. n - 1) and ghosts (n .. n + ghost_ids.size() - 1), index_base added to every index.
/// global_ids[i] is owned row i's global id, ghost_ids[j] ghost j's; the global ids of all
/// ranks together are 0 .. N - 1 (plus index_base), each owned by one rank. Host or device views.
template <class MemSpace = HostSpace>
struct DistributedPattern {
  int nb = 1;
  ordinal_t n = 0;
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const global_t*, MemSpace> global_ids;
  Kokkos::View<const global_t*, MemSpace> ghost_ids;
  int index_base = 0;
};

/// The pattern of one rank's share (distributed::local_share), viewing its vectors.
inline DistributedPattern<HostSpace> pattern_of(const distributed::LocalSystem& s) {
  const auto view = [](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    return Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size());
  };
  DistributedPattern<HostSpace> p;
  p.nb = s.nb;
  p.n = s.n;
  p.row_ptr = view(s.row_ptr);
  p.col_idx = view(s.col_idx);
  p.global_ids = view(s.global_ids);
  p.ghost_ids = view(s.ghost_ids);
  return p;
}

/// Options of the distributed setup.
struct DistributedOptions {
  /// One colour per owned row, the same id meaning the same colour on every rank; empty: the
  /// partition-independent greedy colouring (dist/plan.hpp).
  std::vector<ordinal_t> colors;
  /// Without colors: passes of iterated greedy recolouring over the ranks after the greedy
  /// colouring (fewer, fuller colours; reorder::recolor_iterated_greedy). The same on every rank.
  int recolor_passes = 0;
  /// Without colors: the greedy colouring's order (dist/plan.hpp). boundary_first puts the rows
  /// coupled to other ranks into the first colours, so that fewer colours exchange;
  /// boundary_pairs also keeps rows coupled across ranks in different pairs of colours and
  /// exchanges each pair once; the default keeps the colours the same on every partition. The
  /// same on every rank.
  distributed::HaloColoring halo_coloring = distributed::HaloColoring::partition_independent;
  Transport transport = Transport::automatic;
  /// With a device messenger (NCCL or peer): run the exchanges on an instance of the device's
  /// highest priority (backend::priority_instance), so that each colour's exchange starts as
  /// soon as its boundary rows are done, ahead of the interior rows' thread blocks, also in a
  /// recorded sweep. On by default: with the peer transport it took 2.6 % off the 4-GPU sweep
  /// (docs/perf/mcpi_distributed.md). No effect on host transports.
  bool priority_exchange = true;
  /// How the sweeps store O (mcpi/o_format.hpp); the same on every rank.
  OStorage o_storage;
  std::function<void(const std::string&)> progress;
};

namespace impl {

/// The exchange of a distributed solver (mcpi/halo.hpp's Halo): per colour, one message per
/// neighbour, from dQ's boundary rows to the ghost slots of the ranks that read them, by MPI,
/// staged through pinned host memory, or by a device messenger (NCCL) as `transport` says and
/// the machine allows (core/src/distributed/mpi_halo.cpp, compiled for the default execution space
/// and XScalar float and double). Collective over comm.
template <class ExecSpace, class XScalar>
std::shared_ptr<Halo<ExecSpace, XScalar>> make_mpi_halo(MPI_Comm comm, const distributed::HaloLists& lists,
                                                        ordinal_t ncolors, std::vector<ordinal_t> boundary_end,
                                                        ordinal_t n_owned, int nb, Transport transport,
                                                        const ExecSpace& exec, bool priority_exchange);

}  // namespace impl

/// Sets up the distributed solver for this rank's share of O (collective over comm): checks the
/// partition and the ghosts across ranks, colours (or checks options.colors), orders each
/// colour's boundary rows first, builds the exchange and the device arrays. Every rank throws
/// InvalidArgument naming the first failing rank and the defect (dist/plan.hpp).
template <class ExecSpace = DefaultExecSpace, class OScalar = float, class DScalar = double, class XScalar = float,
          class MemSpace>
Solver<ExecSpace, OScalar, DScalar, XScalar> make_distributed_solver(MPI_Comm comm,
                                                                     const DistributedPattern<MemSpace>& p,
                                                                     const DistributedOptions& options = {}) {
  using Host = Kokkos::HostSpace;
  const auto row_ptr = Kokkos::create_mirror_view_and_copy(Host(), p.row_ptr);
  const auto col_idx = Kokkos::create_mirror_view_and_copy(Host(), p.col_idx);
  const auto ids = Kokkos::create_mirror_view_and_copy(Host(), p.global_ids);
  const auto ghosts = Kokkos::create_mirror_view_and_copy(Host(), p.ghost_ids);
  distributed::collectively(comm, [&] {
    const std::string who = "mcpi distributed setup: ";
    if (p.n < 0) throw InvalidArgument(who + "negative number of owned block rows n = " + std::to_string(p.n));
    if (row_ptr.extent(0) != static_cast<size_t>(p.n) + 1)
      throw InvalidArgument(who + "row_ptr has " + std::to_string(row_ptr.extent(0)) +
                            " entries, expected n + 1 = " + std::to_string(static_cast<long long>(p.n) + 1));
    if (ids.extent(0) != static_cast<size_t>(p.n))
      throw InvalidArgument(who + "global_ids has " + std::to_string(ids.extent(0)) +
                            " entries, expected n = " + std::to_string(p.n));
    if (ghosts.extent(0) > static_cast<size_t>(max_ordinal))
      throw InvalidArgument(who + std::to_string(ghosts.extent(0)) + " ghosts exceed 2^31 - 1");
    const offset_t nnzb = row_ptr(p.n) - p.index_base;
    if (nnzb < 0 || static_cast<size_t>(nnzb) > col_idx.extent(0))
      throw InvalidArgument(who + "row_ptr[n] - index_base = " + std::to_string(nnzb) + " blocks, but col_idx has " +
                            std::to_string(col_idx.extent(0)) + " entries");
  });
  distributed::LocalStructure s;
  s.nb = p.nb;
  s.n = p.n;
  s.n_ghost = static_cast<ordinal_t>(ghosts.extent(0));
  s.row_ptr = row_ptr.data();
  s.col_idx = col_idx.data();
  s.global_ids = ids.data();
  s.ghost_ids = ghosts.data();
  s.index_base = p.index_base;
  if (options.progress) options.progress("distributed setup: partition, ghosts and colouring");
  distributed::DistributedPlan plan =
      distributed::make_distributed_plan(comm, s, options.colors, options.recolor_passes, options.halo_coloring);
  plan.setup.o_storage = options.o_storage;
  ExecSpace exec;
  std::shared_ptr<Halo<ExecSpace, XScalar>> halo;
  distributed::collectively(comm, [&] {
    halo =
        impl::make_mpi_halo<ExecSpace, XScalar>(comm, plan.halo, plan.setup.coloring.ncolors, plan.setup.boundary_end,
                                                plan.setup.n, p.nb, options.transport, exec, options.priority_exchange);
  });
  return Solver<ExecSpace, OScalar, DScalar, XScalar>(std::move(plan.setup), std::move(halo), options.progress);
}

}  // namespace ppsparse::mcpi
