#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/mpk/matrix_power.hpp>

#include "mpk_test_util.hpp"

#include "test_util.hpp"

namespace ppsparse {
namespace {

using mpk::MpkVariant;
using MpkD = mpk::MatrixPowerKernel<test::Exec, double, test::Mem>;
using MpkF = mpk::MatrixPowerKernel<test::Exec, float, test::Mem>;

// Components that share nothing, numbered so that they interleave: a stencil, a path, a
// random block and isolated vertices, shuffled by a random permutation.
CsrMatrix<double, HostSpace> disconnected_matrix(std::uint64_t seed) {
  std::vector<CsrMatrix<double, HostSpace>> parts{gen::stencil_7pt(6, 5, 4, seed), gen::band_matrix(90, 1, seed),
                                                  test::random_csr<double>(70, 70, 1, 4, seed),
                                                  gen::band_matrix(25, 0, seed)};
  std::vector<std::pair<ordinal_t, ordinal_t>> entries;
  ordinal_t base = 0;
  for (const auto& p : parts) {
    for (ordinal_t i = 0; i < p.nrows; ++i)
      for (offset_t e = p.row_ptr(i); e < p.row_ptr(i + 1); ++e) entries.emplace_back(base + i, base + p.col_idx(e));
    base += p.nrows;
  }
  std::vector<ordinal_t> shuffle(static_cast<size_t>(base));
  std::iota(shuffle.begin(), shuffle.end(), 0);
  std::shuffle(shuffle.begin(), shuffle.end(), std::mt19937_64(seed));
  for (auto& e : entries) e = {shuffle[e.first], shuffle[e.second]};
  return test::csr_from_entries(base, entries, seed + 1);
}

TEST(MatrixPower, RandomMatricesAllVariantsAllPowers) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto a = test::random_csr<double>(300, 300, 1, 6, seed);
  test::normalise_rows(a);
  test::expect_all_variants_match(a, test::tiny_group_options(1), 8, seed);
  // Wider groups, default alignment, the RACE order.
  mpk::MpkOptions o = test::tiny_group_options(1, 1 << 16);
  o.align_rows = 0;
  o.skew = 1;
  test::expect_all_variants_match(a, o, 8, seed + 100);
}

TEST(MatrixPower, StencilsInDoubleAndFloatWithCsrAndSell) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a7 = gen::stencil_7pt(10, 9, 8, seed);
  const auto a27 = gen::stencil_27pt(7, 6, 6, seed);
  for (mpk::MpkFormat f : {mpk::MpkFormat::csr, mpk::MpkFormat::sell}) {
    SCOPED_TRACE(mpk::to_string(f));
    mpk::MpkOptions o = test::tiny_group_options(1, 24 * 1024);
    o.matrix.format = f;
    o.matrix.sell_chunk = 4;
    o.align_rows = f == mpk::MpkFormat::sell ? 4 : 1;
    test::expect_all_variants_match(a7, o, 8, seed);
    test::expect_all_variants_match(convert_values<float>(a27), o, 8, seed);
  }
}

// Every width of the rows' load batches (detail::row_dot) in every blocked variant: rows of
// 1 to 40 entries, so that a row takes one batch, several, or ends inside one.
TEST(MatrixPower, RowBatchesOfEveryWidth) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto a = test::random_csr<double>(400, 400, 1, 40, seed);
  test::normalise_rows(a);
  for (mpk::MpkFormat f : {mpk::MpkFormat::csr, mpk::MpkFormat::sell}) {
    for (int batch : {1, 8, 16}) {
      SCOPED_TRACE(std::string(mpk::to_string(f)) + " row_batch " + std::to_string(batch));
      mpk::MpkOptions o = test::tiny_group_options(1, 48 * 1024);
      o.matrix.format = f;
      o.row_batch = batch;
      EXPECT_EQ(MpkD(a, o).plan().row_batch, batch);
      test::expect_all_variants_match(a, o, 6, seed + batch);
    }
  }
  // The rule: 1 on CPUs; on GPUs 16 for rows longer than 12 entries per lane, else 8.
  mpk::MpkOptions o = test::tiny_group_options(1, 48 * 1024);
  o.matrix.format = mpk::MpkFormat::sell;
  o.matrix.sell_chunk = compat::is_gpu_space<test::Exec>() ? 32 : 0;
  const int chosen = MpkD(gen::stencil_27pt(7, 6, 6, seed), o).plan().row_batch;
  const int chosen7 = MpkD(gen::stencil_7pt(7, 6, 6, seed), o).plan().row_batch;
  EXPECT_EQ(chosen, compat::is_gpu_space<test::Exec>() ? 16 : 1);
  EXPECT_EQ(chosen7, compat::is_gpu_space<test::Exec>() ? 8 : 1);
}

