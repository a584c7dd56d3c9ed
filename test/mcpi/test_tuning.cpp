// mcpi::KernelTuning: the settings of the backends' specialised kernels, checked and passed as
// options (the library reads no environment variable). On CUDA every setting selects other
// kernels or launches, each of which must match the FP64 reference; elsewhere the portable
// kernels ignore them and must match all the same.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/reference.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include <ppsparse/mcpi/tuning.hpp>
#include <ppsparse/reorder/coloring.hpp>
#include "common/mcpi_timed_sweeps.hpp"

#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

using Small = KernelTuning::SmallColor;

TEST(McpiTuning, BadValuesAreRefusedWithTheirReason) {
  KernelTuning t;
  EXPECT_NO_THROW(check_tuning(t));
  t.row_slots = 3;
  PPSPARSE_EXPECT_THROW_MESSAGE(check_tuning(t), InvalidArgument,
                                "mcpi tuning: row_slots = 3 must be 0 (the rule), 1, 2 or 4");
  t = {};
  t.wide_split = 2;
  PPSPARSE_EXPECT_THROW_MESSAGE(check_tuning(t), InvalidArgument,
                                "mcpi tuning: wide_split = 2 must be 0 (the rule), 1 or 4");
  t = {};
  t.unroll = 3;
  PPSPARSE_EXPECT_THROW_MESSAGE(check_tuning(t), InvalidArgument,
                                "mcpi tuning: unroll = 3 must be 0 (the rule), 2 or 4");
  t = {};
  t.small_color = static_cast<Small>(7);
  PPSPARSE_EXPECT_THROW_MESSAGE(check_tuning(t), InvalidArgument, "mcpi tuning: small_color = 7 is not a SmallColor");
  for (Small m : {Small::automatic, Small::off, Small::always}) EXPECT_EQ(parse_small_color(to_string(m)), m);
  EXPECT_EQ(parse_small_color("0"), Small::off);
  EXPECT_EQ(parse_small_color("all"), Small::always);
  EXPECT_EQ(parse_small_color(""), Small::automatic);
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_small_color("bogus"), InvalidArgument,
                                "mcpi tuning: small_color 'bogus' must be automatic, off or always");
  // The solver refuses a bad setting before any sweep, on every backend (also where the
  // setting would steer no kernel).
  const Graph graph = gen::tet_mesh_graph(3, 3, 3);
  Solver<> solver(gen::make_block_system(graph, 2, 1), color_distance1(graph));
  TimedSweepOptions o;
  o.tuning.row_slots = 8;
  PPSPARSE_EXPECT_THROW_MESSAGE(time_sweeps(solver, o), InvalidArgument,
                                "mcpi tuning: row_slots = 8 must be 0 (the rule), 1, 2 or 4");
}

// Every setting that chooses another kernel or launch, against the FP64 reference, block row by
// block row: the small-colour kernel off (every colour then takes rows_per_warp's slots) with
// and without the dependent launch, on for every colour, each forced slot count, the wide
// kernel's warps per row and its prefetch.
TEST(McpiTuning, EverySettingMatchesTheReference) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::pair<std::string, KernelTuning>> settings;
  auto add = [&](const std::string& what, auto edit) {
    KernelTuning t;
    edit(t);
    settings.emplace_back(what, t);
  };
  add("small colour off", [](KernelTuning& t) { t.small_color = Small::off; });
  add("small colour off, no dependent launch", [](KernelTuning& t) {
    t.small_color = Small::off;
    t.dependent_launch = false;
  });
  add("small colour always", [](KernelTuning& t) { t.small_color = Small::always; });
  for (int slots : {1, 2, 4})
    add("row slots " + std::to_string(slots), [slots](KernelTuning& t) {
      t.small_color = Small::off;
      t.row_slots = slots;
    });
  add("wide split 1", [](KernelTuning& t) { t.wide_split = 1; });
  add("wide split 4, no prefetch", [](KernelTuning& t) {
    t.wide_split = 4;
    t.wide_prefetch = false;
  });
  const Graph graph = gen::tet_mesh_graph(5, 4, 4);
  const Coloring col = color_distance1(graph);
  for (int nb : {1, 2, 5, 8, 15, 16, 24, 64}) {
    const auto sys = gen::make_block_system(graph, nb, seed + nb);
    const auto ref = reference_sweeps(sys, col, 3);
    Solver<> solver(sys, col);
    for (const auto& [what, tuning] : settings) {
      for (Variant v : {Variant(Kernel::rows_per_warp), Variant(Kernel::warp_per_row),
                        Variant(Kernel::rows_per_warp, true, true)}) {
        SCOPED_TRACE(what + ", " + name(v) + ", nb=" + std::to_string(nb));
        TimedSweepOptions o;
        o.sweeps = 3;
        o.variant = v;
        o.tuning = tuning;
        const auto res = time_sweeps(solver, o);
        EXPECT_LT(max_block_row_error(res.dq, ref, nb), kBlockRowTolerance) << res.kernel;
      }
    }
  }
}

}  // namespace
}  // namespace ppsparse::mcpi
