#include "distributed_mode.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>

#include <ppsparse/distributed/device_messenger.hpp>
#include <ppsparse/distributed/partition.hpp>
#include <ppsparse/mcpi/distributed.hpp>
#include <ppsparse/mcpi/reference.hpp>
#include <ppsparse/util/copy_bandwidth.hpp>
#include "common/mcpi_timed_sweeps.hpp"

#include "problem.hpp"

namespace mcpi_app {

namespace {

using namespace ppsparse;
using Exec = DefaultExecSpace;

// Vectors larger than one MPI message (2^31 - 1 elements) travel in pieces.
constexpr size_t kPiece = size_t(1) << 28;

template <class T>
void send_vector(const std::vector<T>& v, int to, MPI_Comm comm) {
  unsigned long long size = v.size();
  MPI_Send(&size, 1, MPI_UNSIGNED_LONG_LONG, to, 1, comm);
  for (size_t b = 0; b < v.size(); b += kPiece)
    MPI_Send(v.data() + b, static_cast<int>(std::min(kPiece, v.size() - b) * sizeof(T)), MPI_BYTE, to, 1, comm);
}
template <class T>
void recv_vector(std::vector<T>& v, int from, MPI_Comm comm) {
  unsigned long long size = 0;
  MPI_Recv(&size, 1, MPI_UNSIGNED_LONG_LONG, from, 1, comm, MPI_STATUS_IGNORE);
  v.resize(size);
  for (size_t b = 0; b < v.size(); b += kPiece)
    MPI_Recv(v.data() + b, static_cast<int>(std::min(kPiece, v.size() - b) * sizeof(T)), MPI_BYTE, from, 1, comm,
             MPI_STATUS_IGNORE);
}

void send_share(const distributed::LocalSystem& s, int to, MPI_Comm comm) {
  int head[2] = {s.nb, s.n};
  MPI_Send(head, 2, MPI_INT, to, 1, comm);
  send_vector(s.row_ptr, to, comm);
  send_vector(s.col_idx, to, comm);
  send_vector(s.global_ids, to, comm);
  send_vector(s.ghost_ids, to, comm);
  send_vector(s.O, to, comm);
  send_vector(s.D, to, comm);
  send_vector(s.R, to, comm);
}
distributed::LocalSystem recv_share(MPI_Comm comm) {
  distributed::LocalSystem s;
  int head[2] = {0, 0};
  MPI_Recv(head, 2, MPI_INT, 0, 1, comm, MPI_STATUS_IGNORE);
  s.nb = head[0];
  s.n = head[1];
  recv_vector(s.row_ptr, 0, comm);
  recv_vector(s.col_idx, 0, comm);
  recv_vector(s.global_ids, 0, comm);
  recv_vector(s.ghost_ids, 0, comm);
  recv_vector(s.O, 0, comm);
  recv_vector(s.D, 0, comm);
  recv_vector(s.R, 0, comm);
  return s;
}

template <class T>
Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged> view(const std::vector<T>& v) {
  return Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size());
}

distributed::Transport parse_transport(const std::string& t) {
  if (t == "staged") return distributed::Transport::staged;
  if (t == "mpi_device") return distributed::Transport::mpi_device;
  if (t == "nccl") return distributed::Transport::nccl;
  if (t == "peer") return distributed::Transport::peer;
  return distributed::Transport::automatic;
}

/// --probe-link: the time of one halo-style exchange (each rank of a pair sends and receives
/// `bytes` at once) between ranks 2i and 2i + 1, by the transport the solver uses (NCCL on
/// the stream, or device -> pinned host -> MPI -> device), median of 30 after 5 warm-ups.
/// Prints, on rank 0, ranks 0 and 1's times: the model's latency and bandwidth.
void probe_link(MPI_Comm comm, bool nccl) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int peer = rank % 2 == 0 ? rank + 1 : rank - 1;
  Exec exec;
  std::unique_ptr<distributed::DeviceMessenger<Exec>> messenger;
  std::string why;
  if (nccl) messenger = distributed::make_device_messenger(exec, comm, why);
  const size_t largest = size_t(1) << 24;
  Kokkos::View<char*, Exec::memory_space> send("probe.send", largest), recv("probe.recv", largest);
  Kokkos::View<char*, compat::PinnedHostSpace> send_host("probe.send_host", largest),
      recv_host("probe.recv_host", largest);
  if (rank == 0)
    std::printf("\nlink      %s between ranks 0 and 1, one exchange (both send and receive):\n%12s %12s %10s\n",
                messenger ? messenger->name().c_str() : "staged MPI", "bytes", "us", "GB/s");
  for (size_t bytes : {size_t(8), size_t(1) << 10, size_t(1) << 14, size_t(1) << 17, size_t(1) << 20, largest}) {
    std::vector<double> t;
    for (int it = 0; it < 35; ++it) {
      exec.fence();
      MPI_Barrier(comm);
      Kokkos::Timer timer;
      if (peer < size) {
        if (messenger) {
          messenger->exchange(exec, send.data(), {{peer, 0, bytes}}, recv.data(), {{peer, 0, bytes}}, 0);
          exec.fence();
          messenger->elapsed(0);
        } else {
          Kokkos::deep_copy(exec, Kokkos::subview(send_host, std::make_pair(size_t(0), bytes)),
                            Kokkos::subview(send, std::make_pair(size_t(0), bytes)));
          exec.fence();
          MPI_Sendrecv(send_host.data(), static_cast<int>(bytes), MPI_BYTE, peer, 7, recv_host.data(),
                       static_cast<int>(bytes), MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
          Kokkos::deep_copy(exec, Kokkos::subview(recv, std::make_pair(size_t(0), bytes)),
                            Kokkos::subview(recv_host, std::make_pair(size_t(0), bytes)));
          exec.fence();
        }
      }
      if (it >= 5) t.push_back(timer.seconds());
    }
    std::sort(t.begin(), t.end());
    const double median = t[t.size() / 2];
    if (rank == 0) std::printf("%12zu %12.2f %10.2f\n", bytes, 1e6 * median, bytes / median * 1e-9);
  }
  if (rank == 0 && nccl && !messenger) std::printf("(no NCCL: %s)\n", why.c_str());
}

}  // namespace

