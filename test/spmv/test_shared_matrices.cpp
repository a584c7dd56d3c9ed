// Real structure: every Matrix Market file of ../shared/matrices through every algorithm.
#include <gtest/gtest.h>

#include <filesystem>

#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/spmv/spmv.hpp>

#include "spmv_test_util.hpp"

namespace ppsparse::test {
namespace {

TEST(SpmvSharedMatrices, EveryAlgorithmMatchesTheReference) {
  const auto dir = shared_dir();
  if (dir.empty() || !std::filesystem::exists(dir / "matrices"))
    GTEST_SKIP() << "no ../shared/matrices beside the checkout";
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "matrices")) {
    if (entry.path().extension() != ".mtx") continue;
    ++files;
    const auto a64 = io::read_matrix_market<double>(entry.path().string());
    const auto a32 = convert_values<float>(a64);
    const auto d64 = copy_to<Mem>(a64);
    const auto d32 = copy_to<Mem>(a32);
    for (auto alg : spmv::all_spmv_algorithms()) {
      const std::string what = std::string(spmv::to_string(alg)) + " on " + entry.path().filename().string();
      spmv::SpmvOperator<Exec, double> op64(alg, d64);
      expect_matches_reference<double>(
          what, a64, [&](double al, const auto& x, double be, const auto& y) { op64.apply(al, x, be, y); }, seed);
      spmv::SpmvOperator<Exec, float> op32(alg, d32);
      expect_matches_reference<float>(
          what + " (FP32)", a32, [&](float al, const auto& x, float be, const auto& y) { op32.apply(al, x, be, y); },
          seed);
    }
  }
  EXPECT_GT(files, 0) << "no .mtx file in " << (dir / "matrices");
}

}  // namespace
}  // namespace ppsparse::test
