// The finite element Poisson problem's operators (Reguly and Giles 2012's comparison, and a
// matrix-free element operator): every operator of fem/operators.def in FP32 and FP64, on P1
// and P2 tetrahedral meshes, plus the SpMV family's SELL-C-sigma and HYB on the assembled matrix
// for the conversion cost.
//
// Names: fem/<mesh>/P<order>/<fp32|fp64>/<operator>, operator one of fem/operators.def's, or
// spmv_csr_v2 (the assembled matrix by the CSR kernel, the baseline of the conversion cost) or
// spmv_sell / spmv_hyb (the assembled matrix converted by spmv::SpmvOperator).
//
// Counters (per product y = A x):
//   gbs, pct_copy    the operator's own bytes model (FemTraffic: its stored data once, x read and y
//                    written once) / time, and its share of this run's copy bandwidth
//   matrix_mb        what the operator stores
//   csr_ratio        the CSR kernel's time (spmv_csr_v2, the assembled matrix as it is) / this time
//   auto_ratio       the csr operator's time (the SpMV family's auto choice) / this time
//   setup_s          the operator's setup (ELLPACK conversion, element colouring, SpMV setup)
//   setup_products   setup_s in products of this operator
//   break_even       products after which converting from CSR pays off: setup_s / (t_csr - t), -1
//                    where this operator is not faster than the CSR kernel
//   cg_s, cg_iterations  Jacobi-preconditioned CG from u = 0 to ||r|| <= 1e-6 ||r0|| (FP32: 1e-5)
//   nodes, elements, nnz
//
// Flags, besides bench/common's (--reps, --min_time, --copy_mb, --shared_dir):
//   --fem_meshes=L   PPSPARSE_BENCH_FEM_MESHES   comma-separated: "box" (a box of tetrahedra sized per
//                    order: --fem_box_p1 / --fem_box_p2 cubes a side) or a mesh file of the shared
//                    folder's meshes/ with ":R" uniform refinements, e.g. brick_tets.su2:2;
//                    default box,brick_tets.su2:2 on GPUs, box on CPUs
//   --fem_box_p1=N   PPSPARSE_BENCH_FEM_BOX_P1   default 110 on GPUs (1.4 M nodes, the CSR 5x a 50 MB L2), 12
//   --fem_box_p2=N   PPSPARSE_BENCH_FEM_BOX_P2   default 55 on GPUs (1.4 M nodes), 6
//   --fem_orders=L   PPSPARSE_BENCH_FEM_ORDERS   default 1,2
//   --fem_spmv_matrices=0|1  PPSPARSE_BENCH_FEM_SPMV_MATRICES  also ELLPACK's conversion cost on bench_spmv's
//                    large matrices (--matrix_mb): ell_spmv/<matrix>/fp64/{csr_v2,ell}; a matrix whose
//                    padding would exceed 8x its entries, or a rectangular one, is reported and skipped. Default 0
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/fem/poisson.hpp>
#include <ppsparse/fem/tet_space.hpp>
#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/refine.hpp>
#include <ppsparse/spmv/spmv.hpp>

#include "common/bench_config.hpp"
#include "common/copy_bandwidth.hpp"
#include "common/counters.hpp"
#include "common/matrix_suite.hpp"

