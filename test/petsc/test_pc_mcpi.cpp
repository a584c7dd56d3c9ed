// PCMCPI (petsc/src/pc_mcpi.cpp, block_rows.cpp) through PETSc's KSP, on as many ranks as
// mpiexec gives: answers against block Jacobi's, numeric updates against fresh setups bit for
// bit, every matrix type it takes, its options, and the errors of bad matrices and options.
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <petscksp.h>

#include <ppsparse/petsc/pc_mcpi.h>

#include "../../examples/petsc/block_system.h"

namespace {

constexpr PetscInt kGrid = 12;  // 144 block rows

int ranks() {
  int size = 1;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  return size;
}

/// The system of examples/petsc/block_system.h in `type` (baij or aij), block size nb.
Mat system_matrix(MatType type, PetscInt nb = 3, PetscInt missing_diagonal = -1) {
  // The example assembles into the type the options name: set it for this matrix only.
  EXPECT_EQ(PetscOptionsSetValue(nullptr, "-mat_type", type), 0);
  Mat A = nullptr;
  EXPECT_EQ(assemble_block_system(PETSC_COMM_WORLD, kGrid, nb, missing_diagonal, &A), 0);
  EXPECT_EQ(PetscOptionsClearValue(nullptr, "-mat_type"), 0);
  return A;
}

/// A KSP of `type` preconditioned by PCMCPI, its options from `options` (set for it alone).
KSP mcpi_ksp(Mat A, KSPType type, const std::string& options = "") {
  KSP ksp = nullptr;
  EXPECT_EQ(KSPCreate(PETSC_COMM_WORLD, &ksp), 0);
  EXPECT_EQ(KSPSetOperators(ksp, A, A), 0);
  EXPECT_EQ(KSPSetType(ksp, type), 0);
  EXPECT_EQ(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 400), 0);
  PC pc = nullptr;
  EXPECT_EQ(KSPGetPC(ksp, &pc), 0);
  EXPECT_EQ(PCSetType(pc, PCMCPI), 0);
  EXPECT_EQ(PetscOptionsInsertString(nullptr, options.c_str()), 0);
  EXPECT_EQ(KSPSetFromOptions(ksp), 0);
  EXPECT_EQ(PetscOptionsClear(nullptr), 0);
  return ksp;
}

/// x = A^-1 b by GMRES with block Jacobi to 1e-13: the reference.
Vec reference_solution(Mat A, Vec b) {
  KSP ksp = nullptr;
  PC pc = nullptr;
  Vec x = nullptr;
  EXPECT_EQ(KSPCreate(PETSC_COMM_WORLD, &ksp), 0);
  EXPECT_EQ(KSPSetOperators(ksp, A, A), 0);
  EXPECT_EQ(KSPSetType(ksp, KSPGMRES), 0);
  EXPECT_EQ(KSPGetPC(ksp, &pc), 0);
  EXPECT_EQ(PCSetType(pc, PCBJACOBI), 0);
  EXPECT_EQ(KSPSetTolerances(ksp, 1e-13, 1e-300, PETSC_DEFAULT, 5000), 0);
  EXPECT_EQ(VecDuplicate(b, &x), 0);
  EXPECT_EQ(KSPSolve(ksp, b, x), 0);
  KSPConvergedReason reason;
  EXPECT_EQ(KSPGetConvergedReason(ksp, &reason), 0);
  EXPECT_GT(reason, 0);
  KSPDestroy(&ksp);
  return x;
}

/// A right-hand side with distinct entries (a fresh one per seed).
Vec rhs(Mat A, int seed) {
  Vec b = nullptr;
  EXPECT_EQ(MatCreateVecs(A, nullptr, &b), 0);
  PetscInt first = 0, end = 0;
  VecGetOwnershipRange(b, &first, &end);
  for (PetscInt i = first; i < end; ++i)
    VecSetValue(b, i, std::sin(0.37 * static_cast<double>(i) + seed), INSERT_VALUES);
  VecAssemblyBegin(b);
  VecAssemblyEnd(b);
  return b;
}

/// |x - y| / |y|.
double distance(Vec x, Vec y) {
  Vec d = nullptr;
  VecDuplicate(x, &d);
  VecWAXPY(d, -1.0, y, x);
  PetscReal dn = 0, yn = 0;
  VecNorm(d, NORM_2, &dn);
  VecNorm(y, NORM_2, &yn);
  VecDestroy(&d);
  return dn / yn;
}

