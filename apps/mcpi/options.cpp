#include "options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/read.hpp>

#include "common/multigrid_options.hpp"

namespace mcpi_app {

using ppsparse::InvalidArgument;

std::string help_text() {
  return R"(usage: mcpi [problem] [options]
       mcpi --flow MESH --mach M --bc NAME=TYPE ... [options]   (mcpi --flow --help)

Runs FUN3D's multicolour point-implicit (MCPI) solver on the default Kokkos device and
reports time per sweep, the minimum-traffic bytes model, GB/s, the fraction of the
device-to-device copy bandwidth measured in the same run, and the residual reduction.

With --flow, mcpi is instead an implicit Euler flow solver on a mesh (SU2, UGRID, Gmsh, CGNS),
its linear systems solved by FGMRES + MCPI or MCPI alone: `mcpi --flow --help` lists its
options (boundary conditions, Mach number and incidence, CFL, steps, outputs).

problem (one of; default: the embedded problem):
  (none)                 embedded FUN3D-like system: a mixed-element mesh graph (~17
                         neighbours per vertex) with nb x nb blocks; about 1.1 M vertices
                         on a GPU, 8000 on a CPU (see --grid)
  --matrix FILE          a Matrix Market file (.mtx or .mtx.gz). Its values form A = D + O
                         with blocks of --block (which must divide the size); R is random.
      --pattern-only     use only the file's pattern as the vertex graph and generate
                         FUN3D-like block values for it
  --mesh FILE            a mesh (the formats below; recognised from the content and the
                         name): vertices coupled through element edges, one nb x nb block
                         per coupling, FUN3D-like values
      --zone K           of a multizone SU2 or CGNS file, zone K only (default: every
                         zone; CGNS zones joined by their connectivity, else disjoint)
      --refine K         refine the mesh uniformly K times first (tet -> 8, ...)
)" + std::string("\nmesh formats (--mesh):\n  ") +
         ppsparse::mesh::known_mesh_formats() +
         R"(;
  UGRID's encoding is its second-last suffix (grid.lb8.ugrid: little-endian binary,
  8-byte reals); Gmsh MSH 2.2 and 4.1, ASCII or binary

options:
  --block N              block size nb, 1..64 (default 5)
  --grid N               embedded problem: N^3 grid vertices (default 103 on GPUs, 20 on CPUs)
  --sweeps N             MCPI sweeps, >= 1 (default 15)
  --recolor-passes P     after colouring, P iterated-greedy passes (0: none, the default),
                         which empty the small last colours; prints the rows per colour
                         before and after
  --variant NAME         a kernel (warp_per_row, rows_per_warp, rows_per_warp_prefetch,
                         split) with the optional hardware-feature suffixes _l2 (dQ in a
                         persisting-L2 window) and _async (D copied asynchronously), e.g.
                         rows_per_warp_l2_async; or all (default: the kernels, then
                         warp_per_row and rows_per_warp with _l2 and _l2_async); may be
                         repeated. On CUDA, warp_per_row* and rows_per_warp* run specialised
                         kernels for every nb (1..64); elsewhere the features fall back to
                         the portable kernel and the output says so
  --o-format F           how the sweeps store O: fp32 (default), bf16, fp16 (a power-of-two
                         scale per block row) or int8 (one per column of each block); --verify
                         then compares with the FP64 reference on O so rounded
  --o-keep-fp32          with a reduced --o-format, also keep O in FP32 for the operator and
                         the true residuals
  --o-keep-fp64          also keep the values as given in FP64 for the operator: FGMRES's
                         residuals and convergence (--steps N --fgmres) are then the file's own
  --lu-fp32              the sweeps read D's LU factors rounded to FP32 (4 bytes per entry of D
                         instead of 8); --verify then compares with the FP64 reference whose D
                         is the product of the rounded factors
  --portable             run only the portable Kokkos kernels (no backend specialisations)
  --mpk P                matrix power kernel mode: y_k = A^k x for k = 1..P on the scalar
                         matrix of the problem (or the --matrix file itself, FP64): every
                         MPK variant (back-to-back, level-blocked, graph, persistent,
                         pipelined, automatic) with time, GB/s, speedup over back-to-back, and a
                         round-off check against back-to-back; --sweeps sets repetitions
  --steps N              time-step mode: set up from the structure once, then N steps, each
                         assembling perturbed values on the device, update() (scatter + LU)
                         and a solve on device vectors (apply(), or FGMRES with --fgmres);
                         prints each step's times, sweeps and residuals
      --rtol X           the steps' relative tolerance on ||R - A dQ|| (default 0: run
                         --sweeps sweeps; with X, at most 100 x --sweeps)
      --check-interval K residual check every K sweeps (default 5; 0: none)
      --fgmres           solve each step by FGMRES(30) right-preconditioned by --sweeps
                         MCPI sweeps, to --rtol (default 1e-6 there)
      --multigrid        with --fgmres: preconditioned instead by one cycle of an
                         aggregation multigrid whose levels are MCPI solvers (its hierarchy
                         from the first step's values, refreshed at every step); its options:
)" + multigrid_options_help(ppsparse::mcpi::MultigridOptions{}, 4) +
         R"(
  --seed N               seed of generated values (default 2026)
  --stage-diagonal       stage D through registers into scratch during the SpMV (the
                         portable form of an asynchronous copy; off by default)
  --small-colour MODE    CUDA: rows_per_warp's kernel for small colours: automatic (default),
                         off or always
  --row-slots N          CUDA: slots per block row of rows_per_warp: 0 (the rule), 1, 2 or 4
  --unroll N             CUDA, reduced --o-format: blocks in flight per lane of rows_per_warp:
                         0 (the rule), 2 or 4
  --wide-split N         CUDA, nb >= 16: warps per block row: 0 (the rule), 1 or 4
  --wide-prefetch 0|1    CUDA, nb >= 16: L2 prefetch of the next blocks (default 1)
  --dependent-launch 0|1 CUDA: each colour a programmatic dependent launch (default 1)
  --graph                each timed sweep one replay of a recorded device graph of the sweep
                         (CUDA, HIP; Solver::sweep_graph): one launch per sweep, exchanges
                         included under mpirun with NCCL; prints the recording's cost in
                         sweeps, or why no graph could be recorded
  --verify / --no-verify compare dQ with the FP64 host reference (default: on when the
                         problem has at most 2e7 block entries)
  --json FILE            also write the results as JSON

