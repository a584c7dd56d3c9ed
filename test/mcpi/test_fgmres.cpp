// FGMRES(m) right-preconditioned by MCPI sweeps: against MCPI alone on a system where MCPI
// converges slowly, on real meshes, and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/counter_rng.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>

#include "block_laplacian.hpp"
#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

using Exec = DefaultExecSpace;
using Mem = Exec::memory_space;

using test::device_view;
using Arrays = test::BlockLaplacian;

/// The block Laplacian with D_ii = (1 + shift) deg_i I + 0.05 I: with a small shift the colour
/// Gauss-Seidel (MCPI) contracts slowly.
Arrays laplacian(const Graph& g, int nb, double shift) { return test::block_laplacian(g, nb, 1.0 + shift, 0.05, 99); }

Solver<> make_solver(const Arrays& a) {
  BlockPattern<Mem> p{a.nb, a.n, device_view(a.row_ptr), device_view(a.col_idx), 0};
  Solver<> s(p);
  s.update(Exec(), device_view(a.O), device_view(a.D));
  return s;
}

/// ||R - A dQ|| in FP64 on the host from the user's arrays.
double host_residual(const Arrays& a, const std::vector<double>& x) {
  const size_t nb = a.nb, nb2 = nb * nb;
  double sum = 0;
  for (ordinal_t r = 0; r < a.n; ++r)
    for (size_t i = 0; i < nb; ++i) {
      double y = a.R[r * nb + i];
      for (size_t j = 0; j < nb; ++j) y -= a.D[r * nb2 + j * nb + i] * x[r * nb + j];
      for (offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
        for (size_t j = 0; j < nb; ++j) y -= a.O[k * nb2 + j * nb + i] * x[a.col_idx[k] * nb + j];
      sum += y * y;
    }
  return std::sqrt(sum);
}

std::vector<double> to_vector(const Kokkos::View<double*, Mem>& v) {
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

TEST(McpiFgmres, NeedsFewerSweepsThanMcpiAloneWhereMcpiIsSlow) {
  const Arrays a = laplacian(gen::tet_mesh_graph(12, 10, 10), 2, 0.02);
  Solver<> solver = make_solver(a);
  Exec exec;
  const auto R = device_view(a.R);
  Kokkos::View<double*, Mem> dq("dq", a.R.size());

  Control alone;
  alone.max_sweeps = 4000;
  alone.rtol = 1e-5;  // the FP32 iterate bottoms out near 1e-7
  alone.check_interval = 10;
  const Status sm = solver.apply(exec, R, dq, alone);
  ASSERT_EQ(sm.reason, StopReason::converged) << name(sm.reason) << " after " << sm.sweeps;

  FgmresControl fc;
  fc.rtol = 1e-5;
  fc.restart = 20;
  fc.sweeps = 2;
  Fgmres<> gmres(solver, fc);
  Kokkos::deep_copy(dq, std::nan(""));  // poisoned: the zero guess ignores it
  const Status sf = gmres.solve(exec, R, dq);
  ASSERT_EQ(sf.reason, StopReason::converged) << name(sf.reason);
  EXPECT_EQ(sf.sweeps, sf.iterations * fc.sweeps);
  std::printf("MCPI alone: %d sweeps; FGMRES + MCPI: %d iterations, %d sweeps\n", sm.sweeps, sf.iterations, sf.sweeps);
  EXPECT_LT(sf.sweeps * 3, sm.sweeps) << "FGMRES " << sf.iterations << " iterations, " << sf.sweeps
                                      << " sweeps; MCPI alone " << sm.sweeps << " sweeps";
  const double true_res = host_residual(a, to_vector(dq));
  EXPECT_LE(true_res, 1.0001e-5 * sf.initial_residual);
  EXPECT_NEAR(sf.final_residual, true_res, 1e-3 * sf.final_residual);
  ASSERT_EQ(sf.history.size(), static_cast<size_t>(sf.iterations));
  // A given initial guess continues from dQ: already within the tolerance, no iteration.
  FgmresControl again = fc;
  again.initial_guess = InitialGuess::given;
  again.rtol = 0;
  again.atol = 1.01 * true_res;
  Fgmres<> warm(solver, again);
  const Status sw = warm.solve(exec, R, dq);
  EXPECT_EQ(sw.reason, StopReason::converged);
  EXPECT_EQ(sw.iterations, 0);
  // Short cycles restart and still converge.
  FgmresControl short_cycles = fc;
  short_cycles.restart = 4;
  Fgmres<> restarted(solver, short_cycles);
  const Status sr = restarted.solve(exec, R, dq);
  EXPECT_EQ(sr.reason, StopReason::converged) << name(sr.reason);
  EXPECT_GT(sr.iterations, 2 * short_cycles.restart);
  EXPECT_LE(host_residual(a, to_vector(dq)), 1.0001e-5 * sr.initial_residual);
}

TEST(McpiFgmres, ReachesItsToleranceOnRealMeshes) {
  const auto dir = test::shared_dir();
  if (dir.empty()) GTEST_SKIP() << "no ../shared (set PPSPARSE_SHARED_DIR)";
  for (const char* file : {"brick_tets.su2", "pipe.su2", "naca0012_hybrid_2d.su2"}) {
    SCOPED_TRACE(file);
    const Graph g = mesh::vertex_graph(mesh::read((dir / "meshes" / file).string()));
    const auto sys = gen::make_block_system(g, 5, 17, {1.1});
    Arrays a;
    a.nb = 5;
    a.n = sys.n;
    a.row_ptr.assign(sys.O.ia.data(), sys.O.ia.data() + sys.O.ia.extent(0));
    a.col_idx.assign(sys.O.ja.data(), sys.O.ja.data() + sys.O.ja.extent(0));
    a.O.assign(sys.O.values.data(), sys.O.values.data() + sys.O.values.extent(0));
    a.D.assign(sys.D.data(), sys.D.data() + sys.D.extent(0));
    a.R.assign(sys.R.data(), sys.R.data() + sys.R.extent(0));
    Solver<> solver = make_solver(a);
    FgmresControl fc;
    fc.rtol = 1e-10;
    fc.sweeps = 3;
    Fgmres<> gmres(solver, fc);
    Kokkos::View<double*, Mem> dq("dq", a.R.size());
    const Status st = gmres.solve(Exec(), device_view(a.R), dq);
    EXPECT_EQ(st.reason, StopReason::converged) << name(st.reason) << " after " << st.iterations;
    EXPECT_LE(host_residual(a, to_vector(dq)), 1.0001e-10 * st.initial_residual);
  }
}

/// y += shift x, elementwise (a functor: CUDA's extended lambdas may not live in an unnamed
/// namespace).
struct AddShifted {
  Kokkos::View<const double*, Mem> x;
  Kokkos::View<double*, Mem> y;
  double shift;
  KOKKOS_FUNCTION void operator()(const size_t k) const { y(k) += shift * x(k); }
};

TEST(McpiFgmres, SolvesAUsersOperatorPreconditionedByTheSolversSweeps) {
  // The operator is A + 0.4 I; the sweeps precondition with A alone (as a Jacobian-free Newton-
  // Krylov method's assembled approximation would).
  const Arrays a = laplacian(gen::tet_mesh_graph(7, 6, 5), 3, 0.1);
  Solver<> solver = make_solver(a);
  const double shift = 0.4;
  FgmresControl fc;
  fc.rtol = 1e-5;  // the operator applies O as stored (FP32): the FP64 check agrees to about 1e-7
  fc.sweeps = 2;
  fc.restart = 3;  // restarts too: the restart's residual uses the operator
  Fgmres<> gmres(solver, fc);
  int products = 0;
  const Fgmres<>::Operator shifted_a = [&](const Exec& exec, const Kokkos::View<const double*, Mem>& x,
                                           const Kokkos::View<double*, Mem>& y) {
    ++products;
    solver.multiply(exec, x, y);
    Kokkos::parallel_for("test::add_shifted", Kokkos::RangePolicy<Exec>(exec, 0, x.extent(0)), AddShifted{x, y, shift});
  };
  const auto R = device_view(a.R);
  Kokkos::View<double*, Mem> dq("dq", a.R.size());
  Kokkos::deep_copy(dq, std::nan(""));
  const Status st = gmres.solve(Exec(), R, dq, shifted_a, "A + 0.4 I");
  ASSERT_TRUE(st.converged()) << name(st.reason) << " after " << st.iterations;
  EXPECT_EQ(st.system, "operator: A + 0.4 I");
  EXPECT_GT(st.iterations, fc.restart) << "the test should cross a restart";
  EXPECT_GE(products, st.iterations);
  // The shifted system's residual, in FP64 on the host: R - A x - shift x.
  Arrays shifted = a;
  const size_t nb = static_cast<size_t>(a.nb);
  for (ordinal_t i = 0; i < a.n; ++i)
    for (size_t r = 0; r < nb; ++r) shifted.D[static_cast<size_t>(i) * nb * nb + r * nb + r] += shift;
  const double true_res = host_residual(shifted, to_vector(dq));
  EXPECT_LE(true_res, 1.01e-5 * st.initial_residual);
  EXPECT_NEAR(st.final_residual, true_res, 1e-2 * true_res);
  // Not A's solution: A's residual stays large.
  EXPECT_GT(host_residual(a, to_vector(dq)), 1e-2 * st.initial_residual);
  // The next solve without an operator is A's; an empty operator is A too.
  const Status plain = gmres.solve(Exec(), R, dq);
  EXPECT_EQ(plain.system, "O as stored (fp32)");
  EXPECT_LE(host_residual(a, to_vector(dq)), 1.01e-5 * plain.initial_residual);
  const Status empty = gmres.solve(Exec(), R, dq, Fgmres<>::Operator{}, "nothing");
  EXPECT_EQ(empty.system, "O as stored (fp32)");
  // An operator that throws ends its solve with its error; the next solve is A's.
  const Fgmres<>::Operator failing = [](const Exec&, const Kokkos::View<const double*, Mem>&,
                                        const Kokkos::View<double*, Mem>&) {
    throw InvalidArgument("the product failed");
  };
  EXPECT_THROW(gmres.solve(Exec(), R, dq, failing, "failing"), InvalidArgument);
  EXPECT_EQ(gmres.solve(Exec(), R, dq).system, "O as stored (fp32)");
}

TEST(McpiFgmres, ANewControlSolvesAsAFreshFgmresWithIt) {
  const Arrays a = laplacian(gen::tet_mesh_graph(6, 5, 4), 3, 0.1);
  Solver<> solver = make_solver(a);
  const auto R = device_view(a.R);
  Kokkos::View<double*, Mem> dq("dq", a.R.size()), fresh_dq("fresh dq", a.R.size());
  Fgmres<> gmres(solver);  // restart 30
  ASSERT_TRUE(gmres.solve(Exec(), R, dq).converged());
  FgmresControl changed;
  changed.restart = 4;  // a new workspace: the solve restarts
  changed.rtol = 1e-9;
  changed.sweeps = 3;
  gmres.set_control(changed);
  EXPECT_EQ(gmres.control(), changed);
  const Status st = gmres.solve(Exec(), R, dq);
  Fgmres<> fresh(solver, changed);
  const Status fresh_st = fresh.solve(Exec(), R, fresh_dq);
  ASSERT_TRUE(st.converged());
  EXPECT_GT(st.iterations, changed.restart);
  EXPECT_EQ(st.iterations, fresh_st.iterations);
  EXPECT_EQ(to_vector(dq), to_vector(fresh_dq));  // bit for bit
  // A bad control is refused as the constructor refuses it, and the last one stays.
  FgmresControl bad = changed;
  bad.restart = 0;
  EXPECT_THROW(gmres.set_control(bad), InvalidArgument);
  EXPECT_EQ(gmres.control(), changed);
}

TEST(McpiFgmres, BadInputGivesClearErrors) {
  const Arrays a = laplacian(gen::tet_mesh_graph(3, 3, 3), 2, 0.5);
  Solver<> solver = make_solver(a);
  FgmresControl bad;
  bad.restart = 0;
  PPSPARSE_EXPECT_THROW_MESSAGE(Fgmres<>(solver, bad), InvalidArgument, "restart must be >= 1");
  bad = {};
  bad.sweeps = 0;
  PPSPARSE_EXPECT_THROW_MESSAGE(Fgmres<>(solver, bad), InvalidArgument, "sweeps must be >= 1");
  bad = {};
  bad.rtol = std::nan("");
  PPSPARSE_EXPECT_THROW_MESSAGE(Fgmres<>(solver, bad), InvalidArgument, "rtol must be finite");
  Fgmres<> gmres(solver);
  Kokkos::View<double*, Mem> dq("dq", a.R.size());
  PPSPARSE_EXPECT_THROW_MESSAGE(gmres.solve(Exec(), device_view(std::vector<double>(3)), dq), InvalidArgument,
                                "R and dQ must have n * nb");
  auto R = a.R;
  R[5] = std::nan("");
  PPSPARSE_EXPECT_THROW_MESSAGE(gmres.solve(Exec(), device_view(R), dq), NumericalError, "R holds a NaN or Inf");
}

}  // namespace
}  // namespace ppsparse::mcpi