/// Solves with ksp and expects it converged to the reference solution.
void expect_solves(KSP ksp, Mat A, int seed, double tolerance = 1e-7) {
  Vec b = rhs(A, seed), x = nullptr;
  VecDuplicate(b, &x);
  ASSERT_EQ(KSPSolve(ksp, b, x), 0);
  KSPConvergedReason reason;
  KSPGetConvergedReason(ksp, &reason);
  EXPECT_GT(reason, 0) << KSPConvergedReasons[reason];
  Vec ref = reference_solution(A, b);
  EXPECT_LT(distance(x, ref), tolerance);
  VecDestroy(&ref);
  VecDestroy(&x);
  VecDestroy(&b);
}

/// z = M^-1 v by ksp's preconditioner, as a host copy of this rank's entries.
std::vector<double> apply_pc(KSP ksp, Vec v) {
  PC pc = nullptr;
  KSPGetPC(ksp, &pc);
  EXPECT_EQ(KSPSetUp(ksp), 0);
  Vec z = nullptr;
  VecDuplicate(v, &z);
  EXPECT_EQ(PCApply(pc, v, z), 0);
  PetscInt n = 0;
  VecGetLocalSize(z, &n);
  const PetscScalar* a = nullptr;
  VecGetArrayRead(z, &a);
  std::vector<double> out(a, a + n);
  VecRestoreArrayRead(z, &a);
  VecDestroy(&z);
  return out;
}

std::pair<PetscInt, PetscInt> counts(KSP ksp) {
  PC pc = nullptr;
  KSPGetPC(ksp, &pc);
  PetscInt setups = -1, updates = -1;
  EXPECT_EQ(PCMcpiGetSetupCounts(pc, &setups, &updates), 0);
  return {setups, updates};
}

/// The PETSc error that f() returns (PETSc's handler returns codes here, printing nothing), and
/// its message; ok = 0 and "" when none.
std::pair<PetscErrorCode, std::string> petsc_error(const std::function<PetscErrorCode()>& f) {
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  const PetscErrorCode code = f();
  PetscPopErrorHandler();
  if (code == 0) return {0, ""};
  const char* text = nullptr;
  char* specific = nullptr;
  PetscErrorMessage(code, &text, &specific);
  return {code, specific ? specific : ""};
}

/// What PCView prints for ksp's preconditioner (rank 0 writes it; every rank reads it).
std::string pc_view(KSP ksp) {
  PC pc = nullptr;
  KSPGetPC(ksp, &pc);
  const char* path = "pc_mcpi_view.txt";
  PetscViewer viewer = nullptr;
  EXPECT_EQ(PetscViewerASCIIOpen(PETSC_COMM_WORLD, path, &viewer), 0);
  EXPECT_EQ(PCView(pc, viewer), 0);
  PetscViewerDestroy(&viewer);
  MPI_Barrier(PETSC_COMM_WORLD);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  MPI_Barrier(PETSC_COMM_WORLD);
  return text.str();
}

TEST(PcMcpi, FgmresConvergesToBlockJacobisAnswer) {
  Mat A = system_matrix(MATBAIJ);
  KSP ksp = mcpi_ksp(A, KSPFGMRES);
  expect_solves(ksp, A, 1);
  EXPECT_EQ(counts(ksp), std::make_pair(PetscInt(1), PetscInt(0)));
  KSPDestroy(&ksp);
  MatDestroy(&A);
}

TEST(PcMcpi, GmresAndBiCGStabDriveIt) {
  Mat A = system_matrix(MATBAIJ);
  for (const KSPType type : {KSPGMRES, KSPBCGS}) {
    KSP ksp = mcpi_ksp(A, type);
    expect_solves(ksp, A, 2);
    KSPDestroy(&ksp);
  }
  MatDestroy(&A);
}

TEST(PcMcpi, SamePatternIsANumericUpdateEqualToAFreshSetup) {
  Mat A = system_matrix(MATBAIJ);
  KSP ksp = mcpi_ksp(A, KSPFGMRES);
  expect_solves(ksp, A, 3);
  // New values in the same pattern: the diagonal shifted (a smaller time step).
  ASSERT_EQ(MatShift(A, 0.75), 0);
  ASSERT_EQ(KSPSetOperators(ksp, A, A), 0);
  expect_solves(ksp, A, 4);
  EXPECT_EQ(counts(ksp), std::make_pair(PetscInt(1), PetscInt(1)));
  // Its preconditioner is a fresh setup's on the new values, bit for bit.
  Vec v = rhs(A, 5);
  KSP fresh = mcpi_ksp(A, KSPFGMRES);
  EXPECT_EQ(apply_pc(ksp, v), apply_pc(fresh, v));
  VecDestroy(&v);
  KSPDestroy(&fresh);
  KSPDestroy(&ksp);
  MatDestroy(&A);
}