// A star: vertex 0 joined to `leaves` others. In any level order the centre's row reads
// columns as far apart as the leaves are many.
CsrMatrix<double, HostSpace> star_matrix(ordinal_t leaves, std::uint64_t seed) {
  std::vector<std::pair<ordinal_t, ordinal_t>> entries;
  for (ordinal_t i = 0; i <= leaves; ++i) entries.emplace_back(i, i);
  for (ordinal_t i = 1; i <= leaves; ++i) {
    entries.emplace_back(0, i);
    entries.emplace_back(i, 0);
  }
  auto a = test::csr_from_entries(leaves + 1, entries, seed);
  test::normalise_rows(a);
  return a;
}

TEST(MatrixPower, SellColumnsOf16And32Bits) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  using Level = mpk::LevelOrderedMatrix<test::Exec, double, test::Mem>;
  mpk::LevelMatrixOptions lo;
  lo.format = mpk::MpkFormat::sell;
  lo.sell_chunk = 4;
  lo.baseline = spmv::SpmvAlgorithm::csr_v1;
  // A stencil's columns lie near their rows: 16-bit offsets by default, 32 bits on request,
  // the same results either way.
  const auto a = gen::stencil_27pt(9, 8, 7, seed);
  for (int bits : {0, 16, 32}) {
    SCOPED_TRACE("index_bits " + std::to_string(bits));
    lo.index_bits = bits;
    EXPECT_EQ(Level(a, lo).column_bytes(), bits == 32 ? 4 : 2);
    mpk::MpkOptions o = test::tiny_group_options(1, 24 * 1024);
    o.matrix = lo;
    o.align_rows = 4;
    test::expect_all_variants_match(a, o, 5, seed + bits);
  }
  // The star's centre reads columns 40000 apart: 32 bits by default, and 16 is refused.
  const auto star = star_matrix(40000, seed);
  lo.index_bits = 0;
  EXPECT_EQ(Level(star, lo).column_bytes(), 4);
  mpk::MpkOptions o = test::tiny_group_options(1, 1 << 20);
  o.matrix = lo;
  o.align_rows = 4;
  test::expect_all_variants_match(star, o, 3, seed);
  lo.index_bits = 16;
  try {
    Level m(star, lo);
    ADD_FAILURE() << "index_bits 16 accepted for a star of 40000 leaves";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "mpk (level order): index_bits = 16, but a column lies more than 32767 columns from its row"),
              std::string::npos)
        << e.what();
  }
}

TEST(MatrixPower, ManyTinyLevelsPathAndLongBand) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // A path: 3000 levels of one row; a long band-7: levels of 3 rows.
  for (const auto& a : {gen::band_matrix(3000, 1, seed), gen::band_matrix(2000, 3, seed)}) {
    mpk::MpkOptions o = test::tiny_group_options(1, 2048);
    o.rows_per_block = 5;
    test::expect_all_variants_match(a, o, 8, seed);
  }
}

TEST(MatrixPower, DisconnectedComponents) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto a = disconnected_matrix(seed);
  test::normalise_rows(a);
  test::expect_all_variants_match(a, test::tiny_group_options(1, 3000), 8, seed);
  test::expect_all_variants_match(convert_values<float>(a), test::tiny_group_options(1, 3000), 5, seed);
}

// Both orderings on every kind of matrix: the input numbering's levels (wide where the
// numbering is random, interleaved components) must give the same powers as BFS's.
TEST(MatrixPower, BothOrderingsAllVariantsAllPowers) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto random = test::random_csr<double>(250, 250, 1, 6, seed);
  test::normalise_rows(random);
  auto disconnected = disconnected_matrix(seed);
  test::normalise_rows(disconnected);
  const auto stencil = gen::stencil_27pt(7, 6, 6, seed);
  for (mpk::MpkOrdering ordering : {mpk::MpkOrdering::bfs, mpk::MpkOrdering::input}) {
    SCOPED_TRACE(mpk::to_string(ordering));
    for (mpk::MpkFormat f : {mpk::MpkFormat::csr, mpk::MpkFormat::sell}) {
      SCOPED_TRACE(mpk::to_string(f));
      mpk::MpkOptions o = test::tiny_group_options(1, 8 * 1024);
      o.matrix.ordering = ordering;
      o.matrix.format = f;
      o.matrix.sell_chunk = 4;
      o.align_rows = f == mpk::MpkFormat::sell ? 4 : 1;
      test::expect_all_variants_match(random, o, 8, seed);
      test::expect_all_variants_match(disconnected, o, 8, seed + 1);
      test::expect_all_variants_match(stencil, o, 8, seed + 2);
    }
  }
}

