// The aggregation multigrid preconditioner (mcpi/multigrid.hpp): FGMRES's iterations on a 3-D
// block Laplacian barely grow with the mesh (three sizes, each 8x the last), where MCPI sweeps'
// grow; a refresh equals a fresh hierarchy; bad options and singular coarse blocks are named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <ppsparse/backend/device_graph.hpp>
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

/// a's block pattern on the device.
BlockPattern<Mem> device_pattern(const Laplacian& a) {
  return {a.nb, a.n, test::device_view(a.row_ptr), test::device_view(a.col_idx)};
}

struct Solve {
  int iterations = 0;
  bool converged = false;
  size_t levels = 0;
};

Solve fgmres(const Laplacian& a, bool multigrid, const MultigridOptions& mo = {}) {
  const BlockPattern<Mem> pattern = device_pattern(a);
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

/// Two block systems on one tetrahedral mesh graph's pattern (nb = 3): a hierarchy formed from
/// a's couplings, refreshed with b's values.
struct TwoSystems {
  Laplacian a = laplacian(gen::tet_mesh_graph(9, 8, 7), 3, 0.02, 3);
  Laplacian b = laplacian(gen::tet_mesh_graph(9, 8, 7), 3, 0.05, 4);
  Kokkos::View<offset_t*, Mem> rp = test::device_view(a.row_ptr);
  Kokkos::View<ordinal_t*, Mem> ci = test::device_view(a.col_idx);
  BlockPattern<Mem> pattern{a.nb, a.n, rp, ci};
};

TEST(McpiMultigrid, ARefreshEqualsAFreshHierarchyBitForBit) {
  const TwoSystems sys;
  const Laplacian &a = sys.a, &b = sys.b;
  const BlockPattern<Mem>& pattern = sys.pattern;
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

/// z = one cycle of mg on v (the finest colour order), on the host.
std::vector<double> cycle_once(Multigrid<>& mg, const Kokkos::View<double*, Mem>& v) {
  Kokkos::View<double*, Mem> z("z", v.extent(0));
  mg.precondition(Exec(), v, z);
  const auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), z);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

TEST(McpiMultigrid, ARecordedCycleGivesTheEagerCyclesResultBitForBit) {
  // On GPUs the first cycle runs eagerly, the second is recorded as one device graph and every
  // later one replays it, across numeric refreshes; on CPUs every cycle is eager. Either way
  // each cycle's result is the eager cycle's of the same values, bit for bit: the K-cycle's
  // step sizes stay on the device, and a recorded cycle's unused second direction gets step 0.
  const TwoSystems sys;
  const Laplacian &a = sys.a, &b = sys.b;
  const BlockPattern<Mem>& pattern = sys.pattern;
  for (const auto cycle : {MultigridOptions::Cycle::k, MultigridOptions::Cycle::v}) {
    MultigridOptions mo;
    mo.coarse_rows = 20;
    mo.cycle = cycle;
    Multigrid<> mg(pattern, mo);
    mg.update(Exec(), test::device_view(a.O), test::device_view(a.D));
    ASSERT_GE(mg.levels().size(), 4u);
    Kokkos::View<double*, Mem> v("v", a.R.size());
    mg.fine().to_internal(Exec(), test::device_view(a.R), v);
    const std::vector<double> eager = cycle_once(mg, v);
    for (int k = 0; k < 2; ++k) {
      const std::vector<double> again = cycle_once(mg, v);
      for (size_t q = 0; q < eager.size(); ++q) ASSERT_EQ(again[q], eager[q]) << "cycle " << k + 1 << ", entry " << q;
    }
    // New values through the same hierarchy: the recorded cycle reads them where they are.
    mg.update(Exec(), test::device_view(b.O), test::device_view(b.D));
    const std::vector<double> refreshed = cycle_once(mg, v);
    Multigrid<> fresh(pattern, mo);
    fresh.update(Exec(), test::device_view(a.O), test::device_view(a.D));  // the same aggregates
    fresh.update(Exec(), test::device_view(b.O), test::device_view(b.D));
    const std::vector<double> expected = cycle_once(fresh, v);
    for (size_t q = 0; q < expected.size(); ++q) ASSERT_EQ(refreshed[q], expected[q]) << q;

    const GraphStats gs = mg.graph_stats();
    std::string why_not;
    if (ppsparse::backend::can_record_graph(Exec(), why_not)) {
      EXPECT_EQ(gs.recordings, 1) << gs.why_not;
      EXPECT_EQ(gs.replays, 3);
      EXPECT_EQ(gs.why_not, "");
    } else {
      EXPECT_EQ(gs.recordings, 0);
      EXPECT_NE(gs.why_not.find("records no device graphs"), std::string::npos) << gs.why_not;
    }
  }
}

// With no sweeps a two-level V-cycle returns z = alpha P x_c, the coarse correction scaled by
// the alpha its option names: residual scaling leaves |v - A z| at its minimum over alpha,
// energy scaling makes v - A z orthogonal to z (the energy norm's best for a symmetric A).
// (A cycle whose residual scaling used the wrong inner product stalled the flows.)
TEST(McpiMultigrid, CorrectionsAreScaledAsTheirOptionSays) {
  const Laplacian a = laplacian(gen::tet_mesh_graph(9, 8, 7), 2, 0.02, 5);
  const BlockPattern<Mem> pattern = device_pattern(a);
  for (const auto scaling : {MultigridOptions::Scaling::residual, MultigridOptions::Scaling::energy}) {
    MultigridOptions mo;
    mo.max_levels = 2;
    mo.cycle = MultigridOptions::Cycle::v;
    mo.pre_sweeps = mo.post_sweeps = 0;
    mo.scaling = scaling;
    Multigrid<> mg(pattern, mo);
    mg.update(Exec(), test::device_view(a.O), test::device_view(a.D));
    ASSERT_EQ(mg.levels().size(), 2u);
    Kokkos::View<double*, Mem> v("v", a.R.size()), z("z", a.R.size()), az("az", a.R.size());
    mg.fine().to_internal(Exec(), test::device_view(a.R), v);
    mg.precondition(Exec(), v, z);
    mg.fine().multiply_internal(Exec(), z, az);
    const auto hv = Kokkos::create_mirror_view_and_copy(HostSpace(), v);
    const auto hz = Kokkos::create_mirror_view_and_copy(HostSpace(), z);
    const auto haz = Kokkos::create_mirror_view_and_copy(HostSpace(), az);
    // |v - beta A z|^2 at beta = 1 (alpha itself) and around it; (z, v - A z) against |z| |v|.
    auto misfit = [&](double beta) {
      double sum = 0;
      for (size_t q = 0; q < hv.extent(0); ++q) sum += (hv(q) - beta * haz(q)) * (hv(q) - beta * haz(q));
      return sum;
    };
    double zr = 0, zz = 0, vv = 0;
    for (size_t q = 0; q < hv.extent(0); ++q) {
      zr += hz(q) * (hv(q) - haz(q));
      zz += hz(q) * hz(q);
      vv += hv(q) * hv(q);
    }
    ASSERT_GT(zz, 0);
    if (scaling == MultigridOptions::Scaling::residual) {
      EXPECT_LT(misfit(1), misfit(0.98));
      EXPECT_LT(misfit(1), misfit(1.02));
      EXPECT_LT(misfit(1), vv);
    } else {
      EXPECT_LT(std::abs(zr), 1e-6 * std::sqrt(zz * vv)) << zr;  // z is rounded to dQ's FP32
    }
  }
}

/// A host view of v (update() stages host arrays).
Kokkos::View<const double*, HostSpace, Kokkos::MemoryUnmanaged> host_view(const std::vector<double>& v) {
  return Kokkos::View<const double*, HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size());
}

