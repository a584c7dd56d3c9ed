// Multigrid benchmark: the time to reduce a block system's residual by each tolerance of
// --rtols [1e-2, 1e-6], from x = 0, with ppsparse's FGMRES preconditioned by MCPI sweeps or by
// the aggregation multigrid (mcpi/multigrid.hpp), against NVIDIA's AmgX (mcpi::AmgxPeer, where
// the build has it), on the same matrix and right-hand side with the same stopping rule:
// ||b - A x||_2 <= rtol ||b||_2 of the FP64 matrix as given (ppsparse keeps the user's O in
// FP64 for FGMRES's operator, OStorage::keep_fp64; AmgX runs in FP64, mode dDDI).
//
// Systems:
//   --systems=P[,P..]   the flow's dumped systems (mcpi --flow ... --dump-system K --output DIR):
//                       P_A.mtx (scalar Matrix Market) and P_R.mtx, blocks of --block [5]
//   --grid=G            a FUN3D-like generated system on a G^3 mixed-element mesh graph (as
//                       bench_mcpi's default problem) [GPU 48, CPU 6; 0: none]
// Solvers (--solvers=L, default all this build has):
//   sweeps           FGMRES(30) + --sweeps [20] MCPI sweeps per preconditioner application
//   multigrid        FGMRES(30) + one K-cycle of the library's default hierarchy
//   multigrid_flow   FGMRES(30) + the flow's multigrid (mcpi --flow --linear multigrid's
//                    defaults, MultigridOptions::flow_jacobian(): a V-cycle over pairs)
//   multigrid_<i>    FGMRES(30) + the multigrid with the i-th (from 1) option set of
//                    --multigrid_options='SET[;SET..]', each set mcpi's --mg-* options without
//                    their "--mg-", e.g. 'cycle=v passes=1 levels=20 coarse-rows=32 sweeps=0,3'
//   amgx             FGMRES(30) + AmgX's aggregation AMG (AmgxPeer::default_config())
//   amgx_<name>      the same with AmgX's configuration file <name>.json (or any name), one
//                    solver for each file of --amgx_configs=FILE[,FILE..] (its outer solver's
//                    scope named "main"; the stopping rule is the benchmark's)
// --max_iterations [300] for every solver.
//
// One benchmark per (system, solver, rtol): the setup once (counter setup_s: ppsparse's solver
// and hierarchy from the structure and the first values; AmgX's upload and setup), a numeric
// refresh with the same values (refresh_s: a flow's next Newton step), one untimed solve (the
// kernels' first launches), then --reps solves from x = 0, each timed (manual time: real_time
// is their mean). Counters: iterations, converged (1 or 0), true_rel (||b - A x||_2 / ||b||_2 of
// the last solve, recomputed on the host in FP64), ms_per_iteration, levels, n, nb, nnzb. The
// label names the hierarchy. A solve that does not
// converge is reported with converged = 0, not as an error.
//
//   ./bench/bench_multigrid --systems=D/flow_step6 --benchmark_out=mg.json --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include <ppsparse/peers/amgx_peer.hpp>

#include "common/bench_config.hpp"
#include "common/multigrid_options.hpp"
#include "common/copy_bandwidth.hpp"

