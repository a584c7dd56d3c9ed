// bench_mcpi's sweep cases: every variant, backend and portable, and the reduced O formats (mcpi_cases.hpp).
#include "mcpi_cases.hpp"

namespace ppsparse::bench::mcpi_bench {

namespace {

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

}  // namespace

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

// The auto variant on the solver storing its values as `stored` says.
void bench_reduced(benchmark::State& state, const ProblemSpec& spec, const McpiConfig& config, StoredAs stored,
                   bool backend) {
  try {
    Problem& p = g_cache->get(spec);
    const std::string key = stored_name(stored) + (backend ? "/backend" : "/portable");
    if (time_variant(state, p, *p.reduced.at(stored), p.reduced_reference.at(stored), key,
                     "the same storage's portable rows_per_warp", config, mcpi::Variant::automatic(), backend))
      state.counters["vs_fp32"] = p.reduced_vs_fp32.at(stored);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace ppsparse::bench::mcpi_bench