// automatic keeps a lexicographic grid's numbering (narrower levels, so a shorter reach for
// the pipelined kernel) and renumbers the same grid shuffled; bfs and input are obeyed.
TEST(MatrixPower, AutomaticOrderingKeepsANarrowerInputNumbering) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto grid = gen::stencil_27pt(12, 12, 12, seed);
  std::vector<ordinal_t> shuffle(static_cast<size_t>(grid.nrows));
  std::iota(shuffle.begin(), shuffle.end(), 0);
  std::shuffle(shuffle.begin(), shuffle.end(), std::mt19937_64(seed));
  std::vector<std::pair<ordinal_t, ordinal_t>> entries;
  for (ordinal_t i = 0; i < grid.nrows; ++i)
    for (offset_t e = grid.row_ptr(i); e < grid.row_ptr(i + 1); ++e)
      entries.emplace_back(shuffle[i], shuffle[grid.col_idx(e)]);
  const auto shuffled = test::csr_from_entries(grid.nrows, entries, seed + 1);
  using Level = mpk::LevelOrderedMatrix<test::Exec, double, test::Mem>;
  auto ordered = [](const CsrMatrix<double, HostSpace>& a, mpk::MpkOrdering ordering) {
    mpk::LevelMatrixOptions lo;
    lo.ordering = ordering;
    lo.baseline = spmv::SpmvAlgorithm::csr_v1;
    return std::make_shared<Level>(a, lo);
  };
  const auto kept = ordered(grid, mpk::MpkOrdering::automatic);
  EXPECT_EQ(kept->ordering(), mpk::MpkOrdering::input);
  for (ordinal_t i = 0; i < grid.nrows; ++i) ASSERT_EQ(kept->permutation().new_to_old[i], i);
  EXPECT_EQ(ordered(shuffled, mpk::MpkOrdering::automatic)->ordering(), mpk::MpkOrdering::bfs);
  EXPECT_EQ(ordered(grid, mpk::MpkOrdering::bfs)->ordering(), mpk::MpkOrdering::bfs);
  EXPECT_EQ(ordered(shuffled, mpk::MpkOrdering::input)->ordering(), mpk::MpkOrdering::input);
  // The pipelined kernel's reach, in blocks of the same size, is shorter in the kept order.
  mpk::MpkOptions o;
  o.powers = 4;
  o.rows_per_block = 32;
  o.dependency_rows = 32;
  MpkD in_grid_order(kept, o), in_bfs_order(ordered(grid, mpk::MpkOrdering::bfs), o);
  EXPECT_LT(in_grid_order.plan().pipelined_reach, in_bfs_order.plan().pipelined_reach);
  EXPECT_NE(in_grid_order.describe().find("order=input"), std::string::npos) << in_grid_order.describe();
}

TEST(MatrixPower, DefaultOptionsAndRepeatedRuns) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = gen::stencil_7pt(12, 11, 10, seed);
  mpk::MpkOptions o;
  o.powers = 5;
  MpkD mpk(a, o);  // baseline timed, budget from the real cache
  EXPECT_GE(mpk.plan().schedule.ngroups(), 1);
  EXPECT_GT(mpk.plan().cache_budget_bytes, 0u);
  EXPECT_FALSE(mpk.describe().empty());
  for (int run = 0; run < 3; ++run)
    for (MpkVariant v : mpk::concrete_variants()) EXPECT_LE(test::run_against_reference(mpk, a, v, seed + run), 1.0);
  // The counters of the persistent kernel carry over between runs (epochs): still right.
  EXPECT_LE(test::run_against_reference(mpk, a, MpkVariant::persistent, seed + 7), 1.0);
}

TEST(MatrixPower, InternalNumberingMatchesApply) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = gen::band_matrix(500, 4, seed);
  MpkD mpk(a, test::tiny_group_options(4, 8192));
  // x in user numbering -> column 0 of work() in level numbering.
  std::vector<double> x(500);
  std::mt19937_64 rng(seed);
  for (auto& v : x) v = std::uniform_real_distribution<double>(-1, 1)(rng);
  const auto xi = to_new(x, mpk.permutation());
  auto w = Kokkos::create_mirror_view(mpk.work());
  for (ordinal_t i = 0; i < 500; ++i) w(i, 0) = xi[i];
  Kokkos::deep_copy(mpk.work(), w);
  mpk.apply_internal(MpkVariant::persistent);
  Kokkos::deep_copy(w, mpk.work());
  const auto ref = mpk::reference_mpk(a, x, 4);
  std::vector<double> flat(5 * 500);
  for (int k = 0; k <= 4; ++k) {
    std::vector<double> col(500);
    for (ordinal_t i = 0; i < 500; ++i) col[i] = w(i, k);
    const auto user = to_old(col, mpk.permutation());
    std::copy(user.begin(), user.end(), flat.begin() + k * 500);
  }
  EXPECT_LE(mpk::max_error_ratio(flat, ref, mpk::default_tolerance<double>()), 1.0);
}

