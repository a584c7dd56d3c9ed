// Every SpMV kernel and every parameter setting against the FP64 host reference, on the
// matrix families of spmv_test_util.hpp, in FP32 and FP64, for all alpha/beta cases.
#include <gtest/gtest.h>

#include <ppsparse/formats/convert.hpp>
#include <ppsparse/spmv/csr_coop.hpp>
#include <ppsparse/spmv/csr_v1.hpp>
#include <ppsparse/spmv/csr_v2.hpp>
#include <ppsparse/spmv/hyb.hpp>
#include <ppsparse/spmv/sell_spmv.hpp>

#include "spmv_test_util.hpp"

namespace ppsparse::test {
namespace {

template <class S>
class SpmvKernels : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpmvKernels, Scalars);

TYPED_TEST(SpmvKernels, CsrV1) {
  using S = TypeParam;
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : matrix_families(seed)) {
    const auto a = convert_values<S>(m.a);
    const auto ad = copy_to<Mem>(a);
    expect_matches_reference<S>(
        "csr_v1 on " + m.name, a,
        [&](S alpha, const auto& x, S beta, const auto& y) { spmv::csr_v1(Exec(), alpha, ad, x, beta, y); }, seed + 7);
  }
}

// Option sets that reach every block kind: the defaults, then small budgets that force
// stream blocks, vector blocks, whole-team long rows and split rows (tiles), with and
// without x windows in scratch.
std::string loads_name(const spmv::MatrixLoads loads) {
  return loads == spmv::MatrixLoads::streaming ? " (streaming loads)" : " (cached loads)";
}

std::vector<std::pair<std::string, spmv::CsrV2Options>> csr_v2_settings() {
  std::vector<std::pair<std::string, spmv::CsrV2Options>> s;
  s.emplace_back("defaults", spmv::CsrV2Options{});
  spmv::CsrV2Options all_kinds;
  all_kinds.tile_nnz = 40;
  all_kinds.max_rows_per_block = 16;
  all_kinds.short_row_max = 4;
  all_kinds.split_row_min = 100;
  all_kinds.split_tile_nnz = 33;
  s.emplace_back("all_kinds", all_kinds);
  auto windows = all_kinds;
  windows.x_in_scratch = true;
  windows.x_window = 120;
  s.emplace_back("all_kinds_x_windows", windows);
  spmv::CsrV2Options stream_only;
  stream_only.short_row_max = 1 << 20;
  stream_only.tile_nnz = 64;
  stream_only.x_in_scratch = true;
  s.emplace_back("stream_only_x_windows", stream_only);
  spmv::CsrV2Options one_entry_tiles;
  one_entry_tiles.tile_nnz = 1;
  one_entry_tiles.split_row_min = 2;
  one_entry_tiles.split_tile_nnz = 1;
  s.emplace_back("one_entry_tiles", one_entry_tiles);
  return s;
}

TYPED_TEST(SpmvKernels, CsrV2AllSettings) {
  using S = TypeParam;
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : matrix_families(seed)) {
    const auto a = convert_values<S>(m.a);
    const auto ad = copy_to<Mem>(a);
    for (const auto& [name, options] : csr_v2_settings()) {
      const auto plan = spmv::make_csr_v2_plan(Exec(), ad, options);
      EXPECT_EQ(plan.num_blocks, static_cast<long long>(plan.blocks.extent(0)));
      for (const auto loads : {spmv::MatrixLoads::streaming, spmv::MatrixLoads::cached})
        expect_matches_reference<S>(
            "csr_v2 " + name + " on " + m.name + " [" + plan.summary() + "]" + loads_name(loads), a,
            [&](S alpha, const auto& x, S beta, const auto& y) {
              spmv::csr_v2(Exec(), alpha, ad, plan, x, beta, y, loads);
            },
            seed + 11);
    }
  }
}

