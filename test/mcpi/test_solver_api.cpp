// The solver as a library: setup from the structure, repeated numeric phases, apply on
// vectors in the user's numbering with stopping criteria, the block operator, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <ppsparse/backend/device_graph.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/reference.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include <ppsparse/reorder/coloring.hpp>
#include "../../core/src/mcpi/block_lu.hpp"  // factors D as the solver does
#include "common/mcpi_timed_sweeps.hpp"

#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

using Exec = DefaultExecSpace;
using Mem = Exec::memory_space;

template <class T>
Kokkos::View<T*, HostSpace> host_view(const std::vector<T>& v, const std::string& label = "v") {
  Kokkos::View<T*, HostSpace> h(label, v.size());
  for (size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  return h;
}
template <class T>
Kokkos::View<T*, Mem> device_view(const std::vector<T>& v, const std::string& label = "v") {
  Kokkos::View<T*, Mem> d(label, v.size());
  Kokkos::deep_copy(d, host_view(v, label));
  return d;
}
template <class V>
std::vector<double> to_vector(const V& v) {
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

/// A block system as a user hands it over: arrays in its numbering, `base`-based indices,
/// blocks in `order`, values in double.
struct UserArrays {
  int nb = 1;
  ordinal_t n = 0;
  std::vector<offset_t> row_ptr;
  std::vector<ordinal_t> col_idx;
  std::vector<double> O, D, R;
  int base = 0;
};

UserArrays user_arrays(const BlockSystem<HostSpace>& s, int base = 0, BlockOrder order = BlockOrder::column_major) {
  UserArrays u;
  u.nb = s.nb;
  u.n = s.n;
  u.base = base;
  const size_t nb = s.nb, nb2 = nb * nb;
  for (size_t i = 0; i <= static_cast<size_t>(s.n); ++i) u.row_ptr.push_back(s.O.ia(i) + base);
  for (size_t k = 0; k < s.O.ja.extent(0); ++k) u.col_idx.push_back(s.O.ja(k) + base);
  auto put = [&](std::vector<double>& dst, size_t blocks, auto&& src) {
    dst.resize(blocks * nb2);
    for (size_t b = 0; b < blocks; ++b)
      for (size_t i = 0; i < nb; ++i)
        for (size_t j = 0; j < nb; ++j)
          dst[b * nb2 + (order == BlockOrder::column_major ? j * nb + i : i * nb + j)] = src(b * nb2 + j * nb + i);
  };
  put(u.O, s.O.ja.extent(0), [&](size_t q) { return static_cast<double>(s.O.values(q)); });
  put(u.D, static_cast<size_t>(s.n), [&](size_t q) { return s.D(q); });
  u.R.assign(s.R.data(), s.R.data() + s.R.extent(0));
  return u;
}

BlockPattern<HostSpace> host_pattern(const UserArrays& u) {
  return {u.nb, u.n, host_view(u.row_ptr, "row_ptr"), host_view(u.col_idx, "col_idx"), u.base};
}

/// A solver set up from u's structure, holding u's values.
Solver<> updated_solver(const UserArrays& u) {
  Solver<> s(host_pattern(u));
  s.update(Exec(), host_view(u.O), host_view(u.D));
  return s;
}

Control sweeps_only(int sweeps) {
  Control c;
  c.max_sweeps = sweeps;
  c.check_interval = 0;
  return c;
}

struct Problem {
  Graph graph = gen::tet_mesh_graph(5, 4, 4);
  Coloring coloring = color_distance1(graph);
  BlockSystem<HostSpace> system;
  explicit Problem(int nb, std::uint64_t seed = 3, double dominance = 2.0)
      : system(gen::make_block_system(graph, nb, seed, {dominance})) {}
};

TEST(McpiSolverApi, ApplyEqualsTheBenchmarkPathAndTheReference) {
  for (int nb : {1, 3, 5, 7}) {
    SCOPED_TRACE("nb=" + std::to_string(nb));
    Problem p(nb);
    const UserArrays u = user_arrays(p.system);
    SetupOptions so;
    so.colors = p.coloring.color;
    Solver<> solver(host_pattern(u), so);
    Exec exec;
    solver.update(exec, device_view(u.O), device_view(u.D));
    Kokkos::View<double*, Mem> dq("dq", u.R.size());
    Kokkos::deep_copy(dq, std::numeric_limits<double>::quiet_NaN());  // poisoned: zero guess ignores it
    const Status st = solver.apply(exec, device_view(u.R), dq, sweeps_only(6));
    EXPECT_EQ(st.sweeps, 6);
    EXPECT_EQ(st.reason, StopReason::max_sweeps);
    const auto got = to_vector(dq);
    const auto bench = time_sweeps(Solver<>(p.system, p.coloring), {6, Kernel::rows_per_warp}).dq;
    EXPECT_EQ(got, bench);  // same kernels on the same colour-ordered data
    EXPECT_LT(max_block_row_error(got, reference_sweeps(p.system, p.coloring, 6), nb), kBlockRowTolerance);
    EXPECT_NEAR(st.final_residual, reference_residual_norm(p.system, got), 1e-9 * st.initial_residual);
    double r2 = 0;
    for (double r : u.R) r2 += r * r;
    EXPECT_NEAR(st.initial_residual, std::sqrt(r2), 1e-12 * std::sqrt(r2));
  }
}

TEST(McpiSolverApi, ASystemWithFactoredDiagonalBlocksIsTakenAsGiven) {
  Problem p(3);
  auto factored = gen::make_block_system(p.graph, 3, 3, {2.0});  // the same values, own arrays
  ASSERT_EQ(factor_diagonal_blocks<Kokkos::DefaultHostExecutionSpace>(factored.D, 3, factored.n), -1);
  factored.d_factored = true;
  const auto want = time_sweeps(Solver<>(p.system, p.coloring), {4, Kernel::rows_per_warp}).dq;
  EXPECT_EQ(time_sweeps(Solver<>(factored, p.coloring), {4, Kernel::rows_per_warp}).dq, want);
}

TEST(McpiSolverApi, UpdatedValuesGiveTheSameAnswerAsAFreshSolver) {
  Problem p(4);
  Exec exec;
  UserArrays last;
  Solver<> reused(host_pattern(user_arrays(p.system)));
  for (std::uint64_t seed : {11, 12, 13}) {
    last = user_arrays(gen::make_block_system(p.graph, 4, seed));
    reused.update(exec, host_view(last.O), host_view(last.D));
  }
  Solver<> fresh(host_pattern(last));
  fresh.update(exec, host_view(last.O), host_view(last.D));
  Kokkos::View<double*, Mem> a("a", last.R.size()), b("b", last.R.size());
  const auto R = device_view(last.R);
  reused.apply(exec, R, a, sweeps_only(5));
  fresh.apply(exec, R, b, sweeps_only(5));
  EXPECT_EQ(to_vector(a), to_vector(b));
}

TEST(McpiSolverApi, IndexBaseBlockOrderAndMemorySpaceAgree) {
  Problem p(3);
  Exec exec;
  std::vector<double> first;
  for (int base : {0, 1}) {
    for (BlockOrder order : {BlockOrder::column_major, BlockOrder::row_major}) {
      for (bool device : {false, true}) {
        SCOPED_TRACE("base " + std::to_string(base) + (order == BlockOrder::row_major ? " row" : " column") +
                     "-major " + (device ? "device" : "host"));
        const UserArrays u = user_arrays(p.system, base, order);
        SetupOptions so;
        so.colors = p.coloring.color;
        std::vector<double> got;
        if (device) {
          BlockPattern<Mem> pat{u.nb, u.n, device_view(u.row_ptr), device_view(u.col_idx), base};
          Solver<> s(pat, so);
          s.update(exec, device_view(u.O), device_view(u.D), order);
          Kokkos::View<double*, Mem> dq("dq", u.R.size());
          s.apply(exec, device_view(u.R), dq, sweeps_only(4));
          got = to_vector(dq);
        } else {
          Solver<> s(host_pattern(u), so);
          s.update(exec, host_view(u.O), host_view(u.D), order);
          Kokkos::View<double*, HostSpace> dq("dq", u.R.size());
          s.apply(exec, host_view(u.R), dq, sweeps_only(4));
          got = to_vector(dq);
        }
        if (first.empty())
          first = got;
        else
          EXPECT_EQ(got, first);
      }
    }
  }
}

/// A user's assembly kernel: writes block k of O and row r's D into their slots.
/// (A free function: a CUDA extended lambda may not sit in a test's private TestBody.)
void assemble_in_place(const Exec& exec, const Solver<>::Storage& st, const Kokkos::View<double*, Mem>& O,
                       const Kokkos::View<double*, Mem>& D, int nb) {
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  Kokkos::parallel_for(
      "assemble_o", Kokkos::RangePolicy<Exec>(exec, 0, O.extent(0)), KOKKOS_LAMBDA(const size_t q) {
        st.O(static_cast<size_t>(st.o_slot(q / nb2)) * nb2 + q % nb2) = static_cast<float>(O(q));
      });
  Kokkos::parallel_for(
      "assemble_d", Kokkos::RangePolicy<Exec>(exec, 0, D.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { st.D(static_cast<size_t>(st.d_slot(q / nb2)) * nb2 + q % nb2) = D(q); });
}

TEST(McpiSolverApi, InPlaceAssemblyEqualsUpdate) {
  Problem p(5);
  const UserArrays u = user_arrays(p.system);
  Exec exec;
  Solver<> by_update(host_pattern(u));
  by_update.update(exec, device_view(u.O), device_view(u.D));
  Solver<> in_place(host_pattern(u));
  // An "assembly kernel": each user block written straight into its slot.
  const auto st = in_place.storage();
  assemble_in_place(exec, st, device_view(u.O), device_view(u.D), u.nb);
  Kokkos::View<double*, Mem> a("a", u.R.size()), b("b", u.R.size());
  PPSPARSE_EXPECT_THROW_MESSAGE(in_place.apply(exec, device_view(u.R), b), InvalidArgument,
                                "call update(), or factor() after writing into storage()");
  in_place.factor(exec);
  by_update.apply(exec, device_view(u.R), a, sweeps_only(3));
  in_place.apply(exec, device_view(u.R), b, sweeps_only(3));
  EXPECT_EQ(to_vector(a), to_vector(b));
  // A NaN assembled into O is not checked by factor(); apply reports it.
  assemble_in_place(exec, in_place.storage(), device_view(u.O), device_view(u.D), u.nb);
  Kokkos::deep_copy(Kokkos::subview(st.O, 7), std::numeric_limits<float>::quiet_NaN());
  in_place.factor(exec);
  EXPECT_EQ(in_place.apply(exec, device_view(u.R), b, sweeps_only(3)).reason, StopReason::not_finite);
}

TEST(McpiSolverApi, GivenInitialGuessContinuesTheIteration) {
  Problem p(2);
  const UserArrays u = user_arrays(p.system);
  Exec exec;
  Solver<> s = updated_solver(u);
  const auto R = device_view(u.R);
  Kokkos::View<double*, Mem> five("five", u.R.size()), split("split", u.R.size());
  s.apply(exec, R, five, sweeps_only(5));
  s.apply(exec, R, split, sweeps_only(3));
  Control more = sweeps_only(2);
  more.initial_guess = InitialGuess::given;
  const Status st = s.apply(exec, R, split, more);
  EXPECT_EQ(to_vector(five), to_vector(split));
  EXPECT_LT(st.final_residual, st.initial_residual);
}

TEST(McpiSolverApi, ChecksDoNotChangeTheIterateAndStopAtTheTolerance) {
  Problem p(5);
  const UserArrays u = user_arrays(p.system);
  Exec exec;
  Solver<> s(host_pattern(u));
  s.update(exec, host_view(u.O), host_view(u.D));
  const auto R = device_view(u.R);
  Kokkos::View<double*, Mem> a("a", u.R.size()), b("b", u.R.size());
  s.apply(exec, R, a, sweeps_only(7));
  Control checked = sweeps_only(7);
  checked.check_interval = 1;
  const Status sc = s.apply(exec, R, b, checked);
  if (s.uses_backend_kernel(Variant::automatic()))  // checks run the portable functor: round-off apart
    EXPECT_LT(max_block_row_error(to_vector(b), to_vector(a), u.nb), 1e-5);
  else
    EXPECT_EQ(to_vector(a), to_vector(b));
  ASSERT_EQ(sc.history.size(), 7u);
  // Check k measured the iterate after k sweeps (the first, formed in sweep 1, the initial one).
  for (size_t i = 0; i < sc.history.size(); ++i) EXPECT_EQ(sc.history[i].sweep, static_cast<int>(i));
  EXPECT_NEAR(sc.history[0].residual, sc.initial_residual, 0.1 * sc.initial_residual);
  for (size_t i = 1; i < sc.history.size(); ++i) EXPECT_LT(sc.history[i].residual, sc.history[i - 1].residual);
  // The in-sweep residual of sweep k lies between the true residuals after sweeps k - 1 and k
  // on this dominant system; at least it is of the same size.
  EXPECT_GT(sc.history.back().residual, 0.1 * sc.final_residual);

  Control tol;
  tol.max_sweeps = 200;
  tol.rtol = 1e-6;
  tol.check_interval = 2;
  const Status st = s.apply(exec, R, b, tol);
  EXPECT_EQ(st.reason, StopReason::converged) << name(st.reason);
  EXPECT_LT(st.sweeps, 200);
  EXPECT_EQ(st.sweeps % 2, 0);
  EXPECT_LE(st.final_residual, 1e-6 * st.initial_residual);
  EXPECT_NEAR(st.final_residual, reference_residual_norm(p.system, to_vector(b)), 1e-9 * st.initial_residual);
  Control atol = tol;
  atol.rtol = 0;
  atol.atol = 1e-3 * st.initial_residual;
  const Status sa = s.apply(exec, R, b, atol);
  EXPECT_EQ(sa.reason, StopReason::converged);
  EXPECT_LT(sa.sweeps, st.sweeps);
  EXPECT_NE(sa.kernel.find("rows_per_warp"), std::string::npos) << sa.kernel;  // auto
}

// The sweeps between checks as one recorded device graph (Control::sweep_graphs): the iterate
// of colour-by-colour launches, bit for bit; a graph per run length, recorded once and replayed
// after. Where none can be recorded (host backends, the portable kernels), the reason is given
// and the colours are launched.
TEST(McpiSolverApi, SweepGraphsGiveTheIterateOfColourLaunches) {
  for (int nb : {1, 5}) {
    SCOPED_TRACE("nb=" + std::to_string(nb));
    Problem p(nb);
    const UserArrays u = user_arrays(p.system);
    Exec exec;
    Solver<> s = updated_solver(u);
    const auto R = device_view(u.R);
    Kokkos::View<double*, Mem> a("a", u.R.size()), b("b", u.R.size());
    Control launched = sweeps_only(9);
    launched.check_interval = 4;  // runs of 3, 3 and 1 sweeps between the checks
    launched.sweep_graphs = false;
    Control graphs = launched;
    graphs.sweep_graphs = true;
    s.apply(exec, R, a, launched);
    EXPECT_EQ(s.graph_stats().recordings, 0);
    for (int k = 0; k < 2; ++k) {
      Kokkos::deep_copy(b, std::numeric_limits<double>::quiet_NaN());
      const Status st = s.apply(exec, R, b, graphs);
      EXPECT_EQ(st.sweeps, 9);
      EXPECT_EQ(to_vector(b), to_vector(a));
    }
    const GraphStats g = s.graph_stats();
    std::string why;
    if (ppsparse::backend::can_record_graph(exec, why) && s.uses_backend_kernel(Variant::automatic())) {
      EXPECT_EQ(g.recordings, 2);  // runs of 3 and of 1 sweep
      EXPECT_EQ(g.replays, 6);
      EXPECT_GT(g.record_seconds, 0.0);
      EXPECT_TRUE(g.why_not.empty()) << g.why_not;
    } else {
      EXPECT_EQ(g.recordings, 0);
      EXPECT_EQ(g.replays, 0);
      EXPECT_FALSE(g.why_not.empty());
    }
    // sweep_graph(k): k sweeps.
    s.reset();
    const bool ran = s.sweep_graph(exec, 4, Variant::automatic());
    EXPECT_EQ(ran, s.graph_stats().why_not.empty());
    const auto as_graph = s.dq_user();
    s.reset();
    for (int k = 0; k < 4; ++k) s.sweep(exec, Variant::automatic());
    EXPECT_EQ(as_graph, s.dq_user());
    EXPECT_FALSE(s.sweep_graph(exec, 0, Variant::automatic()));
    EXPECT_THROW(s.sweep_graph(exec, -1, Variant::automatic()), InvalidArgument);
    Solver<> empty(host_pattern(u));
    EXPECT_THROW(empty.sweep_graph(exec, 1, Variant::automatic()), InvalidArgument);
  }
}

// Systems large enough for the device kernels' every path (colours of thousands of rows, the
// small-colour and wide kernels, update() teams over many blocks): update() from row-major
// blocks gives the benchmark path's iterate, and each check's residual is the in-sweep
// residual of the FP64 reference.
TEST(McpiSolverApi, UpdateAndChecksOnLargerSystems) {
  struct Case {
    int nb, cells;
  };
  for (const Case c : {Case{1, 24}, Case{5, 24}, Case{17, 8}}) {
    SCOPED_TRACE("nb=" + std::to_string(c.nb));
    const Graph graph = gen::tet_mesh_graph(c.cells, c.cells, c.cells);
    const Coloring coloring = color_distance1(graph);
    const auto system = gen::make_block_system(graph, c.nb, 5);
    const UserArrays u = user_arrays(system, 0, BlockOrder::row_major);
    SetupOptions so;
    so.colors = coloring.color;
    Solver<> s(host_pattern(u), so);
    Exec exec;
    s.update(exec, device_view(u.O), device_view(u.D), BlockOrder::row_major);
    constexpr int kSweeps = 6;
    Kokkos::View<double*, Mem> a("a", u.R.size()), b("b", u.R.size());
    s.apply(exec, device_view(u.R), a, sweeps_only(kSweeps));
    EXPECT_EQ(to_vector(a), time_sweeps(Solver<>(system, coloring), {kSweeps, Kernel::rows_per_warp}).dq);

    Control checked = sweeps_only(kSweeps);
    checked.check_interval = 1;
    const Status st = s.apply(exec, device_view(u.R), b, checked);
    EXPECT_LT(max_block_row_error(to_vector(b), to_vector(a), u.nb), 1e-5);
    const auto ref = reference_sweep_residuals(system, coloring, kSweeps);
    ASSERT_EQ(st.history.size(), ref.size());
    for (size_t k = 0; k < ref.size(); ++k)
      EXPECT_NEAR(st.history[k].residual, ref[k], 1e-4 * ref[k] + 1e-6 * st.initial_residual) << "sweep " << k + 1;
  }
}

TEST(McpiSolverApi, DivergenceAndNonFiniteIteratesAreReported) {
  Problem p(3);
  UserArrays u = user_arrays(p.system);
  for (double& d : u.D) d *= 1e-3;  // D no longer dominates: the iteration blows up
  Exec exec;
  Solver<> s(host_pattern(u));
  s.update(exec, host_view(u.O), host_view(u.D));
  Kokkos::View<double*, Mem> dq("dq", u.R.size());
  Control c;
  c.max_sweeps = 100;
  c.check_interval = 1;
  c.divergence_factor = 1e3;
  const Status d = s.apply(exec, device_view(u.R), dq, c);
  EXPECT_EQ(d.reason, StopReason::diverged) << name(d.reason);
  EXPECT_LT(d.sweeps, 100);
  c.divergence_factor = 1e300;
  const Status nf = s.apply(exec, device_view(u.R), dq, c);
  EXPECT_EQ(nf.reason, StopReason::not_finite) << name(nf.reason);
  // Without checks, the final residual still reports it.
  const Status nf2 = s.apply(exec, device_view(u.R), dq, sweeps_only(100));
  EXPECT_EQ(nf2.reason, StopReason::not_finite) << name(nf2.reason);
}

TEST(McpiSolverApi, MultiplyIsTheBlockOperator) {
  Problem p(4);
  const UserArrays u = user_arrays(p.system);
  Exec exec;
  Solver<> s(host_pattern(u));
  s.update(exec, host_view(u.O), host_view(u.D));
  std::vector<double> x(u.R.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * static_cast<double>(i) + 0.1);
  Kokkos::View<double*, Mem> y("y", x.size());
  Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());
  s.multiply(exec, device_view(x), y);
  const auto got = to_vector(y);
  // FP64 reference from the unfactored system: ||R' - A x|| with R' = 0 gives ||A x||; check entries.
  const size_t nb = u.nb, nb2 = nb * nb;
  for (ordinal_t r = 0; r < u.n; ++r) {
    for (size_t i = 0; i < nb; ++i) {
      double want = 0;
      for (size_t j = 0; j < nb; ++j) want += u.D[r * nb2 + j * nb + i] * x[r * nb + j];
      for (offset_t k = u.row_ptr[r]; k < u.row_ptr[r + 1]; ++k)
        for (size_t j = 0; j < nb; ++j) want += u.O[k * nb2 + j * nb + i] * x[u.col_idx[k] * nb + j];
      ASSERT_NEAR(got[r * nb + i], want, 1e-11 * (1 + std::abs(want))) << "row " << r << " entry " << i;
    }
  }
}

TEST(McpiSolverApi, BadStructureGivesClearErrors) {
  Problem p(2);
  const UserArrays good = user_arrays(p.system);
  auto with = [&](auto&& change) {
    UserArrays u = good;
    change(u);
    return u;
  };
  auto setup = [&](const UserArrays& u, SetupOptions so = {}) { Solver<> s(host_pattern(u), so); };
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([](UserArrays& u) { u.nb = 65; })), InvalidArgument,
                                "block size nb = 65 is outside the supported 1..64");
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([](UserArrays& u) { u.base = 2; })), InvalidArgument,
                                "index_base must be 0 or 1");
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([](UserArrays& u) { u.row_ptr.pop_back(); })), InvalidArgument,
                                "row_ptr has");
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([](UserArrays& u) { u.col_idx[7] = u.n; })), InvalidArgument,
                                "col_idx[7] = " + std::to_string(good.n));
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([](UserArrays& u) { u.col_idx[0] = 0; })), InvalidArgument,
                                "block row 0 lists its diagonal block");
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([](UserArrays& u) { u.col_idx[1] = u.col_idx[0]; })), InvalidArgument,
                                "lists block column " + std::to_string(good.col_idx[0]) + " twice");
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([](UserArrays& u) { std::swap(u.row_ptr[2], u.row_ptr[3]); })),
                                InvalidArgument, "row_ptr[3]");
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([](UserArrays& u) { u.row_ptr[0] = 1; })), InvalidArgument,
                                "row_ptr[0] = 1, expected index_base 0");
  SetupOptions one_colour;
  one_colour.colors.assign(good.n, 0);
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(good, one_colour), InvalidArgument, "invalid colouring: coupled block rows");
  SetupOptions short_colouring;
  short_colouring.colors.assign(good.n - 1, 0);
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(good, short_colouring), InvalidArgument, "the colouring has");
  // 1-based input is reported 1-based.
  const UserArrays one = user_arrays(p.system, 1);
  PPSPARSE_EXPECT_THROW_MESSAGE(setup(with([&](UserArrays& u) {
                                  u = one;
                                  u.col_idx[0] = 1;
                                })),
                                InvalidArgument, "block row 1 lists its diagonal block");
}