TEST(MatrixPower, PersistentKernelCompletesUnderWatchdog) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = gen::stencil_27pt(14, 13, 12, seed);
  mpk::MpkOptions o = test::tiny_group_options(8, 64 * 1024);
  o.rows_per_block = 16;
  MpkD mpk(a, o);
  ASSERT_GT(mpk.plan().schedule.ngroups(), 4);
  EXPECT_LE(test::max_error_under_watchdog(mpk, a, {MpkVariant::persistent}, 3, seed), 1.0);
}

// Mutation: every variant run on the stencil with one entry of one row dropped (its value
// set to 0), checked against the reference of the unmutated matrix, must fail the check: a
// kernel that skips one entry is caught at every power.
TEST(MatrixPower, OneDroppedEntryFailsEveryVariant) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = gen::stencil_27pt(10, 9, 8, seed);
  auto dropped = copy_to<HostSpace>(a);
  const ordinal_t row = a.nrows / 2;
  const offset_t k = (a.row_ptr(row) + a.row_ptr(row + 1)) / 2;  // a middle entry of a full row
  ASSERT_NE(a.values(k), 0.0);
  dropped.values(k) = 0.0;
  mpk::MpkOptions o = test::tiny_group_options(4, 64 * 1024);
  MpkD good(a, o), bad(dropped, o);
  for (MpkVariant v : mpk::concrete_variants()) {
    SCOPED_TRACE(mpk::to_string(v));
    EXPECT_LE(test::max_error_under_watchdog(good, a, {v}, 1, seed), 1.0);
    EXPECT_GT(test::max_error_under_watchdog(bad, a, {v}, 1, seed), 1.0) << "a dropped entry went unnoticed";
  }
}

// Dependency segments of every size give the same powers: one block per segment (the
// finest waits), a few blocks, one segment per group (the tile-level waits). On a GPU many
// teams wait on each other here; on one host thread the order alone keeps them legal.
TEST(MatrixPower, PersistentKernelAnyDependencySegmentSize) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& a : {gen::stencil_27pt(14, 13, 12, seed), gen::band_matrix(3000, 1, seed)}) {
    for (ordinal_t dependency_rows : {1, 40, 1 << 30}) {
      SCOPED_TRACE("nrows " + std::to_string(a.nrows) + " dependency_rows " + std::to_string(dependency_rows));
      mpk::MpkOptions o = test::tiny_group_options(6, 64 * 1024);
      o.rows_per_block = 16;
      o.dependency_rows = dependency_rows;
      MpkD mpk(a, o);
      const long long row_blocks = mpk.plan().blocks / mpk.powers();
      if (dependency_rows == 1) EXPECT_EQ(mpk.plan().dependency_segments, row_blocks);
      if (dependency_rows == 40) {  // rounded up to 3 blocks of 16 rows
        EXPECT_GE(mpk.plan().dependency_segments, (row_blocks + 2) / 3);
        EXPECT_LT(mpk.plan().dependency_segments, row_blocks);
      }
      if (dependency_rows == 1 << 30) EXPECT_EQ(mpk.plan().dependency_segments, mpk.plan().schedule.ngroups());
      EXPECT_LE(test::max_error_under_watchdog(mpk, a, {MpkVariant::persistent, MpkVariant::pipelined}, 2, seed), 1.0);
    }
  }
}

