#include <gtest/gtest.h>

#include <set>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/variant.hpp>

#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

TEST(McpiVariant, EveryKernelOfTheRegistryHasANameAndALayout) {
  // Derived from the registry, so that a new kernel needs no edit here; the four kernels the
  // recorded commands name must stay.
  std::set<std::string> names;
  for (Kernel k : all_kernels()) {
    EXPECT_TRUE(names.insert(name(k)).second) << "two kernels named " << name(k);
    EXPECT_EQ(parse_kernel(name(k)), k);
    EXPECT_GT(std::string(summary(k)).size(), 10u) << name(k);
  }
  for (const char* kept : {"warp_per_row", "rows_per_warp", "rows_per_warp_prefetch", "split"})
    EXPECT_EQ(names.count(kept), 1u) << kept;
  EXPECT_EQ(layout(Kernel::warp_per_row), GroupLayout::one_row);
  EXPECT_EQ(layout(Kernel::split), GroupLayout::one_row);
  EXPECT_EQ(layout(Kernel::rows_per_warp), GroupLayout::many_rows);
  EXPECT_EQ(layout(Kernel::rows_per_warp_prefetch), GroupLayout::many_rows);
}

// The names recorded in docs/perf (the Walden et al. (2021) hardware variants) still parse, onto a kernel and flags.
TEST(McpiVariant, OldVariantNamesMapOntoAKernelAndFeatureFlags) {
  EXPECT_EQ(parse_variant("warp_per_row"), Variant(Kernel::warp_per_row));
  EXPECT_EQ(parse_variant("warp_per_row_l2"), Variant(Kernel::warp_per_row, true, false));
  EXPECT_EQ(parse_variant("warp_per_row_l2_async"), Variant(Kernel::warp_per_row, true, true));
  EXPECT_EQ(parse_variant("rows_per_warp_l2"), Variant(Kernel::rows_per_warp, true, false));
  EXPECT_EQ(parse_variant("rows_per_warp_l2_async"), Variant(Kernel::rows_per_warp, true, true));
  EXPECT_EQ(parse_variant("rows_per_warp_prefetch"), Variant(Kernel::rows_per_warp_prefetch));
  EXPECT_EQ(parse_variant("split"), Variant(Kernel::split));
  // The flags combine freely with any kernel.
  EXPECT_EQ(parse_variant("rows_per_warp_async"), Variant(Kernel::rows_per_warp, false, true));
  EXPECT_EQ(parse_variant("split_l2"), Variant(Kernel::split, true, false));
}

TEST(McpiVariant, NameAndParseAreInverse) {
  // Every kernel without features, then the four hardware variants of the paper.
  ASSERT_EQ(all_variants().size(), all_kernels().size() + 4);
  for (const Variant& v : all_variants()) EXPECT_EQ(parse_variant(name(v)), v) << name(v);
  for (Kernel k : all_kernels())
    for (bool l2 : {false, true})
      for (bool async : {false, true}) {
        const Variant v(k, l2, async);
        EXPECT_EQ(parse_variant(name(v)), v) << name(v);
        EXPECT_EQ(v.has_features(), l2 || async);
      }
  EXPECT_EQ(name(Variant(Kernel::rows_per_warp, true, true)), "rows_per_warp_l2_async");
}

TEST(McpiVariant, UnknownNamesListTheKernelsAndSuffixes) {
  std::string kernels;
  for (Kernel k : all_kernels()) kernels += (kernels.empty() ? "" : ", ") + std::string(name(k));
  ASSERT_EQ(kernels.rfind("warp_per_row, rows_per_warp, rows_per_warp_prefetch, split", 0), 0u) << kernels;
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_variant("warp-per-row"), InvalidArgument,
                                "unknown MCPI variant 'warp-per-row' (valid: auto, " + kernels +
                                    ", each with the optional suffixes _l2 and _async, e.g. rows_per_warp_l2_async)");
  // Suffixes in the wrong order, or alone, are not names.
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_variant("rows_per_warp_async_l2"), InvalidArgument,
                                "unknown MCPI variant 'rows_per_warp_async_l2'");
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_variant("_l2"), InvalidArgument, "unknown MCPI variant '_l2'");
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_variant(""), InvalidArgument, "unknown MCPI variant ''");
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_kernel("rows_per_warp_l2"), InvalidArgument,
                                "unknown MCPI kernel 'rows_per_warp_l2' (valid: " + kernels + ")");
}

}  // namespace
}  // namespace ppsparse::mcpi