namespace ppsparse::bench {
namespace {

using Exec = DefaultExecSpace;
using Mem = DefaultMemSpace;

struct FemBenchConfig {
  std::vector<std::string> meshes;
  int box_p1 = 12, box_p2 = 6;
  std::vector<int> orders;
  std::string shared_dir;
  bool spmv_matrices = false;
};
FemBenchConfig g_fem;

FemBenchConfig parse_fem_config(int& argc, char** argv, bool gpu) {
  std::vector<BenchFlag> f{{"--fem_meshes", "PPSPARSE_BENCH_FEM_MESHES", gpu ? "box,brick_tets.su2:2" : "box"},
                           {"--fem_box_p1", "PPSPARSE_BENCH_FEM_BOX_P1", gpu ? "110" : "12"},
                           {"--fem_box_p2", "PPSPARSE_BENCH_FEM_BOX_P2", gpu ? "55" : "6"},
                           {"--fem_orders", "PPSPARSE_BENCH_FEM_ORDERS", "1,2"},
                           {"--fem_spmv_matrices", "PPSPARSE_BENCH_FEM_SPMV_MATRICES", "0"}};
  take_bench_flags(f, argc, argv);
  FemBenchConfig c;
  c.meshes = flag_list(f[0].flag, f[0].value);
  c.box_p1 = static_cast<int>(flag_integer(f[1].flag, f[1].value, 1, 2000));
  c.box_p2 = static_cast<int>(flag_integer(f[2].flag, f[2].value, 1, 2000));
  for (const auto& o : flag_list(f[3].flag, f[3].value))
    c.orders.push_back(static_cast<int>(flag_integer(f[3].flag, o, 1, 2)));
  c.spmv_matrices = flag_integer(f[4].flag, f[4].value, 0, 1) == 1;
  return c;
}

// One case's space and systems, kept while its benchmarks run (they are registered together).
struct Case {
  fem::TetSpace space;
  std::shared_ptr<void> system32, system64;
  std::map<std::string, double> csr_seconds;   // per precision: the CSR kernel's (csr_v2) product time
  std::map<std::string, double> auto_seconds;  // per precision: the csr operator's (SpMV auto)
};
std::map<std::string, std::shared_ptr<Case>>& cases() {
  static std::map<std::string, std::shared_ptr<Case>> c;
  return c;
}

std::shared_ptr<Case> case_for(const std::string& mesh_spec, int order) {
  const std::string key = mesh_spec + "/P" + std::to_string(order);
  auto& all = cases();
  if (auto it = all.find(key); it != all.end()) return it->second;
  all.clear();  // one case in memory at a time
  mesh::Mesh m;
  if (mesh_spec == "box") {
    const int n = order == 1 ? g_fem.box_p1 : g_fem.box_p2;
    m = fem::box_tet_mesh(n, n, n, 1.0 / n);
  } else {
    const auto colon = mesh_spec.rfind(':');
    const std::string file = mesh_spec.substr(0, colon);
    const int refine = colon == std::string::npos ? 0 : std::stoi(mesh_spec.substr(colon + 1));
    m = mesh::refine_uniform(mesh::read((std::filesystem::path(g_fem.shared_dir) / "meshes" / file).string()), refine);
  }
  auto c = std::make_shared<Case>();
  c->space = fem::make_tet_space(m, order);
  all[key] = c;
  return c;
}

template <class Scalar>
const fem::PoissonSystem<Scalar, Mem>& system_of(Case& c) {
  auto& slot = sizeof(Scalar) == 4 ? c.system32 : c.system64;
  if (!slot) slot = std::make_shared<fem::PoissonSystem<Scalar, Mem>>(fem::make_poisson_system<Scalar, Mem>(c.space));
  return *static_cast<const fem::PoissonSystem<Scalar, Mem>*>(slot.get());
}

// Seconds per call of f (10 calls per timed batch, fenced), Google Benchmark's loop.
template <class F>
double time_products(benchmark::State& state, const F& f) {
  constexpr int kBatch = 10;
  std::vector<double> per_call;
  for (auto _ : state) {
    Exec().fence();
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < kBatch; ++k) f();
    Exec().fence();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s / kBatch);
    per_call.push_back(s / kBatch);
  }
  return median(per_call);
}

// The setup's counters, and against the CSR kernel's time per product (csr_seconds; 0: not run)
// the speed ratio and, except for the CSR kernel itself, the products after which the setup pays
// off (-1: never).
void set_setup_counters(benchmark::State& state, double seconds, double setup, double csr_seconds, bool is_csr) {
  state.counters["setup_s"] = setup;
  state.counters["setup_products"] = seconds > 0 ? setup / seconds : 0;
  if (csr_seconds <= 0) return;
  state.counters["csr_ratio"] = csr_seconds / seconds;
  if (!is_csr) state.counters["break_even"] = seconds < csr_seconds ? setup / (csr_seconds - seconds) : -1;
}