// The pipelined kernel keeps a block's entries in team scratch from its first power to its
// last. With one row block (reach 0) its plan holds on every backend, one host thread
// included, so every power after the first reads the kept entries; with no scratch every
// power reads memory. Both must give the powers, run after run (the counters carry over).
// Both ways of computing a block's rows (one per team thread at a time, or two at once) are
// checked, on an even and an odd number of rows (the last thread of a pair then has one).
TEST(MatrixPower, PipelinedKernelOneBlockWithAndWithoutScratch) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto random = test::random_csr<double>(91, 91, 1, 9, seed);
  test::normalise_rows(random);
  for (const auto& a : {gen::stencil_7pt(6, 5, 4, seed), random}) {
    for (mpk::MpkFormat f : {mpk::MpkFormat::csr, mpk::MpkFormat::sell}) {
      for (int rows_in_flight : {1, 2})
        for (std::size_t scratch : {std::size_t{0}, std::size_t{1}})
          for (int per_pass : {0, 3}) {
            SCOPED_TRACE(std::string(mpk::to_string(f)) + " nrows " + std::to_string(a.nrows) + " scratch " +
                         std::to_string(scratch) + " rows_in_flight " + std::to_string(rows_in_flight) +
                         " powers_per_pass " + std::to_string(per_pass));
            mpk::MpkOptions o;
            o.powers = 8;
            o.rows_per_block = 128;  // one block
            o.matrix.format = f;
            o.matrix.baseline = spmv::SpmvAlgorithm::csr_v1;
            o.pipelined_scratch_bytes = scratch;
            o.pipelined_rows_in_flight = rows_in_flight;
            o.pipelined_powers_per_pass = per_pass;
            if (rows_in_flight == 2) o.vector_length = 1;  // pairs need one lane per row
            MpkD mpk(a, o);
            // One pass of all 8 powers by the rule (reach 0); else 3 + 3 + 2, each pass a launch.
            EXPECT_EQ(mpk.plan().pipelined_passes, per_pass == 0 ? std::vector<int>{8} : (std::vector<int>{3, 3, 2}));
            EXPECT_NE(mpk.describe().find(per_pass == 0 ? "passes=8" : "passes=3+3+2"), std::string::npos)
                << mpk.describe();
            EXPECT_EQ(mpk.plan().pipelined_rows_in_flight, rows_in_flight);
            EXPECT_NE(mpk.describe().find("rows_in_flight=" + std::to_string(rows_in_flight)), std::string::npos)
                << mpk.describe();
            ASSERT_TRUE(mpk.plan().pipelined_fallback.empty()) << mpk.plan().pipelined_fallback;
            EXPECT_EQ(mpk.plan().pipelined_reach, 0);
            EXPECT_GE(mpk.plan().pipelined_teams, 1);
            const offset_t entries = mpk.matrix().stored_entries(0, a.nrows);
            EXPECT_GE(entries, a.nnz());
            if (scratch == 0)
              EXPECT_EQ(mpk.plan().pipelined_scratch_entries, entries);  // the whole block is kept
            else
              EXPECT_EQ(mpk.plan().pipelined_scratch_entries, 0);
            EXPECT_NE(mpk.describe().find("pipelined: teams="), std::string::npos) << mpk.describe();
            for (int run = 0; run < 3; ++run)
              EXPECT_LE(test::run_against_reference(mpk, a, MpkVariant::pipelined, seed + run), 1.0);
            EXPECT_LE(test::run_against_reference(mpk, a, MpkVariant::persistent, seed + 5), 1.0);  // shared counters
            EXPECT_LE(test::run_against_reference(mpk, a, MpkVariant::pipelined, seed + 6), 1.0);
          }
    }
  }
}

// The rule: two rows at once where a team thread has two rows of a block and a row has one
// lane (every CPU block; SELL with one lane per row on GPUs), else one.
TEST(MatrixPower, PipelinedRowsInFlightRule) {
  const auto seed = test::test_seed();
  const auto a = gen::stencil_7pt(12, 11, 10, seed);
  mpk::MpkOptions o = test::tiny_group_options(4, 64 * 1024);
  o.matrix.format = mpk::MpkFormat::sell;
  o.matrix.sell_chunk = compat::is_gpu_space<test::Exec>() ? 32 : 0;
  o.rows_per_block = compat::is_gpu_space<test::Exec>() ? 256 : 0;  // two rows per thread of 128
  EXPECT_EQ(MpkD(a, o).plan().pipelined_rows_in_flight, 2);
  if (compat::is_gpu_space<test::Exec>()) {
    o.rows_per_block = 128;  // one row per thread
    EXPECT_EQ(MpkD(a, o).plan().pipelined_rows_in_flight, 1);
    o.rows_per_block = 256;
    o.vector_length = 2;  // two lanes per row
    EXPECT_EQ(MpkD(a, o).plan().pipelined_rows_in_flight, 1);
  }
}