int run_distributed_mode(const Options& opt, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto t0 = std::chrono::steady_clock::now();
  auto progress = [&](const std::string& s) {
    if (rank != 0) return;
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[setup %7.1fs] %s\n", t, s.c_str());
    std::fflush(stdout);
  };

  // Rank 0 builds, partitions and distributes the system: by METIS there, or in contiguous
  // blocks that Zoltan then repartitions in parallel.
  Problem problem;
  std::vector<int> part;
  const bool zoltan = opt.partitioner == "zoltan";
  distributed::collectively(comm, [&] {
    if (rank != 0) return;
    problem = build_problem(opt, compat::is_gpu_space<Exec>(), progress);
    const ordinal_t n = problem.system.n;
    if (zoltan) {
      part.resize(static_cast<size_t>(n));
      for (ordinal_t i = 0; i < n; ++i) part[i] = static_cast<int>(static_cast<long long>(i) * size / n);
      return;
    }
    progress("partitioning " + std::to_string(n) + " block rows into " + std::to_string(size) + " parts (METIS k-way)");
    Graph g;
    g.n = n;
    g.row_ptr.assign(problem.system.O.ia.data(), problem.system.O.ia.data() + g.n + 1);
    g.adj.assign(problem.system.O.ja.data(), problem.system.O.ja.data() + g.row_ptr.back());
    part = distributed::partition_metis(g, size);
  });
  distributed::LocalSystem share;
  if (rank == 0) {
    progress(zoltan ? "sending each rank a contiguous block of rows" : "sending each rank its rows and ghosts");
    for (int q = 1; q < size; ++q) send_share(distributed::local_share(problem.system, part, q), q, comm);
    share = distributed::local_share(problem.system, part, 0);
  } else {
    share = recv_share(comm);
  }
  if (zoltan) {
    progress("partitioning in parallel (Zoltan PHG graph) and moving the rows");
    const std::vector<int> new_rank = distributed::partition_zoltan(comm, distributed::structure_of(share));
    share = distributed::redistribute(comm, share, new_rank);
  }

  mcpi::DistributedOptions dopt;
  dopt.transport = parse_transport(opt.transport);
  dopt.progress = progress;
  dopt.o_storage = opt.o_storage;
  dopt.recolor_passes = opt.recolor_passes;
  dopt.halo_coloring = distributed::parse_halo_coloring(opt.halo_coloring);
  dopt.priority_exchange = opt.exchange_priority;
  auto solver = mcpi::make_distributed_solver<Exec>(comm, mcpi::pattern_of(share), dopt);
  Exec exec;
  progress("copying values and factoring D on every rank");
  solver.update(exec, view(share.O), view(share.D));
  // R becomes the stored right-hand side through one apply of no sweep.
  {
    Kokkos::View<double*, HostSpace> dq("dq", share.R.size());
    mcpi::Control c;
    c.max_sweeps = 0;
    c.final_residual = false;
    c.check_interval = 0;
    solver.apply(exec, view(share.R), dq, c);
  }
  const auto* halo = solver.halo();
  const mcpi::Variant variant = opt.variants.empty() ? mcpi::Variant::automatic() : opt.variants.front();

  // The device's copy bandwidth, measured on rank 0 while the others wait (ranks may share a GPU).
  CopyBandwidth copy{};
  if (rank == 0) copy = measure_copy_bandwidth<Exec>();
  MPI_Bcast(&copy.gbs, 1, MPI_DOUBLE, 0, comm);

  progress("running " + std::to_string(opt.sweeps) + " sweeps");
  mcpi::TimedSweepOptions run;
  run.sweeps = 1;
  run.variant = variant;
  run.backend_kernels = !opt.portable;
  run.tuning = opt.tuning;
  time_sweeps(solver, run);  // warm-up
  // The ranks start the timed sweeps together: the first colour's wait is not their skew.
  Kokkos::fence();
  MPI_Barrier(comm);
  solver.halo()->reset_stats();
  run.sweeps = opt.sweeps;
  const mcpi::TimedSweeps res = time_sweeps(solver, run);
  const mcpi::HaloStats stats = halo->stats();

  // --graph: the same sweeps again, each one replay of a recorded graph of one sweep.
  mcpi::TimedSweeps graph_res, graph_warm;
  double graph_slowest = 0.0, graph_record_slowest = 0.0;
  int graph_same = 1;
  if (opt.graph) {
    progress("running " + std::to_string(opt.sweeps) + " sweeps as graph replays");
    run.graph = true;
    run.sweeps = 1;
    graph_warm = time_sweeps(solver, run);  // the recording
    Kokkos::fence();
    MPI_Barrier(comm);
    run.sweeps = opt.sweeps;
    graph_res = time_sweeps(solver, run);
    graph_slowest = graph_res.median_sweep_seconds();
    graph_record_slowest = graph_warm.graph_record_seconds;
    graph_same = graph_res.dq == res.dq;  // the same kernels in the same order: bit for bit
    MPI_Allreduce(MPI_IN_PLACE, &graph_slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &graph_record_slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &graph_same, 1, MPI_INT, MPI_MIN, comm);
  }
  const double residual = solver.residual_norm();
  double rr = 0.0;
  for (const double r : share.R) rr += r * r;
  MPI_Allreduce(MPI_IN_PLACE, &rr, 1, MPI_DOUBLE, MPI_SUM, comm);

  // Per rank, gathered on rank 0.
  const double median = res.median_sweep_seconds();
  struct RankLine {
    double owned, ghosts, bytes_per_sweep, wait_share, median_ms;
  } mine{static_cast<double>(share.n), static_cast<double>(share.ghost_ids.size()),
         static_cast<double>(stats.bytes) / std::max(1, opt.sweeps),
         res.seconds > 0 ? stats.wait_seconds / res.seconds : 0.0, median * 1e3};
  std::vector<RankLine> lines(static_cast<size_t>(size));
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, lines.data(), sizeof mine, MPI_BYTE, 0, comm);
  const ordinal_t ncolors = solver.coloring().ncolors;
  std::vector<double> colour_wait(stats.color_wait), colour_bytes(stats.color_bytes.begin(), stats.color_bytes.end());
  std::vector<long long> colour_rows(static_cast<size_t>(ncolors));
  for (ordinal_t c = 0; c < ncolors; ++c)
    colour_rows[c] = solver.coloring().color_offsets[c + 1] - solver.coloring().color_offsets[c];
  MPI_Allreduce(MPI_IN_PLACE, colour_wait.data(), ncolors, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, colour_bytes.data(), ncolors, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, colour_rows.data(), ncolors, MPI_LONG_LONG, MPI_SUM, comm);
  // Colours that exchange: those with messages on some rank.
  std::vector<int> exchanging(static_cast<size_t>(ncolors));
  for (ordinal_t c = 0; c < ncolors; ++c) exchanging[c] = halo->active(c) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, exchanging.data(), ncolors, MPI_INT, MPI_MAX, comm);
  const int exchanging_colours = static_cast<int>(std::count(exchanging.begin(), exchanging.end(), 1));

  // Sweeps to the tolerance (--rtol, else 1e-6) from dQ = 0, checked after every sweep.
  mcpi::Status to_tolerance;
  {
    Kokkos::View<double*, HostSpace> dq("dq", share.R.size());
    mcpi::Control c;
    c.rtol = opt.rtol > 0 ? opt.rtol : 1e-6;
    c.max_sweeps = 500;
    c.check_interval = 1;
    c.variant = variant;
    to_tolerance = solver.apply(exec, view(share.R), dq, c);
  }

  // --verify: the one-rank solver in the same colouring, on rank 0.
  const bool verify = opt.verify == 1;
  std::vector<double> dq_all;
  std::vector<ordinal_t> colours_all;
  {
    std::vector<double> dq_local(res.dq);
    std::vector<long long> ids(share.global_ids.begin(), share.global_ids.end());
    std::vector<ordinal_t> colours(solver.coloring().color);
    if (verify && rank == 0) {
      dq_all.assign(static_cast<size_t>(problem.system.n) * share.nb, 0.0);
      colours_all.assign(static_cast<size_t>(problem.system.n), 0);
    }
    for (int q = 0; q < size && verify; ++q) {
      if (q != 0 && rank == q) {
        send_vector(ids, 0, comm);
        send_vector(dq_local, 0, comm);
        send_vector(colours, 0, comm);
      } else if (rank == 0) {
        if (q != 0) {
          recv_vector(ids, q, comm);
          recv_vector(dq_local, q, comm);
          recv_vector(colours, q, comm);
        }
        for (size_t i = 0; i < ids.size(); ++i) {
          colours_all[ids[i]] = colours[i];
          for (int e = 0; e < share.nb; ++e) dq_all[ids[i] * share.nb + e] = dq_local[i * share.nb + e];
        }
      }
    }
  }
  int failed = 0;
  double verify_error = -1.0;
  if (verify && rank == 0) {
    progress("verifying against the one-rank solver in the same colouring");
    mcpi::BlockPattern<HostSpace> p{problem.system.nb, problem.system.n, problem.system.O.ia, problem.system.O.ja};
    mcpi::SetupOptions so;
    so.colors = colours_all;
    so.o_storage = opt.o_storage;
    mcpi::Solver<Exec> one(p, so);
    one.update(exec, problem.system.O.values, problem.system.D);
    Kokkos::View<double*, HostSpace> dq("dq", problem.system.R.extent(0));
    mcpi::Control c;
    c.max_sweeps = opt.sweeps;
    c.check_interval = 0;
    c.variant = variant;
    c.sweep_graphs = false;  // the reference launches colour by colour
    one.apply(exec, problem.system.R, dq, c);
    verify_error =
        mcpi::max_block_row_error(dq_all, std::vector<double>(dq.data(), dq.data() + dq.extent(0)), problem.system.nb);
    failed = !(verify_error < mcpi::kBlockRowTolerance);
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, comm);

  if (rank == 0) {
    double bytes = 0, owned = 0, ghosts = 0, slowest = 0, wait_max = 0, wait_sum = 0;
    std::printf("\nproblem   %s\n", problem.description.c_str());
    std::printf("ranks     %d (%s, transport: %s), colours %d, kernel %s\n", size, Exec::name(),
                halo->transport().c_str(), ncolors, res.kernel.c_str());
    std::printf("colours   %d%s; rows per colour:", ncolors,
                opt.recolor_passes > 0
                    ? (" after " + std::to_string(opt.recolor_passes) + " iterated-greedy passes").c_str()
                    : "");
    for (ordinal_t c = 0; c < ncolors; ++c) std::printf(" %lld", colour_rows[c]);
    std::printf("\n");
    std::printf("exchanges %d of %d colours exchange (%s colouring)\n", exchanging_colours, ncolors,
                opt.halo_coloring.c_str());
    std::printf("converge  %d sweeps to ||r|| / ||R|| < %.1e (%s)\n", to_tolerance.sweeps,
                opt.rtol > 0 ? opt.rtol : 1e-6, mcpi::name(to_tolerance.reason));
    std::printf("\n%6s %12s %10s %8s %14s %8s %10s\n", "rank", "owned rows", "ghosts", "ghost %", "bytes/sweep",
                "wait %", "ms/sweep");
    for (int q = 0; q < size; ++q) {
      const RankLine& l = lines[q];
      std::printf("%6d %12.0f %10.0f %8.2f %14.0f %8.1f %10.3f\n", q, l.owned, l.ghosts,
                  l.owned > 0 ? 100.0 * l.ghosts / l.owned : 0.0, l.bytes_per_sweep, 100.0 * l.wait_share, l.median_ms);
      bytes += l.bytes_per_sweep;
      owned += l.owned;
      ghosts += l.ghosts;
      slowest = std::max(slowest, l.median_ms);
      wait_max = std::max(wait_max, l.wait_share);
      wait_sum += l.wait_share;
    }
    const mcpi::SweepTraffic whole = mcpi::sweep_traffic(problem.system.n, problem.system.nb, problem.system.O.nnzb());
    std::printf(
        "\noverall   %.0f block rows, %.2f %% ghosts; %.3f MB exchanged per sweep; %.3f ms per sweep (slowest "
        "rank's median of %d); waiting on messages %.1f %% (mean over ranks), %.1f %% (most)\n",
        owned, 100.0 * ghosts / std::max(1.0, owned), bytes * 1e-6, slowest, opt.sweeps, 100.0 * wait_sum / size,
        100.0 * wait_max);
    std::printf(
        "bytes     %.1f MB per sweep over all ranks (minimum-traffic model); %.1f GB/s, %.1f %% of the copy "
        "bandwidth %.1f GB/s (rank 0, device-to-device)\n",
        whole.total() * 1e-6, whole.total() / (slowest * 1e-3) * 1e-9,
        100.0 * whole.total() / (slowest * 1e-3) * 1e-9 / copy.gbs, copy.gbs);
    std::printf("residual  ||R - A dQ|| / ||R|| = %.3e after %d sweeps\n", residual / std::sqrt(rr), opt.sweeps);
    if (graph_res.graph)
      std::printf(
          "graph     %.3f ms per sweep as replays of a recorded graph of one sweep, exchanges included (slowest "
          "rank's median of %d; %.3f launched colour by colour: %.2fx); recorded in %.3f ms (%.1f sweeps, slowest "
          "rank); dQ %s the launched sweeps'\n",
          1e3 * graph_slowest, opt.sweeps, slowest, slowest / (1e3 * graph_slowest), 1e3 * graph_record_slowest,
          graph_record_slowest / graph_slowest, graph_same ? "equals, bit for bit," : "DIFFERS from");
    else if (opt.graph)
      std::printf("graph     %s\n", graph_res.note.c_str());
    if (opt.per_colour) {
      std::printf("\n%7s %12s %14s %12s\n", "colour", "rows", "bytes/sweep", "wait ms");
      for (ordinal_t c = 0; c < ncolors; ++c)
        std::printf("%7d %12lld %14.0f %12.4f\n", c, colour_rows[c], colour_bytes[c] / std::max(1, opt.sweeps),
                    1e3 * colour_wait[c] / std::max(1, opt.sweeps));
      std::printf("(wait: the most any rank waited for the colour's messages, per sweep)\n");
    }
    if (verify)
      std::printf("verify    largest block-row difference from the one-rank solver in the same colouring: %.1e (%s)\n",
                  verify_error, failed ? "FAILED" : "< 1e-4, passed");
    std::fflush(stdout);
  }
  if (opt.probe_link && size > 1) probe_link(comm, halo->transport().rfind("NCCL", 0) == 0);
  if (failed && rank == 0) std::fprintf(stderr, "mcpi: FAILED: the distributed dQ differs from the one-rank dQ\n");
  if (!graph_same && rank == 0)
    std::fprintf(stderr, "mcpi: FAILED: the graph's dQ differs from the launched sweeps'\n");
  return failed || !graph_same ? 1 : 0;
}

}  // namespace mcpi_app
