#include <gtest/gtest.h>

#include <ppsparse/error.hpp>

#include "options.hpp"

namespace mcpi_app {
namespace {

Options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "mcpi");
  return parse_options(static_cast<int>(args.size()), args.data());
}

std::string error_of(std::vector<const char*> args) {
  try {
    parse(args);
  } catch (const ppsparse::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(McpiOptions, Defaults) {
  const auto o = parse({});
  EXPECT_EQ(o.source, Options::Source::builtin);
  EXPECT_EQ(o.block, 5);
  EXPECT_EQ(o.sweeps, 15);
  EXPECT_TRUE(o.variants.empty());  // all
}

TEST(McpiOptions, ParsesEverything) {
  const auto o = parse({"--mesh", "m.su2", "--refine", "2", "--block", "7", "--sweeps", "3", "--variant",
                        "rows_per_warp", "--variant", "split", "--json", "out.json", "--seed", "9", "--no-verify"});
  EXPECT_EQ(o.source, Options::Source::mesh);
  EXPECT_EQ(o.path, "m.su2");
  EXPECT_EQ(o.refine, 2);
  EXPECT_EQ(o.block, 7);
  EXPECT_EQ(o.sweeps, 3);
  ASSERT_EQ(o.variants.size(), 2u);
  EXPECT_EQ(o.variants[1], ppsparse::mcpi::Kernel::split);
  EXPECT_EQ(o.json, "out.json");
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.verify, 0);
  EXPECT_FALSE(o.o_storage.lu_fp32);
  EXPECT_TRUE(parse({"--lu-fp32"}).o_storage.lu_fp32);
}

TEST(McpiOptions, BadInputsGiveOneLineErrors) {
  EXPECT_EQ(error_of({"--block", "0"}), "mcpi: --block expects an integer in [1, 64], got '0'");
  EXPECT_EQ(error_of({"--block", "5x"}), "mcpi: --block expects an integer in [1, 64], got '5x'");
  EXPECT_EQ(error_of({"--sweeps", "99999999999999999999"}),
            "mcpi: --sweeps expects an integer in [1, 100000], got '99999999999999999999'");
  EXPECT_EQ(error_of({"--grid"}), "mcpi: option --grid needs a value");
  EXPECT_EQ(error_of({"--frobnicate"}), "mcpi: unknown option '--frobnicate' (see --help)");
  EXPECT_EQ(error_of({"--pattern-only"}), "mcpi: --pattern-only applies to --matrix only");
  EXPECT_EQ(error_of({"--mesh", "a.su2", "--grid", "4"}), "mcpi: --grid applies to the embedded problem only");
  EXPECT_NE(error_of({"--variant", "nope"}).find("valid: auto, warp_per_row"), std::string::npos);
  for (const char* bad : {"--refine", "--json", "--matrix", "--mesh", "--seed", "--variant"})
    EXPECT_NE(error_of({bad}).find("needs a value"), std::string::npos) << bad;
}

TEST(McpiOptions, HelpDocumentsEveryOption) {
  const std::string h = help_text();
  for (const char* opt :
       {"--matrix", "--mesh", "--refine", "--block", "--grid", "--sweeps", "--variant", "--seed", "--verify", "--json",
        "--pattern-only", "--stage-diagonal", "--portable", "--mpk", "--help", "--o-keep-fp64", "--lu-fp32", "--steps"})
    EXPECT_NE(h.find(opt), std::string::npos) << opt;
  // The flow mode is found from the top-level help: its usage line and where its own help is.
  EXPECT_NE(h.find("mcpi --flow MESH"), std::string::npos);
  EXPECT_NE(h.find("mcpi --flow --help"), std::string::npos);
}

}  // namespace
}  // namespace mcpi_app