namespace ppsparse::mcpi {
namespace {

// ||R - (D + O) x|| / ||R|| on the host, in FP64 with the user's own values (column-major blocks).
double user_relative_residual(const Arrays& a, const std::vector<double>& x) {
  const size_t nb = static_cast<size_t>(a.nb), nb2 = nb * nb;
  double num = 0, den = 0;
  for (ordinal_t i = 0; i < a.n; ++i)
    for (size_t r = 0; r < nb; ++r) {
      double y = 0;
      for (size_t c = 0; c < nb; ++c) y += a.D[static_cast<size_t>(i) * nb2 + c * nb + r] * x[i * nb + c];
      for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        for (size_t c = 0; c < nb; ++c)
          y += a.O[static_cast<size_t>(k) * nb2 + c * nb + r] * x[static_cast<size_t>(a.col_idx[k]) * nb + c];
      const double d = a.R[i * nb + r] - y;
      num += d * d;
      den += a.R[i * nb + r] * a.R[i * nb + r];
    }
  return std::sqrt(num / den);
}

TEST(McpiFgmresFp64Operator, ConvergedMeansTheUsersSystemWithKeepFp64) {
  // FP64 values that FP32 rounds: the stored system differs from the user's by about 1e-8.
  Arrays a = laplacian(gen::tet_mesh_graph(6, 5, 4), 3, 0.05);
  for (size_t q = 0; q < a.O.size(); ++q) a.O[q] *= 1.0 + 1e-9 * std::sin(static_cast<double>(q));
  const auto row_ptr = device_view(a.row_ptr);
  const auto col_idx = device_view(a.col_idx);
  const auto O = device_view(a.O), D = device_view(a.D), R = device_view(a.R);
  FgmresControl fc;
  fc.rtol = 1e-11;
  fc.max_iterations = 400;
  for (const bool fp64 : {false, true}) {
    SetupOptions options;
    options.o_storage.keep_fp64 = fp64;
    Solver<> solver(BlockPattern<Mem>{a.nb, a.n, row_ptr, col_idx}, options);
    solver.update(Exec(), O, D);
    Kokkos::View<double*, Mem> dq("dq", a.R.size());
    Fgmres<> gmres(solver, fc);
    const Status st = gmres.solve(Exec(), R, dq);
    ASSERT_TRUE(st.converged()) << fp64;
    const auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), dq);
    const double user = user_relative_residual(a, std::vector<double>(h.data(), h.data() + h.extent(0)));
    if (fp64) {
      EXPECT_EQ(st.system, "the user's O in FP64");
      EXPECT_LE(user, 1e-10) << "converged means the user's system";
      EXPECT_GT(solver.device_bytes(), 0u);
    } else {
      EXPECT_EQ(st.system, "O as stored (fp32)");
      EXPECT_GT(user, 1e-10) << "the stored FP32 system is not the user's to 1e-10";
    }
  }
  SetupOptions options;
  options.o_storage.keep_fp64 = true;
  Solver<> solver(BlockPattern<Mem>{a.nb, a.n, row_ptr, col_idx}, options);
  PPSPARSE_EXPECT_THROW_MESSAGE(solver.storage(), InvalidArgument, "only update() fills");
  Kokkos::View<double*, Mem> dq("dq", a.R.size());
  solver.update(Exec(), O, D);
  Control c;
  c.rtol = 1e-5;
  c.max_sweeps = 500;
  EXPECT_EQ(solver.apply(Exec(), R, dq, c).system, "O as stored (fp32)") << "the sweeps' checks read the stored O";
}

}  // namespace
}  // namespace ppsparse::mcpi
