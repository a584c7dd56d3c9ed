// mcpi: FUN3D's multicolour point-implicit solver on the default Kokkos device.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/reference.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include <ppsparse/util/copy_bandwidth.hpp>

#include <ppsparse/io/matrix_market.hpp>

#include "common/mcpi_timed_sweeps.hpp"

#if defined(PPSPARSE_MCPI_MPI)
#include <mpi.h>

#include <ppsparse/distributed/collective.hpp>

#include "distributed_mode.hpp"
#endif
#include "flow_mode.hpp"
#include "mpk_mode.hpp"
#include "steps_mode.hpp"
#include "options.hpp"
#include "problem.hpp"

namespace {

using namespace ppsparse;
using Clock = std::chrono::steady_clock;

struct Row {
  std::string variant, kernel, note;
  std::vector<double> history;  // ||r|| / ||R|| after each sweep
  double ms_per_sweep, gbs, pct_copy, gflops, reduction, verify_error;
  bool fell_back_to_block_row;
};

int run(const mcpi_app::Options& opt) {
  const bool gpu = compat::is_gpu_space<DefaultExecSpace>();
  const auto t0 = Clock::now();
  auto progress = [&](const std::string& s) {
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("[setup %7.1fs] %s\n", t, s.c_str());
    std::fflush(stdout);
  };
  mcpi_app::Problem p = mcpi_app::build_problem(opt, gpu, progress);
  const auto& s = p.system;
  const auto& col = p.coloring;
  // A Matrix Market file numbers rows from 1: its errors say so, and name the file.
  std::unique_ptr<mcpi::Solver<>> made;
  try {
    made = std::make_unique<mcpi::Solver<>>(s, col, progress, mcpi_app::user_index_base(opt), opt.o_storage);
  } catch (const ppsparse::NumericalError& e) {
    mcpi_app::rethrow_in_file_terms(opt, s.nb, e);
  }
  mcpi::Solver<>& solver = *made;

  std::printf("\nproblem   %s\n", p.description.c_str());
  if (gpu)
    std::printf("device    %s (vector-group width %d)\n", DefaultExecSpace::name(), solver.group_width());
  else
    std::printf("device    %s (host)\n", DefaultExecSpace::name());
  std::printf("n         %d block rows, nb = %d (%lld unknowns)\n", s.n, s.nb, static_cast<long long>(s.n) * s.nb);
  std::printf("O         %lld off-diagonal blocks (%.2f per block row), stored in %s%s\n",
              static_cast<long long>(s.O.nnzb()), s.n ? static_cast<double>(s.O.nnzb()) / s.n : 0.0,
              mcpi::name(opt.o_storage.format),
              opt.o_storage.keep_fp32 && opt.o_storage.format != mcpi::OFormat::fp32 ? " (and an FP32 copy)" : "");
  std::printf("D         LU factors in FP64%s\n", opt.o_storage.lu_fp32 ? ", read by the sweeps rounded to FP32" : "");
  std::printf("colours   %d; rows per colour:", col.ncolors);
  for (ordinal_t c = 0; c < col.ncolors; ++c) std::printf(" %d", col.color_offsets[c + 1] - col.color_offsets[c]);
  std::printf("\n");
  const auto tr = solver.traffic();
  std::printf(
      "bytes     %.1f MB per sweep (model: O values %.1f + O indices %.1f + row pointers %.1f + D %.1f + R %.1f"
      " + dQ read once %.1f + dQ written once %.1f MB)\n",
      tr.total() * 1e-6, tr.o_values * 1e-6, tr.o_indices * 1e-6, tr.o_row_ptr * 1e-6, tr.d * 1e-6, tr.r * 1e-6,
      tr.dq_read * 1e-6, tr.dq_write * 1e-6);

  std::printf("memory    the solver holds %.1f MB on the device (%.0f bytes per block row)\n",
              solver.device_bytes() * 1e-6, s.n ? static_cast<double>(solver.device_bytes()) / s.n : 0.0);

  progress("measuring the device-to-device copy bandwidth");
  const CopyBandwidth copy = measure_copy_bandwidth<DefaultExecSpace>();
  std::printf("copy      %.1f GB/s (device-to-device, %.0f MiB buffers, read + write, median of %d)\n", copy.gbs,
              copy.buffer_bytes / 1048576.0, copy.repetitions);

  const double entries = static_cast<double>(s.O.nnzb()) * s.nb * s.nb;
  const bool verify = opt.verify == 1 || (opt.verify == -1 && entries <= 2e7);
  std::vector<double> ref;
  if (verify) {
    progress("computing the FP64 host reference (" + std::to_string(opt.sweeps) + " sweeps)");
    // The sweeps read O as stored: the reference sweeps that system (O rounded unless fp32).
    // ... and, with --lu-fp32, D as the product of its rounded factors.
    const auto rounded = mcpi::reference_rounded_system(opt.o_storage.format, s);
    ref =
        mcpi::reference_sweeps(opt.o_storage.lu_fp32 ? mcpi::reference_rounded_lu(rounded) : rounded, col, opt.sweeps);
    if (opt.test_perturb_reference > 0 && !ref.empty())
      mcpi_app::perturb_reference_entry(ref, ref.size() / 2, opt.test_perturb_reference);
  }

  // By default every variant; on a host space the hardware variants (_l2, _async) would only
  // run their portable kernels again, so the kernels alone.
  std::vector<mcpi::Variant> variants = opt.variants;
  if (variants.empty()) {
    for (const mcpi::Variant& v : mcpi::all_variants())
      if (gpu || !v.has_features()) variants.push_back(v);
  }
  std::vector<Row> rows;
  bool ok = true;
  for (mcpi::Variant v : variants) {
    for (const bool graph : {false, true}) {
      if (graph && !opt.graph) continue;
      progress(std::string("running ") + mcpi::name(v) + (graph ? " as a graph" : ""));
      // warm-up: first launch, scratch allocation, the graph's recording
      const auto warm = time_sweeps(solver, {1, v, false, opt.stage_diagonal, !opt.portable, opt.tuning, graph});
      const auto res = time_sweeps(solver, {opt.sweeps, v, true, opt.stage_diagonal, !opt.portable, opt.tuning, graph});
      Row r;
      r.variant = mcpi::name(v);
      r.kernel = res.kernel + (res.graph ? " (graph)" : "");
      r.note = res.note;
      const double t = res.median_sweep_seconds();
      if (res.graph) {
        char line[160];
        std::snprintf(line, sizeof line, "graph of one sweep recorded in %.3f ms (%.1f sweeps)",
                      1e3 * warm.graph_record_seconds, warm.graph_record_seconds / t);
        r.note += (r.note.empty() ? "" : "; ") + std::string(line);
      }
      r.ms_per_sweep = t * 1e3;
      r.gbs = tr.total() / t * 1e-9;
      r.pct_copy = 100.0 * r.gbs / copy.gbs;
      r.gflops = tr.flops / t * 1e-9;
      r.reduction = res.residual_norms.back() / res.initial_residual_norm;
      for (double x : res.residual_norms) r.history.push_back(x / res.initial_residual_norm);
      r.verify_error = verify ? mcpi::max_block_row_error(res.dq, ref, s.nb) : -1.0;
      r.fell_back_to_block_row = r.kernel.rfind("portable", 0) == 0 &&
                                 solver.geometry(v.kernel).map == mcpi::LaneMap::block_row &&
                                 v.kernel == mcpi::Kernel::rows_per_warp;
      if (verify && !(r.verify_error < mcpi::kBlockRowTolerance)) ok = false;
      if (!std::isfinite(r.reduction)) ok = false;
      rows.push_back(r);
    }
  }

  std::printf("\n%-24s %-30s %10s %9s %8s %9s %12s %12s\n", "variant", "kernel", "ms/sweep", "GB/s", "% copy",
              "GFLOP/s", "||r||/||R||", "row err");
  for (const auto& r : rows) {
    char verr[32];
    if (r.verify_error >= 0)
      std::snprintf(verr, sizeof verr, "%.1e", r.verify_error);
    else
      std::snprintf(verr, sizeof verr, "-");
    std::printf("%-24s %-30s %10.3f %9.1f %8.1f %9.1f %12.3e %12s%s\n", r.variant.c_str(), r.kernel.c_str(),
                r.ms_per_sweep, r.gbs, r.pct_copy, r.gflops, r.reduction, verr,
                r.fell_back_to_block_row ? "  (fewer than 2 rows fit a group: block-row mapping)" : "");
  }
  for (const auto& r : rows)
    if (!r.note.empty()) std::printf("note: %s: %s\n", r.variant.c_str(), r.note.c_str());
  if (opt.stage_diagonal) std::printf("(D staged through registers into scratch: --stage-diagonal)\n");
  std::printf(
      "(time: median sweep of %d after one warm-up sweep; GB/s from the bytes model above; "
      "residual after %d sweeps from dQ = 0)\n",
      opt.sweeps, opt.sweeps);
  if (verify)
    std::printf(
        "(row err: the largest relative error of a block row of dQ against the FP64 host reference; "
        "< 1e-4 passes)\n");

  if (!opt.json.empty()) {
    std::ofstream js(opt.json);
    if (!js) throw InputError(opt.json, "cannot open for writing");
    js << "{\n  \"problem\": \"" << p.description << "\",\n  \"device\": \"" << DefaultExecSpace::name()
       << "\",\n  \"n\": " << s.n << ", \"nb\": " << s.nb << ", \"nnzb\": " << s.O.nnzb()
       << ", \"colours\": " << col.ncolors << ",\n  \"bytes_per_sweep\": " << tr.total()
       << ", \"copy_gbs\": " << copy.gbs << ", \"sweeps\": " << opt.sweeps << ",\n  \"o_format\": \""
       << mcpi::name(opt.o_storage.format) << "\", \"o_keep_fp32\": " << (opt.o_storage.keep_fp32 ? "true" : "false")
       << ", \"lu_fp32\": " << (opt.o_storage.lu_fp32 ? "true" : "false")
       << ", \"device_bytes\": " << solver.device_bytes() << ",\n  \"results\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      js << "    {\"variant\": \"" << r.variant << "\", \"kernel\": \"" << r.kernel << "\", \"note\": \"" << r.note
         << "\", \"ms_per_sweep\": " << r.ms_per_sweep << ", \"gbs\": " << r.gbs << ", \"pct_copy\": " << r.pct_copy
         << ", \"gflops\": " << r.gflops << ", \"residual_reduction\": " << r.reduction
         << ", \"verify_error\": " << r.verify_error << ", \"residual_history\": [";
      for (size_t k = 0; k < r.history.size(); ++k) js << (k ? ", " : "") << r.history[k];
      js << "]}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    js << "  ]\n}\n";
    if (!js) throw InputError(opt.json, "write failed");
  }
  // A residual that grew: MCPI converges where the diagonal blocks dominate, and a user's
  // matrix need not have that; say so, and fail a verified run.
  double worst = 0;
  for (const auto& r : rows) worst = std::max(worst, r.reduction);
  if (worst > 1) {
    std::printf(
        "mcpi: the iteration diverged: ||r||/||R|| = %.3e after %d sweeps. MCPI converges where the diagonal "
        "blocks dominate their rows; this system's do not. Try --pattern-only (FUN3D-like values on this pattern), "
        "or FGMRES with MCPI as its preconditioner (--steps 1 --fgmres).\n",
        worst, opt.sweeps);
    if (verify) ok = false;
  }
  if (!ok) {
    std::fprintf(stderr, "mcpi: FAILED: a variant disagrees with the FP64 reference or diverged\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // --flow: the flow solver, on one rank, with its own options and help.
  if (mcpi_app::wants_flow_mode(argc, argv)) {
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
        std::cout << mcpi_app::flow_help_text();
        return 0;
      }
    Kokkos::ScopeGuard kokkos(argc, argv);
    try {
      return mcpi_app::run_flow_mode(mcpi_app::parse_flow_options(argc, argv));
    } catch (const ppsparse::NumericalError& e) {
      std::fprintf(stderr, "mcpi: the flow broke down: %s\n", mcpi_app::without_prefix(e.what()).c_str());
      return 1;
    } catch (const ppsparse::Error& e) {
      std::fprintf(stderr, "mcpi: error: %s\n", mcpi_app::without_prefix(e.what()).c_str());
      return 2;
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "mcpi: error: out of memory (try a smaller mesh)\n");
      return 2;
    }
  }
  // --help prints mcpi's usage first and alone: Kokkos would print its own help ahead of it.
  // Kokkos' options are behind --kokkos-help, which Kokkos itself answers.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << mcpi_app::help_text();
      return 0;
    }
  }
