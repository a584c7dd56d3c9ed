// The C interface (ppsparse/c/mcpi.h): the same answers as the C++ solver, and every error as
// a return code with a one-line message, never an exception.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <ppsparse/c/mcpi.h>
#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/solver.hpp>

namespace {

using namespace ppsparse;

struct Arrays {
  int nb = 3;
  int32_t n = 0;
  std::vector<int32_t> row_ptr, col_idx;
  std::vector<double> O, D, R;
  BlockSystem<HostSpace> system;
};

Arrays arrays(int nb) {
  Arrays a;
  a.nb = nb;
  const Graph g = gen::tet_mesh_graph(4, 4, 3);
  a.system = gen::make_block_system(g, nb, 5);
  a.n = a.system.n;
  for (size_t i = 0; i < a.system.O.ia.extent(0); ++i) a.row_ptr.push_back(static_cast<int32_t>(a.system.O.ia(i)));
  a.col_idx.assign(a.system.O.ja.data(), a.system.O.ja.data() + a.system.O.ja.extent(0));
  for (size_t q = 0; q < a.system.O.values.extent(0); ++q) a.O.push_back(a.system.O.values(q));
  a.D.assign(a.system.D.data(), a.system.D.data() + a.system.D.extent(0));
  a.R.assign(a.system.R.data(), a.system.R.data() + a.system.R.extent(0));
  return a;
}

std::string last() { return ppsparse_last_error(); }

TEST(McpiC, SolvesAsTheCppSolver) {
  const Arrays a = arrays(3);
  ppsparse_mcpi_solver* s = nullptr;
  ASSERT_EQ(ppsparse_mcpi_create(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr, PPSPARSE_MEMORY_HOST),
            PPSPARSE_SUCCESS)
      << last();
  int nb = 0;
  int32_t n = 0, ncolors = 0;
  int64_t nnzb = 0;
  ASSERT_EQ(ppsparse_mcpi_sizes(s, &nb, &n, &nnzb, &ncolors), PPSPARSE_SUCCESS);
  EXPECT_EQ(nb, a.nb);
  EXPECT_EQ(n, a.n);
  EXPECT_EQ(nnzb, static_cast<int64_t>(a.col_idx.size()));
  EXPECT_GT(ncolors, 1);
  ASSERT_EQ(ppsparse_mcpi_update(s, a.O.data(), a.D.data(), PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST),
            PPSPARSE_SUCCESS)
      << last();
  ppsparse_mcpi_control c;
  ppsparse_mcpi_control_default(&c);
  EXPECT_EQ(c.max_sweeps, 15);
  EXPECT_EQ(c.check_interval, 5);
  EXPECT_EQ(c.sweep_graphs, 1);
  c.max_sweeps = 6;
  c.check_interval = 0;
  std::vector<double> dq(a.R.size(), std::nan(""));
  ppsparse_mcpi_status st;
  ASSERT_EQ(ppsparse_mcpi_apply(s, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &c, &st), PPSPARSE_SUCCESS) << last();
  EXPECT_EQ(st.reason, PPSPARSE_MAX_SWEEPS);
  EXPECT_EQ(st.sweeps, 6);
  // The C++ solver with ppsparse's colouring of the same structure.
  mcpi::Solver<> cpp(mcpi::BlockPattern<HostSpace>{a.nb, a.n, a.system.O.ia,
                                                   Kokkos::View<const ordinal_t*, HostSpace>(a.system.O.ja), 0});
  cpp.update(DefaultExecSpace(), a.system.O.values, a.system.D);
  Kokkos::View<double*, HostSpace> want("want", a.R.size());
  mcpi::Control cc;
  cc.max_sweeps = 6;
  cc.check_interval = 0;
  cpp.apply(DefaultExecSpace(), a.system.R, want, cc);
  for (size_t i = 0; i < dq.size(); ++i) ASSERT_EQ(dq[i], want(i)) << i;

  // Tolerance, history, FGMRES, multiply.
  c.max_sweeps = 300;
  c.rtol = 1e-5;
  c.check_interval = 3;
  ASSERT_EQ(ppsparse_mcpi_apply(s, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &c, &st), PPSPARSE_SUCCESS);
  EXPECT_EQ(st.reason, PPSPARSE_CONVERGED);
  EXPECT_LE(st.final_residual, 1e-5 * st.initial_residual);
  int count = 0;
  ASSERT_EQ(ppsparse_mcpi_history(s, 0, nullptr, nullptr, &count), PPSPARSE_SUCCESS);
  EXPECT_EQ(count, st.sweeps / 3);
  std::vector<int> at(count);
  std::vector<double> res(count);
  ASSERT_EQ(ppsparse_mcpi_history(s, count, at.data(), res.data(), &count), PPSPARSE_SUCCESS);
  EXPECT_EQ(at.back(), st.sweeps - 1);  // the last check, formed in the last sweep, measured the iterate before it
  ppsparse_fgmres_control fc;
  ppsparse_fgmres_control_default(&fc);
  fc.rtol = 1e-9;
  ASSERT_EQ(ppsparse_mcpi_fgmres(s, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &fc, &st), PPSPARSE_SUCCESS) << last();
  EXPECT_EQ(st.reason, PPSPARSE_CONVERGED);
  EXPECT_GT(st.iterations, 0);
  std::vector<double> y(dq.size());
  ASSERT_EQ(ppsparse_mcpi_multiply(s, dq.data(), y.data(), PPSPARSE_MEMORY_HOST), PPSPARSE_SUCCESS);
  double err = 0, norm = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    err += (y[i] - a.R[i]) * (y[i] - a.R[i]);
    norm += a.R[i] * a.R[i];
  }
  EXPECT_LT(std::sqrt(err / norm), 1e-8);
  EXPECT_EQ(ppsparse_mcpi_destroy(s), PPSPARSE_SUCCESS);
  EXPECT_EQ(ppsparse_mcpi_destroy(nullptr), PPSPARSE_SUCCESS);
}