/// FGMRES to 1e-8 (at most 200 iterations) on a's system, preconditioned by mg's cycles.
Status preconditioned_solve(Multigrid<>& mg, const Laplacian& a) {
  FgmresControl fc;
  fc.rtol = 1e-8;
  fc.max_iterations = 200;
  Fgmres<> gmres(mg.fine(), fc);
  gmres.set_preconditioner(mg.preconditioner());
  Kokkos::View<double*, Mem> dq("dq", a.R.size());
  return gmres.solve(Exec(), test::device_view(a.R), dq);
}

TEST(McpiMultigrid, AnAssemblyInPlaceEqualsUpdateInEveryOFormat) {
  const Laplacian a = laplacian(gen::tet_mesh_graph(8, 7, 6), 3, 0.02, 11);
  const BlockPattern<Mem> pattern = device_pattern(a);
  const size_t nb2 = static_cast<size_t>(a.nb) * a.nb;
  MultigridOptions mo;
  mo.coarse_rows = 20;
  std::vector<int> iterations;
  for (const OFormat f : {OFormat::fp32, OFormat::bf16, OFormat::int8}) {
    SetupOptions so;
    so.o_storage.format = f;
    Multigrid<> updated(pattern, mo, so), in_place(pattern, mo, so);
    updated.update(Exec(), host_view(a.O), host_view(a.D));  // host arrays: staged
    // The same values written into the finest level's slots, then factor().
    const auto st = in_place.storage();
    auto O = Kokkos::create_mirror(st.O);  // copies, never aliases: factor() overwrites st.D
    auto D = Kokkos::create_mirror(st.D);
    const auto os = Kokkos::create_mirror_view_and_copy(HostSpace(), st.o_slot);
    const auto ds = Kokkos::create_mirror_view_and_copy(HostSpace(), st.d_slot);
    for (size_t k = 0; k < a.col_idx.size(); ++k)
      for (size_t e = 0; e < nb2; ++e) O(static_cast<size_t>(os(k)) * nb2 + e) = static_cast<float>(a.O[k * nb2 + e]);
    for (ordinal_t r = 0; r < a.n; ++r)
      for (size_t e = 0; e < nb2; ++e) D(static_cast<size_t>(ds(r)) * nb2 + e) = a.D[static_cast<size_t>(r) * nb2 + e];
    Kokkos::deep_copy(st.O, O);
    Kokkos::deep_copy(st.D, D);
    in_place.factor(Exec());
    ASSERT_GE(updated.levels().size(), 3u) << name(f);
    ASSERT_EQ(updated.levels().size(), in_place.levels().size()) << name(f);
    Kokkos::View<double*, Mem> v("v", a.R.size());
    updated.fine().to_internal(Exec(), test::device_view(a.R), v);
    const std::vector<double> z1 = cycle_once(updated, v), z2 = cycle_once(in_place, v);
    for (size_t q = 0; q < z1.size(); ++q) ASSERT_EQ(z1[q], z2[q]) << name(f) << " entry " << q;
    // A refresh from the storage repeats the cycle exactly.
    Kokkos::deep_copy(st.D, D);
    in_place.factor(Exec());
    const std::vector<double> z3 = cycle_once(in_place, v);
    for (size_t q = 0; q < z1.size(); ++q) ASSERT_EQ(z1[q], z3[q]) << name(f) << " refreshed, entry " << q;

    const Status s = preconditioned_solve(updated, a);
    ASSERT_TRUE(s.converged()) << name(f);
    iterations.push_back(s.iterations);
  }
  // Reduced O formats on every level cost the cycle little.
  EXPECT_LE(iterations[1], iterations[0] + 3);
  EXPECT_LE(iterations[2], iterations[0] + 3);
}

