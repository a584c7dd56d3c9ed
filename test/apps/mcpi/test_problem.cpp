#include <gtest/gtest.h>

#include <fstream>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/mcpi/reference.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include "common/mcpi_timed_sweeps.hpp"

#include "problem.hpp"
#include "test_util.hpp"

namespace mcpi_app {
namespace {

void quiet(const std::string&) {}

TEST(McpiProblem, EmbeddedProblemIsColouredAndSolvable) {
  Options o;
  o.grid = 6;
  const auto p = build_problem(o, false, quiet);
  EXPECT_EQ(p.system.n, 216);
  EXPECT_EQ(p.system.nb, 5);
  EXPECT_GT(p.coloring.ncolors, 1);
  const auto res =
      time_sweeps(ppsparse::mcpi::Solver<>(p.system, p.coloring), {5, ppsparse::mcpi::Kernel::rows_per_warp, true});
  EXPECT_LT(res.residual_norms.back(), 1e-2 * res.initial_residual_norm);
}

TEST(McpiProblem, MatrixValuesAreUsedAsBlocks) {
  // A block-tridiagonal SPD matrix (nb = 2) written to a file: block GS converges on it.
  const std::string path = ::testing::TempDir() + "mcpi_problem_tridiag.mtx";
  {
    std::ofstream f(path);
    const int n = 40;
    f << "%%MatrixMarket matrix coordinate real general\n" << n << " " << n << " " << (3 * n - 2) << "\n";
    for (int i = 1; i <= n; ++i) {
      if (i > 1) f << i << " " << i - 1 << " -1\n";
      f << i << " " << i << " 4\n";
      if (i < n) f << i << " " << i + 1 << " -1\n";
    }
  }
  Options o;
  o.source = Options::Source::matrix;
  o.path = path;
  o.block = 2;
  const auto p = build_problem(o, false, quiet);
  EXPECT_EQ(p.system.n, 20);
  // Block row 3 holds scalar rows 6,7: diagonal block [[4,-1],[-1,4]] (column-major).
  EXPECT_EQ(p.system.D(3 * 4 + 0), 4.0);
  EXPECT_EQ(p.system.D(3 * 4 + 1), -1.0);
  EXPECT_EQ(p.system.D(3 * 4 + 2), -1.0);
  const auto res =
      time_sweeps(ppsparse::mcpi::Solver<>(p.system, p.coloring), {30, ppsparse::mcpi::Kernel::warp_per_row, true});
  EXPECT_LT(res.residual_norms.back(), 1e-5 * res.initial_residual_norm);

  o.block = 3;  // 40 rows: not divisible
  try {
    build_problem(o, false, quiet);
    FAIL();
  } catch (const ppsparse::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("not divisible by --block 3"), std::string::npos) << e.what();
  }
  o.pattern_only = true;  // the pattern alone works with any nb
  EXPECT_EQ(build_problem(o, false, quiet).system.n, 40);
}

TEST(McpiProblem, RealMeshRefined) {
  const auto dir = ppsparse::test::shared_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared not present";
  Options o;
  o.source = Options::Source::mesh;
  o.path = (dir / "meshes" / "pipe.su2").string();
  o.block = 3;
  const auto p0 = build_problem(o, false, quiet);
  o.refine = 1;
  const auto p1 = build_problem(o, false, quiet);
  EXPECT_GT(p1.system.n, 4 * p0.system.n);  // tets -> 8: vertices grow ~ 7-8x
  const auto res =
      time_sweeps(ppsparse::mcpi::Solver<>(p1.system, p1.coloring), {6, ppsparse::mcpi::Kernel::split, true});
  EXPECT_LT(res.residual_norms.back(), 1e-2 * res.initial_residual_norm);
}

}  // namespace
}  // namespace mcpi_app