template <class Scalar>
void run_case(benchmark::State& state, const std::string& mesh_spec, int order, const std::string& which) {
  try {
    auto c = case_for(mesh_spec, order);
    const auto& system = system_of<Scalar>(*c);
    const std::string precision = sizeof(Scalar) == 4 ? "fp32" : "fp64";
    const auto n = static_cast<size_t>(system.nnodes);
    Kokkos::View<Scalar*, Mem> x("x", n), y("y", n);
    Kokkos::deep_copy(x, Scalar(1));
    double seconds = 0, setup = 0;
    fem::FemTraffic traffic;
    std::string label;
    if (which.rfind("spmv_", 0) == 0) {
      spmv::SpmvOptions options;
      if (which == "spmv_hyb") options.sell.hyb_row_max = -1;
      const auto algorithm = which == "spmv_csr_v2" ? spmv::SpmvAlgorithm::csr_v2 : spmv::SpmvAlgorithm::sell;
      spmv::SpmvOperator<Exec, Scalar> op(algorithm, system.A, options);
      seconds = time_products(state, [&] { op.apply(Scalar(1), x, Scalar(0), y); });
      setup = op.setup_seconds();
      const auto t = op.traffic(false);
      traffic.vector_bytes = 2.0 * n * sizeof(Scalar);
      traffic.matrix_bytes = t.kernel_bytes - traffic.vector_bytes;
      label = op.describe();
    } else {
      const fem::PoissonOperator<Exec, Scalar> op(fem::parse_poisson_operator(which), system);
      seconds = time_products(state, [&] { op.apply(x, y); });
      setup = op.setup_seconds();
      traffic = op.traffic();
      label = op.describe();
      // CG to the tolerance from u = 0.
      Kokkos::View<Scalar*, Mem> u("u", n);
      Exec().fence();
      const auto t0 = std::chrono::steady_clock::now();
      const fem::CgResult r =
          fem::solve_cg(op, Kokkos::View<const Scalar*, Mem>(system.diagonal),
                        Kokkos::View<const Scalar*, Mem>(system.rhs), u, sizeof(Scalar) == 4 ? 1e-5 : 1e-6, 20000);
      Exec().fence();
      state.counters["cg_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      state.counters["cg_iterations"] = r.iterations;
      state.counters["cg_converged"] = r.converged ? 1 : 0;
    }
    if (which == "spmv_csr_v2") c->csr_seconds[precision] = seconds;
    if (which == "csr") c->auto_seconds[precision] = seconds;
    const double csr = c->csr_seconds.count(precision) ? c->csr_seconds[precision] : 0;
    const double automatic = c->auto_seconds.count(precision) ? c->auto_seconds[precision] : 0;
    if (automatic > 0) state.counters["auto_ratio"] = automatic / seconds;
    set_bandwidth_counters(state, traffic.total(), traffic.total(), 0, seconds);
    state.counters["matrix_mb"] = traffic.matrix_bytes / 1048576.0;
    set_setup_counters(state, seconds, setup, csr, which == "spmv_csr_v2");
    state.counters["nodes"] = static_cast<double>(system.nnodes);
    state.counters["elements"] = static_cast<double>(system.nelements);
    state.counters["nnz"] = static_cast<double>(system.A.nnz());
    state.SetLabel(label);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// ELLPACK against the CSR kernel on one of bench_spmv's large matrices: the conversion's cost
// in products and the break-even (the ELL operator of the FE family on the matrix alone).
void run_ell_spmv(benchmark::State& state, const MatrixSpec& spec, const std::string& which) {
  try {
    static std::map<std::string, std::shared_ptr<CsrMatrix<double, Mem>>> kept;
    static std::map<std::string, double> csr_seconds;
    if (!kept.count(spec.name)) {
      kept.clear();
      const CsrMatrix<double, HostSpace> h = spec.make();
      if (h.nrows != h.ncols)
        throw InvalidArgument("rectangular (" + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) +
                              "): the FE family's ELLPACK is square");
      offset_t widest = 0;
      for (ordinal_t i = 0; i < h.nrows; ++i) widest = std::max(widest, h.row_ptr(i + 1) - h.row_ptr(i));
      const double padding =
          static_cast<double>(widest) * h.nrows / static_cast<double>(std::max<offset_t>(1, h.nnz()));
      if (padding > 8)
        throw InvalidArgument("ELLPACK would store " + std::to_string(padding) + " times the entries (width " +
                              std::to_string(widest) + "): not converted");
      kept[spec.name] = std::make_shared<CsrMatrix<double, Mem>>(copy_to<Mem>(h));
    }
    const CsrMatrix<double, Mem>& a = *kept[spec.name];
    Kokkos::View<double*, Mem> x("x", static_cast<size_t>(a.ncols)), y("y", static_cast<size_t>(a.nrows));
    Kokkos::deep_copy(x, 1.0);
    double seconds = 0, setup = 0, bytes = 0;
    if (which == "csr_v2") {
      spmv::SpmvOperator<Exec, double> op(spmv::SpmvAlgorithm::csr_v2, a);
      seconds = time_products(state, [&] { op.apply(1.0, x, 0.0, y); });
      setup = op.setup_seconds();
      bytes = op.traffic(false).kernel_bytes;
      csr_seconds[spec.name] = seconds;
    } else {
      fem::PoissonSystem<double, Mem> system;  // the operator reads the assembled matrix only
      system.nnodes = a.nrows;
      system.A = a;
      const fem::PoissonOperator<Exec, double> op(fem::PoissonOperatorKind::ell, system);
      seconds = time_products(state, [&] { op.apply(x, y); });
      setup = op.setup_seconds();
      bytes = op.traffic().total();
      state.SetLabel(op.describe());
    }
    const double csr = which == "ell" && csr_seconds.count(spec.name) ? csr_seconds[spec.name] : 0;
    set_bandwidth_counters(state, bytes, bytes, 0, seconds);
    set_setup_counters(state, seconds, setup, csr, which == "csr_v2");
    state.counters["nnz"] = static_cast<double>(a.nnz());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_fem_benchmarks(const BenchConfig& config) {
  if (g_fem.spmv_matrices)
    for (const MatrixSpec& spec : large_matrix_suite(config.matrix_mb, config.seed))
      for (const std::string which : {"csr_v2", "ell"}) {
        const std::string name = "ell_spmv/" + spec.name + "/fp64/" + which;
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { run_ell_spmv(s, spec, which); })
            ->UseManualTime()
            ->Repetitions(config.reps)
            ->ReportAggregatesOnly(true)
            ->MinTime(config.min_time);
      }
  std::vector<std::string> operators{"spmv_csr_v2"};  // the CSR kernel first: the others' baseline
  for (const auto k : fem::all_poisson_operators()) operators.emplace_back(fem::name(k));
  operators.emplace_back("spmv_sell");
  operators.emplace_back("spmv_hyb");
  for (const auto& mesh_spec : g_fem.meshes) {
    if (mesh_spec != "box" && config.shared_dir.empty()) {
      std::cerr << "# no shared folder: " << mesh_spec << " skipped\n";
      continue;
    }
    for (const int order : g_fem.orders)
      for (const std::string precision : {"fp64", "fp32"})
        for (const auto& op : operators) {
          const std::string name = "fem/" + mesh_spec + "/P" + std::to_string(order) + "/" + precision + "/" + op;
          auto* b = precision == "fp64"
                        ? benchmark::RegisterBenchmark(
                              name.c_str(), [=](benchmark::State& s) { run_case<double>(s, mesh_spec, order, op); })
                        : benchmark::RegisterBenchmark(
                              name.c_str(), [=](benchmark::State& s) { run_case<float>(s, mesh_spec, order, op); });
          b->UseManualTime()->Repetitions(config.reps)->ReportAggregatesOnly(true)->MinTime(config.min_time);
        }
  }
}

}  // namespace
}  // namespace ppsparse::bench

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const bool gpu = ppsparse::compat::is_gpu_space<ppsparse::DefaultExecSpace>();
    ppsparse::bench::g_fem = ppsparse::bench::parse_fem_config(argc, argv, gpu);
    const auto config = ppsparse::bench::parse_bench_config(argc, argv);
    ppsparse::bench::g_fem.shared_dir = config.shared_dir;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    const double copy = ppsparse::bench::register_copy_benchmark(config);
    std::cerr << "# bench_fem: " << ppsparse::bench::describe(config) << "; copy bandwidth " << copy << " GB/s\n";
    benchmark::AddCustomContext("copy_gbs", std::to_string(copy));
    benchmark::AddCustomContext("backend", ppsparse::compat::default_backend_name());
    ppsparse::bench::register_fem_benchmarks(config);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    ppsparse::bench::cases().clear();
  } catch (const std::exception& e) {
    std::cerr << "bench_fem: " << e.what() << "\n";
    ppsparse::bench::cases().clear();
    return 1;
  }
  return 0;
}
