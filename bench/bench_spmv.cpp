// SpMV benchmark (its cases in spmv/): the ppsparse kernels (csr_v1, csr_v2, csr_coop with the
// fixed rule and tuned, sell, sell_hyb = SELL + CSR tail of very long rows, column_panels) against Kokkos
// Kernels (native and default) and the vendor library (CSR and sliced ELL), in FP64 and FP32,
// on the shared real matrices and on generated large ones.
//
// Names: spmv/<matrix>/<fp64|fp32>/<algorithm>. Each product is y = A x (alpha 1, beta 0),
// timed with fences around one call (manual time); --reps repetitions, median reported.
// Counters: gbs (CSR bytes model / time), pct_copy (of the copy bandwidth measured in this
// run, see copy/...), kernel_gbs (bytes of the kernel's own format), gflops, setup_ms
// (plan / conversion / tuning-free setup), setup_spmvs (setup time in units of one product),
// err (error ratio against the FP64 reference; results above 1 are refused).
// See bench/common/bench_config.hpp for the flags; tools/spmv_report.py for the table.
//
// A GPU run (CUDA build; the defaults size each generated matrix to 512 MiB):
//   ./bench/bench_spmv --benchmark_out=spmv.json --benchmark_out_format=json
//   python3 bench/tools/spmv_report.py spmv.json --out spmv_report
// A subset: --benchmark_filter='fp64/(csr_v2|csr_coop_tuned|sell|vendor_csr)/'.
//
// spmv_tuner/<matrix>/fp64/samples=<s>/runs=<r>[/paired][/every_call][/strict|/paper_start] (large matrices
// only) checks csr_coop's run-time tuner (s calls per candidate, at most r candidate products
// timed per call, paired: each next to a product of the best so far, every_call: r in every
// call, strict: without plateau steps, paper_start: the first call measures the start and repeat is
// halved first on every matrix; the library's defaults are samples=1/runs=1) against an
// exhaustive search on this device, in 5
// independent tuner runs: counters after8_over_best (the median run), after8_worst and
// after8_within_2pct (runs of 5) are the tuner's choice after 8 calls, done_over_best when it
// stops, over the best of the whole search space (each re-timed as the median of 21 products, all of them in
// interleaved rounds, so that a drift of the device affects them alike; every product timed
// by backend::DeviceTimer, as the tuner times it). start_spread_host_clock and
// start_spread_device_timer are the (p90 - p10) / median of 21 single products of the start
// point timed each way: the noise a single-product decision faces. tuning_overhead: what the
// calls until the tuner is done cost beyond as many products of the best. stderr gets the
// whole search space's times ("# coop_landscape <matrix> coop,repeat,block,us;...").
// spmv_tuner/<matrix>/fp64/samples=1/runs=1/exhaustive_again also repeats the exhaustive search 5
// times, as if it were a tuner, and re-times each one's fastest point beside the others
// (exhaustive_within_2pct of exhaustive_runs, exhaustive_over_best, exhaustive_worst;
// landscapes on stderr as "# coop_landscape_repeat <matrix> <k> ..."): how often the search
// that defines "the exhaustive best" lands within 2 % of it itself.#include <benchmark/benchmark.h>

#include <iostream>
#include <limits>

#include "spmv/spmv_cases.hpp"