// Many row blocks that read ahead of themselves: the plan holds only where (p-1) x reach + 1
// teams are guaranteed to run at once (a GPU here), and the kernel must then complete and be
// right with waits at every power; elsewhere (one host thread) it says why and runs the
// persistent kernel, also right.
TEST(MatrixPower, PipelinedKernelWaitsOrFallsBackWithReason) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct Case {
    CsrMatrix<double, HostSpace> a;
    ordinal_t rows_per_block, dependency_rows;
    std::size_t cache_bytes;
  };
  const std::vector<Case> cases{{gen::stencil_27pt(14, 13, 12, seed), 32, 64, 64 * 1024},
                                {gen::stencil_7pt(20, 18, 16, seed), 32, 64, 64 * 1024},
                                {gen::stencil_7pt(40, 36, 32, seed), 512, 1024, 4 << 20}};
  for (const auto& [a, rows_per_block, dependency_rows, cache_bytes] : cases) {
    for (int p : {2, 7})
      for (int per_pass : {0, 2}) {
        SCOPED_TRACE("nrows " + std::to_string(a.nrows) + " rows_per_block " + std::to_string(rows_per_block) + " p " +
                     std::to_string(p) + " powers_per_pass " + std::to_string(per_pass));
        mpk::MpkOptions o = test::tiny_group_options(p, cache_bytes);
        o.rows_per_block = rows_per_block;
        o.dependency_rows = dependency_rows;
        o.pipelined_powers_per_pass = per_pass;
        MpkD mpk(a, o);
        ASSERT_GT(mpk.plan().pipelined_reach, 0);
        if (mpk.plan().pipelined_fallback.empty()) {  // every needed block of a pass held at once, or all blocks
          const long long row_blocks = mpk.plan().blocks / mpk.powers();
          const auto& passes = mpk.plan().pipelined_passes;
          ASSERT_FALSE(passes.empty());
          EXPECT_EQ(std::accumulate(passes.begin(), passes.end(), 0), p);
          const int q = *std::max_element(passes.begin(), passes.end());
          if (per_pass) EXPECT_EQ(q, per_pass);
          // The rule splits only where teams cycle through the blocks and all p do not fit, or more
          // than 60 % of the teams would wait; then it takes the most powers within both.
          const long long r = mpk.plan().pipelined_guaranteed_teams;  // R of the plan
          const bool cycling = r < row_blocks;
          if (per_pass == 0 && q < p)
            EXPECT_TRUE(cycling && (r < (p - 1) * mpk.plan().pipelined_reach + 1 ||
                                    (p - 1) * mpk.plan().pipelined_reach > 0.6 * r))
                << mpk.describe();
          if (per_pass == 0 && q > 2 && cycling)
            EXPECT_LE((q - 1) * mpk.plan().pipelined_reach, 0.6 * r) << mpk.describe();
          EXPECT_GE(r, std::min((q - 1) * mpk.plan().pipelined_reach + 1, row_blocks));
          EXPECT_GE(mpk.plan().pipelined_teams, r);  // the launch holds at least R teams, at most the blocks
          EXPECT_LE(mpk.plan().pipelined_teams, row_blocks);
          EXPECT_GT(mpk.plan().pipelined_scratch_entries, 0);
          EXPECT_EQ(mpk.resolve(MpkVariant::pipelined), MpkVariant::pipelined);
        } else {
          EXPECT_EQ(mpk.resolve(MpkVariant::pipelined), MpkVariant::persistent);
          EXPECT_NE(mpk.plan().pipelined_fallback.find("teams must run at once"), std::string::npos)
              << mpk.plan().pipelined_fallback;
          EXPECT_NE(mpk.describe().find("pipelined: runs persistent ("), std::string::npos) << mpk.describe();
        }
        EXPECT_LE(test::max_error_under_watchdog(mpk, a, {MpkVariant::pipelined}, 3, seed), 1.0);
      }
  }
}

TEST(MatrixPower, AutomaticChoiceIsAConcreteVariantDecidedOnce) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = gen::stencil_7pt(10, 10, 10, seed);
  MpkD mpk(a, test::tiny_group_options(4, 16 * 1024));
  const MpkVariant chosen = mpk.resolve(MpkVariant::automatic);
  EXPECT_NE(chosen, MpkVariant::automatic);
  EXPECT_EQ(mpk.resolve(MpkVariant::automatic), chosen);  // decided once
  EXPECT_EQ(mpk.resolve(MpkVariant::blocked), MpkVariant::blocked);
  EXPECT_FALSE(mpk.plan().estimate.reason.empty());
  // Without the timing check the model alone decides.
  mpk::MpkOptions o = test::tiny_group_options(4, 16 * 1024);
  o.verify_automatic = false;
  MpkD model_only(a, o);
  EXPECT_EQ(model_only.resolve(MpkVariant::automatic), model_only.plan().estimate.best);
  EXPECT_EQ(model_only.automatic_timing(), "not timed (verify_automatic off)");
  EXPECT_LE(test::run_against_reference(model_only, a, MpkVariant::automatic, seed), 1.0);
}