namespace ppsparse::bench::multigrid_bench {
namespace {

using Exec = DefaultExecSpace;
using Mem = DefaultMemSpace;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Config {
  std::vector<std::string> systems;
  int block = 5;
  int grid = 0;
  std::vector<double> rtols{1e-2, 1e-6};
  std::vector<std::string> solvers;
  int sweeps = 20;
  int max_iterations = 300;
  std::map<std::string, std::string> amgx_configs;  // solver name -> AmgX configuration text
  // Solver name -> its hierarchy's options: "multigrid" (the library's defaults),
  // "multigrid_flow" (MultigridOptions::flow_jacobian()) and each set of --multigrid_options.
  std::map<std::string, mcpi::MultigridOptions> multigrids{{"multigrid", {}},
                                                           {"multigrid_flow", mcpi::MultigridOptions::flow_jacobian()}};
  int reps = 3;
  std::uint64_t seed = 2024;
};

Config parse_config(int& argc, char** argv, const BenchConfig& common) {
  Config c;
  c.grid = common.gpu ? 48 : 6;
  c.reps = common.reps;
  c.seed = common.seed;
  std::vector<BenchFlag> flags{{"--systems", "PPSPARSE_BENCH_MG_SYSTEMS", ""},
                               {"--block", "PPSPARSE_BENCH_MG_BLOCK", ""},
                               {"--grid", "PPSPARSE_BENCH_MG_GRID", ""},
                               {"--rtols", "PPSPARSE_BENCH_MG_RTOLS", ""},
                               {"--solvers", "PPSPARSE_BENCH_MG_SOLVERS", ""},
                               {"--sweeps", "PPSPARSE_BENCH_MG_SWEEPS", ""},
                               {"--max_iterations", "PPSPARSE_BENCH_MG_MAX_ITERATIONS", ""},
                               {"--amgx_configs", "PPSPARSE_BENCH_MG_AMGX_CONFIGS", ""},
                               {"--multigrid_options", "PPSPARSE_BENCH_MG_OPTIONS", ""}};
  take_bench_flags(flags, argc, argv);
  for (const auto& f : flags) {
    if (!f.set) continue;
    const std::string name = f.flag;
    if (name == "--systems") c.systems = flag_list(name, f.value);
    if (name == "--block") c.block = static_cast<int>(flag_integer(name, f.value, 1, 64));
    if (name == "--grid") c.grid = static_cast<int>(flag_integer(name, f.value, 0, 1000));
    if (name == "--sweeps") c.sweeps = static_cast<int>(flag_integer(name, f.value, 1, 10000));
    if (name == "--max_iterations") c.max_iterations = static_cast<int>(flag_integer(name, f.value, 1, 1000000));
    if (name == "--rtols") {
      c.rtols.clear();
      for (const auto& t : flag_list(name, f.value)) {
        const double r = flag_number(name, t, true);
        if (r >= 1) throw InvalidArgument("benchmark flag --rtols: '" + t + "' is not below 1");
        c.rtols.push_back(r);
      }
    }
    if (name == "--solvers") c.solvers = flag_list(name, f.value);
    if (name == "--multigrid_options") {
      std::istringstream sets(f.value);
      std::string set;
      for (int number = 1; std::getline(sets, set, ';'); ++number) {
        mcpi::MultigridOptions o;
        std::istringstream words(set);
        std::string word;
        while (words >> word) {
          const auto eq = word.find('=');
          const std::string option = "--mg-" + word.substr(0, eq);
          if (eq == std::string::npos || !mcpi_app::parse_multigrid_option(
                                             option, [&] { return word.substr(eq + 1); }, o))
            throw InvalidArgument("benchmark flag --multigrid_options: '" + word + "' is not an mcpi " + option +
                                  "=VALUE option");
        }
        mcpi::check_multigrid_options(o);
        c.multigrids["multigrid_" + std::to_string(number)] = o;
      }
    }
    if (name == "--amgx_configs")
      for (const auto& file : flag_list(name, f.value)) {
        std::ifstream in(file);
        if (!in) throw InvalidArgument("benchmark flag --amgx_configs: cannot open '" + file + "'");
        std::ostringstream text;
        text << in.rdbuf();
        std::string stem = file.substr(file.find_last_of('/') + 1);
        stem = stem.substr(0, stem.find('.'));
        c.amgx_configs["amgx_" + stem] = text.str();
      }
  }
  if (!c.amgx_configs.empty() && !mcpi::AmgxPeer::available())
    throw InvalidArgument(
        "benchmark flag --amgx_configs: this build has no AmgX (configure with "
        "-DPPSPARSE_AMGX_ROOT=DIR)");
  if (mcpi::AmgxPeer::available()) c.amgx_configs["amgx"] = mcpi::AmgxPeer::default_config();
  std::vector<std::string> known{"sweeps"};
  for (const auto& [name, options] : c.multigrids) known.push_back(name);
  for (const auto& [name, text] : c.amgx_configs) known.push_back(name);
  if (c.solvers.empty()) c.solvers = known;
  for (const auto& s : c.solvers) {
    if (std::find(known.begin(), known.end(), s) != known.end()) continue;
    std::string valid;
    for (const auto& name : known) valid += (valid.empty() ? "" : ", ") + name;
    throw InvalidArgument("benchmark flag --solvers: '" + s + "' is not a solver of this build (valid: " + valid +
                          (mcpi::AmgxPeer::available() ? "" : "; amgx needs a build with AmgX") + ")");
  }
  if (c.systems.empty() && c.grid == 0) throw InvalidArgument("bench_multigrid: no system (give --systems or --grid)");
  // Each dump's two files, checked before any benchmark runs (their headers only).
  for (const auto& p : c.systems)
    for (const char* part : {"_A.mtx", "_R.mtx"}) io::read_matrix_market_header(p + part);
  return c;
}

// One system: the full A = D + O in FP64 (block CSR, column-major blocks), its right-hand side,
// and the split the MCPI solvers take (O's pattern and values, D), in the user's numbering.
struct System {
  std::string name;
  BsrMatrix<double, HostSpace> a;
  std::vector<double> b;
  Kokkos::View<offset_t*, HostSpace> o_ia;
  Kokkos::View<ordinal_t*, HostSpace> o_ja;
  Kokkos::View<double*, Mem> o_values, d_values, rhs;
  double b_norm = 0;
};

const Config* g_config = nullptr;

void split(System& s) {
  const auto& a = s.a;
  const size_t nb2 = a.block_size(), n = static_cast<size_t>(a.nblockrows);
  s.o_ia = Kokkos::View<offset_t*, HostSpace>("O.ia", n + 1);
  size_t off_diagonal = 0;
  for (size_t i = 0; i < n; ++i)
    for (offset_t k = a.ia(i); k < a.ia(i + 1); ++k) off_diagonal += static_cast<size_t>(a.ja(k)) != i;
  s.o_ja = Kokkos::View<ordinal_t*, HostSpace>("O.ja", off_diagonal);
  Kokkos::View<double*, HostSpace> o("O", off_diagonal * nb2), d("D", n * nb2);
  size_t q = 0;
  for (size_t i = 0; i < n; ++i) {
    for (offset_t k = a.ia(i); k < a.ia(i + 1); ++k) {
      double* to = static_cast<size_t>(a.ja(k)) == i ? &d(i * nb2) : &o(q * nb2);
      for (size_t e = 0; e < nb2; ++e) to[e] = a.values(static_cast<size_t>(k) * nb2 + e);
      if (static_cast<size_t>(a.ja(k)) != i) s.o_ja(q++) = a.ja(k);
    }
    s.o_ia(i + 1) = static_cast<offset_t>(q);
  }
  s.o_values = Kokkos::create_mirror_view_and_copy(Mem(), o);
  s.d_values = Kokkos::create_mirror_view_and_copy(Mem(), d);
  Kokkos::View<double*, HostSpace> b("b", s.b.size());
  for (size_t i = 0; i < s.b.size(); ++i) b(i) = s.b[i];
  s.rhs = Kokkos::create_mirror_view_and_copy(Mem(), b);
  double sum = 0;
  for (const double v : s.b) sum += v * v;
  s.b_norm = std::sqrt(sum);
}

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// A system's name in the benchmarks' names: the dump's file name, after its folder's name where
// another dump of --systems has the same file name ("r1-flow_step10").
std::string system_name(const std::string& key, const std::vector<std::string>& systems) {
  if (key.rfind("grid:", 0) == 0) return "generated_g" + key.substr(5);
  int same = 0;
  for (const auto& other : systems) same += base_name(other) == base_name(key);
  const std::string folder = key.find('/') == std::string::npos ? std::string() : key.substr(0, key.find_last_of('/'));
  return same > 1 && !folder.empty() ? base_name(folder) + "-" + base_name(key) : base_name(key);
}

System load_dumped(const std::string& prefix, int nb) {
  System s;
  const auto a = io::read_matrix_market<double>(prefix + "_A.mtx");
  const auto r = io::read_matrix_market<double>(prefix + "_R.mtx");
  if (a.nrows != a.ncols || a.nrows % nb != 0)
    throw InvalidArgument("bench_multigrid: " + prefix + "_A.mtx is " + std::to_string(a.nrows) + " x " +
                          std::to_string(a.ncols) + ": not square in blocks of --block " + std::to_string(nb));
  // The right-hand side: a dense column (array format), or a coordinate one.
  if (r.nrows != a.nrows || r.ncols != 1)
    throw InvalidArgument("bench_multigrid: " + prefix + "_R.mtx is " + std::to_string(r.nrows) + " x " +
                          std::to_string(r.ncols) + ", not one column of " + std::to_string(a.nrows));
  s.b.assign(static_cast<size_t>(a.nrows), 0.0);
  for (ordinal_t i = 0; i < r.nrows; ++i)
    for (offset_t k = r.row_ptr(i); k < r.row_ptr(i + 1); ++k) s.b[i] += r.values(k);
  s.a = csr_to_bsr(a, nb);
  split(s);
  return s;
}

System generated(int grid, int nb, std::uint64_t seed) {
  System s;
  const auto bs = gen::make_block_system(gen::mixed_mesh_graph(grid, grid, grid, seed), nb, seed);
  s.a = csr_to_bsr(block_system_to_csr(bs), nb);
  s.b.assign(bs.R.data(), bs.R.data() + bs.R.extent(0));
  split(s);
  return s;
}

// The systems, loaded once (a flow's dump of millions of rows takes a while to read).
std::map<std::string, std::unique_ptr<System>> g_systems;

const System& system_named(const std::string& key) {
  auto& s = g_systems[key];
  if (!s) {
    const auto t0 = Clock::now();
    s = std::make_unique<System>(key.rfind("grid:", 0) == 0
                                     ? generated(std::stoi(key.substr(5)), g_config->block, g_config->seed)
                                     : load_dumped(key, g_config->block));
    s->name = system_name(key, g_config->systems);
    std::cerr << "# bench_multigrid: " << s->name << ": " << s->a.nblockrows << " block rows of " << s->a.nb << ", "
              << s->a.nnzb() << " blocks, read in " << since(t0) << " s\n";
  }
  return *s;
}

// ||b - A x||_2 / ||b||_2 on the host in FP64.
double true_relative_residual(const System& s, const std::vector<double>& x) {
  const auto& a = s.a;
  const int nb = a.nb;
  const size_t nb2 = a.block_size();
  double sum = 0;
  for (ordinal_t i = 0; i < a.nblockrows; ++i)
    for (int r = 0; r < nb; ++r) {
      double v = s.b[static_cast<size_t>(i) * nb + r];
      for (offset_t k = a.ia(i); k < a.ia(i + 1); ++k)
        for (int c = 0; c < nb; ++c)
          v -=
              a.values(static_cast<size_t>(k) * nb2 + block_entry(nb, r, c)) * x[static_cast<size_t>(a.ja(k)) * nb + c];
      sum += v * v;
    }
  return s.b_norm > 0 ? std::sqrt(sum) / s.b_norm : std::sqrt(sum);
}

struct Outcome {
  int iterations = 0;
  bool converged = false;
  std::vector<double> x;
};

// What a solver does per benchmark: its setup, a refresh, and solves.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual double setup(const System& s) = 0;
  virtual double refresh(const System& s) = 0;
  virtual Outcome solve(const System& s, double& seconds) = 0;
  virtual std::string label() const = 0;
  virtual int levels() const { return 1; }
};

// FGMRES preconditioned by the sweeps (multigrid null) or by a cycle of that hierarchy.
class PpsparseRunner : public Runner {
 public:
  PpsparseRunner(const mcpi::MultigridOptions* multigrid, double rtol, const Config& c)
      : options_(multigrid ? std::optional<mcpi::MultigridOptions>(*multigrid) : std::nullopt) {
    control_.rtol = rtol;
    control_.max_iterations = c.max_iterations;
    control_.sweeps = c.sweeps;
  }
  double setup(const System& s) override {
    mcpi::SetupOptions setup;
    setup.o_storage.keep_fp64 = true;  // FGMRES's operator: the user's FP64 O, as AmgX's
    const mcpi::BlockPattern<HostSpace> pattern{s.a.nb, s.a.nblockrows, s.o_ia, s.o_ja, 0};
    Exec exec;
    exec.fence();
    const auto t0 = Clock::now();
    if (!options_) {
      solver_ = std::make_unique<mcpi::Solver<Exec>>(pattern, setup);
      solver_->update(exec, s.o_values, s.d_values);
      gmres_ = std::make_unique<mcpi::Fgmres<Exec>>(*solver_, control_);
    } else {
      mg_ = std::make_unique<mcpi::Multigrid<Exec>>(pattern, *options_, setup);
      mg_->update(exec, s.o_values, s.d_values);
      gmres_ = std::make_unique<mcpi::Fgmres<Exec>>(mg_->fine(), control_);
      gmres_->set_preconditioner(mg_->preconditioner());
    }
    exec.fence();
    return since(t0);
  }
  double refresh(const System& s) override {
    Exec exec;
    exec.fence();
    const auto t0 = Clock::now();
    if (mg_)
      mg_->update(exec, s.o_values, s.d_values);
    else
      solver_->update(exec, s.o_values, s.d_values);
    exec.fence();
    return since(t0);
  }
  Outcome solve(const System& s, double& seconds) override {
    Exec exec;
    Kokkos::View<double*, Mem> x("x", s.b.size());
    exec.fence();
    const auto t0 = Clock::now();
    const mcpi::Status st = gmres_->solve(exec, s.rhs, x);
    exec.fence();
    seconds = since(t0);
    Outcome o;
    o.iterations = st.iterations;
    o.converged = st.converged();
    const auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), x);
    o.x.assign(h.data(), h.data() + h.extent(0));
    return o;
  }
  std::string label() const override {
    if (!mg_)
      return "FGMRES(" + std::to_string(control_.restart) + ") + " + std::to_string(control_.sweeps) + " MCPI sweeps";
    std::string rows;
    for (const auto& l : mg_->levels()) rows += (rows.empty() ? "" : " ") + std::to_string(l.n);
    return "FGMRES(" + std::to_string(control_.restart) + ") + multigrid (" +
           mcpi_app::describe(*options_, mg_->fine().o_storage().format) +
           "): " + std::to_string(mg_->levels().size()) + " levels of " + rows + " block rows";
  }
  int levels() const override { return mg_ ? static_cast<int>(mg_->levels().size()) : 1; }

 private:
  mcpi::FgmresControl control_;
  std::optional<mcpi::MultigridOptions> options_;
  std::unique_ptr<mcpi::Solver<Exec>> solver_;
  std::unique_ptr<mcpi::Multigrid<Exec>> mg_;
  std::unique_ptr<mcpi::Fgmres<Exec>> gmres_;
};