#if defined(PPSPARSE_MCPI_MPI)
  MPI_Init(&argc, &argv);
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Under mpirun (or with --distributed), the distributed solver; every error is agreed by all
  // ranks, printed once.
  bool distributed = ranks > 1;
  for (int i = 1; i < argc; ++i) distributed = distributed || std::string(argv[i]) == "--distributed";
  if (distributed) {
    int status = 0;
    {
      Kokkos::ScopeGuard kokkos(argc, argv);
      try {
        mcpi_app::Options opt;
        ppsparse::distributed::collectively(MPI_COMM_WORLD, [&] {
          opt = mcpi_app::parse_options(argc, argv);
          if (opt.mpk > 0 || opt.steps > 0)
            throw ppsparse::InvalidArgument("mcpi: --mpk and --steps run on one rank (not under mpirun -np > 1)");
        });
        status = mcpi_app::run_distributed_mode(opt, MPI_COMM_WORLD);
      } catch (const ppsparse::Error& e) {  // agreed: thrown on every rank
        if (rank == 0) std::fprintf(stderr, "mcpi: error: %s\n", mcpi_app::without_prefix(e.what()).c_str());
        status = 2;
      } catch (const std::exception& e) {  // this rank's alone: the others would wait for it
        std::fprintf(stderr, "mcpi: error on rank %d: %s\n", rank, e.what());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    }
    MPI_Finalize();
    return status;
  }
  struct Finalize {
    ~Finalize() { MPI_Finalize(); }
  } finalize_mpi;
#endif
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const auto opt = mcpi_app::parse_options(argc, argv);
    if (opt.help) {
      std::cout << mcpi_app::help_text();
      return 0;
    }
    if (opt.mpk > 0) {
      // A user's matrix is used as it is (no block size needed); otherwise the problem's
      // scalar matrix.
      if (opt.source == mcpi_app::Options::Source::matrix && !opt.pattern_only)
        return mcpi_app::run_mpk_mode(ppsparse::io::read_matrix_market<double>(opt.path), opt.path, opt, opt.mpk);
      const auto problem =
          mcpi_app::build_problem(opt, ppsparse::compat::is_gpu_space<ppsparse::DefaultExecSpace>(),
                                  [](const std::string& s) { std::printf("[setup] %s\n", s.c_str()); });
      return mcpi_app::run_mpk_mode(problem, opt, opt.mpk);
    }
    if (opt.steps > 0)
      return mcpi_app::run_steps_mode(
          mcpi_app::build_problem(opt, ppsparse::compat::is_gpu_space<ppsparse::DefaultExecSpace>(),
                                  [](const std::string& s) { std::printf("[setup] %s\n", s.c_str()); }),
          opt);
    return run(opt);
  } catch (const ppsparse::Error& e) {
    std::fprintf(stderr, "mcpi: error: %s\n", mcpi_app::without_prefix(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "mcpi: error: out of memory (try a smaller problem)\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcpi: error: %s\n", mcpi_app::without_prefix(e.what()).c_str());
    return 2;
  }
}
