// bench_spmv's tuner benchmarks: csr_coop's run-time tuner as a solver meets it, against the
// exhaustive search of its space (spmv_cases.hpp).
#include "spmv_cases.hpp"

namespace ppsparse::bench::spmv_bench {

namespace {

// Seconds of one product y = A x with csr_coop and these parameters, measured as the tuner
// measures it (backend::DeviceTimer) or, with host_clock, by fences around a steady clock.
double coop_seconds(const Prepared<double>& p, const spmv::CoopParams& params, bool host_clock = false) {
  if (host_clock) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    spmv::csr_coop(Exec(), 1.0, p.a, p.x, 0.0, p.y, params);
    Kokkos::fence();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  backend::DeviceTimer<> timer;
  timer.start();
  spmv::csr_coop(Exec(), 1.0, p.a, p.x, 0.0, p.y, params);
  return timer.stop();
}

// (90th - 10th percentile) / median: the spread of single-product timings.
double relative_spread(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  const size_t tail = t.size() / 10;
  return (t[t.size() - 1 - tail] - t[tail]) / median(t);
}

// Median seconds of n products with these parameters.
double coop_median_seconds(const Prepared<double>& p, const spmv::CoopParams& params, int n) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(coop_seconds(p, params));
  return median(t);
}

// Median seconds of n products for each of `params`, timed in n interleaved rounds (one
// product of each per round), so that a drift of the device's speed during the comparison
// (clocks, temperature, neighbours) affects all of them alike.
std::vector<double> coop_interleaved_medians(const Prepared<double>& p, const std::vector<spmv::CoopParams>& params,
                                             int n) {
  std::vector<std::vector<double>> t(params.size());
  for (int i = 0; i < n; ++i)
    for (size_t j = 0; j < params.size(); ++j) t[j].push_back(coop_seconds(p, params[j]));
  std::vector<double> medians;
  for (auto& v : t) medians.push_back(median(v));
  return medians;
}

// kTunerRuns (spmv_cases.hpp): single-sample decisions are at the mercy of the device's 1-4 %
// noise per product, so one run says little about the rule.

// The whole search space of csr_coop on this device, each point the median of 5 products timed
// one after another, fastest first. Each point's time goes to stderr after `tag`, one line
// (coop,repeat,block,microseconds;...), for studying search rules offline.
std::vector<std::pair<double, spmv::CoopParams>> coop_exhaustive_search(const Prepared<double>& p,
                                                                        const std::string& tag) {
  std::vector<std::pair<double, spmv::CoopParams>> all;
  const spmv::CoopSearchSpace space = spmv::coop_search_space(Exec());
  for (int c = 1; c <= space.max_coop; c *= 2)
    for (int r = 1; r <= space.max_repeat; r *= 2)
      for (int b : space.block_sizes) {
        if (b % c != 0) continue;
        const spmv::CoopParams q{c, r, b};
        try {
          all.emplace_back(coop_median_seconds(p, q, 5), q);
        } catch (const InvalidArgument&) {
          // more threads per team than this kernel may have: not a point of this device
        }
      }
  if (all.empty()) throw InvalidArgument("bench_tuner: no point of the search space runs on this device");
  std::cerr << tag;
  for (const auto& [t, q] : all) std::cerr << q.coop << "," << q.repeat << "," << q.block_size << "," << 1e6 * t << ";";
  std::cerr << "\n";
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return all;
}

}  // namespace

