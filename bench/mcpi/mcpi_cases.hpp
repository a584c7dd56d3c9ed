#pragma once
// bench_mcpi's problems, settings and cases (bench/bench_mcpi.cpp registers them): the problems
// and their cache (problems.cpp), the sweeps of every variant and O format (sweep_cases.cpp), the
// time steps and FGMRES (step_cases.cpp), and the peers (peer_cases.cpp).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <utility>
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
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>
#include <ppsparse/reorder/coloring.hpp>

#include "common/bench_config.hpp"
#include "common/copy_bandwidth.hpp"
#include "common/counters.hpp"
#include <ppsparse/peers/mcpi_kokkos_kernels.hpp>
#include "common/mcpi_timed_sweeps.hpp"

namespace ppsparse::bench::mcpi_bench {

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
  std::vector<std::string> meshes;  // --meshes=a,b      PPSPARSE_BENCH_MCPI_MESHES: files in mesh_dir, any
                                    //   format mesh::read reads; a name without an extension is a .su2
  int refine = 0;                   // --refine             PPSPARSE_BENCH_MCPI_REFINE
  std::string mesh_dir;             // --mesh_dir           PPSPARSE_MESH_DIR
  int sweeps = 10;                  // --sweeps             PPSPARSE_BENCH_MCPI_SWEEPS
  int check_sweeps = 3;             // --check_sweeps       PPSPARSE_BENCH_MCPI_CHECK_SWEEPS
  int step_sweeps = 15;             // --step_sweeps        PPSPARSE_BENCH_MCPI_STEP_SWEEPS
  int steps = 5;                    // --steps              PPSPARSE_BENCH_MCPI_STEPS
  std::vector<std::string> groups{"default", "nb_sweep", "mesh"};  // --problems PPSPARSE_BENCH_MCPI_PROBLEMS
  std::vector<mcpi::OFormat> o_formats{mcpi::OFormat::bf16, mcpi::OFormat::fp16, mcpi::OFormat::int8};  // --o_formats
  // O formats (fp32 included) also timed with D's LU factors in FP32 (OStorage::lu_fp32).
  std::vector<mcpi::OFormat> lu_fp32_formats;  // --lu_fp32_formats=fp32,int8  PPSPARSE_BENCH_MCPI_LU_FP32_FORMATS
  // Settings of the CUDA kernels (mcpi/tuning.hpp). The environment names are those the library
  // read before the tuning became options, so that the commands recorded in docs/perf still run.
  mcpi::KernelTuning tuning;
};

/// The settings from argv and the environment (flag wins); InvalidArgument naming a bad one.
McpiConfig parse_mcpi_config(int& argc, char** argv, const BenchConfig& common);

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

/// The problems the settings ask for.
std::vector<ProblemSpec> problem_specs(const McpiConfig& c);
/// ||a - ref|| / ||ref|| (INFINITY for different sizes).
double relative_difference(const std::vector<double>& a, const std::vector<double>& ref);

// A problem ready to run: ppsparse's solver, the colour-ordered system the peers share,
// How a solver of a reduced case stores its values: O's format and OStorage::lu_fp32.
using StoredAs = std::pair<mcpi::OFormat, bool>;
/// "o_int8", "o_fp32_lu_fp32": a reduced case's name.
inline std::string stored_name(const StoredAs& s) {
  return std::string("o_") + mcpi::name(s.first) + (s.second ? "_lu_fp32" : "");
}

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
  // O stored otherwise than the default (a reduced format, or D's factors in FP32: the key's
  // OFormat and OStorage::lu_fp32): a solver each, its portable rows_per_warp reference and the
  // reference's distance from the FP32 one.
  std::map<StoredAs, std::unique_ptr<mcpi::Solver<Exec>>> reduced;
  std::map<StoredAs, std::vector<double>> reduced_reference;
  std::map<StoredAs, double> reduced_vs_fp32;
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

/// The problem of the running benchmarks, built on first use (the previous one freed first).
class ProblemCache {
 public:
  explicit ProblemCache(const McpiConfig& c) : config_(c) {}
  Problem& get(const ProblemSpec& spec);

 private:
  const McpiConfig& config_;
  std::unique_ptr<Problem> problem_;
};

extern std::unique_ptr<ProblemCache> g_cache;

// The problem's counters; `traffic` is the sweep's bytes model (the problem's FP32-O one unless
// given: a reduced format's).
void set_problem_counters(benchmark::State& state, const Problem& p, double check_err, double seconds_per_sweep,
                          const mcpi::SweepTraffic* traffic = nullptr);
double mean(const std::vector<double>& v);

// ---- the cases ----

void bench_variant(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, mcpi::Variant v,
                   bool backend);
void bench_reduced(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, StoredAs stored,
                   bool backend);

enum class StepCase {
  sweeps,            // apply(): step_sweeps sweeps, no check, no final residual (the baseline)
  update_f32,        // update() from FP32 O and FP64 D in the user's numbering, then the sweeps
  update_f64,        // the same from FP64 O
  in_place,          // factor() after an assembly into storage() (the assembly itself untimed), then the sweeps
  checked,           // apply() with a residual check every 5 sweeps and the true final residual
  checked_no_final,  // the checks, without the final residual
};
const char* step_name(StepCase c);
void bench_step(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, StepCase which);
void bench_fgmres(benchmark::State& state, const ProblemSpec& spec, bool first_call);
void bench_peer(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, const std::string& which);

}  // namespace ppsparse::bench::mcpi_bench