TEST(SpmvKernels, CsrV2SmallBudgetsReachEveryBlockKind) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  long long stream = 0, vector = 0, longs = 0, split = 0, tiles = 0, windows = 0;
  for (const auto& m : matrix_families(seed)) {
    const auto plan = spmv::make_csr_v2_plan(Exec(), copy_to<Mem>(m.a), csr_v2_settings()[2].second);
    stream += plan.stream_blocks;
    vector += plan.vector_blocks;
    longs += plan.long_rows;
    split += plan.num_split_rows;
    tiles += plan.num_tiles;
    windows += plan.x_windows;
    if (plan.x_windows > 0) EXPECT_GT(plan.scratch_bytes, 0u);
  }
  EXPECT_GT(stream, 0);
  EXPECT_GT(vector, 0);
  EXPECT_GT(longs, 0);
  EXPECT_GT(split, 0);
  EXPECT_GT(tiles, split);
  EXPECT_GT(windows, 0);
}

TYPED_TEST(SpmvKernels, CsrCoopEveryRepeatAndTheFixedRule) {
  using S = TypeParam;
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto space = spmv::coop_search_space(Exec());
  std::vector<spmv::CoopParams> settings;
  for (int coop = 1; coop <= space.max_coop; coop *= 2)
    for (int block : space.block_sizes)
      for (int repeat : {1, 2, 3, 7, 64})
        if (block % coop == 0) settings.push_back({coop, repeat, block});
  for (const auto& m : matrix_families(seed)) {
    const auto a = convert_values<S>(m.a);
    const auto ad = copy_to<Mem>(a);
    auto all = settings;
    all.push_back(spmv::coop_fixed_rule(Exec(), ad));
    for (const auto& p : all)
      expect_matches_reference<S>(
          "csr_coop " + p.to_string() + " on " + m.name, a,
          [&](S alpha, const auto& x, S beta, const auto& y) { spmv::csr_coop(Exec(), alpha, ad, x, beta, y, p); },
          seed + 13);
  }
}

TYPED_TEST(SpmvKernels, SellEveryChunkAndScope) {
  using S = TypeParam;
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : matrix_families(seed)) {
    const auto a = convert_values<S>(m.a);
    for (int C : {1, 2, 8, 32})
      for (ordinal_t sigma : {1, C, 256, 1 << 20}) {
        const auto sd = copy_to<Mem>(csr_to_sell(a, C, sigma));
        for (const auto loads : {spmv::MatrixLoads::streaming, spmv::MatrixLoads::cached})
          expect_matches_reference<S>(
              "sell C=" + std::to_string(C) + " sigma=" + std::to_string(sigma) + " on " + m.name + loads_name(loads),
              a,
              [&](S alpha, const auto& x, S beta, const auto& y) {
                spmv::sell_spmv(Exec(), alpha, sd, x, beta, y, loads);
              },
              seed + 17);
      }
  }
}

TYPED_TEST(SpmvKernels, HybEveryRowMax) {
  using S = TypeParam;
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : matrix_families(seed)) {
    const auto a = convert_values<S>(m.a);
    for (ordinal_t row_max : {1, 3, 20, spmv::hyb_auto_row_max(a.nrows, a.nnz())})
      for (int C : {1, 8})
        for (ordinal_t sigma : {1, 256}) {
          const auto h = spmv::make_hyb<Exec, S, Mem>(Exec(), a, C, sigma, row_max);
          // The split keeps every entry once: row_max per row in SELL, the excess in the tail.
          offset_t excess = 0;
          ordinal_t cut_rows = 0;
          for (ordinal_t i = 0; i < a.nrows; ++i) {
            const offset_t len = a.row_ptr(i + 1) - a.row_ptr(i);
            if (len > row_max) {
              excess += len - row_max;
              ++cut_rows;
            }
          }
          ASSERT_EQ(h.tail.nnz(), excess);
          ASSERT_EQ(h.tail.nrows(), cut_rows);
          ASSERT_EQ(h.nnz(), a.nnz());
          for (const auto loads : {spmv::MatrixLoads::streaming, spmv::MatrixLoads::cached})
            expect_matches_reference<S>(
                "hyb row_max=" + std::to_string(row_max) + " C=" + std::to_string(C) +
                    " sigma=" + std::to_string(sigma) + " on " + m.name + loads_name(loads),
                a,
                [&](S alpha, const auto& x, S beta, const auto& y) {
                  spmv::hyb_spmv(Exec(), alpha, h, x, beta, y, loads);
                },
                seed + 19);
        }
  }
}

