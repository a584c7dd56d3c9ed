// MCPI benchmark: every mcpi::Variant through mcpi::Solver, with the device backend's
// specialised kernels ("backend", where it has one for the variant and nb) and with the
// portable Kokkos kernels ("portable"), against two peers built on the same colour-ordered
// system and colouring:
//   peer_cusparse        the Walden et al. (2021) baseline (mcpi::VendorPeer): cusparseSbsrmv per colour,
//                        then two cublasDtrsmBatched with D's LU factors (CUDA builds only)
//   peer_kokkos_kernels  KokkosSparse BsrMatrix spmv (native) per colour, then KokkosBatched
//                        LU solves per block row (peers/include/ppsparse/peers/mcpi_kokkos_kernels.hpp)
// and the device-to-device copy measured in the same run (copy/<MiB>MiB, bench/common).
//
// Problems (sizes by flags or environment; GPU defaults in brackets, CPU defaults small):
//   default_g<G>_nb<NB>   FUN3D-like mixed-element mesh graph G^3 [103^3 = 1.09 M vertices], nb [5]
//   nbsweep_nb<NB>_g<G>   the same generator for each nb of --nb_list [1-10, 12, 16, 17, 24, 32, 48,
//                         64], the grid G chosen so that one sweep's bytes are about --nb_sweep_mb
//                         [4096 MB], clamped to [--nb_sweep_min_grid, --nb_sweep_max_grid] [20, 102]:
//                         at most the default mesh's size, so small nb get less
//   mesh_<name>_r<K>_nb<NB>  a real SU2 mesh of --mesh_dir, refined K times [brick_tets, K = 3: about 5 M vertices]
// Every problem: gen::make_block_system values (seeded), reorder::color_distance1 colouring.
//
// Timing: one benchmark repetition = one solve from dQ = 0 of --sweeps sweeps [10], each
// sweep fenced and timed on its own (mcpi::Solver::solve does this for ppsparse, which also
// sets and restores the L2 window of the _l2 variants; the peers are timed the same way);
// each Google Benchmark iteration reports one sweep (manual time), so real_time is the mean
// sweep of a repetition and the *_median aggregate the median over --reps repetitions.
// One untimed solve first is the warm-up and the check below.
//
// Time steps (step/*, --steps [5] steps of --step_sweeps [15] sweeps each, all from the
// user's numbering on the device): step/sweeps is apply() alone (no check, no final residual),
// the baseline; step/update_f32 and step/update_f64 add update() (scatter + LU of D) from FP32
// or FP64 O; step/in_place adds factor() after the user's D was assembled into storage()
// (untimed); step/checked5 is apply() with a residual check every 5 sweeps and the true final
// residual, step/checked5_no_final without the final residual. Counter step_ms: one step.
// The auto variant (auto/backend, auto/portable) runs what mcpi::resolve_variant picks.
// Reduced O (o_<format>/auto/backend and /portable, for each of --o_formats [bf16,fp16,int8]):
// the auto variant on a solver storing O in that format (mcpi/o_format.hpp), its bytes model
// with O's stored bytes; checked against the same solver's portable rows_per_warp (counter
// check_err) and, for the rounding's size, against the FP32 reference (counter vs_fp32).
// FGMRES + MCPI (fgmres/first_call, fgmres/iteration): see bench_fgmres below.
//
// Validation (before any time is reported): every case runs --check_sweeps sweeps [3] from
// dQ = 0 and its dQ is compared with ppsparse's portable rows_per_warp on the same system,
// colouring and sweeps: relative L2 difference < 1e-4 or the case reports an error instead
// of numbers (counter check_err). On small problems (<= 2e7 block entries) that reference
// is itself checked against the FP64 host reference (counter fp64_err).
//
// Counters: gbs = bytes model / time, with the model of mcpi::sweep_traffic (minimum traffic
// of one sweep: O values (FP32) and block column indices once, 64-bit block row pointers once,
// D (FP64) and R (FP64) once, dQ (FP32) read once and written once); pct_copy = gbs as % of
// the run's copy bandwidth; gflops = mcpi::sweep_traffic flops (2 per O entry, 2 nb^2 per
// block row) / time; model_bytes, n, nb, nnzb, colours, check_err, fp64_err, setup_s (peers).
// The label says which kernel ran (and any fallback note). Speedups over the peers are
// computed by tools/mcpi_report.py.
//
// CUDA kernel settings (mcpi::KernelTuning; defaults: the automatic rules), each also set by
// the environment variable the library read before they became options:
//   --mcpi_small_colour=automatic|off|always (PPSPARSE_MCPI_CUDA_SMALL, also 0 and all)
//   --mcpi_row_slots=0|1|2|4 (PPSPARSE_MCPI_CUDA_SLOTS)   --mcpi_wide_split=0|1|4 (PPSPARSE_MCPI_CUDA_WIDE_SPLIT)
//   --mcpi_wide_prefetch=0|1 (PPSPARSE_MCPI_CUDA_PREFETCH) --mcpi_dependent_launch=0|1 (PPSPARSE_MCPI_CUDA_PDL)
//   --mcpi_unroll=0|2|4 (PPSPARSE_MCPI_CUDA_UNROLL; reduced O formats)
//
//   ./bench/bench_mcpi --benchmark_out=mcpi.json --benchmark_out_format=json
//   python3 bench/tools/mcpi_report.py mcpi.json --out mcpi_report
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <stdexcept>
#include <memory>
#include <sstream>
#include <sys/stat.h>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/backend.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/reference.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include <ppsparse/peers/mcpi_vendor_peer.hpp>
#include <ppsparse/mesh/refine.hpp>
#include <ppsparse/mesh/su2_reader.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>
#include <ppsparse/reorder/coloring.hpp>

#include "common/bench_config.hpp"
#include "common/copy_bandwidth.hpp"
#include "common/counters.hpp"
#include <ppsparse/peers/mcpi_kokkos_kernels.hpp>
#include "../core/src/mcpi/block_lu.hpp"  // factors the peers' D as the solver does
#include "common/mcpi_timed_sweeps.hpp"

