#include <gtest/gtest.h>

#include <ppsparse/error.hpp>
#include <ppsparse/mpk/cost_model.hpp>
#include <ppsparse/backend/last_level_cache.hpp>

#include "test_util.hpp"

namespace ppsparse {
namespace {

using mpk::MpkVariant;

mpk::MpkDeviceModel gpu_like() { return mpk::MpkDeviceModel{3000, 2.5, 4, 1.5, 0.5}; }

// A matrix of 1.5 GB, far beyond a 25 MB budget: 100 launches and 200 tiles at p = 5.
mpk::MpkShape large_shape() {
  mpk::MpkShape s;
  s.spmv_bytes = 1.5e9;
  s.vector_bytes = 1e8;
  s.powers = 5;
  s.cache_bytes = 25e6;
  s.launches = 100;
  s.tiles = 200;
  return s;
}

TEST(MpkCostModel, SmallMatricesStayBackToBack) {
  mpk::MpkShape s;
  s.spmv_bytes = 10e6;
  s.vector_bytes = 0.5e6;
  s.powers = 6;
  s.launches = 12;
  s.tiles = 6;
  s.cache_bytes = 30e6;
  auto e = mpk::estimate_mpk(s, gpu_like());
  EXPECT_TRUE(e.fits_in_cache);
  EXPECT_NE(e.reason.find("fits in cache"), std::string::npos);
  // In cache every variant moves the same data; only the overheads differ.
  EXPECT_NEAR(e.back_to_back - 6 * 4e-6, e.blocked - 12 * 4e-6, 1e-12);
  EXPECT_NEAR(e.persistent - 4e-6 - 6 * 0.5e-6, e.blocked - 12 * 4e-6, 1e-12);
  // One launch beats six when the handoffs are cheap; expensive handoffs keep back_to_back.
  EXPECT_EQ(e.best, MpkVariant::persistent);
  auto slow_sync = gpu_like();
  slow_sync.tile_sync_us = 10;
  slow_sync.graph_launch_us = 10;
  e = mpk::estimate_mpk(s, slow_sync);
  EXPECT_EQ(e.best, MpkVariant::back_to_back);
}

TEST(MpkCostModel, BlockedVariantsCloseBehindBackToBackAreWorthTiming) {
  // Slow launches: back_to_back 5 x 0.5 ms + 5 x 0.5 ms = 5.0 ms, persistent 1.3 ms of data +
  // 0.5 ms + 200 tiles x 20 us = 5.8 ms, blocked 51.3 ms, graph 101.8 ms.
  mpk::MpkShape s = large_shape();
  mpk::MpkDeviceModel m{3000, 2.5, 500, 1000, 20};
  auto e = mpk::estimate_mpk(s, m);
  EXPECT_EQ(e.best, MpkVariant::back_to_back);
  EXPECT_EQ(e.best_blocked, MpkVariant::persistent);  // pipelined ties with it and comes later
  EXPECT_NEAR(e.persistent / e.back_to_back, 5.8 / 5.0, 1e-9);
  EXPECT_TRUE(e.worth_timing);
  EXPECT_EQ(e.reason.find("not worth timing"), std::string::npos) << e.reason;
  m.tile_sync_us = 40;  // persistent 9.8 ms: 1.96 x back_to_back
  e = mpk::estimate_mpk(s, m);
  EXPECT_EQ(e.best, MpkVariant::back_to_back);
  EXPECT_FALSE(e.worth_timing);
  EXPECT_NE(e.reason.find("-> back_to_back (not worth timing)"), std::string::npos) << e.reason;
  // A blocked winner is always timed against back_to_back.
  e = mpk::estimate_mpk(s, gpu_like());
  EXPECT_EQ(e.best, MpkVariant::persistent);
  EXPECT_EQ(e.best_blocked, MpkVariant::persistent);
  EXPECT_TRUE(e.worth_timing);
}

TEST(MpkCostModel, LargeMatricesBlockAndLaunchCostDecidesHow) {
  mpk::MpkShape s = large_shape();
  s.graph_native = true;
  auto e = mpk::estimate_mpk(s, gpu_like());
  EXPECT_FALSE(e.fits_in_cache);
  EXPECT_LT(e.blocked, e.back_to_back);
  EXPECT_EQ(e.best, MpkVariant::persistent);  // 200 x 0.5 us < 100 x 1.5 us < 100 x 4 us
  s.tiles = 2000;
  EXPECT_EQ(mpk::estimate_mpk(s, gpu_like()).best, MpkVariant::graph);
  // Without graphs the graph estimate is the blocked one.
  s.graph_native = false;
  e = mpk::estimate_mpk(s, gpu_like());
  EXPECT_DOUBLE_EQ(e.graph, e.blocked);
  // Expensive launches everywhere: blocking loses to back-to-back (Panzlaff 2024, on A100 and GH200).
  auto slow = gpu_like();
  slow.launch_us = 500;
  slow.tile_sync_us = 200;
  e = mpk::estimate_mpk(s, slow);
  EXPECT_EQ(e.best, MpkVariant::back_to_back);
  EXPECT_DOUBLE_EQ(e.seconds(MpkVariant::automatic), e.back_to_back);
}

TEST(MpkCostModel, PipelinedReadsTheMatrixOnceWhereItRunsItself) {
  mpk::MpkShape s = large_shape();
  auto e = mpk::estimate_mpk(s, gpu_like());
  EXPECT_DOUBLE_EQ(e.pipelined, e.persistent);  // it would run persistent
  EXPECT_EQ(e.best, MpkVariant::persistent);    // the tie goes to the earlier variant
  s.pipelined_native = true;
  e = mpk::estimate_mpk(s, gpu_like());
  const double t_mem = 1.5e9 / 3000e9;
  EXPECT_NEAR(e.pipelined, t_mem + 4 * 2 * 1e8 / (2.5 * 3000e9) + 4e-6 + 200 * 0.5e-6, 1e-12);
  EXPECT_LT(e.pipelined, e.persistent);
  EXPECT_EQ(e.best, MpkVariant::pipelined);
  EXPECT_NE(e.reason.find("pipelined"), std::string::npos);
  // Two passes read the matrix twice and launch twice; one power fewer comes from the cache.
  s.pipelined_passes = 2;
  const auto e2 = mpk::estimate_mpk(s, gpu_like());
  EXPECT_NEAR(e2.pipelined - e.pipelined, t_mem + 4e-6 - 2 * 1e8 / (2.5 * 3000e9), 1e-12);
}

TEST(MpkCostModel, BadModelsAndShapesAreRefused) {
  mpk::MpkShape s;
  s.powers = 2;
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::estimate_mpk(s, mpk::MpkDeviceModel{0, 2, 1, 1, 1})), InvalidArgument,
                                "mpk cost model: memory_gbs and cache_speedup must be positive");
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::estimate_mpk(s, mpk::MpkDeviceModel{10, 0, 1, 1, 1})), InvalidArgument,
                                "mpk cost model: memory_gbs and cache_speedup must be positive");
  PPSPARSE_EXPECT_THROW_MESSAGE((mpk::estimate_mpk(s, mpk::MpkDeviceModel{10, 2, -1, 1, 1})), InvalidArgument,
                                "mpk cost model: launch, graph and tile costs must be nonnegative");
  s.powers = 0;
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::estimate_mpk(s, gpu_like()), InvalidArgument,
                                "mpk cost model: the shape needs powers >= 1 and nonnegative sizes");
  s.powers = 1;
  s.launches = -1;
  PPSPARSE_EXPECT_THROW_MESSAGE(mpk::estimate_mpk(s, gpu_like()), InvalidArgument,
                                "mpk cost model: the shape needs powers >= 1 and nonnegative sizes");
  s.launches = 0;
  s.pipelined_passes = 2;  // more launches than powers
  try {
    mpk::estimate_mpk(s, gpu_like());
    ADD_FAILURE() << "2 passes of 1 power accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "mpk cost model: pipelined_passes must be in [1, powers] (got 2 for 1 powers)");
  }
  const auto d = mpk::default_device_model<DefaultExecSpace>();
  EXPECT_GT(d.memory_gbs, 0);
  EXPECT_GT(d.cache_speedup, 1);
}

TEST(MpkLastLevelCache, SizesArePlausible) {
  const std::size_t host = ppsparse::backend::host_last_level_cache_bytes();
  EXPECT_GE(host, std::size_t{64} << 10);
  EXPECT_LE(host, std::size_t{4} << 30);
  const std::size_t device = ppsparse::backend::last_level_cache_bytes();
  EXPECT_GE(device, std::size_t{64} << 10);
  if (!compat::is_gpu_space<DefaultExecSpace>()) EXPECT_EQ(device, host);
}

}  // namespace
}  // namespace ppsparse