// The caller's operator for ppsparse_mcpi_fgmres_operator: y = A x + shift x through the
// handle's own multiply, or the code `fail` (nonzero).
struct ShiftedOperator {
  ppsparse_mcpi_solver* s;
  size_t len;
  double shift;
  int fail = 0;
  int calls = 0;
};

int shifted_operator(const double* x, double* y, void* context) {
  auto* op = static_cast<ShiftedOperator*>(context);
  ++op->calls;
  if (op->fail) return op->fail;
  if (ppsparse_mcpi_multiply(op->s, x, y, PPSPARSE_MEMORY_HOST) != PPSPARSE_SUCCESS) return -1;
  for (size_t i = 0; i < op->len; ++i) y[i] += op->shift * x[i];
  return 0;
}

TEST(McpiC, FgmresSolvesTheCallersOperator) {
  const Arrays a = arrays(3);
  ppsparse_mcpi_solver* s = nullptr;
  ASSERT_EQ(ppsparse_mcpi_create(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr, PPSPARSE_MEMORY_HOST),
            PPSPARSE_SUCCESS)
      << last();
  ASSERT_EQ(ppsparse_mcpi_update(s, a.O.data(), a.D.data(), PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST),
            PPSPARSE_SUCCESS);
  ShiftedOperator op{s, a.R.size(), 0.4};
  ppsparse_fgmres_control fc;
  ppsparse_fgmres_control_default(&fc);
  fc.rtol = 1e-8;
  std::vector<double> dq(a.R.size(), std::nan(""));
  ppsparse_mcpi_status st;
  ASSERT_EQ(
      ppsparse_mcpi_fgmres_operator(s, shifted_operator, &op, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &fc, &st),
      PPSPARSE_SUCCESS)
      << last();
  EXPECT_EQ(st.reason, PPSPARSE_CONVERGED);
  EXPECT_GE(op.calls, st.iterations);
  // R - (A + 0.4 I) dq, A as the handle applies it.
  auto relative_residual = [&](double shift) {
    std::vector<double> y(dq.size());
    EXPECT_EQ(ppsparse_mcpi_multiply(s, dq.data(), y.data(), PPSPARSE_MEMORY_HOST), PPSPARSE_SUCCESS);
    double err = 0, norm = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      const double r = a.R[i] - y[i] - shift * dq[i];
      err += r * r;
      norm += a.R[i] * a.R[i];
    }
    return std::sqrt(err / norm);
  };
  EXPECT_LT(relative_residual(0.4), 1e-7);
  EXPECT_GT(relative_residual(0.0), 1e-3) << "the solution of A + 0.4 I, not of A";
  // op's own code ends the call, in one line.
  op.fail = 7;
  op.calls = 0;
  EXPECT_EQ(
      ppsparse_mcpi_fgmres_operator(s, shifted_operator, &op, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &fc, &st),
      PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(last(), "ppsparse_mcpi_fgmres_operator: op returned 7 at its product 1 (1-based)");
  EXPECT_EQ(st.reason, PPSPARSE_FAILED);
  EXPECT_EQ(op.calls, 1);
  EXPECT_EQ(ppsparse_mcpi_fgmres_operator(s, nullptr, &op, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &fc, &st),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("op"), std::string::npos) << last();
  // ppsparse_mcpi_fgmres solves A again.
  ASSERT_EQ(ppsparse_mcpi_fgmres(s, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &fc, &st), PPSPARSE_SUCCESS) << last();
  EXPECT_EQ(st.reason, PPSPARSE_CONVERGED);
  EXPECT_LT(relative_residual(0.0), 1e-7);
  EXPECT_EQ(ppsparse_mcpi_destroy(s), PPSPARSE_SUCCESS);
}