TEST(McpiSolverApi, BadValuesAndVectorsGiveClearErrors) {
  // Numeric errors name blocks and rows in the user's index base (1: Fortran) and say so.
  for (const int base : {1, 0}) {
    SCOPED_TRACE("index base " + std::to_string(base));
    const auto user = [base](long long zero_based) { return std::to_string(zero_based + base); };
    const std::string from1 = base ? " (numbered from 1)" : "";
    Problem p(3);
    const UserArrays u = user_arrays(p.system, base);
    Exec exec;
    Solver<> s(host_pattern(u));
    Kokkos::View<double*, Mem> dq("dq", u.R.size());
    {  // singular diagonal block of user row 4
      auto D = u.D;
      for (int e = 0; e < 9; ++e) D[4 * 9 + e] = 0;
      PPSPARSE_EXPECT_THROW_MESSAGE(s.update(exec, host_view(u.O), host_view(D)), NumericalError,
                                    "diagonal block " + user(4) + from1 + ": zero or tiny pivot at row " + user(0));
    }
    {
      auto D = u.D;
      D[6 * 9 + 4] = std::numeric_limits<double>::quiet_NaN();  // row 1, column 1 of the block
      PPSPARSE_EXPECT_THROW_MESSAGE(s.update(exec, host_view(u.O), host_view(D)), NumericalError,
                                    "diagonal block " + user(6) + from1 + ": NaN or Inf at row " + user(1));
    }
    {  // the first bad block is named, before a bad D
      auto O = u.O;
      auto D = u.D;
      const offset_t k = u.row_ptr[5] - base + 1;
      O[k * 9 + 2] = std::numeric_limits<double>::infinity();
      O[(u.row_ptr[9] - base + 1) * 9 + 4] = std::numeric_limits<double>::quiet_NaN();
      O[u.O.size() - 1] = std::numeric_limits<double>::quiet_NaN();
      for (int e = 0; e < 9; ++e) D[2 * 9 + e] = 0;
      PPSPARSE_EXPECT_THROW_MESSAGE(s.update(exec, host_view(O), host_view(D)), NumericalError,
                                    "O block " + user(k) + " (" + user(5) + ", " + std::to_string(u.col_idx[k]) + ")" +
                                        (base ? ", numbered from 1," : "") + " holds a NaN or Inf");
    }
    s.update(exec, host_view(u.O), host_view(u.D));
    auto R = u.R;
    R[8 * 3 + 1] = std::numeric_limits<double>::quiet_NaN();
    PPSPARSE_EXPECT_THROW_MESSAGE(s.apply(exec, device_view(R), dq), NumericalError,
                                  "mcpi: R holds a NaN or Inf in block row " + user(8) + from1);
  }
  // Setup errors name positions as the user's language writes them.
  {
    Problem p(2);
    UserArrays one = user_arrays(p.system, 1);
    one.col_idx[5] = one.n + 3;
    PPSPARSE_EXPECT_THROW_MESSAGE(Solver<>(host_pattern(one)), InvalidArgument,
                                  "col_idx(6) = " + std::to_string(one.n + 3) + " (block row ");
  }
  Problem p(3);
  const UserArrays u = user_arrays(p.system);
  Exec exec;
  Solver<> s(host_pattern(u));
  Kokkos::View<double*, Mem> dq("dq", u.R.size());
  PPSPARSE_EXPECT_THROW_MESSAGE(s.apply(exec, device_view(u.R), dq), InvalidArgument, "holds no factored values");
  PPSPARSE_EXPECT_THROW_MESSAGE(s.update(exec, host_view(std::vector<double>(5)), host_view(u.D)), InvalidArgument,
                                "mcpi update: O has 5 values");
  PPSPARSE_EXPECT_THROW_MESSAGE(s.update(exec, host_view(u.O), host_view(std::vector<double>(5))), InvalidArgument,
                                "mcpi update: D has 5 values");
  s.update(exec, host_view(u.O), host_view(u.D));
  PPSPARSE_EXPECT_THROW_MESSAGE(s.apply(exec, device_view(std::vector<double>(4)), dq), InvalidArgument,
                                "apply: R has 4 entries");
  Control bad;
  bad.rtol = -1;
  PPSPARSE_EXPECT_THROW_MESSAGE(s.apply(exec, device_view(u.R), dq, bad), InvalidArgument, "rtol must be finite");
  bad = {};
  bad.max_sweeps = -2;
  PPSPARSE_EXPECT_THROW_MESSAGE(s.apply(exec, device_view(u.R), dq, bad), InvalidArgument, "max_sweeps must be >= 0");
  bad = {};
  bad.divergence_factor = 0.5;
  PPSPARSE_EXPECT_THROW_MESSAGE(s.apply(exec, device_view(u.R), dq, bad), InvalidArgument, "divergence_factor");
  // Still usable after the errors.
  EXPECT_NO_THROW(s.apply(exec, device_view(u.R), dq));
}