TEST(PcMcpi, NewPatternIsANewSetup) {
  Mat A = system_matrix(MATBAIJ);
  KSP ksp = mcpi_ksp(A, KSPFGMRES);
  expect_solves(ksp, A, 6);
  // A new block between the first and the last block row: a new pattern.
  ASSERT_EQ(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE), 0);
  PetscInt first = 0, end = 0;
  MatGetOwnershipRange(A, &first, &end);
  if (first == 0) {
    const PetscInt row = 0, col = kGrid * kGrid - 1;
    const std::vector<PetscScalar> block(9, -0.05);
    ASSERT_EQ(MatSetValuesBlocked(A, 1, &row, 1, &col, block.data(), INSERT_VALUES), 0);
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  ASSERT_EQ(KSPSetOperators(ksp, A, A), 0);
  expect_solves(ksp, A, 7);
  EXPECT_EQ(counts(ksp).first, 2);
  KSPDestroy(&ksp);
  MatDestroy(&A);
}

TEST(PcMcpi, AijWithItsBlockSizeIsBaijBitForBit) {
  Mat baij = system_matrix(MATBAIJ), aij = system_matrix(MATAIJ);
  KSP kb = mcpi_ksp(baij, KSPFGMRES), ka = mcpi_ksp(aij, KSPFGMRES);
  Vec v = rhs(baij, 8);
  EXPECT_EQ(apply_pc(ka, v), apply_pc(kb, v));
  expect_solves(ka, aij, 9);
  VecDestroy(&v);
  KSPDestroy(&kb);
  KSPDestroy(&ka);
  MatDestroy(&baij);
  MatDestroy(&aij);
}

TEST(PcMcpi, BlockSizeOneIsScalarGaussSeidel) {
  Mat A = system_matrix(MATAIJ, 1);
  KSP ksp = mcpi_ksp(A, KSPGMRES);
  expect_solves(ksp, A, 10);
  KSPDestroy(&ksp);
  MatDestroy(&A);
}

TEST(PcMcpi, OptionsChooseTheFormatTheKernelAndMultigrid) {
  Mat A = system_matrix(MATBAIJ);
  std::vector<std::string> settings = {"-pc_mcpi_o_format int8 -pc_mcpi_sweeps 3 -pc_mcpi_lu_fp32",
                                       "-pc_mcpi_o_format bf16 -pc_mcpi_variant warp_per_row"};
  if (ranks() == 1) settings.push_back("-pc_mcpi_multigrid -pc_mcpi_mg_cycle v -pc_mcpi_mg_coarse_rows 20");
  for (const std::string& s : settings) {
    SCOPED_TRACE(s);
    KSP ksp = mcpi_ksp(A, KSPFGMRES, s);
    expect_solves(ksp, A, 11);
    // What PCView says it ran.
    const std::string view = pc_view(ksp);
    const std::string format = s.find("int8") != std::string::npos   ? "int8"
                               : s.find("bf16") != std::string::npos ? "bf16"
                                                                     : "fp32";
    EXPECT_NE(view.find("O stored in " + format), std::string::npos) << view;
    const bool lu_fp32 = s.find("lu_fp32") != std::string::npos;
    EXPECT_NE(view.find(std::string("D's LU factors read in ") + (lu_fp32 ? "FP32" : "FP64")), std::string::npos)
        << view;
    EXPECT_NE(view.find("setups 1, numeric updates 0"), std::string::npos) << view;
    if (s.find("multigrid") != std::string::npos) {
      EXPECT_NE(view.find("one v-cycle of aggregation multigrid"), std::string::npos) << view;
      EXPECT_NE(view.find("levels (block rows): 144, "), std::string::npos) << view;
    } else
      EXPECT_NE(view.find(s.find("3") != std::string::npos ? "3 MCPI sweeps" : "5 MCPI sweeps"), std::string::npos)
          << view;
    KSPDestroy(&ksp);
  }
  MatDestroy(&A);
}

