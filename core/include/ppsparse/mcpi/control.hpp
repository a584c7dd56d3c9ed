#pragma once
/// @file
/// Stopping criteria and the status of an MCPI solve (Solver::apply) and of FGMRES with MCPI
/// preconditioning (mcpi::fgmres): AmgX's solver status, in ppsparse's terms.
#include <string>
#include <vector>

#include <ppsparse/mcpi/variant.hpp>

namespace ppsparse::mcpi {

/// Why a solve stopped.
enum class StopReason {
  converged,   ///< the residual reached max(atol, rtol * initial residual)
  max_sweeps,  ///< the sweep or iteration limit was reached first (also: no tolerance was set)
  diverged,    ///< the residual grew past divergence_factor * initial residual
  not_finite,  ///< a NaN or Inf appeared in the residual or in dQ; dQ is not usable
};
/// "converged", "max_sweeps", "diverged", "not_finite".
const char* name(StopReason r);

/// Where the iteration starts.
enum class InitialGuess {
  zero,   ///< dQ = 0 (FUN3D's MCPI); dQ's contents on entry are ignored
  given,  ///< dQ's contents on entry
};

/// What Solver::apply runs and when it stops. The defaults run 15 sweeps and report the true
/// final residual.
struct Control {
  int max_sweeps = 15;  ///< >= 0
  /// Stop when ||R - A dQ||_2 <= max(atol, rtol * ||R - A dQ_0||_2); 0 disables each.
  double rtol = 0.0;
  double atol = 0.0;
  /// Check the residual every check_interval sweeps (0: never during the sweeps). A check's
  /// residual is formed inside that sweep: each colour's residual just before its update (no
  /// separate pass over the matrix). When it meets the tolerance, the true residual confirms it.
  int check_interval = 5;
  InitialGuess initial_guess = InitialGuess::zero;
  /// Compute the true ||R - A dQ||_2 of the returned dQ (one pass over the matrix). With this
  /// off, no tolerance and check_interval = 0, apply() runs asynchronously on the caller's
  /// instance with no fence; the status then holds no residuals, and NaN in R or dQ goes
  /// undetected: opt out only where the caller checks.
  bool final_residual = true;
  /// Diverged when a residual exceeds divergence_factor * initial residual (> 1).
  double divergence_factor = 1e6;
  /// The kernel; auto picks by nb and device (Solver::resolve).
  Variant variant = Variant::automatic();
  /// Run the sweeps between two residual checks as one recorded device graph (CUDA, HIP): one
  /// launch instead of one or two per colour, exchanges included where they stay on the device
  /// (one rank, or NCCL). Recorded once per solver, variant and number of sweeps, then replayed
  /// (the first apply pays the recording: Solver::graph_stats). Where no graph can be recorded
  /// (host backends, the portable kernels, the L2-window variants, exchanges through MPI) the
  /// colours are launched one by one, with the same result. false: always launched one by one.
  bool sweep_graphs = true;
};

/// The device graphs of a solver's sweeps (Control::sweep_graphs, Solver::sweep_graph).
struct GraphStats {
  int recordings = 0;           ///< graphs recorded and instantiated
  double record_seconds = 0.0;  ///< host time of the recordings (instantiation included)
  long long replays = 0;        ///< graph launches
  /// Why the last sweeps asked for as a graph were launched colour by colour; empty if they
  /// ran as a graph.
  std::string why_not;
};

/// What mcpi::Fgmres runs: FGMRES(restart) right-preconditioned by `sweeps` MCPI sweeps
/// (FUN3D's configuration), Krylov vectors in FP64.
struct FgmresControl {
  int restart = 30;          ///< Krylov vectors per cycle (m), >= 1
  int max_iterations = 300;  ///< >= 0, over all cycles
  /// Stop when ||R - A dQ||_2 <= max(atol, rtol * ||R - A dQ_0||_2); 0 disables each.
  double rtol = 1e-6;
  double atol = 0.0;
  int sweeps = 5;  ///< MCPI sweeps per preconditioner application, >= 1
  InitialGuess initial_guess = InitialGuess::zero;
  double divergence_factor = 1e6;          ///< > 1
  Variant variant = Variant::automatic();  ///< the preconditioner's kernel

  friend bool operator==(const FgmresControl& a, const FgmresControl& b) {
    return a.restart == b.restart && a.max_iterations == b.max_iterations && a.rtol == b.rtol && a.atol == b.atol &&
           a.sweeps == b.sweeps && a.initial_guess == b.initial_guess && a.divergence_factor == b.divergence_factor &&
           a.variant == b.variant;
  }
};

/// One residual check of a solve.
struct ResidualCheck {
  /// The iterate the check measured had this many sweeps behind it (FGMRES: iterations). An
  /// MCPI check is formed during the next sweep, each colour's rows just before their update,
  /// so the first check of check_interval = 1 is labelled 0 and is close to the initial residual.
  int sweep = 0;
  double residual = 0.0;  ///< ||R - A dQ||_2 as the check formed it
};

/// What Solver::apply returns. Residuals are NaN where not computed.
struct Status {
  StopReason reason = StopReason::max_sweeps;
  int sweeps = 0;                 ///< sweeps run (FGMRES: in its preconditioner)
  int iterations = 0;             ///< FGMRES iterations (0 for apply)
  double initial_residual = 0.0;  ///< ||R - A dQ_0||_2
  double final_residual = 0.0;    ///< the true ||R - A dQ||_2 of the returned dQ
  /// The checks, in order (FGMRES: the Arnoldi residual estimate after each iteration).
  std::vector<ResidualCheck> history;
  std::string kernel;  ///< what ran: "cuda rows_per_warp", "portable rows_per_warp", ...
  /// The system the residuals measure: "O as stored (fp32)" (or bf16, fp16, int8), "O's FP32
  /// copy" (OStorage::keep_fp32), or "the user's O in FP64" (FGMRES with OStorage::keep_fp64).
  /// A converged status means that system's residual reached the tolerance.
  std::string system;
  bool converged() const { return reason == StopReason::converged; }
};

}  // namespace ppsparse::mcpi