// automatic times the blocked variants also where the model prefers back_to_back by less than
// kAutomaticTimingMargin (on an H100 it put stencil27_x2 at p = 5 that way, and pipelined ran
// 1.30x faster), and not where they are further behind.
TEST(MatrixPower, AutomaticTimesCandidatesTheModelPutsCloseBehindBackToBack) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto a = gen::stencil_7pt(10, 10, 10, seed);
  const int p = 4;
  mpk::MpkOptions o = test::tiny_group_options(p, 16 * 1024);
  const double tiles = static_cast<double>(MpkD(a, o).plan().schedule.ngroups()) * p;
  // Data terms ~0 and 1 us launches: back_to_back 4 us, blocked 1 us per launch, graph out of
  // reach, persistent (and pipelined, which equals it where it would run persistent) 1 us + the tiles' syncs.
  auto model_with_persistent_us = [&](double us) {
    return mpk::MpkDeviceModel{1e12, 2.5, 1.0, 1e6, (us - 1.0) / tiles};
  };

  o.model = model_with_persistent_us(5.0);  // 1.25 x back_to_back
  MpkD close(a, o);
  ASSERT_EQ(close.plan().estimate.best, MpkVariant::back_to_back) << close.plan().estimate.reason;
  ASSERT_TRUE(close.plan().estimate.worth_timing) << close.plan().estimate.reason;
  EXPECT_TRUE(close.automatic_timing().empty());
  const MpkVariant chosen = close.resolve(MpkVariant::automatic);
  EXPECT_EQ(close.automatic_timing().rfind("timed (us): back_to_back ", 0), 0u) << close.automatic_timing();
  EXPECT_NE(close.automatic_timing().find(", persistent "), std::string::npos) << close.automatic_timing();
  EXPECT_NE(close.automatic_timing().find(std::string(" -> ") + mpk::to_string(chosen)), std::string::npos)
      << close.automatic_timing();
  EXPECT_LE(test::run_against_reference(close, a, MpkVariant::automatic, seed), 1.0);

  o.model = model_with_persistent_us(8.0);  // 2 x back_to_back
  MpkD far(a, o);
  ASSERT_GT(far.plan().schedule.nlaunches(), 6);  // blocked beyond 1.5 x back_to_back too
  ASSERT_EQ(far.plan().estimate.best, MpkVariant::back_to_back) << far.plan().estimate.reason;
  ASSERT_FALSE(far.plan().estimate.worth_timing) << far.plan().estimate.reason;
  EXPECT_NE(far.plan().estimate.reason.find("(not worth timing)"), std::string::npos) << far.plan().estimate.reason;
  EXPECT_EQ(far.resolve(MpkVariant::automatic), MpkVariant::back_to_back);
  EXPECT_EQ(far.automatic_timing(), "not timed (the model's choice: back_to_back)");
}

TEST(MatrixPower, TrafficModels) {
  const auto a = gen::band_matrix(1000, 3, 1);
  MpkD mpk(a, test::tiny_group_options(6));
  const auto t = mpk.traffic();
  const double nnz = static_cast<double>(a.nnz());
  EXPECT_DOUBLE_EQ(t.spmv_bytes, nnz * 12 + 1001 * 8 + 1000 * 8 * 2);
  EXPECT_DOUBLE_EQ(t.back_to_back_bytes, 6 * t.spmv_bytes);
  EXPECT_DOUBLE_EQ(t.blocked_bytes, nnz * 12 + 1001 * 8 + 7 * 1000 * 8);
  EXPECT_DOUBLE_EQ(t.flops, 2 * nnz * 6);
}

TEST(MatrixPower, EmptyMatrix) {
  CsrMatrix<double, HostSpace> a(0, 0, 0);
  MpkD mpk(a, test::tiny_group_options(3));
  MpkD::MultiVector y("y", 0, 4);
  Kokkos::View<double*, test::Mem> x("x", 0);
  for (MpkVariant v : mpk::concrete_variants()) EXPECT_NO_THROW(mpk.apply(v, x, y));
}

