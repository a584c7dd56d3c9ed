// MCPI benchmark (the cases: mcpi/, one file per family of cases): every mcpi::Variant through mcpi::Solver, with the
// device backend's specialised kernels ("backend", where it has one for the variant and nb) and with the portable
// Kokkos kernels ("portable"), against two peers built on the same colour-ordered system and colouring:
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
// D's LU factors in FP32 (o_<format>_lu_fp32/auto/..., for each of --lu_fp32_formats [none]; fp32
// allowed): the same with OStorage::lu_fp32, its bytes model reading D in FP32.
// FGMRES + MCPI (fgmres/first_call, fgmres/iteration): see bench_fgmres (mcpi/step_cases.cpp).
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
//   python3 bench/tools/mcpi_report.py mcpi.json --out mcpi_report#include <benchmark/benchmark.h>

#include <iostream>

#include "mcpi/mcpi_cases.hpp"

namespace ppsparse::bench::mcpi_bench {
namespace {

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
    std::vector<StoredAs> stored;
    for (const mcpi::OFormat f : config.o_formats) stored.push_back({f, false});
    for (const mcpi::OFormat f : config.lu_fp32_formats) stored.push_back({f, true});
    for (const StoredAs s : stored)
      for (const bool backend : {true, false}) {
        if (backend &&
            !(gpu && mcpi::backend::has_kernel(
                         Exec(), mcpi::resolve_variant(mcpi::Variant::automatic(), spec.nb).kernel, spec.nb, s.first)))
          continue;
        finish(benchmark::RegisterBenchmark(
            (prefix + stored_name(s) + "/auto/" + (backend ? "backend" : "portable")).c_str(),
            [spec, &config, s, backend](benchmark::State& st) { bench_reduced(st, spec, config, s, backend); }));
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
}  // namespace ppsparse::bench::mcpi_bench

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  int status = 0;
  try {
    using namespace ppsparse::bench;
    using namespace ppsparse::bench::mcpi_bench;
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
  ppsparse::bench::mcpi_bench::g_cache.reset();  // device views go before Kokkos::finalize
  return status;
}
