#include "mpk_mode.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/mpk/matrix_power.hpp>
#include <ppsparse/mpk/reference.hpp>
#include <ppsparse/util/copy_bandwidth.hpp>

namespace mcpi_app {

using namespace ppsparse;

namespace {

using Mpk = mpk::MatrixPowerKernel<DefaultExecSpace, double, DefaultMemSpace>;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Row {
  std::string variant, resolved;
  double seconds = 0, gbs = 0, gbs_min = 0, pct_copy = 0, speedup = 0, check = 0;
  bool ok = false;
};

// Y copied to the host, column after column.
std::vector<double> to_host(const Mpk::MultiVector& y) {
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), y);
  std::vector<double> flat(h.extent(0) * h.extent(1));
  for (size_t k = 0; k < h.extent(1); ++k)
    for (size_t i = 0; i < h.extent(0); ++i) flat[k * h.extent(0) + i] = h(i, k);
  return flat;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

}  // namespace

CsrMatrix<double, HostSpace> mpk_matrix(const Problem& problem, const Options& options) {
  if (options.source == Options::Source::matrix && !options.pattern_only)
    return io::read_matrix_market<double>(options.path);
  return block_system_to_csr(problem.system);
}

int run_mpk_mode(const Problem& problem, const Options& options, int powers) {
  return run_mpk_mode(mpk_matrix(problem, options), problem.description, options, powers);
}

