#include <gtest/gtest.h>

#include <filesystem>

#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/mpk/matrix_power.hpp>

#include "mpk_test_util.hpp"

namespace ppsparse {
namespace {

// Every square real matrix of <shared>/matrices, scaled to unit infinity norm, p = 1..8,
// every variant, in double; with groups small enough that each matrix has several.
TEST(MatrixPowerShared, RealMatricesAllVariants) {
  const auto dir = test::shared_dir() / "matrices";
  if (test::shared_dir().empty() || !std::filesystem::exists(dir)) GTEST_SKIP() << "no shared matrices (../shared)";
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".mtx") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int tested = 0;
  for (const auto& f : files) {
    auto a = io::read_matrix_market<double>(f.string());
    if (a.nrows != a.ncols) continue;  // powers need a square matrix
    SCOPED_TRACE(f.filename().string());
    test::normalise_rows(a);
    mpk::MpkOptions o = test::tiny_group_options(1, 64 * 1024);
    o.rows_per_block = 64;
    test::expect_all_variants_match(a, o, 8, seed);
    ++tested;
  }
  EXPECT_GT(tested, 0);
}

}  // namespace
}  // namespace ppsparse