TEST(McpiSolverApi, PrecisionsAreTemplateParameters) {
  Problem p(4);
  const UserArrays u = user_arrays(p.system);
  Exec exec;
  const auto R = device_view(u.R);
  Kokkos::View<double*, Mem> dq("dq", u.R.size());
  SetupOptions so;
  so.colors = p.coloring.color;
  const auto ref = reference_sweeps(p.system, p.coloring, 6);
  {  // FP64 throughout: the FP64 reference to round-off, and residuals an FP32 iterate cannot reach.
    Solver<Exec, double, double, double> s(host_pattern(u), so);
    s.update(exec, device_view(u.O), device_view(u.D));
    s.apply(exec, R, dq, sweeps_only(6));
    EXPECT_LT(max_block_row_error(to_vector(dq), ref, u.nb), 1e-12);
    Control tight;
    tight.max_sweeps = 500;
    tight.rtol = 1e-13;
    const Status st = s.apply(exec, R, dq, tight);
    EXPECT_EQ(st.reason, StopReason::converged) << name(st.reason);
    EXPECT_NE(st.kernel.find("portable"), std::string::npos) << st.kernel;
    FgmresControl fc;
    fc.rtol = 1e-13;
    Fgmres<Exec, double, double, double> gmres(s, fc);
    EXPECT_EQ(gmres.solve(exec, R, dq).reason, StopReason::converged);
  }
  {  // FP32 throughout, and FP32 O with an FP64 iterate.
    Solver<Exec, float, float, float> s32(host_pattern(u), so);
    s32.update(exec, device_view(u.O), device_view(u.D));
    s32.apply(exec, R, dq, sweeps_only(6));
    EXPECT_LT(max_block_row_error(to_vector(dq), ref, u.nb), kBlockRowTolerance);
    Solver<Exec, float, double, double> mixed(host_pattern(u), so);
    mixed.update(exec, device_view(u.O), device_view(u.D));
    mixed.apply(exec, R, dq, sweeps_only(6));
    EXPECT_LT(max_block_row_error(to_vector(dq), ref, u.nb), kBlockRowTolerance);
  }
  {  // The default FP32 iterate stops near 1e-7 relative.
    Solver<> s(host_pattern(u), so);
    s.update(exec, device_view(u.O), device_view(u.D));
    Control tight;
    tight.max_sweeps = 300;
    tight.rtol = 1e-13;
    EXPECT_EQ(s.apply(exec, R, dq, tight).reason, StopReason::max_sweeps);
  }
}

TEST(McpiSolverApi, AutoVariant) {
  EXPECT_EQ(name(Variant::automatic()), "auto");
  EXPECT_EQ(parse_variant("auto"), Variant::automatic());
  for (int nb = 1; nb <= 64; ++nb) EXPECT_EQ(resolve_variant(Variant::automatic(), nb), Variant(Kernel::rows_per_warp));
  EXPECT_EQ(resolve_variant(Variant(Kernel::split), 3), Variant(Kernel::split));
  PPSPARSE_EXPECT_THROW_MESSAGE(resolve_variant(Variant::automatic(), 0), InvalidArgument, "outside 1..64");
}

}  // namespace
}  // namespace ppsparse::mcpi