TEST(McpiC, ReducedOFormatsAsTheCppSolver) {
  const Arrays a = arrays(5);
  ppsparse_mcpi_options o;
  ppsparse_mcpi_options_default(&o);
  EXPECT_EQ(o.o_format, PPSPARSE_O_FP32);
  EXPECT_EQ(o.o_keep_fp32, 0);
  EXPECT_EQ(o.o_keep_fp64, 0);
  EXPECT_EQ(o.lu_fp32, 0);
  const std::pair<int, mcpi::OFormat> formats[] = {{PPSPARSE_O_BF16, mcpi::OFormat::bf16},
                                                   {PPSPARSE_O_FP16, mcpi::OFormat::fp16},
                                                   {PPSPARSE_O_INT8, mcpi::OFormat::int8}};
  for (const auto& [code, format] : formats) {
    SCOPED_TRACE(mcpi::name(format));
    o.o_format = code;
    o.o_keep_fp32 = 1;
    o.lu_fp32 = format == mcpi::OFormat::int8;  // and D's factors in FP32 with int8
    ppsparse_mcpi_solver* s = nullptr;
    ASSERT_EQ(ppsparse_mcpi_create_with(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr,
                                        PPSPARSE_MEMORY_HOST, &o),
              PPSPARSE_SUCCESS)
        << last();
    ASSERT_EQ(ppsparse_mcpi_update(s, a.O.data(), a.D.data(), PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST),
              PPSPARSE_SUCCESS)
        << last();
    ppsparse_mcpi_control c;
    ppsparse_mcpi_control_default(&c);
    c.max_sweeps = 6;
    std::vector<double> dq(a.R.size(), std::nan(""));
    ppsparse_mcpi_status st;
    ASSERT_EQ(ppsparse_mcpi_apply(s, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &c, &st), PPSPARSE_SUCCESS);
    mcpi::SetupOptions so;
    so.o_storage = {format, true};
    so.o_storage.lu_fp32 = format == mcpi::OFormat::int8;
    mcpi::Solver<> cpp(mcpi::BlockPattern<HostSpace>{a.nb, a.n, a.system.O.ia,
                                                     Kokkos::View<const ordinal_t*, HostSpace>(a.system.O.ja), 0},
                       so);
    cpp.update(DefaultExecSpace(), a.system.O.values, a.system.D);
    Kokkos::View<double*, HostSpace> want("want", a.R.size());
    mcpi::Control cc;
    cc.max_sweeps = 6;
    const mcpi::Status cs = cpp.apply(DefaultExecSpace(), a.system.R, want, cc);
    for (size_t i = 0; i < dq.size(); ++i) ASSERT_EQ(dq[i], want(i)) << i;
    EXPECT_EQ(st.final_residual, cs.final_residual);
    EXPECT_EQ(ppsparse_mcpi_destroy(s), PPSPARSE_SUCCESS);
  }
  ppsparse_mcpi_solver* s = nullptr;
  o.o_format = 7;
  EXPECT_EQ(ppsparse_mcpi_create_with(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr,
                                      PPSPARSE_MEMORY_HOST, &o),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("options.o_format = 7 is not PPSPARSE_O_FP32"), std::string::npos) << last();
  EXPECT_EQ(s, nullptr);
  o.o_format = PPSPARSE_O_INT8;
  o.o_keep_fp32 = 2;
  EXPECT_EQ(ppsparse_mcpi_create_with(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr,
                                      PPSPARSE_MEMORY_HOST, &o),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("options.o_keep_fp32 must be 0 or 1, got 2"), std::string::npos) << last();
  o.o_keep_fp32 = 0;
  o.o_keep_fp64 = -1;
  EXPECT_EQ(ppsparse_mcpi_create_with(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr,
                                      PPSPARSE_MEMORY_HOST, &o),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("options.o_keep_fp64 must be 0 or 1, got -1"), std::string::npos) << last();
  o.o_keep_fp64 = 0;
  o.lu_fp32 = 3;
  EXPECT_EQ(ppsparse_mcpi_create_with(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr,
                                      PPSPARSE_MEMORY_HOST, &o),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("options.lu_fp32 must be 0 or 1, got 3"), std::string::npos) << last();
  // NULL options: the defaults.
  ASSERT_EQ(ppsparse_mcpi_create_with(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr,
                                      PPSPARSE_MEMORY_HOST, nullptr),
            PPSPARSE_SUCCESS);
  EXPECT_EQ(ppsparse_mcpi_destroy(s), PPSPARSE_SUCCESS);
}