class AmgxRunner : public Runner {
 public:
  AmgxRunner(const std::string& config, double rtol, const Config& c) : peer_(config, rtol, c.max_iterations) {}
  double setup(const System& s) override { return peer_.setup(s.a); }
  double refresh(const System& s) override { return peer_.refresh(s.a); }
  Outcome solve(const System& s, double& seconds) override {
    const mcpi::AmgxSolve r = peer_.solve(s.b, x_);
    seconds = r.seconds;
    return Outcome{r.iterations, r.converged, x_};
  }
  std::string label() const override { return mcpi::AmgxPeer::library() + ", FGMRES(30) + " + peer_.describe(); }
  int levels() const override { return peer_.levels(); }

 private:
  mcpi::AmgxPeer peer_;
  std::vector<double> x_;
};

void bench_solve(benchmark::State& st, const std::string& system_key, const std::string& solver, double rtol) {
  try {
    const System& s = system_named(system_key);
    std::unique_ptr<Runner> runner;
    if (g_config->amgx_configs.count(solver))
      runner = std::make_unique<AmgxRunner>(g_config->amgx_configs.at(solver), rtol, *g_config);
    else
      runner = std::make_unique<PpsparseRunner>(
          g_config->multigrids.count(solver) ? &g_config->multigrids.at(solver) : nullptr, rtol, *g_config);
    const double setup_s = runner->setup(s);
    const double refresh_s = runner->refresh(s);
    double warm_up = 0;
    runner->solve(s, warm_up);  // untimed: the first launches of every kernel (and AmgX's)
    Outcome last;
    std::vector<double> times;
    for (auto _ : st) {
      double seconds = 0;
      last = runner->solve(s, seconds);
      st.SetIterationTime(seconds);
      times.push_back(seconds);
    }
    double mean = 0;
    for (const double t : times) mean += t / static_cast<double>(times.size());
    st.counters["setup_s"] = setup_s;
    st.counters["refresh_s"] = refresh_s;
    st.counters["iterations"] = last.iterations;
    st.counters["converged"] = last.converged ? 1 : 0;
    st.counters["true_rel"] = true_relative_residual(s, last.x);
    st.counters["ms_per_iteration"] = last.iterations ? 1e3 * mean / last.iterations : 0;
    st.counters["levels"] = runner->levels();
    st.counters["n"] = s.a.nblockrows;
    st.counters["nb"] = s.a.nb;
    st.counters["nnzb"] = static_cast<double>(s.a.nnzb());
    st.SetLabel(runner->label());
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
  }
}