TEST(McpiMultigrid, CoarseLevelsHoldTheirOInTheirFormatOnly) {
  const Laplacian a = laplacian(gen::tet_mesh_graph(8, 7, 6), 3, 0.02, 11);
  const size_t nb2 = static_cast<size_t>(a.nb) * a.nb;
  MultigridOptions mo;
  mo.coarse_rows = 20;
  struct Run {
    std::vector<MultigridLevel> levels;
    int iterations = 0;
  };
  auto run = [&](std::optional<OFormat> coarse) {
    MultigridOptions o = mo;
    o.coarse_o_format = coarse;
    Multigrid<> mg(device_pattern(a), o);
    mg.update(Exec(), test::device_view(a.O), test::device_view(a.D));
    const Status st = preconditioned_solve(mg, a);
    EXPECT_TRUE(st.converged()) << (coarse ? name(*coarse) : "default");
    return Run{mg.levels(), st.iterations};
  };
  const Run fp32 = run(OFormat::fp32), automatic = run(std::nullopt), int8 = run(OFormat::int8);
  EXPECT_EQ(coarse_o_format(mo, OFormat::fp32), OFormat::bf16);
  EXPECT_EQ(coarse_o_format(mo, OFormat::int8), OFormat::int8);
  ASSERT_GE(fp32.levels.size(), 3u);
  for (const Run* r : {&automatic, &int8}) {
    // The finest level is the same; the first coarse level too, aggregated from the finest
    // values (the deeper ones are aggregated from the coded values above them). A reduced
    // coarse level neither stages its O in FP32 nor keeps a map to a user's blocks.
    ASSERT_GE(r->levels.size(), 3u);
    EXPECT_EQ(r->levels[0].device_bytes, fp32.levels[0].device_bytes);
    const MultigridLevel &w = fp32.levels[1], &c = r->levels[1];
    ASSERT_EQ(c.n, w.n);
    ASSERT_EQ(c.nnzb, w.nnzb);
    const size_t entries = static_cast<size_t>(w.nnzb) * nb2;
    const size_t coded = r == &automatic ? 2 * entries + 16                                         // bf16
                                         : entries + 16 + static_cast<size_t>(w.nnzb) * a.nb + 16;  // int8
    EXPECT_EQ(c.device_bytes, w.device_bytes - 4 * entries + coded);
    // Coded coarse operators cost the cycle little.
    EXPECT_LE(r->iterations, fp32.iterations + 2);
  }
  MultigridOptions bad;
  bad.coarse_o_format = static_cast<OFormat>(9);
  PPSPARSE_EXPECT_THROW_MESSAGE(
      check_multigrid_options(bad), InvalidArgument,
      "mcpi multigrid: coarse_o_format must be one of fp32, bf16, fp16, int8, got the value 9");
}