namespace ppsparse::bench {
namespace {

using Exec = DefaultExecSpace;
using Mem = DefaultMemSpace;
using Clock = std::chrono::steady_clock;

constexpr double kMaxRelativeDifference = 1e-4;
constexpr double kFp64ReferenceMaxEntries = 2e7;

// ---- settings of this program (flag=value, or the environment variable; flag wins) ----

struct McpiConfig {
  bool gpu = false;
  std::uint64_t seed = 2024;
  int grid = 0;                     // --grid               PPSPARSE_BENCH_MCPI_GRID
  int nb = 5;                       // --nb                 PPSPARSE_BENCH_MCPI_NB
  std::vector<int> nb_list;         // --nb_list=1,2,...    PPSPARSE_BENCH_MCPI_NB_LIST
  double nb_sweep_mb = 0;           // --nb_sweep_mb        PPSPARSE_BENCH_MCPI_NB_SWEEP_MB
  int nb_sweep_min_grid = 0;        // --nb_sweep_min_grid  PPSPARSE_BENCH_MCPI_NB_SWEEP_MIN_GRID
  int nb_sweep_max_grid = 0;        // --nb_sweep_max_grid  PPSPARSE_BENCH_MCPI_NB_SWEEP_MAX_GRID
  std::vector<std::string> meshes;  // --meshes=a,b      PPSPARSE_BENCH_MCPI_MESHES
  int refine = 0;                   // --refine             PPSPARSE_BENCH_MCPI_REFINE
  std::string mesh_dir;             // --mesh_dir           PPSPARSE_MESH_DIR
  int sweeps = 10;                  // --sweeps             PPSPARSE_BENCH_MCPI_SWEEPS
  int check_sweeps = 3;             // --check_sweeps       PPSPARSE_BENCH_MCPI_CHECK_SWEEPS
  int step_sweeps = 15;             // --step_sweeps        PPSPARSE_BENCH_MCPI_STEP_SWEEPS
  int steps = 5;                    // --steps              PPSPARSE_BENCH_MCPI_STEPS
  std::vector<std::string> groups{"default", "nb_sweep", "mesh"};  // --problems PPSPARSE_BENCH_MCPI_PROBLEMS
  std::vector<mcpi::OFormat> o_formats{mcpi::OFormat::bf16, mcpi::OFormat::fp16, mcpi::OFormat::int8};  // --o_formats
  // Settings of the CUDA kernels (mcpi/tuning.hpp). The environment names are those the library
  // read before the tuning became options, so that the commands recorded in docs/perf still run.
  mcpi::KernelTuning tuning;
};

bool path_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

McpiConfig parse_mcpi_config(int& argc, char** argv, const BenchConfig& common) {
  McpiConfig c;
  c.gpu = common.gpu;
  c.seed = common.seed;
  c.grid = c.gpu ? 103 : 16;
  c.nb_list = c.gpu ? std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 17, 24, 32, 48, 64}
                    : std::vector<int>{1, 2, 3, 5, 8, 17};
  // Each colour's launch should stream several times a GPU's L2: a sweep runs 11-12 colour
  // launches, and at 512 MB per sweep (40 MB per launch) the H100 spent a third of the time in
  // launch ramp-up and tail (nb = 8: 60 % of copy at 512 MB, 84 % at 4 GB). The grid stays
  // below the default mesh's 103^3 ("a smaller mesh"), so nb <= 4 cannot reach 4 GB; the
  // smallest grid keeps enough block rows per colour at large nb (20^3: 8000 rows).
  c.nb_sweep_mb = c.gpu ? 4096 : 4;
  c.nb_sweep_min_grid = c.gpu ? 20 : 4;
  c.nb_sweep_max_grid = c.gpu ? 102 : 16;
  c.meshes = {"brick_tets"};
  c.refine = c.gpu ? 3 : 1;
  c.mesh_dir = common.shared_dir.empty() ? std::string() : common.shared_dir + "/meshes";
  c.sweeps = c.gpu ? 10 : 3;
  std::vector<BenchFlag> flags{{"--grid", "PPSPARSE_BENCH_MCPI_GRID", ""},
                               {"--nb", "PPSPARSE_BENCH_MCPI_NB", ""},
                               {"--nb_list", "PPSPARSE_BENCH_MCPI_NB_LIST", ""},
                               {"--nb_sweep_mb", "PPSPARSE_BENCH_MCPI_NB_SWEEP_MB", ""},
                               {"--nb_sweep_min_grid", "PPSPARSE_BENCH_MCPI_NB_SWEEP_MIN_GRID", ""},
                               {"--nb_sweep_max_grid", "PPSPARSE_BENCH_MCPI_NB_SWEEP_MAX_GRID", ""},
                               {"--meshes", "PPSPARSE_BENCH_MCPI_MESHES", ""},
                               {"--refine", "PPSPARSE_BENCH_MCPI_REFINE", ""},
                               {"--mesh_dir", "PPSPARSE_MESH_DIR", ""},
                               {"--sweeps", "PPSPARSE_BENCH_MCPI_SWEEPS", ""},
                               {"--check_sweeps", "PPSPARSE_BENCH_MCPI_CHECK_SWEEPS", ""},
                               {"--step_sweeps", "PPSPARSE_BENCH_MCPI_STEP_SWEEPS", ""},
                               {"--steps", "PPSPARSE_BENCH_MCPI_STEPS", ""},
                               {"--problems", "PPSPARSE_BENCH_MCPI_PROBLEMS", ""},
                               {"--o_formats", "PPSPARSE_BENCH_MCPI_O_FORMATS", ""},
                               {"--mcpi_small_colour", "PPSPARSE_MCPI_CUDA_SMALL", ""},
                               {"--mcpi_row_slots", "PPSPARSE_MCPI_CUDA_SLOTS", ""},
                               {"--mcpi_wide_split", "PPSPARSE_MCPI_CUDA_WIDE_SPLIT", ""},
                               {"--mcpi_wide_prefetch", "PPSPARSE_MCPI_CUDA_PREFETCH", ""},
                               {"--mcpi_dependent_launch", "PPSPARSE_MCPI_CUDA_PDL", ""},
                               {"--mcpi_unroll", "PPSPARSE_MCPI_CUDA_UNROLL", ""}};
  take_bench_flags(flags, argc, argv);
  auto flag_of = [&](const std::string& name) -> const BenchFlag& {
    for (const auto& f : flags)
      if (name == f.flag) return f;
    throw std::logic_error("bench_mcpi: no flag " + name);
  };
  auto set = [&](const char* name) { return flag_of(name).set; };
  auto value = [&](const char* name) { return flag_of(name).value; };
  if (set("--grid")) c.grid = static_cast<int>(flag_integer("--grid", value("--grid"), 2, 1290));
  if (set("--nb")) c.nb = static_cast<int>(flag_integer("--nb", value("--nb"), 1, 64));
  if (set("--nb_list")) {
    c.nb_list.clear();
    for (const auto& t : flag_list("--nb_list", value("--nb_list")))
      c.nb_list.push_back(static_cast<int>(flag_integer("--nb_list", t, 1, 64)));
  }
  if (set("--nb_sweep_mb")) c.nb_sweep_mb = flag_number("--nb_sweep_mb", value("--nb_sweep_mb"), true);
  if (set("--nb_sweep_max_grid"))
    c.nb_sweep_max_grid = static_cast<int>(flag_integer("--nb_sweep_max_grid", value("--nb_sweep_max_grid"), 2, 1290));
  if (set("--nb_sweep_min_grid"))
    c.nb_sweep_min_grid = static_cast<int>(flag_integer("--nb_sweep_min_grid", value("--nb_sweep_min_grid"), 2, 1290));
  if (c.nb_sweep_min_grid > c.nb_sweep_max_grid)
    throw InvalidArgument("--nb_sweep_min_grid " + std::to_string(c.nb_sweep_min_grid) +
                          " exceeds --nb_sweep_max_grid " + std::to_string(c.nb_sweep_max_grid));
  if (set("--meshes")) c.meshes = flag_list("--meshes", value("--meshes"));
  if (set("--o_formats")) {
    c.o_formats.clear();
    for (const auto& t : flag_list("--o_formats", value("--o_formats")))
      if (t != "none") c.o_formats.push_back(mcpi::parse_o_format(t));
  }
  if (set("--refine")) c.refine = static_cast<int>(flag_integer("--refine", value("--refine"), 0, 6));
  if (set("--mesh_dir")) c.mesh_dir = value("--mesh_dir");
  if (set("--sweeps")) c.sweeps = static_cast<int>(flag_integer("--sweeps", value("--sweeps"), 1, 100000));
  if (set("--check_sweeps"))
    c.check_sweeps = static_cast<int>(flag_integer("--check_sweeps", value("--check_sweeps"), 1, 1000));
  if (set("--step_sweeps"))
    c.step_sweeps = static_cast<int>(flag_integer("--step_sweeps", value("--step_sweeps"), 1, 100000));
  if (set("--steps")) c.steps = static_cast<int>(flag_integer("--steps", value("--steps"), 1, 100000));
  if (set("--mcpi_small_colour")) c.tuning.small_color = mcpi::parse_small_color(value("--mcpi_small_colour"));
  if (set("--mcpi_row_slots") && !value("--mcpi_row_slots").empty())
    c.tuning.row_slots = static_cast<int>(flag_integer("--mcpi_row_slots", value("--mcpi_row_slots"), 0, 4));
  if (set("--mcpi_wide_split") && !value("--mcpi_wide_split").empty())
    c.tuning.wide_split = static_cast<int>(flag_integer("--mcpi_wide_split", value("--mcpi_wide_split"), 0, 4));
  if (set("--mcpi_wide_prefetch") && !value("--mcpi_wide_prefetch").empty())
    c.tuning.wide_prefetch = flag_integer("--mcpi_wide_prefetch", value("--mcpi_wide_prefetch"), 0, 1) == 1;
  if (set("--mcpi_dependent_launch") && !value("--mcpi_dependent_launch").empty())
    c.tuning.dependent_launch = flag_integer("--mcpi_dependent_launch", value("--mcpi_dependent_launch"), 0, 1) == 1;
  if (set("--mcpi_unroll") && !value("--mcpi_unroll").empty())
    c.tuning.unroll = static_cast<int>(flag_integer("--mcpi_unroll", value("--mcpi_unroll"), 0, 4));
  mcpi::check_tuning(c.tuning);
  if (set("--problems")) {
    c.groups = flag_list("--problems", value("--problems"));
    for (const auto& g : c.groups)
      if (g != "default" && g != "nb_sweep" && g != "mesh")
        throw InvalidArgument("benchmark flag --problems: unknown group '" + g + "' (default, nb_sweep, mesh)");
  }
  return c;
}

// ---- problems ----

struct BuiltProblem {
  BlockSystem<HostSpace> system;
  Coloring coloring;
};

struct ProblemSpec {
  std::string name;   // benchmark-name component, no '/'
  std::string group;  // default, nb_sweep, mesh
  std::string description;
  int nb = 0;
  std::function<BuiltProblem(const std::function<void(const std::string&)>&)> make;
};

// Bytes of one sweep per vertex of a mixed_mesh_graph (about 17 neighbours), bytes model.
double sweep_bytes_per_vertex(int nb) {
  const double nb2 = static_cast<double>(nb) * nb;
  return 17.0 * (nb2 * sizeof(float) + sizeof(ordinal_t)) + sizeof(offset_t) + nb2 * sizeof(double) +
         nb * (sizeof(double) + 2 * sizeof(float));
}

ProblemSpec mesh_graph_problem(const std::string& name, const std::string& group, int g, int nb, std::uint64_t seed) {
  ProblemSpec p;
  p.name = name;
  p.group = group;
  p.nb = nb;
  p.description = "mixed-element mesh graph " + std::to_string(g) + "^3, nb " + std::to_string(nb);
  p.make = [g, nb, seed](const std::function<void(const std::string&)>& say) {
    say("generating the mixed-element mesh graph " + std::to_string(g) + "^3");
    const Graph graph = gen::mixed_mesh_graph(g, g, g, seed);
    say("generating " + std::to_string(nb) + "x" + std::to_string(nb) + " blocks for " +
        std::to_string(graph.num_edges_directed()) + " couplings");
    BuiltProblem b;
    b.system = gen::make_block_system(graph, nb, seed);
    say("colouring " + std::to_string(graph.n) + " vertices");
    b.coloring = color_distance1(graph);
    return b;
  };
  return p;
}

std::string two_digits(int v) { return (v < 10 ? "0" : "") + std::to_string(v); }

std::vector<ProblemSpec> problem_specs(const McpiConfig& c) {
  std::vector<ProblemSpec> specs;
  auto wanted = [&](const std::string& g) { return std::find(c.groups.begin(), c.groups.end(), g) != c.groups.end(); };
  if (wanted("default"))
    specs.push_back(mesh_graph_problem("default_g" + std::to_string(c.grid) + "_nb" + std::to_string(c.nb), "default",
                                       c.grid, c.nb, c.seed));
  if (wanted("nb_sweep"))
    for (int nb : c.nb_list) {
      const double vertices = c.nb_sweep_mb * 1e6 / sweep_bytes_per_vertex(nb);
      const int g = std::max(c.nb_sweep_min_grid,
                             std::min(c.nb_sweep_max_grid, static_cast<int>(std::lround(std::cbrt(vertices)))));
      specs.push_back(
          mesh_graph_problem("nbsweep_nb" + two_digits(nb) + "_g" + std::to_string(g), "nb_sweep", g, nb, c.seed));
    }
  if (wanted("mesh"))
    for (const std::string& m : c.meshes) {
      ProblemSpec p;
      p.name = "mesh_" + m + "_r" + std::to_string(c.refine) + "_nb" + std::to_string(c.nb);
      p.group = "mesh";
      p.nb = c.nb;
      const std::string path = c.mesh_dir + "/" + m + ".su2";
      p.description = m + ".su2 refined " + std::to_string(c.refine) + "x, nb " + std::to_string(c.nb);
      if (c.mesh_dir.empty() || !path_exists(path)) {
        p.make = nullptr;  // reported as skipped
        p.description = "mesh file " + path + " not found (set PPSPARSE_MESH_DIR or --mesh_dir)";
      } else {
        const int refine = c.refine, nb = c.nb;
        const std::uint64_t seed = c.seed;
        p.make = [path, refine, nb, seed](const std::function<void(const std::string&)>& say) {
          say("reading " + path);
          mesh::Mesh m = mesh::read_su2(path);
          if (refine > 0) {
            say("refining " + std::to_string(m.nelements()) + " elements " + std::to_string(refine) + " times");
            m = mesh::refine_uniform(m, refine);
          }
          say("building the vertex graph of " + std::to_string(m.npoints()) + " points");
          const Graph graph = mesh::vertex_graph(m);
          m = mesh::Mesh();
          say("generating " + std::to_string(nb) + "x" + std::to_string(nb) + " blocks for " +
              std::to_string(graph.num_edges_directed()) + " couplings");
          BuiltProblem b;
          b.system = gen::make_block_system(graph, nb, seed);
          say("colouring " + std::to_string(graph.n) + " vertices");
          b.coloring = color_distance1(graph);
          return b;
        };
      }
      specs.push_back(std::move(p));
    }
  return specs;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size() && i < ref.size(); ++i) {
    num += (a[i] - ref[i]) * (a[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  if (a.size() != ref.size()) return INFINITY;
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// A problem ready to run: ppsparse's solver, the colour-ordered system the peers share,
// and the reference dQ every case is checked against.
struct Problem {
  std::string name;
  int nb = 0;
  ordinal_t n = 0;
  offset_t nnzb = 0;
  int colors = 0;
  mcpi::SweepTraffic traffic{};
  Coloring coloring;
  std::unique_ptr<mcpi::Solver<Exec>> solver;
  BlockSystem<Mem> ordered;               // colour order, D factored: the peers' input
  std::vector<double> reference;          // ppsparse portable rows_per_warp, check_sweeps sweeps, user numbering
  double fp64_err = -1;                   // reference vs the FP64 host reference (-1: problem too large)
  std::map<std::string, double> checked;  // case -> relative difference (validated once)
  // O stored in a reduced format: a solver each, its portable rows_per_warp reference and the
  // reference's distance from the FP32 one.
  std::map<mcpi::OFormat, std::unique_ptr<mcpi::Solver<Exec>>> reduced;
  std::map<mcpi::OFormat, std::vector<double>> reduced_reference;
  std::map<mcpi::OFormat, double> reduced_vs_fp32;
  std::unique_ptr<mcpi::VendorPeer> vendor;
  std::unique_ptr<KokkosKernelsMcpiPeer<Exec>> kk;
  // The time-step cases' inputs, in the user's numbering on the device: O in FP32 and FP64,
  // D and R in FP64; dq receives apply()'s result.
  Kokkos::View<float*, Mem> user_o32;
  Kokkos::View<double*, Mem> user_o64, user_d, user_r, dq;

  std::vector<double> to_user(const Kokkos::View<const float*, Mem>& dq) const {
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), dq);
    std::vector<double> x(h.extent(0));
    for (size_t i = 0; i < x.size(); ++i) x[i] = h(i);
    return to_old(x, coloring.perm, nb);
  }
};

class ProblemCache {
 public:
  explicit ProblemCache(const McpiConfig& c) : config_(c) {}
  Problem& get(const ProblemSpec& spec) {
    if (problem_ && problem_->name == spec.name) return *problem_;
    problem_.reset();  // free the previous problem's device memory first
    const auto t0 = Clock::now();
    auto say = [&](const std::string& s) {
      std::fprintf(stderr, "# [%s %6.1fs] %s\n", spec.name.c_str(),
                   std::chrono::duration<double>(Clock::now() - t0).count(), s.c_str());
      std::fflush(stderr);
    };
    auto p = std::make_unique<Problem>();
    p->name = spec.name;
    {
      BuiltProblem b = spec.make(say);
      p->nb = b.system.nb;
      p->n = b.system.n;
      p->nnzb = b.system.O.nnzb();
      p->colors = b.coloring.ncolors;
      p->coloring = std::move(b.coloring);
      p->solver = std::make_unique<mcpi::Solver<Exec>>(b.system, p->coloring, say);
      for (const mcpi::OFormat f : config_.o_formats) {
        say(std::string("a solver storing O in ") + mcpi::name(f));
        p->reduced[f] = std::make_unique<mcpi::Solver<Exec>>(b.system, p->coloring, say, 0, mcpi::OStorage{f, false});
      }
      say("copying the user-numbered values for the time-step cases");
      p->user_o32 = Kokkos::View<float*, Mem>("user_o32", b.system.O.values.extent(0));
      Kokkos::deep_copy(p->user_o32, b.system.O.values);
      p->user_o64 = Kokkos::View<double*, Mem>("user_o64", b.system.O.values.extent(0));
      {
        const auto o32 = p->user_o32;
        const auto o64 = p->user_o64;
        Kokkos::parallel_for(
            "widen", Kokkos::RangePolicy<Exec>(0, o32.extent(0)), KOKKOS_LAMBDA(const size_t q) { o64(q) = o32(q); });
      }
      p->user_d = Kokkos::View<double*, Mem>("user_d", b.system.D.extent(0));
      Kokkos::deep_copy(p->user_d, b.system.D);
      p->user_r = Kokkos::View<double*, Mem>("user_r", b.system.R.extent(0));
      Kokkos::deep_copy(p->user_r, b.system.R);
      p->dq = Kokkos::View<double*, Mem>("dq", b.system.R.extent(0));
      say("renumbering and copying the system for the peers");
      BlockSystem<HostSpace> ordered = permute(b.system, p->coloring.perm);
      b.system = BlockSystem<HostSpace>();
      p->ordered = copy_to<Mem>(ordered);
      const long long failure = mcpi::factor_diagonal_blocks<Exec>(p->ordered.D, p->nb, p->n);
      if (failure >= 0) throw NumericalError("bench_mcpi: a diagonal block failed to factor for the peers");
      p->ordered.d_factored = true;
      say("reference: ppsparse portable rows_per_warp, " + std::to_string(config_.check_sweeps) + " sweeps");
      p->reference =
          time_sweeps(*p->solver, {config_.check_sweeps, mcpi::Kernel::rows_per_warp, false, false, false}).dq;
      if (static_cast<double>(p->nnzb) * p->nb * p->nb <= kFp64ReferenceMaxEntries) {
        say("checking the reference against the FP64 host reference");
        const auto fp64 = to_old(mcpi::reference_sweeps(ordered, p->coloring.color_offsets, config_.check_sweeps),
                                 p->coloring.perm, p->nb);
        p->fp64_err = relative_difference(p->reference, fp64);
        if (!(p->fp64_err < kMaxRelativeDifference))
          throw Error("bench_mcpi: " + spec.name + ": ppsparse's reference differs from the FP64 host reference by " +
                      std::to_string(p->fp64_err));
      }
    }
    for (const auto& [f, solver] : p->reduced) {
      p->reduced_reference[f] =
          time_sweeps(*solver, {config_.check_sweeps, mcpi::Kernel::rows_per_warp, false, false, false}).dq;
      p->reduced_vs_fp32[f] = relative_difference(p->reduced_reference[f], p->reference);
    }
    p->traffic = p->solver->traffic();
    char line[256];
    std::snprintf(line, sizeof line, "ready: n %d, nb %d, %lld blocks, %d colours, %.1f MB per sweep", p->n, p->nb,
                  static_cast<long long>(p->nnzb), p->colors, p->traffic.total() * 1e-6);
    say(line);
    problem_ = std::move(p);
    return *problem_;
  }

 private:
  const McpiConfig& config_;
  std::unique_ptr<Problem> problem_;
};

std::unique_ptr<ProblemCache> g_cache;

// The problem's counters; `traffic` is the sweep's bytes model (the problem's FP32-O one unless
// given: a reduced format's).
void set_problem_counters(benchmark::State& state, const Problem& p, double check_err, double seconds_per_sweep,
                          const mcpi::SweepTraffic* traffic = nullptr) {
  const mcpi::SweepTraffic& t = traffic ? *traffic : p.traffic;
  set_bandwidth_counters(state, t.total(), t.total(), t.flops, seconds_per_sweep);
  state.counters["model_bytes"] = t.total();
  state.counters["n"] = p.n;
  state.counters["nb"] = p.nb;
  state.counters["nnzb"] = static_cast<double>(p.nnzb);
  state.counters["colours"] = p.colors;
  state.counters["check_err"] = check_err;
  state.counters["fp64_err"] = p.fp64_err;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

// ---- the cases ----

// Variant v on `solver` (p's, or one of its reduced-O solvers): validated once against
// `reference` (the case's dQ after check_sweeps sweeps, cached under `key`), then timed. False
// (the case skipped with the difference) when the check fails.
bool time_variant(benchmark::State& state, Problem& p, mcpi::Solver<Exec>& solver, const std::vector<double>& reference,
                  const std::string& key, const char* reference_name, const McpiConfig& config, mcpi::Variant v,
                  bool backend) {
  if (!p.checked.count(key)) {
    const auto check = time_sweeps(solver, {config.check_sweeps, v, false, false, backend, config.tuning});
    p.checked[key] = relative_difference(check.dq, reference);
  }
  const double err = p.checked[key];
  if (!(err < kMaxRelativeDifference)) {
    state.SkipWithError(
        (std::string("dQ differs from ") + reference_name + " by " + std::to_string(err) + " (limit 1e-4)").c_str());
    return false;
  }
  const mcpi::TimedSweeps res = time_sweeps(solver, {config.sweeps, v, false, false, backend, config.tuning});
  size_t i = 0;
  for (auto _ : state) state.SetIterationTime(res.sweep_seconds[i++ % res.sweep_seconds.size()]);
  const mcpi::SweepTraffic traffic = solver.traffic();
  set_problem_counters(state, p, err, mean(res.sweep_seconds), &traffic);
  state.SetLabel(res.kernel + (res.note.empty() ? "" : " (" + res.note + ")"));
  return true;
}

void bench_variant(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, mcpi::Variant v,
                   bool backend) {
  try {
    Problem& p = g_cache->get(spec);
    time_variant(state, p, *p.solver, p.reference, std::string(mcpi::name(v)) + (backend ? "/backend" : "/portable"),
                 "the reference", config, v, backend);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// The auto variant on the solver storing O in `format`.
void bench_reduced(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, mcpi::OFormat format,
                   bool backend) {
  try {
    Problem& p = g_cache->get(spec);
    const std::string key = std::string("o_") + mcpi::name(format) + (backend ? "/backend" : "/portable");
    if (time_variant(state, p, *p.reduced.at(format), p.reduced_reference.at(format), key,
                     "the same format's portable rows_per_warp", config, mcpi::Variant::automatic(), backend))
      state.counters["vs_fp32"] = p.reduced_vs_fp32.at(format);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// ---- time steps: what a CFD code calls once per nonlinear step ----

enum class StepCase {
  sweeps,            // apply(): step_sweeps sweeps, no check, no final residual (the baseline)
  update_f32,        // update() from FP32 O and FP64 D in the user's numbering, then the sweeps
  update_f64,        // the same from FP64 O
  in_place,          // factor() after an assembly into storage() (the assembly itself untimed), then the sweeps
  checked,           // apply() with a residual check every 5 sweeps and the true final residual
  checked_no_final,  // the checks, without the final residual
};

const char* step_name(StepCase c) {
  switch (c) {
    case StepCase::sweeps:
      return "step/sweeps";
    case StepCase::update_f32:
      return "step/update_f32";
    case StepCase::update_f64:
      return "step/update_f64";
    case StepCase::in_place:
      return "step/in_place";
    case StepCase::checked:
      return "step/checked5";
    case StepCase::checked_no_final:
      return "step/checked5_no_final";
  }
  return "step/unknown";
}

// The user's D written into the solver's storage through its slot map (an assembly in place).
void assemble_d(const Problem& p, const mcpi::Solver<Exec>::Storage& st, const Exec& exec) {
  const auto d = p.user_d;
  const size_t nb2 = static_cast<size_t>(p.nb) * p.nb;
  Kokkos::parallel_for(
      "assemble_d", Kokkos::RangePolicy<Exec>(exec, 0, d.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { st.D(static_cast<size_t>(st.d_slot(q / nb2)) * nb2 + q % nb2) = d(q); });
}

void bench_step(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, StepCase which) {
  try {
    Problem& p = g_cache->get(spec);
    mcpi::Solver<Exec>& solver = *p.solver;
    Exec exec;
    mcpi::Control control;
    control.max_sweeps = config.step_sweeps;
    control.check_interval = 0;
    control.final_residual = false;
    if (which == StepCase::checked || which == StepCase::checked_no_final) {
      control.check_interval = 5;
      control.rtol = 1e-300;  // never met: every check runs and the sweeps all run
      control.final_residual = which == StepCase::checked;
    }
    auto step = [&]() {
      switch (which) {
        case StepCase::update_f32:
          solver.update(exec, p.user_o32, p.user_d);
          break;
        case StepCase::update_f64:
          solver.update(exec, p.user_o64, p.user_d);
          break;
        case StepCase::in_place:
          solver.factor(exec);
          break;
        default:
          break;
      }
      return solver.apply(exec, p.user_r, p.dq, control);
    };
    auto prepare = [&]() {
      if (which == StepCase::in_place) assemble_d(p, solver.storage(), exec);
      exec.fence();
    };
    prepare();
    mcpi::Status st = step();  // warm-up, and the check below
    const double err = relative_difference(solver.dq_user(), p.reference);
    std::vector<double> times;
    for (auto _ : state) {
      prepare();
      const auto t0 = Clock::now();
      st = step();
      exec.fence();
      const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
      state.SetIterationTime(dt);
      times.push_back(dt);
    }
    set_problem_counters(state, p, -1, mean(times) / config.step_sweeps);
    state.counters["step_ms"] = mean(times) * 1e3;
    state.counters["final_residual"] = st.final_residual;
    state.counters["step_sweeps"] = config.step_sweeps;
    state.counters["dq_vs_check_sweeps"] = err;  // dQ after step_sweeps against the check_sweeps reference (info)
    state.SetLabel(st.kernel + ", " + std::to_string(st.sweeps) + " sweeps, " + mcpi::name(st.reason));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// FGMRES(30) + MCPI (5 sweeps per preconditioner) from dQ = 0, no tolerance, so that it runs
// exactly its iteration limit.
//   fgmres/first_call: a fresh Fgmres per benchmark iteration: its construction (the workspace's
//     allocation, counter ctor_ms and workspace_mb), its first solve of 2 iterations (the timed
//     figure, first_ms) and a later one (later_ms). Target: first <= later + ctor.
//   fgmres/iteration: one iteration in steady state, (solve of 8 iterations - solve of 2) / 6
//     (the timed figure, iteration_ms), against what it must do at least: its preconditioner
//     (precondition_ms, 5 sweeps) and one operator product (operator_ms), measured here too.
//     Target: iteration <= 1.1 (precondition + operator) (counter budget_ratio). solve2_ms and
//     sweeps10_ms: 2 iterations of 5 sweeps against 10 plain sweeps (apply, no checks).
void bench_fgmres(benchmark::State& state, const ProblemSpec& spec, bool first_call) {
  try {
    Problem& p = g_cache->get(spec);
    mcpi::Solver<Exec>& solver = *p.solver;
    Exec exec;
    const int k = 5;
    mcpi::FgmresControl fc;
    fc.rtol = 0;
    fc.sweeps = k;
    auto timed = [&](const std::function<void()>& f) {
      exec.fence();
      const auto t0 = Clock::now();
      f();
      exec.fence();
      return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    mcpi::Status st;
    auto solve = [&](mcpi::Fgmres<Exec>& g) { return [&] { st = g.solve(exec, p.user_r, p.dq); }; };
    const double len = static_cast<double>(p.n) * p.nb;
    if (first_call) {
      std::vector<double> first, later, ctor;
      fc.max_iterations = 2;
      for (auto _ : state) {
        std::unique_ptr<mcpi::Fgmres<Exec>> g;
        ctor.push_back(timed([&] { g = std::make_unique<mcpi::Fgmres<Exec>>(solver, fc); }));
        first.push_back(timed(solve(*g)));
        later.push_back(timed(solve(*g)));
        state.SetIterationTime(first.back());
      }
      set_problem_counters(state, p, -1, mean(later) / (2 * k));
      state.counters["first_ms"] = mean(first) * 1e3;
      state.counters["first_of_process_ms"] = first.front() * 1e3;
      state.counters["later_ms"] = mean(later) * 1e3;
      state.counters["ctor_ms"] = mean(ctor) * 1e3;
      state.counters["workspace_mb"] = (2.0 * fc.restart + 4) * len * sizeof(double) / 1e6;
      state.counters["first_over_later_plus_ctor"] = mean(first) / (mean(later) + mean(ctor));
    } else {
      fc.max_iterations = 2;
      mcpi::Fgmres<Exec> two(solver, fc);
      fc.max_iterations = 8;
      mcpi::Fgmres<Exec> eight(solver, fc);
      typename mcpi::Solver<Exec>::Vector v("fgmres_bench.v", static_cast<size_t>(len)),
          z("fgmres_bench.z", static_cast<size_t>(len));
      solver.to_internal(exec, p.user_r, v);
      mcpi::Control plain;
      plain.max_sweeps = 2 * k;
      plain.check_interval = 0;
      plain.final_residual = false;
      timed(solve(two));
      timed(solve(eight));  // warm-up
      std::vector<double> iteration, pre, op, solve2, sweeps10;
      for (auto _ : state) {
        solve2.push_back(timed(solve(two)));
        const double t8 = timed(solve(eight));
        iteration.push_back((t8 - solve2.back()) / 6);
        pre.push_back(timed([&] { solver.precondition(exec, v, z, k); }));
        op.push_back(timed([&] { solver.multiply_internal(exec, v, z); }));
        sweeps10.push_back(timed([&] { solver.apply(exec, p.user_r, p.dq, plain); }));
        state.SetIterationTime(std::max(iteration.back(), 1e-9));
      }
      set_problem_counters(state, p, -1, mean(pre) / k);
      state.counters["iteration_ms"] = mean(iteration) * 1e3;
      state.counters["precondition_ms"] = mean(pre) * 1e3;
      state.counters["operator_ms"] = mean(op) * 1e3;
      state.counters["budget_ratio"] = mean(iteration) / (mean(pre) + mean(op));
      state.counters["solve2_ms"] = mean(solve2) * 1e3;
      state.counters["sweeps10_ms"] = mean(sweeps10) * 1e3;
    }
    state.SetLabel(st.kernel + ", " + std::to_string(st.iterations) + " iterations of " + std::to_string(k) +
                   " sweeps");
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// A peer behind the three calls the benchmark makes.
struct PeerCalls {
  std::function<void()> reset, sweep;
  std::function<Kokkos::View<const float*, Mem>()> dq;
  std::string label;
  double setup_seconds = 0;
};

PeerCalls peer_calls(Problem& p, const std::string& which) {
  PeerCalls c;
  if (which == "cusparse") {
    if (!p.vendor) {
      auto peer = std::make_unique<mcpi::VendorPeer>();
      peer->setup(p.ordered, p.coloring.color_offsets);
      p.vendor = std::move(peer);
    }
    mcpi::VendorPeer* v = p.vendor.get();
    c.reset = [v] { v->reset(); };
    c.sweep = [v] { v->sweep(); };
    c.dq = [v] { return v->dq(); };
    c.label = v->describe();
    c.setup_seconds = v->setup_seconds();
  } else {
    if (!p.kk) p.kk = std::make_unique<KokkosKernelsMcpiPeer<Exec>>(p.ordered, p.coloring.color_offsets);
    KokkosKernelsMcpiPeer<Exec>* k = p.kk.get();
    c.reset = [k] { k->reset(); };
    c.sweep = [k] { k->sweep(); };
    c.dq = [k] { return k->dq(); };
    c.label = KokkosKernelsMcpiPeer<Exec>::describe(p.nb);
    c.setup_seconds = k->setup_seconds();
  }
  return c;
}

void bench_peer(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, const std::string& which) {
  if (which == "cusparse" && !mcpi::VendorPeer::available()) {
    state.SkipWithError(("no vendor library on this backend (" + std::string(Exec::name()) + ")").c_str());
    return;
  }
  try {
    Problem& p = g_cache->get(spec);
    PeerCalls peer = peer_calls(p, which);
    const std::string key = "peer_" + which;
    if (!p.checked.count(key)) {
      peer.reset();
      for (int s = 0; s < config.check_sweeps; ++s) peer.sweep();
      Kokkos::fence();
      p.checked[key] = relative_difference(p.to_user(peer.dq()), p.reference);
    }
    const double err = p.checked[key];
    if (!(err < kMaxRelativeDifference)) {
      state.SkipWithError(("dQ differs from ppsparse's by " + std::to_string(err) + " (limit 1e-4)").c_str());
      return;
    }
    Exec exec;
    peer.reset();
    std::vector<double> times;
    for (auto _ : state) {
      exec.fence();
      const auto t0 = Clock::now();
      peer.sweep();
      exec.fence();
      const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
      state.SetIterationTime(dt);
      times.push_back(dt);
    }
    set_problem_counters(state, p, err, mean(times));
    state.counters["setup_s"] = peer.setup_seconds;
    state.SetLabel(peer.label);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_mcpi_benchmarks(const BenchConfig& common, const McpiConfig& config) {
  const bool gpu = compat::is_gpu_space<Exec>();
  for (const ProblemSpec& spec : problem_specs(config)) {
    const std::string prefix = "mcpi/" + spec.name + "/";
    auto finish = [&](benchmark::internal::Benchmark* b) {
      b->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(config.sweeps)
          ->Repetitions(common.reps)
          ->DisplayAggregatesOnly(true);
    };
    if (!spec.make) {
      std::cerr << "# bench_mcpi: skipping " << spec.name << ": " << spec.description << "\n";
      const std::string why = spec.description;
      benchmark::RegisterBenchmark((prefix + "skipped").c_str(), [why](benchmark::State& st) {
        st.SkipWithError(why.c_str());
      })->Iterations(1);
      continue;
    }
    // FGMRES first: its first_call case then also sees what the process sets up on first use.
    for (bool first : {true, false})
      benchmark::RegisterBenchmark((prefix + (first ? "fgmres/first_call" : "fgmres/iteration")).c_str(),
                                   [spec, first](benchmark::State& st) { bench_fgmres(st, spec, first); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(3)
          ->Repetitions(common.reps)
          ->DisplayAggregatesOnly(true);
    std::vector<mcpi::Variant> variants = mcpi::all_variants();
    variants.push_back(mcpi::Variant::automatic());
    for (mcpi::Variant v : variants) {
      // With backend kernels: only where the backend has a kernel for (v, nb); elsewhere the
      // solver would run the portable kernel measured below.
      if (gpu && mcpi::backend::has_kernel(Exec(), mcpi::resolve_variant(v, spec.nb).kernel, spec.nb))
        finish(benchmark::RegisterBenchmark(
            (prefix + mcpi::name(v) + "/backend").c_str(),
            [spec, &config, v](benchmark::State& st) { bench_variant(st, spec, config, v, true); }));
      // Portable: the _l2 / _l2_async variants are hardware features of a backend; without
      // backend kernels they run exactly their base variant's portable kernel, so only the
      // four base variants are measured.
      if (!v.has_features())
        finish(benchmark::RegisterBenchmark(
            (prefix + mcpi::name(v) + "/portable").c_str(),
            [spec, &config, v](benchmark::State& st) { bench_variant(st, spec, config, v, false); }));
    }
    for (const mcpi::OFormat f : config.o_formats)
      for (const bool backend : {true, false}) {
        if (backend &&
            !(gpu && mcpi::backend::has_kernel(
                         Exec(), mcpi::resolve_variant(mcpi::Variant::automatic(), spec.nb).kernel, spec.nb, f)))
          continue;
        finish(benchmark::RegisterBenchmark(
            (prefix + "o_" + mcpi::name(f) + "/auto/" + (backend ? "backend" : "portable")).c_str(),
            [spec, &config, f, backend](benchmark::State& st) { bench_reduced(st, spec, config, f, backend); }));
      }
    for (StepCase c : {StepCase::sweeps, StepCase::update_f32, StepCase::update_f64, StepCase::in_place,
                       StepCase::checked, StepCase::checked_no_final})
      benchmark::RegisterBenchmark((prefix + step_name(c)).c_str(),
                                   [spec, &config, c](benchmark::State& st) { bench_step(st, spec, config, c); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(config.steps)
          ->Repetitions(common.reps)
          ->DisplayAggregatesOnly(true);
    for (const std::string which : {"cusparse", "kokkos_kernels"}) {
      if (which == "cusparse" && !mcpi::VendorPeer::available()) continue;  // noted once in main
      finish(benchmark::RegisterBenchmark(
          (prefix + "peer_" + which).c_str(),
          [spec, &config, which](benchmark::State& st) { bench_peer(st, spec, config, which); }));
    }
  }
}

}  // namespace
}  // namespace ppsparse::bench

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  int status = 0;
  try {
    using namespace ppsparse::bench;
    const auto common = parse_bench_config(argc, argv);
    static McpiConfig config;  // referenced by the registered benchmarks
    config = parse_mcpi_config(argc, argv, common);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    g_cache = std::make_unique<ProblemCache>(config);
    const double copy = register_copy_benchmark(common);
    std::cerr << "# bench_mcpi: " << describe(common) << "; sweeps " << config.sweeps << ", check_sweeps "
              << config.check_sweeps << ", mesh_dir '" << config.mesh_dir << "'; copy bandwidth " << copy << " GB/s\n";
    if (!ppsparse::mcpi::VendorPeer::available())
      std::cerr << "# bench_mcpi: no vendor peer (cuSPARSE + cuBLAS) on this backend: peer_cusparse not run\n";
    register_mcpi_benchmarks(common, config);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const std::exception& e) {
    std::cerr << "bench_mcpi: " << e.what() << "\n";
    status = 1;
  }
  ppsparse::bench::g_cache.reset();  // device views go before Kokkos::finalize
  return status;
}