under mpirun (more than one rank; built with PPSPARSE_ENABLE_MPI):
  rank 0 builds the problem, partitions it with METIS and sends each rank its rows; every
  rank runs --sweeps sweeps of the distributed solver (the first --variant, default auto).
  Prints per rank the owned rows, ghost fraction, bytes sent and the share of time waiting on
  messages, then the totals and the residual; --verify compares with the one-rank solver
  (same colouring) on rank 0
  --transport NAME       automatic (GPU-aware MPI where the library is, else NCCL where
                         each rank has its own GPU, else staged), staged (through pinned
                         host memory), mpi_device, nccl or peer (CUDA: each rank writes
                         into its neighbours' memory, GPUs of one node)
  --partitioner NAME     metis (default: METIS k-way on rank 0) or zoltan (rank 0 sends
                         contiguous blocks of rows, then Zoltan's parallel graph partitioning
                         moves them, as for a system read in parallel)
  --halo-coloring NAME   partition_independent (default: the same colours on every
                         partition), boundary_first (the rows coupled to other ranks take
                         the first colours: fewer colours exchange) or boundary_pairs (as
                         boundary_first, the colours in pairs exchanged together: about half
                         the exchanges)
  --per-colour           each colour's rows, bytes exchanged and wait
  --exchange-priority 0|1
                         NCCL or peer: the exchanges on a stream of the highest priority,
                         ahead of the interior rows (1, the default), or on the solver's
                         stream (0)
  --distributed          the distributed mode on one rank too (the one-GPU baseline of a
                         scaling run)
  --probe-link           after the sweeps, time one exchange of 8 B .. 16 MB between ranks 0
                         and 1 by the solver's transport (the scaling model's latency and
                         bandwidth)
  --help                 this text

testing:
  --test-perturb-reference E
                         move one entry of the reference that --verify and --mpk compare
                         with by E times its magnitude (E in (0, 1]), so that the test suite
                         can show a wrong result failing; never for measurements

Kokkos options (--kokkos-device-id=N, ...) are passed to Kokkos; --kokkos-help lists them.
Errors are one line on stderr with a non-zero exit status.
)";
}

void perturb_reference_entry(std::vector<double>& ref, std::size_t i, double e) {
  ref[i] += e * (std::abs(ref[i]) > 0 ? std::abs(ref[i]) : 1.0);
  std::printf("(test: reference entry %zu moved by %g of its magnitude)\n", i, e);
}