TEST(MatrixPower, BadInputsAreRefused) {
  const auto a = gen::band_matrix(20, 1, 2);
  auto expect_message = [](auto&& f, const std::string& text) {
    try {
      f();
      ADD_FAILURE() << "no exception; expected: " << text;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_message([&] { MpkD m(test::random_csr<double>(5, 6, 1, 2, 1), test::tiny_group_options(2)); },
                 "the matrix is 5 x 6; matrix powers need a square matrix");
  {
    auto bad = gen::band_matrix(5, 1, 1);
    bad.col_idx(1) = 9;
    expect_message([&] { MpkD m(bad, test::tiny_group_options(2)); },
                   "mpk matrix: column index 9 out of range in row 0");
  }
  auto options = [](auto edit) {
    mpk::MpkOptions o = test::tiny_group_options(2);
    edit(o);
    return o;
  };
  expect_message([&] { MpkD m(a, options([](auto& o) { o.powers = 0; })); }, "powers must be in [1, 4096] (got 0)");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.cache_fraction = 0; })); },
                 "mpk: cache_fraction must be in (0, 16] (got 0.000000)");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.skew = 3; })); },
                 "mpk: wavefront skew must be 1 or 2 (got 3)");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.align_rows = -1; })); }, "mpk: align_rows must be >= 0");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.rows_per_block = -1; })); },
                 "mpk: rows_per_block must be >= 0");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.dependency_rows = -1; })); },
                 "mpk: dependency_rows must be >= 0");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.vector_length = 3; })); },
                 "mpk: vector_length 3 must be a power of two <= ");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.persistent_teams = -2; })); },
                 "mpk: persistent_teams must be >= 0");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.spin_limit = 0; })); }, "mpk: spin_limit must be >= 1");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.row_batch = 4; })); },
                 "row_batch must be 0 (the rule), 1, 8 or 16 (got 4)");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.pipelined_rows_in_flight = 3; })); },
                 "pipelined_rows_in_flight must be 0 (the rule), 1 or 2 (got 3)");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.pipelined_powers_per_pass = 3; })); },
                 "pipelined_powers_per_pass must be 0 (the rule) or 1 to p = 2 (got 3)");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.pipelined_powers_per_pass = -1; })); },
                 "pipelined_powers_per_pass must be 0 (the rule) or 1 to p = 2 (got -1)");
  if (compat::is_gpu_space<test::Exec>())  // on CPUs rows always have one lane
    expect_message(
        [&] {
          MpkD m(a, options([](auto& o) {
                   o.vector_length = 2;
                   o.pipelined_rows_in_flight = 2;
                 }));
        },
        "pipelined_rows_in_flight 2 needs one vector lane per row (vector_length is 2)");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.matrix.sell_chunk = -1; })); }, "sell_chunk -1");
  expect_message([&] { MpkD m(a, options([](auto& o) { o.matrix.index_bits = 8; })); },
                 "index_bits 8 must be 0, 16 or 32");
  expect_message(
      [&] {
        mpk::MpkOptions o = test::tiny_group_options(2);
        o.model = mpk::MpkDeviceModel{0, 2, 1, 1, 1};
        MpkD m(a, o);
      },
      "mpk cost model: memory_gbs and cache_speedup must be positive");
  expect_message([&] { MpkD m(std::shared_ptr<MpkD::Matrix>(), test::tiny_group_options(2)); },
                 "mpk: no level-ordered matrix given");

  MpkD mpk(a, test::tiny_group_options(2));
  Kokkos::View<double*, test::Mem> x("x", 20), short_x("x", 19);
  MpkD::MultiVector y("y", 20, 3), narrow("y", 20, 2), tall("y", 21, 3);
  expect_message([&] { mpk.apply(MpkVariant::blocked, short_x, y); },
                 "mpk apply: x has 19 entries, the matrix has 20 rows");
  expect_message([&] { mpk.apply(MpkVariant::blocked, x, narrow); },
                 "mpk apply: Y is 20 x 2, expected n x (p+1) = 20 x 3");
  expect_message([&] { mpk.apply(MpkVariant::blocked, x, tall); },
                 "mpk apply: Y is 21 x 3, expected n x (p+1) = 20 x 3");
}

TEST(MatrixPower, VariantAndFormatNames) {
  for (MpkVariant v : {MpkVariant::back_to_back, MpkVariant::blocked, MpkVariant::graph, MpkVariant::persistent,
                       MpkVariant::automatic})
    EXPECT_EQ(mpk::parse_variant(mpk::to_string(v)), v);
  for (mpk::MpkFormat f : {mpk::MpkFormat::csr, mpk::MpkFormat::sell, mpk::MpkFormat::automatic})
    EXPECT_EQ(mpk::parse_format(mpk::to_string(f)), f);
  try {
    mpk::parse_variant("fast");
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown MPK variant 'fast' (valid: back_to_back, blocked, graph, persistent, pipelined, automatic)");
  }
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::parse_format("ell"), InvalidArgument,
                                "unknown MPK format 'ell' (valid: csr, sell, automatic)");
  for (mpk::MpkOrdering o : {mpk::MpkOrdering::bfs, mpk::MpkOrdering::input, mpk::MpkOrdering::automatic})
    EXPECT_EQ(mpk::parse_ordering(mpk::to_string(o)), o);
  try {
    mpk::parse_ordering("rcm");
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "unknown MPK ordering 'rcm' (valid: bfs, input, automatic)");
  }
}

}  // namespace
}  // namespace ppsparse