// The tuner as a solver meets it (one product per call, on an operator set up with these
// tuner options), against every point of its search space. tuning_overhead: the device time of the calls until the
// tuner is done, over the best point's time, minus those calls: what tuning costs in products of the best, against
// knowing the best from the start (the median run). exhaustive_runs > 0 repeats the whole
// search that many times and judges each repeat's fastest point as a tuner run is judged.
void bench_tuner(benchmark::State& state, const MatrixSpec& spec, const spmv::CoopTunerOptions& tuner_options,
                 int exhaustive_runs) {
  try {
    const Prepared<double>& p = cache().get<double>(spec);
    cache().runner_.reset();
    cache().runner_key_.clear();
    const spmv::CoopParams start = spmv::coop_fixed_rule(Exec(), p.a);
    coop_median_seconds(p, start, 3);  // module loading and first-touch costs out of the way
    // The noise the tuner's single-product decisions face, with either clock (interleaved).
    std::vector<double> host_t, device_t;
    for (int i = 0; i < 21; ++i) {
      host_t.push_back(coop_seconds(p, start, true));
      device_t.push_back(coop_seconds(p, start));
    }
    spmv::SpmvOptions o;
    o.tuner = tuner_options;
    std::vector<spmv::CoopParams> after8(kTunerRuns), done(kTunerRuns);
    std::vector<int> done_calls(kTunerRuns);
    std::vector<double> tuning_seconds(kTunerRuns);
    backend::DeviceTimer<> call_timer;
    for (int run = 0; run < kTunerRuns; ++run) {
      spmv::SpmvOperator<Exec, double, Mem> op(spmv::SpmvAlgorithm::csr_coop, p.a, o);
      const spmv::CoopTuner* tuner = op.tuner();
      if (!tuner) throw InvalidArgument("bench_tuner: the csr_coop operator has no tuner");
      auto timed_call = [&] {
        call_timer.start();
        op.apply(1.0, p.x, 0.0, p.y);
        tuning_seconds[run] += call_timer.stop();
      };
      for (int call = 0; call < 8 && !tuner->done(); ++call) timed_call();
      after8[run] = tuner->best();
      for (int calls = 8; calls < 1000 && !tuner->done(); ++calls) timed_call();
      done[run] = tuner->best();
      done_calls[run] = tuner->calls();
    }

    // Exhaustive: every point, median of 5, once per matrix (whatever `samples`); the three
    // best re-timed with 21 in each benchmark, next to the tuner's points.
    auto& all = cache().coop_landscape;
    if (all.empty()) all = coop_exhaustive_search(p, "# coop_landscape " + spec.name + " ");
    // The exhaustive search again, as if it were the tuner: how often its own choice is within
    // 2 % of the reference's best measures how finely this device ranks the points at all.
    std::vector<spmv::CoopParams> searched_again;
    for (int k = 0; k < exhaustive_runs; ++k)
      searched_again.push_back(
          coop_exhaustive_search(p, "# coop_landscape_repeat " + spec.name + " " + std::to_string(k + 1) + " ")
              .front()
              .second);
    // The exhaustive search's three best, the start, and every run's two choices (each distinct
    // point once), re-timed together.
    std::vector<spmv::CoopParams> compared;
    auto index_of = [&](const spmv::CoopParams& q) {
      const auto it = std::find(compared.begin(), compared.end(), q);
      if (it != compared.end()) return static_cast<size_t>(it - compared.begin());
      compared.push_back(q);
      return compared.size() - 1;
    };
    const size_t i_start = index_of(start);
    std::vector<size_t> i_after8, i_done, i_top;
    for (int run = 0; run < kTunerRuns; ++run) {
      i_after8.push_back(index_of(after8[run]));
      i_done.push_back(index_of(done[run]));
    }
    const size_t top = std::min<size_t>(3, all.size());
    for (size_t i = 0; i < top; ++i) i_top.push_back(index_of(all[i].second));
    std::vector<size_t> i_again;
    for (const auto& q : searched_again) i_again.push_back(index_of(q));
    const std::vector<double> t = coop_interleaved_medians(p, compared, 21);
    double best = 1e300;
    spmv::CoopParams best_params;
    for (const size_t i : i_top)
      if (t[i] < best) best = t[i], best_params = compared[i];
    std::vector<double> r_after8, r_done;
    int within = 0;
    for (int run = 0; run < kTunerRuns; ++run) {
      r_after8.push_back(t[i_after8[run]] / best);
      r_done.push_back(t[i_done[run]] / best);
      within += r_after8.back() <= 1.02;
    }
    for (auto _ : state) state.SetIterationTime(t[i_after8[0]]);
    state.counters["after8_over_best"] = median(r_after8);  // the median run
    state.counters["after8_worst"] = *std::max_element(r_after8.begin(), r_after8.end());
    state.counters["after8_within_2pct"] = within;  // runs of kTunerRuns
    state.counters["runs"] = kTunerRuns;
    state.counters["done_over_best"] = median(r_done);
    state.counters["start_over_best"] = t[i_start] / best;
    state.counters["done_calls"] = median(std::vector<double>(done_calls.begin(), done_calls.end()));
    std::vector<double> overhead;
    for (int run = 0; run < kTunerRuns; ++run) overhead.push_back(tuning_seconds[run] / best - done_calls[run]);
    state.counters["tuning_overhead"] = median(overhead);
    state.counters["start_spread_host_clock"] = relative_spread(host_t);
    state.counters["start_spread_device_timer"] = relative_spread(device_t);
    state.counters["points"] = static_cast<double>(all.size());
    state.counters["local_columns"] = spmv::coop_matrix_shape(Exec(), p.a).local_columns;
    std::string label = "start " + start.to_string() + "; after 8 calls, each run:";
    for (int run = 0; run < kTunerRuns; ++run) {
      char ratio[16];
      std::snprintf(ratio, sizeof ratio, "%.3f", r_after8[run]);
      label += std::string(run ? "," : "") + " " + after8[run].to_string() + " (" + ratio + ")";
    }
    label += "; done (" + std::to_string(done_calls[0]) + " calls, run 1) " + done[0].to_string() +
             "; exhaustive best " + best_params.to_string();
    if (!i_again.empty()) {
      std::vector<double> r_again;
      label += "; the exhaustive search again:";
      for (size_t k = 0; k < i_again.size(); ++k) {
        r_again.push_back(t[i_again[k]] / best);
        char ratio[16];
        std::snprintf(ratio, sizeof ratio, "%.3f", r_again.back());
        label += std::string(k ? "," : "") + " " + compared[i_again[k]].to_string() + " (" + ratio + ")";
      }
      state.counters["exhaustive_runs"] = static_cast<double>(r_again.size());
      state.counters["exhaustive_within_2pct"] =
          static_cast<double>(std::count_if(r_again.begin(), r_again.end(), [](double r) { return r <= 1.02; }));
      state.counters["exhaustive_over_best"] = median(r_again);
      state.counters["exhaustive_worst"] = *std::max_element(r_again.begin(), r_again.end());
    }
    state.SetLabel(label);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace ppsparse::bench::spmv_bench