Options parse_options(int argc, const char* const* argv) {
  Options o;
  bool variant_all = false;
  // The tuning's older environment names first; options below override them.
  struct Legacy {
    const char* env;
    const char* option;
  };
  std::vector<std::pair<std::string, std::string>> tuning_args;
  for (const Legacy& l :
       {Legacy{"PPSPARSE_MCPI_CUDA_SMALL", "--small-colour"}, Legacy{"PPSPARSE_MCPI_CUDA_SLOTS", "--row-slots"},
        Legacy{"PPSPARSE_MCPI_CUDA_WIDE_SPLIT", "--wide-split"},
        Legacy{"PPSPARSE_MCPI_CUDA_PREFETCH", "--wide-prefetch"},
        Legacy{"PPSPARSE_MCPI_CUDA_PDL", "--dependent-launch"}})
    if (const char* v = std::getenv(l.env); v && *v) tuning_args.emplace_back(l.option, v);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InvalidArgument("mcpi: option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--matrix" || a == "--mesh") {
      if (o.source != Options::Source::builtin) throw InvalidArgument("mcpi: give only one of --matrix and --mesh");
      o.source = a == "--matrix" ? Options::Source::matrix : Options::Source::mesh;
      o.path = value();
    } else if (a == "--block") {
      o.block = static_cast<int>(parse_int(a, value(), 1, 64));
    } else if (a == "--zone") {
      o.zone = static_cast<int>(parse_int(a, value(), 1, 1000000));
    } else if (a == "--refine") {
      o.refine = static_cast<int>(parse_int(a, value(), 0, 6));
    } else if (a == "--grid") {
      o.grid = static_cast<ppsparse::ordinal_t>(parse_int(a, value(), 2, 1290));
    } else if (a == "--recolor-passes") {
      o.recolor_passes = static_cast<int>(parse_int(a, value(), 0, 100));
    } else if (a == "--sweeps") {
      o.sweeps = static_cast<int>(parse_int(a, value(), 1, 100000));
    } else if (a == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_int(a, value(), 0, std::numeric_limits<long long>::max()));
    } else if (a == "--variant") {
      const std::string v = value();
      if (v == "all")
        variant_all = true;
      else
        o.variants.push_back(ppsparse::mcpi::parse_variant(v));
    } else if (a == "--json") {
      o.json = value();
    } else if (a == "--pattern-only") {
      o.pattern_only = true;
    } else if (a == "--mpk") {
      o.mpk = static_cast<int>(parse_int(a, value(), 1, 64));
    } else if (a == "--steps") {
      o.steps = static_cast<int>(parse_int(a, value(), 1, 1000000));
    } else if (a == "--check-interval") {
      o.check_interval = static_cast<int>(parse_int(a, value(), 0, 1000000));
    } else if (a == "--fgmres") {
      o.fgmres = true;
    } else if (a == "--multigrid") {
      o.multigrid = true;
    } else if (parse_multigrid_option(a, value, o.mg)) {
      o.mg_option_given = true;
    } else if (a == "--rtol") {
      const std::string v = value();
      char* end = nullptr;
      errno = 0;
      const double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || errno == ERANGE || !(x >= 0 && x < 1))
        throw InvalidArgument("mcpi: --rtol expects a number in [0, 1), got '" + v + "'");
      o.rtol = x;
    } else if (a == "--o-format") {
      o.o_storage.format = ppsparse::mcpi::parse_o_format(value());
    } else if (a == "--o-keep-fp32") {
      o.o_storage.keep_fp32 = true;
    } else if (a == "--o-keep-fp64") {
      o.o_storage.keep_fp64 = true;
    } else if (a == "--lu-fp32") {
      o.o_storage.lu_fp32 = true;
    } else if (a == "--portable") {
      o.portable = true;
    } else if (a == "--stage-diagonal") {
      o.stage_diagonal = true;
    } else if (a == "--test-perturb-reference") {
      const std::string v = value();
      char* end = nullptr;
      errno = 0;
      const double e = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || errno == ERANGE || !(e > 0 && e <= 1))
        throw InvalidArgument("mcpi: --test-perturb-reference expects a number in (0, 1], got '" + v + "'");
      o.test_perturb_reference = e;
    } else if (a == "--small-colour" || a == "--row-slots" || a == "--wide-split" || a == "--wide-prefetch" ||
               a == "--dependent-launch") {
      tuning_args.emplace_back(a, value());
    } else if (a == "--unroll") {
      o.tuning.unroll = static_cast<int>(parse_int(a, value(), 0, 4));
    } else if (a == "--halo-coloring") {
      o.halo_coloring = value();
      if (o.halo_coloring != "partition_independent" && o.halo_coloring != "boundary_first" &&
          o.halo_coloring != "boundary_pairs")
        throw InvalidArgument(
            "mcpi: --halo-coloring expects partition_independent, boundary_first or boundary_pairs, got '" +
            o.halo_coloring + "'");
    } else if (a == "--transport") {
      o.transport = value();
      if (o.transport != "automatic" && o.transport != "staged" && o.transport != "mpi_device" &&
          o.transport != "nccl" && o.transport != "peer")
        throw InvalidArgument("mcpi: --transport expects automatic, staged, mpi_device, nccl or peer, got '" +
                              o.transport + "'");
    } else if (a == "--partitioner") {
      o.partitioner = value();
      if (o.partitioner != "metis" && o.partitioner != "zoltan")
        throw InvalidArgument("mcpi: --partitioner expects metis or zoltan, got '" + o.partitioner + "'");
    } else if (a == "--per-colour") {
      o.per_colour = true;
    } else if (a == "--graph") {
      o.graph = true;
    } else if (a == "--exchange-priority") {
      const std::string v = value();
      if (v != "0" && v != "1") throw InvalidArgument("mcpi: --exchange-priority expects 0 or 1, got '" + v + "'");
      o.exchange_priority = v == "1";
    } else if (a == "--probe-link") {
      o.probe_link = true;
    } else if (a == "--distributed") {
#if !defined(PPSPARSE_MCPI_MPI)
      throw InvalidArgument("mcpi: --distributed needs mcpi built with PPSPARSE_ENABLE_MPI");
#endif
      o.distributed = true;
    } else if (a == "--verify") {
      o.verify = 1;
    } else if (a == "--no-verify") {
      o.verify = 0;
    } else {
      throw InvalidArgument("mcpi: unknown option '" + a + "' (see --help)");
    }
  }
  if (variant_all) o.variants.clear();
  for (const auto& [option, text] : tuning_args) {
    if (option == "--small-colour") {
      try {
        o.tuning.small_color = ppsparse::mcpi::parse_small_color(text);
      } catch (const InvalidArgument&) {
        throw InvalidArgument("mcpi: --small-colour expects automatic, off or always, got '" + text + "'");
      }
    } else if (option == "--row-slots") {
      o.tuning.row_slots = static_cast<int>(parse_int(option, text, 0, 4));
    } else if (option == "--wide-split") {
      o.tuning.wide_split = static_cast<int>(parse_int(option, text, 0, 4));
    } else if (option == "--wide-prefetch") {
      o.tuning.wide_prefetch = parse_int(option, text, 0, 1) == 1;
    } else {
      o.tuning.dependent_launch = parse_int(option, text, 0, 1) == 1;
    }
  }
  try {
    ppsparse::mcpi::check_tuning(o.tuning);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("mcpi: ") + e.what());
  }
  if ((o.rtol > 0 || o.fgmres) && o.steps == 0) throw InvalidArgument("mcpi: --rtol and --fgmres apply to --steps");
  if (o.multigrid && !o.fgmres) throw InvalidArgument("mcpi: --multigrid preconditions --fgmres (add --fgmres)");
  if (o.mg_option_given && !o.multigrid) throw InvalidArgument("mcpi: the --mg-* options apply to --multigrid");
  if (o.steps > 0 && o.mpk > 0) throw InvalidArgument("mcpi: --steps and --mpk are separate modes");
  if (o.refine > 0 && o.source != Options::Source::mesh) throw InvalidArgument("mcpi: --refine applies to --mesh only");
  if (o.zone > 0 && o.source != Options::Source::mesh) throw InvalidArgument("mcpi: --zone applies to --mesh only");
  if (o.pattern_only && o.source != Options::Source::matrix)
    throw InvalidArgument("mcpi: --pattern-only applies to --matrix only");
  if (o.grid > 0 && o.source != Options::Source::builtin)
    throw InvalidArgument("mcpi: --grid applies to the embedded problem only");
  return o;
}

}  // namespace mcpi_app
