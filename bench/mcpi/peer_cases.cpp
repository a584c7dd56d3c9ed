// bench_mcpi's peers: cuSPARSE + cuBLAS (CUDA builds) and Kokkos Kernels (mcpi_cases.hpp).
#include "mcpi_cases.hpp"

namespace ppsparse::bench::mcpi_bench {

namespace {

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

}  // namespace

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

}  // namespace ppsparse::bench::mcpi_bench
