// bench_mcpi's settings, problems and their cache (mcpi_cases.hpp).
#include "mcpi_cases.hpp"

#include <filesystem>

#include "../../core/src/mcpi/block_lu.hpp"  // factors the peers' D as the solver does

namespace ppsparse::bench::mcpi_bench {

namespace {
bool path_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

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
                               {"--lu_fp32_formats", "PPSPARSE_BENCH_MCPI_LU_FP32_FORMATS", ""},
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
  // A list of O formats, or "none".
  auto formats = [&](const char* flag, std::vector<mcpi::OFormat>& into) {
    if (!set(flag)) return;
    into.clear();
    for (const auto& t : flag_list(flag, value(flag)))
      if (t != "none") into.push_back(mcpi::parse_o_format(t));
  };
  formats("--o_formats", c.o_formats);
  formats("--lu_fp32_formats", c.lu_fp32_formats);
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

namespace {

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

}  // namespace

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
      // "brick_tets" is brick_tets.su2; a name with an extension is that file, in any format.
      const std::filesystem::path given(m);
      const std::string file = given.has_extension() ? m : m + ".su2";
      p.name = "mesh_" + given.stem().string() + "_r" + std::to_string(c.refine) + "_nb" + std::to_string(c.nb);
      p.group = "mesh";
      p.nb = c.nb;
      const std::string path = c.mesh_dir + "/" + file;
      p.description = file + " refined " + std::to_string(c.refine) + "x, nb " + std::to_string(c.nb);
      if (c.mesh_dir.empty() || !path_exists(path)) {
        p.make = nullptr;  // reported as skipped
        p.description = "mesh file " + path + " not found (set PPSPARSE_MESH_DIR or --mesh_dir)";
      } else {
        const int refine = c.refine, nb = c.nb;
        const std::uint64_t seed = c.seed;
        p.make = [path, refine, nb, seed](const std::function<void(const std::string&)>& say) {
          say("reading " + path);
          mesh::Mesh m = mesh::read(path);
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

Problem& ProblemCache::get(const ProblemSpec& spec) {
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
    auto add_solver = [&](const StoredAs s) {
      say(std::string("a solver storing O in ") + mcpi::name(s.first) + (s.second ? ", D's LU in FP32" : ""));
      mcpi::OStorage storage{s.first, false};
      storage.lu_fp32 = s.second;
      p->reduced[s] = std::make_unique<mcpi::Solver<Exec>>(b.system, p->coloring, say, 0, storage);
    };
    for (const mcpi::OFormat f : config_.o_formats) add_solver({f, false});
    for (const mcpi::OFormat f : config_.lu_fp32_formats) add_solver({f, true});
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
    p->reference = time_sweeps(*p->solver, {config_.check_sweeps, mcpi::Kernel::rows_per_warp, false, false, false}).dq;
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

std::unique_ptr<ProblemCache> g_cache;

// The problem's counters; `traffic` is the sweep's bytes model (the problem's FP32-O one unless
// given: a reduced format's).
void set_problem_counters(benchmark::State& state, const Problem& p, double check_err, double seconds_per_sweep,
                          const mcpi::SweepTraffic* traffic) {
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

}  // namespace ppsparse::bench::mcpi_bench