TEST(McpiMultigrid, EveryLevelReadsTheFinestLevelsPrecisionOfDsFactors) {
  const Laplacian a = laplacian(gen::tet_mesh_graph(8, 7, 6), 3, 0.02, 11);
  MultigridOptions mo;
  mo.coarse_rows = 20;
  auto run = [&](bool lu_fp32) {
    SetupOptions setup;
    setup.o_storage.lu_fp32 = lu_fp32;
    Multigrid<> mg(device_pattern(a), mo, setup);
    mg.update(Exec(), test::device_view(a.O), test::device_view(a.D));
    const Status st = preconditioned_solve(mg, a);
    EXPECT_TRUE(st.converged()) << lu_fp32;
    return std::make_pair(mg.levels(), st.iterations);
  };
  const auto [fp64, it64] = run(false);
  const auto [fp32, it32] = run(true);
  ASSERT_GE(fp64.size(), 3u);
  ASSERT_EQ(fp32.size(), fp64.size());
  for (size_t l = 0; l < fp64.size(); ++l) {
    SCOPED_TRACE("level " + std::to_string(l));
    ASSERT_EQ(fp32[l].n, fp64[l].n);
    // Each level holds D's factors in FP32 too: 4 bytes per entry.
    EXPECT_EQ(fp32[l].device_bytes - fp64[l].device_bytes, 4 * static_cast<size_t>(fp64[l].n) * a.nb * a.nb);
  }
  EXPECT_LE(it32, it64 + 1);
}

TEST(McpiMultigrid, KCycleAtSomeLevelsSitsBetweenTheVAndTheKCycle) {
  const Laplacian a = laplacian(gen::tet_mesh_graph(10, 9, 8), 2, 0.02, 17);
  const BlockPattern<Mem> pattern = device_pattern(a);
  MultigridOptions mo;
  mo.coarse_rows = 20;
  mo.matching_passes = 1;
  mo.scaling = MultigridOptions::Scaling::none;
  auto with = [&](MultigridOptions::Cycle cycle, int every, ordinal_t min_rows = 0) {
    MultigridOptions o = mo;
    o.cycle = cycle;
    o.cycle_every = every;
    o.cycle_min_rows = min_rows;
    return o;
  };
  const auto K = MultigridOptions::Cycle::k;
  Multigrid<> v(pattern, with(MultigridOptions::Cycle::v, 1)), k(pattern, with(K, 1)), k2(pattern, with(K, 2)),
      none(pattern, with(K, 64)), too_small(pattern, with(K, 1, a.n + 1)), top(pattern, with(K, 1, a.n / 4));
  for (Multigrid<>* mg : {&v, &k, &k2, &none, &too_small, &top})
    mg->update(Exec(), test::device_view(a.O), test::device_view(a.D));
  ASSERT_GE(v.levels().size(), 5u);
  Kokkos::View<double*, Mem> r("r", a.R.size());
  v.fine().to_internal(Exec(), test::device_view(a.R), r);
  const std::vector<double> zv = cycle_once(v, r), zk = cycle_once(k, r), zk2 = cycle_once(k2, r);
  // K-cycle corrections at no level (none every 64 levels, none on levels of more rows than the
  // finest's): the V-cycle, bit for bit; at every second level, or on the largest levels only:
  // neither.
  EXPECT_EQ(cycle_once(none, r), zv);
  EXPECT_EQ(cycle_once(too_small, r), zv);
  EXPECT_NE(zk2, zv);
  EXPECT_NE(zk2, zk);
  const std::vector<double> ztop = cycle_once(top, r);
  EXPECT_NE(ztop, zv);
  EXPECT_NE(ztop, zk);
  const Status sv = preconditioned_solve(v, a), sk = preconditioned_solve(k, a), sk2 = preconditioned_solve(k2, a);
  ASSERT_TRUE(sv.converged() && sk.converged() && sk2.converged());
  EXPECT_LE(sk2.iterations, sv.iterations);
  EXPECT_GE(sk2.iterations, sk.iterations);
  PPSPARSE_EXPECT_THROW_MESSAGE(check_multigrid_options(with(K, 0)), InvalidArgument,
                                "mcpi multigrid: cycle_every must be >= 1, got 0");
  PPSPARSE_EXPECT_THROW_MESSAGE(check_multigrid_options(with(K, 1, -1)), InvalidArgument,
                                "mcpi multigrid: cycle_min_rows must be >= 0, got -1");
}

