#pragma once
// bench_spmv's matrices and products (bench/bench_spmv.cpp registers them): the cache of the
// prepared matrix, the products under test behind one interface (ppsparse's algorithms, Kokkos
// Kernels, the vendor library) and the product benchmark; the tuner's benchmarks are in
// tuner_cases.cpp.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <ppsparse/backend/device_timer.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/peers/kokkos_kernels_spmv.hpp>
#include <ppsparse/spmv/reference.hpp>
#include <ppsparse/spmv/spmv.hpp>
#include <ppsparse/peers/vendor_spmv.hpp>

#include "common/bench_config.hpp"
#include "common/copy_bandwidth.hpp"
#include "common/counters.hpp"
#include "common/matrix_suite.hpp"

namespace ppsparse::bench::spmv_bench {

using Exec = DefaultExecSpace;
using Mem = DefaultMemSpace;

// What runs by default: every algorithm of spmv/algorithms.def and auto (SpmvAlgorithm names),
// this benchmark's labels for csr_coop with its tuner and SELL with the HYB tail, and the peers.
inline const std::vector<std::string>& algorithm_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const spmv::SpmvAlgorithm a : spmv::all_spmv_algorithms()) n.emplace_back(spmv::to_string(a));
    for (const char* label : {"csr_coop_tuned", "sell_hyb", "kk_native", "kk_default", "vendor_csr", "vendor_sell"})
      n.emplace_back(label);
    return n;
  }();
  return names;
}

// One matrix in both precisions, with x, y and the FP64 references of y = A x.
template <class S>
struct Prepared {
  CsrMatrix<S, Mem> a;
  Kokkos::View<S*, Mem> x, y;
  spmv::SpmvReference reference;
};

class MatrixCache {
 public:
  // Views must be released before Kokkos::finalize.
  void clear() {
    runner_.reset();
    runner_key_.clear();
    coop_landscape.clear();
    p64_.reset();
    p32_.reset();
    host_ = CsrMatrix<double, HostSpace>();
    name_.clear();
  }
  template <class S>
  const Prepared<S>& get(const MatrixSpec& spec) {
    if (spec.name != name_) {
      runner_.reset();
      runner_key_.clear();
      coop_landscape.clear();
      p64_.reset();
      p32_.reset();
      host_ = spec.make();
      name_ = spec.name;
      std::cerr << "# matrix " << name_ << ": " << host_.nrows << " x " << host_.ncols << ", " << host_.nnz()
                << " entries (" << spec.description << ")\n";
    }
    auto& slot = slot_for<S>();
    if (!slot) slot = prepare<S>();
    return *slot;
  }

 private:
  template <class S>
  std::optional<Prepared<S>>& slot_for() {
    if constexpr (std::is_same_v<S, double>)
      return p64_;
    else
      return p32_;
  }
  template <class S>
  Prepared<S> prepare() const {
    Prepared<S> p;
    const auto h = convert_values<S>(host_);
    p.a = copy_to<Mem>(h);
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> x(static_cast<size_t>(h.ncols));
    auto xh = Kokkos::View<S*, HostSpace>("x", x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      xh(i) = static_cast<S>(u(rng));
      x[i] = static_cast<double>(xh(i));
    }
    p.x = Kokkos::View<S*, Mem>("x", x.size());
    Kokkos::deep_copy(p.x, xh);
    p.y = Kokkos::View<S*, Mem>("y", static_cast<size_t>(h.nrows));
    p.reference = spmv::reference_spmv(1.0, h, x, 0.0, {});
    return p;
  }

  std::string name_;
  CsrMatrix<double, HostSpace> host_;

 public:
  // The product under test is kept across the repetitions of one benchmark, so that its
  // setup (plans, conversions, tuning) is paid once, as in a solver.
  std::string runner_key_;
  std::shared_ptr<void> runner_;
  // bench_tuner: csr_coop's median times over the whole search space for this matrix
  // (FP64), fastest first; filled by the first tuner benchmark of the matrix.
  std::vector<std::pair<double, spmv::CoopParams>> coop_landscape;