int run_mpk_mode(const CsrMatrix<double, HostSpace>& a, const std::string& description, const Options& options,
                 int powers) {
  if (powers < 1) throw InvalidArgument("mcpi --mpk: P must be >= 1 (got " + std::to_string(powers) + ")");
  if (a.nrows != a.ncols)
    throw InvalidArgument("mcpi --mpk: the matrix is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) +
                          "; matrix powers need a square matrix");
  const ordinal_t n = a.nrows;
  const int reps = std::max(5, std::min(options.sweeps, 50));

  const CopyBandwidth copy = measure_copy_bandwidth<DefaultExecSpace>();
  mpk::MpkOptions o;
  o.powers = powers;
  mpk::MpkDeviceModel model = mpk::default_device_model<DefaultExecSpace>();
  model.memory_gbs = copy.gbs;
  o.model = model;
  Mpk op(a, o);
  const auto& sched = op.plan().schedule;
  const auto traffic = op.traffic();

  std::printf("\nproblem   %s\n", description.c_str());
  std::printf("mpk       y_k = A^k x, k = 1..%d, FP64, on %s: n = %d, nnz = %lld, %zu levels (%s order)\n", powers,
              DefaultExecSpace::name(), n, static_cast<long long>(a.nnz()), op.matrix().level_offsets().size() - 1,
              ppsparse::mpk::to_string(op.matrix().ordering()));
  std::printf(
      "schedule  %d level groups, %d launches (wavefront skew %d), cache budget %.2f MB of a %.2f MB "
      "last-level cache, %d persistent teams, graph: %s\n",
      sched.ngroups(), sched.nlaunches(), sched.skew, op.plan().cache_budget_bytes / 1e6,
      op.plan().last_level_cache / 1e6, op.plan().persistent_teams,
      op.graph_is_native() ? "Kokkos graph" : "plain launches (Kokkos < 4)");
  if (op.plan().pipelined_fallback.empty())
    std::printf("pipelined %d teams, reach %lld row blocks, %lld entries of a block in team scratch\n",
                op.plan().pipelined_teams, op.plan().pipelined_reach,
                static_cast<long long>(op.plan().pipelined_scratch_entries));
  else
    std::printf("pipelined runs the persistent kernel: %s\n", op.plan().pipelined_fallback.c_str());
  std::printf("baseline  %s\n", op.matrix().baseline_description().c_str());
  std::printf("copy      %.1f GB/s (device-to-device, %.0f MiB buffers, read + write)\n", copy.gbs,
              copy.buffer_bytes / 1048576.0);
  std::printf(
      "bytes     %.1f MB per MPK by the back-to-back model (%d x matrix + x + y), %.1f MB by the blocked "
      "model (matrix once + x + %d vectors)\n",
      traffic.back_to_back_bytes * 1e-6, powers, traffic.blocked_bytes * 1e-6, powers);

  // x in the user's numbering, and the FP64 reference (for the round-off bound).
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(static_cast<size_t>(n));
  for (auto& v : x) v = u(rng);
  auto ref = mpk::reference_mpk(a, x, powers);
  if (options.test_perturb_reference > 0 && n > 0)  // a row of A^p x
    perturb_reference_entry(ref.y, static_cast<size_t>(powers) * static_cast<size_t>(n) + static_cast<size_t>(n) / 2,
                            options.test_perturb_reference);
  Kokkos::View<double*, DefaultMemSpace> xd("x", static_cast<size_t>(n));
  Kokkos::deep_copy(xd, Kokkos::View<const double*, HostSpace, Kokkos::MemoryUnmanaged>(x.data(), x.size()));
  Mpk::MultiVector y("Y", static_cast<size_t>(n), static_cast<size_t>(powers) + 1);

  // Time every variant in the level numbering (x loaded once into work()).
  op.apply(mpk::MpkVariant::back_to_back, xd, y);
  std::vector<Row> rows;
  std::vector<double> y_b2b;
  const std::vector<mpk::MpkVariant> variants{mpk::MpkVariant::back_to_back, mpk::MpkVariant::blocked,
                                              mpk::MpkVariant::graph,        mpk::MpkVariant::persistent,
                                              mpk::MpkVariant::pipelined,    mpk::MpkVariant::automatic};
  for (mpk::MpkVariant v : variants) {
    Row r;
    r.variant = mpk::to_string(v);
    const mpk::MpkVariant resolved = op.resolve(v);
    r.resolved = mpk::to_string(resolved);
    op.apply_internal(resolved);  // warm-up
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      DefaultExecSpace().fence();
      const double s = now();
      op.apply_internal(resolved);
      DefaultExecSpace().fence();
      t.push_back(now() - s);
    }
    op.check_persistent_status();
    std::sort(t.begin(), t.end());
    r.seconds = t[t.size() / 2];
    r.gbs = traffic.back_to_back_bytes / r.seconds * 1e-9;
    r.gbs_min = traffic.blocked_bytes / r.seconds * 1e-9;
    r.pct_copy = 100.0 * r.gbs_min / copy.gbs;
    // Check: the result in the user's numbering, NaN-poisoned first.
    Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());
    op.apply(resolved, xd, y);
    const std::vector<double> yv = to_host(y);
    if (v == mpk::MpkVariant::back_to_back) {
      y_b2b = yv;
      r.check = mpk::max_error_ratio(yv, ref, mpk::default_tolerance<double>());
    } else {
      r.check = mpk::max_difference_ratio(yv, y_b2b, ref, mpk::default_tolerance<double>());
    }
    r.ok = r.check <= 1.0;
    rows.push_back(r);
  }
  for (auto& r : rows) r.speedup = rows[0].seconds / r.seconds;

  // The permutation in and out that apply() adds in the user's numbering.
  double permute_seconds = 0;
  {
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      DefaultExecSpace().fence();
      const double s = now();
      op.apply(mpk::MpkVariant::back_to_back, xd, y);
      DefaultExecSpace().fence();
      t.push_back(now() - s - rows[0].seconds);
    }
    std::sort(t.begin(), t.end());
    permute_seconds = std::max(0.0, t[t.size() / 2]);
  }

  std::printf("\n%-14s %-14s %10s %12s %12s %8s %9s %16s\n", "variant", "ran", "ms/MPK", "GB/s b2b-mod", "GB/s blk-mod",
              "% copy", "speedup", "round-off check");
  bool ok = true;
  for (const auto& r : rows) {
    std::printf("%-14s %-14s %10.3f %12.1f %12.1f %8.1f %9.2f %9.2e %s\n", r.variant.c_str(), r.resolved.c_str(),
                r.seconds * 1e3, r.gbs, r.gbs_min, r.pct_copy, r.speedup, r.check, r.ok ? "ok" : "FAILED");
    ok = ok && r.ok;
  }
  std::printf(
      "(median of %d MPKs after one warm-up, in the level numbering; apply() in the user's numbering adds "
      "%.3f ms to permute x in and Y out. round-off check: back_to_back against the FP64 host reference, "
      "the others against back_to_back; <= 1 passes)\n",
      reps, permute_seconds * 1e3);
  std::printf("(automatic: %s; %s)\n", op.plan().estimate.reason.c_str(), op.automatic_timing().c_str());

  if (!options.json.empty()) {
    std::ofstream js(options.json);
    if (!js) throw InputError(options.json, "cannot open for writing");
    js << "{\n  \"mode\": \"mpk\",\n  \"problem\": \"" << json_escape(description) << "\",\n  \"device\": \""
       << DefaultExecSpace::name() << "\",\n  \"powers\": " << powers << ", \"n\": " << n << ", \"nnz\": " << a.nnz()
       << ",\n  \"groups\": " << sched.ngroups() << ", \"launches\": " << sched.nlaunches()
       << ", \"cache_budget_bytes\": " << op.plan().cache_budget_bytes
       << ", \"llc_bytes\": " << op.plan().last_level_cache << ", \"persistent_teams\": " << op.plan().persistent_teams
       << ",\n  \"baseline\": \"" << json_escape(op.matrix().baseline_description()) << "\", \"copy_gbs\": " << copy.gbs
       << ",\n  \"back_to_back_bytes\": " << traffic.back_to_back_bytes
       << ", \"blocked_bytes\": " << traffic.blocked_bytes << ", \"permute_ms\": " << permute_seconds * 1e3
       << ",\n  \"results\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      js << "    {\"variant\": \"" << r.variant << "\", \"ran\": \"" << r.resolved << "\", \"ms\": " << r.seconds * 1e3
         << ", \"gbs_b2b_model\": " << r.gbs << ", \"gbs_blocked_model\": " << r.gbs_min
         << ", \"pct_copy\": " << r.pct_copy << ", \"speedup\": " << r.speedup << ", \"roundoff_check\": " << r.check
         << ", \"ok\": " << (r.ok ? "true" : "false") << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    js << "  ]\n}\n";
    if (!js) throw InputError(options.json, "write failed");
  }
  if (!ok) {
    std::fprintf(stderr, "mcpi --mpk: FAILED: a variant disagrees with back_to_back beyond round-off\n");
    return 1;
  }
  return 0;
}

}  // namespace mcpi_app
