#pragma once
// mcpi --mpk P: the matrix power kernel y_k = A^k x (k = 1..P) on the app's problem, every
// variant timed against P back-to-back SpMVs and validated against them to round-off.
#include <string>

#include <ppsparse/formats/csr.hpp>

#include "options.hpp"
#include "problem.hpp"

namespace mcpi_app {

// The matrix the mode runs on: the --matrix file itself in FP64 (unless --pattern-only),
// else the scalar matrix of the problem's block system (D + O, block_system_to_csr).
ppsparse::CsrMatrix<double, ppsparse::HostSpace> mpk_matrix(const Problem& problem, const Options& options);

// Runs the mode on `a` and prints (stdout):
//   mpk       P, n, nnz, levels and their order (bfs or input, LevelMatrixOptions::ordering)
//   schedule  groups, launches, cache budget and last-level cache, persistent teams
//   baseline  the SpMV kernel of back_to_back; copy bandwidth
//   a table: variant (automatic shows what it chose), ms per MPK (median of
//   max(5, min(--sweeps, 50)) runs after one warm-up, in the level numbering), GB/s by the
//   back-to-back model (the matrix once per power) and by the blocked model (the matrix once),
//   % of copy (blocked model), speedup over back_to_back, and the round-off check against
//   back_to_back (max |y - y_b2b| / (2 bound); <= 1 passes; back_to_back itself is checked
//   against the FP64 host reference);
//   the cost of permuting x in and Y out (apply() in the user's numbering).
// With --json FILE the same as JSON. Options used: --sweeps (repetitions), --seed (x),
// --json. Returns 0 if every variant passes its check, 1 otherwise (a line on stderr says
// which). Throws ppsparse errors for bad input (P < 1, a non-square matrix).
int run_mpk_mode(const ppsparse::CsrMatrix<double, ppsparse::HostSpace>& a, const std::string& description,
                 const Options& options, int powers);

// run_mpk_mode(mpk_matrix(problem, options), problem.description, options, powers).
int run_mpk_mode(const Problem& problem, const Options& options, int powers);

}  // namespace mcpi_app