 private:
  std::optional<Prepared<double>> p64_;
  std::optional<Prepared<float>> p32_;
};

inline MatrixCache& cache() {
  static MatrixCache c;
  return c;
}

// A product under test behind one interface.
template <class S>
struct Runner {
  virtual ~Runner() = default;
  virtual void apply(const Kokkos::View<S*, Mem>& x, const Kokkos::View<S*, Mem>& y) = 0;
  virtual std::string describe() const = 0;
  spmv::SpmvTraffic traffic;
  double setup_seconds = 0;
};

template <class S>
struct OperatorRunner : Runner<S> {
  spmv::SpmvOperator<Exec, S, Mem> op;
  OperatorRunner(spmv::SpmvAlgorithm alg, const CsrMatrix<S, Mem>& a, const spmv::SpmvOptions& o) : op(alg, a, o) {
    this->traffic = op.traffic(false);
    this->setup_seconds = op.setup_seconds();
  }
  void apply(const Kokkos::View<S*, Mem>& x, const Kokkos::View<S*, Mem>& y) override { op.apply(S(1), x, S(0), y); }
  std::string describe() const override { return op.describe(); }
};

template <class S>
struct KokkosKernelsRunner : Runner<S> {
  spmv::KokkosKernelsSpmv<Exec, S, Mem> kk;
  KokkosKernelsRunner(const CsrMatrix<S, Mem>& a, spmv::KkSpmvMode mode) : kk(a, mode) {
    this->traffic = spmv::csr_traffic<S>(a.nrows, a.ncols, a.nnz(), false);
  }
  void apply(const Kokkos::View<S*, Mem>& x, const Kokkos::View<S*, Mem>& y) override { kk.apply(S(1), x, S(0), y); }
  std::string describe() const override { return kk.name(kk.mode()); }
};

template <class S>
struct VendorRunner : Runner<S> {
  spmv::VendorSpmv<S> v;
  VendorRunner(const CsrMatrix<S, Mem>& a, spmv::VendorFormat f) {
    v.setup(a, f);
    this->setup_seconds = v.setup_seconds();
    this->traffic = spmv::csr_traffic<S>(a.nrows, a.ncols, a.nnz(), false);
    if (f == spmv::VendorFormat::sell)
      this->traffic.kernel_bytes = this->traffic.model_bytes +
                                   static_cast<double>(v.stored_entries() - a.nnz()) * (sizeof(S) + sizeof(ordinal_t));
  }
  void apply(const Kokkos::View<S*, Mem>& x, const Kokkos::View<S*, Mem>& y) override { v.apply(S(1), x, S(0), y); }
  std::string describe() const override { return v.name(); }
};

// A --variants entry "alg{options}": the algorithm and its options text.
inline std::pair<std::string, std::string> split_variant(const std::string& algo) {
  const size_t brace = algo.find('{');
  if (brace == std::string::npos || algo.back() != '}') return {algo, ""};
  return {algo.substr(0, brace), algo.substr(brace + 1, algo.size() - brace - 2)};
}

template <class S>
std::unique_ptr<Runner<S>> make_runner(const std::string& variant, const CsrMatrix<S, Mem>& a) {
  const auto [algo, text] = split_variant(variant);
  spmv::SpmvOptions o = spmv::parse_spmv_options(text);
  // The library's algorithms by their names (spmv/algorithms.def), and three labels of this
  // benchmark: csr_coop runs the fixed rule, csr_coop_tuned the tuner, sell_hyb SELL with the HYB tail.
  std::string name = algo;
  if (algo == "csr_coop") o.coop_autotune = false;
  if (algo == "csr_coop_tuned") name = "csr_coop";
  if (algo == "sell_hyb") {
    name = "sell";
    if (o.sell.hyb_row_max == 0) o.sell.hyb_row_max = -1;
  }
  for (const spmv::SpmvAlgorithm library_algorithm : spmv::all_spmv_algorithms())
    if (name == spmv::to_string(library_algorithm)) return std::make_unique<OperatorRunner<S>>(library_algorithm, a, o);
  if (algo == "kk_native") return std::make_unique<KokkosKernelsRunner<S>>(a, spmv::KkSpmvMode::native);
  if (algo == "kk_default") return std::make_unique<KokkosKernelsRunner<S>>(a, spmv::KkSpmvMode::default_algorithm);
  if (algo == "vendor_csr") return std::make_unique<VendorRunner<S>>(a, spmv::VendorFormat::csr);
  if (algo == "vendor_sell") return std::make_unique<VendorRunner<S>>(a, spmv::VendorFormat::sell);
  throw InvalidArgument("bench_spmv: unknown algorithm '" + algo + "'");
}