namespace ppsparse::bench::spmv_bench {
namespace {

// How the spmv_tuner benchmarks time a tuning call: runs: candidate products per call, at
// most (CoopTunerOptions::runs_per_call); paired: each run next to a run of the best so far
// (CoopTunerOptions::paired); every_call: no call decided on its first run alone
// (single_run_margin = inf). The name is the benchmark's runs= part.
struct TunerTiming {
  const char* name;
  int runs_per_call;
  bool paired;
  bool every_call;
};
constexpr TunerTiming kTunerTimings[] = {{"1", 1, false, false},           {"1/paired", 1, true, false},
                                         {"3", 3, false, false},           {"3/paired", 3, true, false},
                                         {"3/every_call", 3, false, true}, {"5", 5, false, false}};

void register_spmv_benchmarks(const BenchConfig& config) {
  std::vector<MatrixSpec> specs = shared_matrix_suite(config.shared_dir);
  const size_t first_large = specs.size();
  for (auto& s : large_matrix_suite(config.matrix_mb, config.seed)) specs.push_back(std::move(s));
  specs = reordered_suite(std::move(specs), config.reorder);
  // The defaults, then the --variants entries, each checked before anything runs.
  std::vector<std::string> names = algorithm_names();
  for (size_t start = 0; start < config.variants.size();) {
    const size_t semi = std::min(config.variants.find(';', start), config.variants.size());
    const std::string entry = config.variants.substr(start, semi - start);
    start = semi + 1;
    if (entry.empty()) continue;
    const size_t colon = entry.find(':');
    const std::string algo = entry.substr(0, colon);
    const std::string text = colon == std::string::npos ? "" : entry.substr(colon + 1);
    if (std::find(names.begin(), names.end(), algo) == names.end() || algo.rfind("kk_", 0) == 0 ||
        algo.rfind("vendor_", 0) == 0)
      throw InvalidArgument("benchmark flag --variants: '" + entry + "': '" + algo +
                            "' is not a ppsparse algorithm of this benchmark");
    spmv::parse_spmv_options(text);  // throws on a bad option text
    names.push_back(algo + "{" + text + "}");
  }
  for (size_t m = 0; m < specs.size(); ++m) {
    const MatrixSpec& spec = specs[m];
    for (const char* prec : {"fp64", "fp32"}) {
      for (const std::string& algo : names) {
        const std::string name = "spmv/" + spec.name + "/" + prec + "/" + algo;
        auto* b = std::string(prec) == "fp64"
                      ? benchmark::RegisterBenchmark(
                            name.c_str(), [spec, algo](benchmark::State& st) { bench_spmv<double>(st, spec, algo); })
                      : benchmark::RegisterBenchmark(
                            name.c_str(), [spec, algo](benchmark::State& st) { bench_spmv<float>(st, spec, algo); });
        b->UseManualTime()
            ->Unit(benchmark::kMicrosecond)
            ->Repetitions(config.reps)
            ->MinTime(config.min_time)
            ->DisplayAggregatesOnly(true);
      }
    }
    if (m >= first_large)  // after the matrix's products, so that it is generated once
      for (const int samples : {1, 3})
        for (const TunerTiming& timing : kTunerTimings)
          for (const std::string flow : {"", "/strict", "/paper_start"}) {
            // strict: the coordinate descent without plateau steps (CoopTunerOptions::plateau_tolerance 0);
            // paper_start: the first call measures the start, repeat halved first on every matrix
            // (start_runs 0, repeat_direction_from_shape false).
            spmv::CoopTunerOptions t;
            if (flow == "/strict") t.plateau_tolerance = 0.0;
            if (flow == "/paper_start") {
              t.start_runs = 0;
              t.repeat_direction_from_shape = false;
            }
            t.samples = samples;
            t.runs_per_call = timing.runs_per_call;
            t.paired = timing.paired;
            if (timing.every_call) t.single_run_margin = std::numeric_limits<double>::infinity();
            const std::string name =
                "spmv_tuner/" + spec.name + "/fp64/samples=" + std::to_string(samples) + "/runs=" + timing.name + flow;
            benchmark::RegisterBenchmark(name.c_str(), [spec, t](benchmark::State& st) { bench_tuner(st, spec, t, 0); })
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond)
                ->Iterations(1);
          }
    if (m >= first_large) {
      // The default tuner, and the exhaustive search repeated kTunerRuns times as if it were a tuner
      // (its fastest point re-timed beside the reference's best): the device's own resolution.
      const std::string name = "spmv_tuner/" + spec.name + "/fp64/samples=1/runs=1/exhaustive_again";
      benchmark::RegisterBenchmark(
          name.c_str(), [spec](benchmark::State& st) { bench_tuner(st, spec, spmv::CoopTunerOptions{}, kTunerRuns); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(1);
    }
  }
}
}  // namespace
}  // namespace ppsparse::bench::spmv_bench

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const auto config = ppsparse::bench::parse_bench_config(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    const double copy = ppsparse::bench::register_copy_benchmark(config);
    std::cerr << "# bench_spmv: " << ppsparse::bench::describe(config) << "; copy bandwidth " << copy << " GB/s\n";
    ppsparse::bench::spmv_bench::register_spmv_benchmarks(config);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    ppsparse::bench::spmv_bench::cache().clear();
  } catch (const std::exception& e) {
    std::cerr << "bench_spmv: " << e.what() << "\n";
    ppsparse::bench::spmv_bench::cache().clear();
    return 1;
  }
  return 0;
}