// Padding must not be multiplied: padding that meets Inf in x would turn 0 * Inf into NaN.
TEST(SpmvKernels, SellIgnoresPaddingEvenWithInfInX) {
  CsrMatrix<double, HostSpace> b(2, 3, 2);
  b.row_ptr(1) = 2;
  b.row_ptr(2) = 2;  // row 1 is empty: all padding in a chunk of C = 2
  b.col_idx(0) = 0;
  b.values(0) = 1.0;
  b.col_idx(1) = 1;
  b.values(1) = 2.0;
  auto sb = csr_to_sell(b, 2, 1);
  for (size_t k = 0; k < sb.col_idx.extent(0); ++k)
    if (sb.values(k) == 0.0) sb.col_idx(k) = 2;  // point the padding at the Inf entry of x
  const auto sbd = copy_to<Mem>(sb);
  const auto x = to_device<double>({1.0, 1.0, std::numeric_limits<double>::infinity()});
  const auto y = to_device<double>({-1.0, -1.0});
  spmv::sell_spmv(Exec(), 1.0, sbd, x, 0.0, y);
  const auto h = to_host(y);
  EXPECT_EQ(h[0], 3.0);
  EXPECT_EQ(h[1], 0.0);
}

TEST(SpmvKernels, FixedRuleFollowsThePaper) {
  // coop: smallest power of two >= sqrt(average row length), capped at W.
  EXPECT_EQ(spmv::coop_fixed_rule(1000, 4000, 32, 1000, true).coop, 2);      // avg 4 -> sqrt 2
  EXPECT_EQ(spmv::coop_fixed_rule(1000, 27000, 32, 1000, true).coop, 8);     // avg 27 -> 5.2 -> 8
  EXPECT_EQ(spmv::coop_fixed_rule(1000, 4000000, 32, 1000, true).coop, 32);  // capped
  EXPECT_EQ(spmv::coop_fixed_rule(1000, 27000, 1, 1000, false).coop, 1);     // CPU: W = 1
  EXPECT_EQ(spmv::coop_fixed_rule(1000, 0, 32, 1000, true).coop, 1);         // empty rows
  EXPECT_EQ(spmv::coop_fixed_rule(1000, 4000, 32, 1000, true).block_size, 128);
  EXPECT_EQ(spmv::coop_fixed_rule(1000, 4000, 1, 1, false).block_size, 1);
  // Enough teams: 16 * concurrency / block_size of them, repeat as large as that allows.
  const auto p = spmv::coop_fixed_rule(10'000'000, 70'000'000, 32, 270'336, true);  // H100-like
  const long long rows_per_team = static_cast<long long>(p.block_size / p.coop) * p.repeat;
  EXPECT_GE((10'000'000 + rows_per_team - 1) / rows_per_team, 16LL * 270'336 / 128);
  EXPECT_LT((10'000'000 + 2 * rows_per_team - 1) / (2 * rows_per_team), 16LL * 270'336 / 128);
  EXPECT_EQ(spmv::coop_fixed_rule(100, 700, 32, 270'336, true).repeat, 1);         // small: one row per group
  EXPECT_EQ(spmv::coop_fixed_rule(1'000'000, 7'000'000, 1, 1, false).repeat, 32);  // capped
}

}  // namespace
}  // namespace ppsparse::test