TEST(McpiMultigrid, HoldsNoCopyOfTheFinestValues) {
  const Laplacian a = laplacian(gen::tet_mesh_graph(10, 10, 10), 4, 0.02, 5);
  const BlockPattern<Mem> pattern = device_pattern(a);
  MultigridOptions mo;
  mo.coarse_rows = 40;
  Multigrid<> mg(pattern, mo);
  mg.update(Exec(), test::device_view(a.O), test::device_view(a.D));
  Solver<> one(pattern);
  one.update(Exec(), test::device_view(a.O), test::device_view(a.D));
  const auto levels = mg.levels();
  ASSERT_GE(levels.size(), 3u);
  EXPECT_EQ(levels[0].device_bytes, one.device_bytes());
  size_t coarse_blocks = 0, coarse_bytes = 0;
  for (size_t l = 1; l < levels.size(); ++l) {
    coarse_blocks += static_cast<size_t>(levels[l].nnzb);
    coarse_bytes += levels[l].device_bytes;
  }
  EXPECT_LT(coarse_blocks, static_cast<size_t>(levels[0].nnzb) / 2);
  // Beyond the levels' own arrays, only the maps and vectors between them (about 8 bytes per
  // fine block and 3 FP64 vectors): less than half of what an FP64 copy of the finest O alone
  // would add (8 bytes per entry).
  const size_t maps = mg.device_bytes() - one.device_bytes() - coarse_bytes;
  const size_t fp64_copy = static_cast<size_t>(levels[0].nnzb) * a.nb * a.nb * sizeof(double);
  EXPECT_LT(maps, fp64_copy / 2) << mg.device_bytes() << " bytes in all, the one-level solver's " << one.device_bytes()
                                 << ", the coarse levels' " << coarse_bytes << coarse_bytes;
}

TEST(McpiMultigrid, NotFiniteValuesAreNamedInTheUsersNumbering) {
  const Laplacian a = laplacian(gen::tet_mesh_graph(4, 4, 4), 2, 0.1, 2);
  std::vector<offset_t> row_ptr(a.row_ptr.begin(), a.row_ptr.end());
  std::vector<ordinal_t> col_idx(a.col_idx.begin(), a.col_idx.end());
  for (auto& p : row_ptr) ++p;
  for (auto& c : col_idx) ++c;
  const auto rp = test::device_view(row_ptr);
  const auto ci = test::device_view(col_idx);
  Multigrid<> mg(BlockPattern<Mem>{a.nb, a.n, rp, ci, 1});
  std::vector<double> O = a.O;
  O[4 * 5 + 1] = std::nan("");  // block 6 (numbered from 1)
  try {
    mg.update(Exec(), host_view(O), host_view(a.D));
    FAIL() << "no error for a NaN in O";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("block 6"), std::string::npos) << e.what();
  }
}

TEST(McpiMultigrid, BadOptionsAndSingularCoarseBlocksAreNamed) {
  MultigridOptions mo;
  mo.cycle = static_cast<MultigridOptions::Cycle>(3);
  PPSPARSE_EXPECT_THROW_MESSAGE(check_multigrid_options(mo), InvalidArgument,
                                "mcpi multigrid: cycle must be v, w or k, got the value 3");
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