TEST(McpiC, OneBasedRowMajorAndGivenColoursAgree) {
  const Arrays a = arrays(2);
  std::vector<int32_t> rp1 = a.row_ptr, ci1 = a.col_idx;
  for (auto& v : rp1) ++v;
  for (auto& v : ci1) ++v;
  std::vector<double> O_rm(a.O.size()), D_rm(a.D.size());
  const int nb = a.nb, nb2 = nb * nb;
  for (size_t b = 0; b < a.O.size() / nb2; ++b)
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j) O_rm[b * nb2 + i * nb + j] = a.O[b * nb2 + j * nb + i];
  for (size_t b = 0; b < a.D.size() / nb2; ++b)
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j) D_rm[b * nb2 + i * nb + j] = a.D[b * nb2 + j * nb + i];
  const Coloring col = color_distance1(graph_of(a.system.O));
  std::vector<int32_t> colors(col.color.begin(), col.color.end());
  ppsparse_mcpi_solver *s0 = nullptr, *s1 = nullptr;
  ASSERT_EQ(ppsparse_mcpi_create(&s0, nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, colors.data(), 0), 0) << last();
  ASSERT_EQ(ppsparse_mcpi_create(&s1, nb, a.n, rp1.data(), ci1.data(), 1, colors.data(), 0), 0) << last();
  ASSERT_EQ(ppsparse_mcpi_update(s0, a.O.data(), a.D.data(), PPSPARSE_COLUMN_MAJOR, 0), 0) << last();
  ASSERT_EQ(ppsparse_mcpi_update(s1, O_rm.data(), D_rm.data(), PPSPARSE_ROW_MAJOR, 0), 0) << last();
  std::vector<double> x0(a.R.size()), x1(a.R.size());
  ASSERT_EQ(ppsparse_mcpi_apply(s0, a.R.data(), x0.data(), 0, nullptr, nullptr), 0) << last();
  ASSERT_EQ(ppsparse_mcpi_apply(s1, a.R.data(), x1.data(), 0, nullptr, nullptr), 0) << last();
  EXPECT_EQ(x0, x1);
  ppsparse_mcpi_destroy(s0);
  ppsparse_mcpi_destroy(s1);
}