TEST(PcMcpiErrors, BadOptionsNameTheOption) {
  Mat A = system_matrix(MATBAIJ);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-pc_mcpi_sweeps 0", "-pc_mcpi_sweeps 0 is outside 1..1000000"},
      {"-pc_mcpi_variant fastest", "-pc_mcpi_variant: unknown MCPI variant 'fastest'"},
      {"-pc_mcpi_o_format fp8", "fp8"},
  };
  for (const auto& [option, message] : cases) {
    SCOPED_TRACE(option);
    KSP ksp = nullptr;
    KSPCreate(PETSC_COMM_WORLD, &ksp);
    KSPSetOperators(ksp, A, A);
    PC pc = nullptr;
    KSPGetPC(ksp, &pc);
    PCSetType(pc, PCMCPI);
    PetscOptionsInsertString(nullptr, option.c_str());
    const auto [code, text] = petsc_error([&] { return KSPSetFromOptions(ksp); });
    PetscOptionsClear(nullptr);
    EXPECT_NE(code, 0);
    EXPECT_NE(text.find(message), std::string::npos) << text;
    KSPDestroy(&ksp);
  }
  MatDestroy(&A);
}

/// The error PCSetUp raises for A, on every rank.
std::string setup_error(Mat A) {
  KSP ksp = mcpi_ksp(A, KSPFGMRES);
  const auto [code, text] = petsc_error([&] { return KSPSetUp(ksp); });
  EXPECT_NE(code, 0);
  KSPDestroy(&ksp);
  return text;
}

TEST(PcMcpiErrors, MatricesItCannotTakeAreNamedInPetscsNumbering) {
  const PetscInt last = kGrid * kGrid - 1;  // on the last rank
  // A block row without its diagonal block.
  Mat missing = system_matrix(MATBAIJ, 3, last);
  EXPECT_NE(
      setup_error(missing).find("PCMCPI: block row " + std::to_string(last) + " (rows " + std::to_string(3 * last) +
                                ".." + std::to_string(3 * last + 2) + ") has no diagonal block"),
      std::string::npos);
  MatDestroy(&missing);

  // A singular diagonal block (its first row zeroed), named by its block row.
  Mat singular = system_matrix(MATBAIJ);
  PetscInt first = 0, end = 0;
  MatGetOwnershipRange(singular, &first, &end);
  if (end == 3 * (last + 1)) {
    const PetscInt row = 3 * last;
    const PetscInt cols[3] = {row, row + 1, row + 2};
    const PetscScalar zeros[3] = {0, 0, 0};
    MatSetValues(singular, 1, &row, 3, cols, zeros, INSERT_VALUES);
  }
  MatAssemblyBegin(singular, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(singular, MAT_FINAL_ASSEMBLY);
  const std::string pivot = setup_error(singular);
  EXPECT_NE(pivot.find(ranks() == 1 ? "diagonal block " + std::to_string(last) + ": zero or tiny pivot at row 0"
                                    : "(global id " + std::to_string(last) + "): zero or tiny pivot at row 0"),
            std::string::npos)
      << pivot;
  MatDestroy(&singular);

  // NaN in a value: its row and column.
  Mat nan = system_matrix(MATBAIJ);
  MatGetOwnershipRange(nan, &first, &end);
  const PetscInt row = 3 * last + 1, col = 3 * (last - 1) + 2;
  if (end == 3 * (last + 1)) MatSetValue(nan, row, col, std::numeric_limits<double>::quiet_NaN(), INSERT_VALUES);
  MatAssemblyBegin(nan, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(nan, MAT_FINAL_ASSEMBLY);
  EXPECT_NE(setup_error(nan).find("NaN or Inf at row " + std::to_string(row) + ", column " + std::to_string(col)),
            std::string::npos);
  MatDestroy(&nan);

  // A dense matrix.
  Mat dense = nullptr;
  MatCreateDense(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 6, 6, nullptr, &dense);
  MatAssemblyBegin(dense, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(dense, MAT_FINAL_ASSEMBLY);
  EXPECT_NE(setup_error(dense).find("dense' is not supported: use seqbaij or mpibaij"), std::string::npos);
  MatDestroy(&dense);
}

TEST(PcMcpiErrors, MultigridOnSeveralRanksSaysItRunsOnOne) {
  if (ranks() == 1) GTEST_SKIP() << "one rank runs the multigrid";
  Mat A = system_matrix(MATBAIJ);
  KSP ksp = mcpi_ksp(A, KSPFGMRES, "-pc_mcpi_multigrid");
  const auto [code, text] = petsc_error([&] { return KSPSetUp(ksp); });
  EXPECT_NE(code, 0);
  EXPECT_NE(text.find("-pc_mcpi_multigrid runs on one rank; this communicator has " + std::to_string(ranks())),
            std::string::npos)
      << text;
  // The PC is usable after the error: without multigrid it sets up and solves.
  KSPDestroy(&ksp);
  ksp = mcpi_ksp(A, KSPFGMRES);
  expect_solves(ksp, A, 12);
  KSPDestroy(&ksp);
  MatDestroy(&A);
}

}  // namespace