template <class S>
void bench_spmv(benchmark::State& state, const MatrixSpec& spec, const std::string& algo) {
  const bool vendor = algo.rfind("vendor_", 0) == 0;
  if (vendor && !spmv::VendorSpmv<S>::available()) {
    state.SkipWithError("no vendor sparse library on this backend");
    return;
  }
  if (algo == "vendor_sell" && !spmv::VendorSpmv<S>::supports(spmv::VendorFormat::sell)) {
    state.SkipWithError("the vendor library offers no sliced ELL here");
    return;
  }
  try {
    const Prepared<S>& p = cache().get<S>(spec);
    const std::string key = spec.name + "/" + (std::is_same_v<S, double> ? "fp64" : "fp32") + "/" + algo;
    if (cache().runner_key_ != key) {
      cache().runner_.reset();
      std::shared_ptr<Runner<S>> fresh = make_runner<S>(algo, p.a);
      // The tuned variant settles its parameters first (the calls a solver's first iterations make).
      if (split_variant(algo).first == "csr_coop_tuned") {
        auto* op = &static_cast<OperatorRunner<S>*>(fresh.get())->op;
        for (int i = 0; i < 500 && op->tuner() && !op->tuner()->done(); ++i) fresh->apply(p.x, p.y);
      }
      cache().runner_ = fresh;
      cache().runner_key_ = key;
    }
    Runner<S>* runner = static_cast<Runner<S>*>(cache().runner_.get());
    // Verify once against the FP64 reference.
    Kokkos::deep_copy(p.y, std::numeric_limits<S>::quiet_NaN());
    runner->apply(p.x, p.y);
    Kokkos::fence();
    const auto yh = Kokkos::create_mirror_view_and_copy(HostSpace(), p.y);
    const double err = spmv::max_error_ratio(std::vector<S>(yh.data(), yh.data() + yh.extent(0)), p.reference,
                                             spmv::default_tolerance<S>());
    if (!(err <= 1.0)) {
      state.SkipWithError(("wrong result: error ratio " + std::to_string(err) + " against the FP64 reference").c_str());
      return;
    }
    std::vector<double> times;
    for (auto _ : state) {
      Kokkos::fence();
      const auto t0 = std::chrono::steady_clock::now();
      runner->apply(p.x, p.y);
      Kokkos::fence();
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      state.SetIterationTime(dt);
      times.push_back(dt);
    }
    double mean = 0;
    for (double t : times) mean += t;
    mean /= std::max<size_t>(1, times.size());
    set_bandwidth_counters(state, runner->traffic.model_bytes, runner->traffic.kernel_bytes, runner->traffic.flops,
                           mean);
    state.counters["setup_ms"] = 1e3 * runner->setup_seconds;
    state.counters["setup_spmvs"] = mean > 0 ? runner->setup_seconds / mean : 0.0;
    state.counters["err"] = err;
    state.counters["nrows"] = p.a.nrows;
    state.counters["nnz"] = static_cast<double>(p.a.nnz());
    state.counters["model_bytes"] = runner->traffic.model_bytes;
    state.SetLabel(runner->describe());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// Independent tuner runs (fresh operators) per spmv_tuner benchmark (tuner_cases.cpp).
constexpr int kTunerRuns = 5;

// The tuner as a solver meets it, against every point of its search space (tuner_cases.cpp).
void bench_tuner(benchmark::State& state, const MatrixSpec& spec, const spmv::CoopTunerOptions& tuner_options,
                 int exhaustive_runs);

}  // namespace ppsparse::bench::spmv_bench