TEST(McpiC, ErrorsAreCodesAndMessages) {
  const Arrays a = arrays(2);
  ppsparse_mcpi_solver* s = reinterpret_cast<ppsparse_mcpi_solver*>(0x1);
  // Bad structure: the handle comes back NULL.
  auto ci = a.col_idx;
  ci[0] = 0;  // row 0's own diagonal
  EXPECT_EQ(ppsparse_mcpi_create(&s, 2, a.n, a.row_ptr.data(), ci.data(), 0, nullptr, 0),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(last().find("ppsparse_mcpi_create: mcpi setup: col_idx[0]: block row 0 lists its diagonal block"),
            std::string::npos)
      << last();
  EXPECT_EQ(ppsparse_mcpi_create(&s, 0, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr, 0),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("block size nb = 0"), std::string::npos) << last();
  EXPECT_EQ(ppsparse_mcpi_create(&s, 2, a.n, nullptr, a.col_idx.data(), 0, nullptr, 0),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("row_ptr is NULL"), std::string::npos) << last();
  EXPECT_EQ(ppsparse_mcpi_create(&s, 2, a.n, a.row_ptr.data(), a.col_idx.data(), 2, nullptr, 0),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  std::vector<int32_t> one_colour(a.n, 0);
  EXPECT_EQ(ppsparse_mcpi_create(&s, 2, a.n, a.row_ptr.data(), a.col_idx.data(), 0, one_colour.data(), 0),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("invalid colouring"), std::string::npos) << last();
  EXPECT_EQ(ppsparse_mcpi_create(&s, 2, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr, 5),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("memory must be"), std::string::npos) << last();

  ASSERT_EQ(ppsparse_mcpi_create(&s, 2, a.n, a.row_ptr.data(), a.col_idx.data(), 0, nullptr, 0), PPSPARSE_SUCCESS);
  std::vector<double> dq(a.R.size());
  EXPECT_EQ(ppsparse_mcpi_apply(s, a.R.data(), dq.data(), 0, nullptr, nullptr), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("holds no factored values"), std::string::npos) << last();
  // A failed call writes a status that says so (not a stale or unwritten one).
  ppsparse_mcpi_status failed;
  failed.reason = PPSPARSE_CONVERGED;
  failed.final_residual = 1.0;
  EXPECT_EQ(ppsparse_mcpi_apply(s, a.R.data(), dq.data(), 0, nullptr, &failed), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(failed.reason, PPSPARSE_FAILED);
  EXPECT_TRUE(std::isnan(failed.final_residual));
  failed.reason = PPSPARSE_CONVERGED;
  EXPECT_EQ(ppsparse_mcpi_fgmres(s, a.R.data(), dq.data(), 0, nullptr, &failed), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(failed.reason, PPSPARSE_FAILED);
  auto D = a.D;
  for (int e = 0; e < 4; ++e) D[3 * 4 + e] = 0;
  EXPECT_EQ(ppsparse_mcpi_update(s, a.O.data(), D.data(), 0, 0), PPSPARSE_ERROR_NUMERICAL);
  EXPECT_NE(last().find("diagonal block 3: zero or tiny pivot"), std::string::npos) << last();
  D = a.D;
  D[5 * 4 + 1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ppsparse_mcpi_update(s, a.O.data(), D.data(), 0, 0), PPSPARSE_ERROR_NUMERICAL);
  EXPECT_NE(last().find("diagonal block 5: NaN or Inf"), std::string::npos) << last();
  EXPECT_EQ(ppsparse_mcpi_update(s, a.O.data(), a.D.data(), 3, 0), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ppsparse_mcpi_update(s, nullptr, a.D.data(), 0, 0), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("O is NULL"), std::string::npos) << last();
  ASSERT_EQ(ppsparse_mcpi_update(s, a.O.data(), a.D.data(), 0, 0), PPSPARSE_SUCCESS) << last();
  auto R = a.R;
  R[7 * 2] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ppsparse_mcpi_apply(s, R.data(), dq.data(), 0, nullptr, nullptr), PPSPARSE_ERROR_NUMERICAL);
  EXPECT_NE(last().find("R holds a NaN or Inf in block row 7"), std::string::npos) << last();
  ppsparse_mcpi_control c;
  ppsparse_mcpi_control_default(&c);
  c.check_interval = -1;
  EXPECT_EQ(ppsparse_mcpi_apply(s, a.R.data(), dq.data(), 0, &c, nullptr), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("check_interval must be >= 0"), std::string::npos) << last();
  ppsparse_mcpi_control_default(&c);
  c.sweep_graphs = 2;
  EXPECT_EQ(ppsparse_mcpi_apply(s, a.R.data(), dq.data(), 0, &c, nullptr), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("control.sweep_graphs must be 0 or 1"), std::string::npos) << last();
  ppsparse_fgmres_control fc;
  ppsparse_fgmres_control_default(&fc);
  fc.restart = 0;
  EXPECT_EQ(ppsparse_mcpi_fgmres(s, a.R.data(), dq.data(), 0, &fc, nullptr), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ppsparse_mcpi_apply(nullptr, a.R.data(), dq.data(), 0, nullptr, nullptr), PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last().find("the solver handle is NULL"), std::string::npos) << last();
  EXPECT_EQ(ppsparse_mcpi_apply(s, a.R.data(), nullptr, 0, nullptr, nullptr), PPSPARSE_ERROR_INVALID_ARGUMENT);
  // A good call clears the message.
  EXPECT_EQ(ppsparse_mcpi_apply(s, a.R.data(), dq.data(), 0, nullptr, nullptr), PPSPARSE_SUCCESS);
  EXPECT_EQ(last(), "");
  ppsparse_mcpi_destroy(s);
}

TEST(McpiC, MultigridPreconditionsFgmresAsTheCppOne) {
  const Arrays a = arrays(2);
  ppsparse_multigrid_options m;
  ppsparse_multigrid_options_default(&m);
  EXPECT_EQ(m.cycle, PPSPARSE_CYCLE_K);
  EXPECT_EQ(m.scaling, PPSPARSE_SCALING_AUTO);
  m.coarse_rows = 8;
  ppsparse_mcpi_solver* s = nullptr;
  ASSERT_EQ(ppsparse_mcpi_create_multigrid(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, PPSPARSE_MEMORY_HOST,
                                           nullptr, &m),
            PPSPARSE_SUCCESS)
      << last();
  int count = 0;
  ASSERT_EQ(ppsparse_mcpi_levels(s, 0, nullptr, &count), PPSPARSE_SUCCESS) << last();
  EXPECT_EQ(count, 1);  // the hierarchy comes with the values
  ASSERT_EQ(ppsparse_mcpi_update(s, a.O.data(), a.D.data(), PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST),
            PPSPARSE_SUCCESS)
      << last();
  std::vector<int32_t> rows(8);
  ASSERT_EQ(ppsparse_mcpi_levels(s, 8, rows.data(), &count), PPSPARSE_SUCCESS) << last();
  ASSERT_GE(count, 2);
  EXPECT_EQ(rows[0], a.n);
  EXPECT_LT(rows[1], rows[0]);
  ppsparse_fgmres_control fc;
  ppsparse_fgmres_control_default(&fc);
  fc.rtol = 1e-10;
  std::vector<double> dq(a.R.size(), 0.0), y(a.R.size());
  ppsparse_mcpi_status st;
  ASSERT_EQ(ppsparse_mcpi_fgmres(s, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &fc, &st), PPSPARSE_SUCCESS) << last();
  EXPECT_EQ(st.reason, PPSPARSE_CONVERGED);
  EXPECT_EQ(st.sweeps, 0);  // the cycles, not the control's sweeps, precondition
  ASSERT_EQ(ppsparse_mcpi_multiply(s, dq.data(), y.data(), PPSPARSE_MEMORY_HOST), PPSPARSE_SUCCESS);
  double r = 0, b = 0;
  for (size_t q = 0; q < y.size(); ++q) {
    r += (a.R[q] - y[q]) * (a.R[q] - y[q]);
    b += a.R[q] * a.R[q];
  }
  EXPECT_LE(std::sqrt(r), 1e-9 * std::sqrt(b));
  EXPECT_EQ(ppsparse_mcpi_destroy(s), PPSPARSE_SUCCESS);

  // Bad options name the C field.
  m.cycle = 7;
  EXPECT_EQ(ppsparse_mcpi_create_multigrid(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, PPSPARSE_MEMORY_HOST,
                                           nullptr, &m),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(last(),
            "ppsparse_mcpi_create_multigrid: multigrid.cycle = 7 is not PPSPARSE_CYCLE_V (0), "
            "PPSPARSE_CYCLE_W (1) or PPSPARSE_CYCLE_K (2)");
  ppsparse_multigrid_options_default(&m);
  m.pre_sweeps = -1;
  EXPECT_EQ(ppsparse_mcpi_create_multigrid(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, PPSPARSE_MEMORY_HOST,
                                           nullptr, &m),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(last(), "ppsparse_mcpi_create_multigrid: multigrid.pre_sweeps and post_sweeps must be >= 0, got -1 and 2");
  ppsparse_multigrid_options_default(&m);
  EXPECT_EQ(m.coarse_o_format, -1);
  EXPECT_EQ(m.cycle_every, 1);
  EXPECT_EQ(m.cycle_min_rows, 0);
  m.coarse_o_format = 7;
  EXPECT_EQ(ppsparse_mcpi_create_multigrid(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, PPSPARSE_MEMORY_HOST,
                                           nullptr, &m),
            PPSPARSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(last(),
            "ppsparse_mcpi_create_multigrid: multigrid.coarse_o_format = 7 is not PPSPARSE_O_FP32 (0), "
            "PPSPARSE_O_BF16 (1), PPSPARSE_O_FP16 (2), PPSPARSE_O_INT8 (3) or -1 (the default)");
}

TEST(McpiC, FlowJacobianPresetIsTheCppOneAndPreconditions) {
  ppsparse_multigrid_options m;
  ppsparse_multigrid_options_flow_jacobian(&m);
  const auto o = ppsparse::mcpi::MultigridOptions::flow_jacobian();
  EXPECT_EQ(m.max_levels, o.max_levels);
  EXPECT_EQ(m.coarse_rows, o.coarse_rows);
  EXPECT_EQ(m.matching_passes, o.matching_passes);
  EXPECT_EQ(m.pre_sweeps, o.pre_sweeps);
  EXPECT_EQ(m.post_sweeps, o.post_sweeps);
  EXPECT_EQ(m.coarse_sweeps, o.coarse_sweeps);
  EXPECT_EQ(m.cycle, PPSPARSE_CYCLE_V);
  EXPECT_EQ(m.scaling, PPSPARSE_SCALING_NONE);
  const Arrays a = arrays(2);
  ppsparse_mcpi_solver* s = nullptr;
  ASSERT_EQ(ppsparse_mcpi_create_multigrid(&s, a.nb, a.n, a.row_ptr.data(), a.col_idx.data(), 0, PPSPARSE_MEMORY_HOST,
                                           nullptr, &m),
            PPSPARSE_SUCCESS)
      << last();
  ASSERT_EQ(ppsparse_mcpi_update(s, a.O.data(), a.D.data(), PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST),
            PPSPARSE_SUCCESS)
      << last();
  int count = 0;
  ASSERT_EQ(ppsparse_mcpi_levels(s, 0, nullptr, &count), PPSPARSE_SUCCESS) << last();
  EXPECT_GE(count, 2);
  ppsparse_fgmres_control fc;
  ppsparse_fgmres_control_default(&fc);
  fc.rtol = 1e-10;
  std::vector<double> dq(a.R.size(), 0.0);
  ppsparse_mcpi_status st;
  ASSERT_EQ(ppsparse_mcpi_fgmres(s, a.R.data(), dq.data(), PPSPARSE_MEMORY_HOST, &fc, &st), PPSPARSE_SUCCESS) << last();
  EXPECT_EQ(st.reason, PPSPARSE_CONVERGED);
  EXPECT_EQ(ppsparse_mcpi_destroy(s), PPSPARSE_SUCCESS);
  ppsparse_multigrid_options_flow_jacobian(nullptr);  // as the other setters: a null pointer is ignored
}

}  // namespace