std::string rtol_name(double r) {
  std::ostringstream s;
  s << r;
  return s.str();
}

}  // namespace
}  // namespace ppsparse::bench::multigrid_bench

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  int status = 0;
  try {
    using namespace ppsparse::bench;
    using namespace ppsparse::bench::multigrid_bench;
    const auto common = parse_bench_config(argc, argv);
    static Config config;  // referenced by the registered benchmarks
    config = parse_config(argc, argv, common);
    g_config = &config;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    const double copy = register_copy_benchmark(common);
    std::cerr << "# bench_multigrid: " << describe(common) << "; AmgX: " << ppsparse::mcpi::AmgxPeer::library()
              << "; copy bandwidth " << copy << " GB/s\n";
    std::vector<std::string> keys = config.systems;
    if (config.grid > 0) keys.insert(keys.begin(), "grid:" + std::to_string(config.grid));
    for (const auto& key : keys) {
      const std::string name = system_name(key, config.systems);
      for (const auto& solver : config.solvers)
        for (const double rtol : config.rtols)
          benchmark::RegisterBenchmark(
              ("solve/" + name + "/" + solver + "/rtol_" + rtol_name(rtol)).c_str(),
              [key, solver, rtol](benchmark::State& st) { bench_solve(st, key, solver, rtol); })
              ->UseManualTime()
              ->Unit(benchmark::kMillisecond)
              ->Iterations(config.reps);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const std::exception& e) {
    std::cerr << "bench_multigrid: " << e.what() << "\n";
    status = 1;
  }
  ppsparse::bench::multigrid_bench::g_systems.clear();  // device views go before Kokkos::finalize
  return status;
}
