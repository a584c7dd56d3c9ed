#pragma once
/// @file
/// Timed MCPI sweeps from dQ = 0 on a solver's stored R: the path of the benchmarks, the mcpi
/// mini-app and the tests that compare kernels sweep by sweep. A thin layer over the solver's
/// public sweep-by-sweep methods (Solver::reset, sweep, residual_norm, dq_user).
#include <algorithm>
#include <string>
#include <vector>

#include <ppsparse/mcpi/solver.hpp>

namespace ppsparse::mcpi {

/// What time_sweeps runs: the number of sweeps, the kernel and its hardware features, and the
/// kernel settings.
struct TimedSweepOptions {
  int sweeps = 15;  ///< >= 0
  /// The kernel and the hardware features (Variant's flags l2_window, async_copy), or auto.
  Variant variant = Variant::automatic();
  bool residual_history = false;  ///< ||R - A dQ|| after each sweep, computed outside the timed path
  /// Stage each group's D blocks through registers into scratch while the SpMV loads are in
  /// flight (the portable form of the asynchronous copy of D).
  bool stage_diagonal = false;
  /// Use the device backend's specialised kernel for the variant when it has one; false forces
  /// the portable Kokkos kernels.
  bool backend_kernels = true;
  /// Settings of the backend's specialised kernels (mcpi/tuning.hpp).
  KernelTuning tuning = {};
  /// Each sweep one replay of a recorded device graph of one sweep (Solver::sweep_graph),
  /// recorded in an untimed sweep first; where none can be recorded, the note says why.
  bool graph = false;
};

/// What time_sweeps returns: dQ in the user's numbering, residual norms when asked, the times
/// of the sweeps, and what ran.
struct TimedSweeps {
  std::vector<double> dq;              ///< n * nb, user's numbering (the iterate, widened)
  std::vector<double> residual_norms;  ///< residual_history: one per sweep
  double initial_residual_norm = 0.0;  ///< ||R|| (dQ = 0), when residual_history
  double seconds = 0.0;                ///< all timed sweeps (device fenced); residuals excluded
  std::vector<double> sweep_seconds;   ///< each sweep's time
  int sweeps = 0;
  Variant variant = Kernel::rows_per_warp;  ///< the variant that ran (auto resolved)
  std::string kernel;                       ///< what ran: "cuda rows_per_warp_l2_async", "portable rows_per_warp", ...
  std::string note;                         ///< fallbacks and hardware settings (L2 window), one line
  bool graph = false;                       ///< the sweeps ran as graph replays
  double graph_record_seconds = 0.0;        ///< the recording's host time (graph)
  /// Mean and median time of one sweep (0 without sweeps).
  double seconds_per_sweep() const { return sweeps ? seconds / sweeps : 0.0; }
  double median_sweep_seconds() const {
    if (sweep_seconds.empty()) return 0.0;
    auto t = sweep_seconds;
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

/// Runs options.sweeps sweeps from dQ = 0 on the solver's stored R (the constructor's or the
/// last apply()'s) on a default instance, each timed (device fenced). InvalidArgument for
/// negative sweeps, bad tuning, or a solver without values.
TimedSweeps time_sweeps(Solver<>& solver, const TimedSweepOptions& options);
inline TimedSweeps time_sweeps(Solver<>&& solver, const TimedSweepOptions& options) {
  return time_sweeps(solver, options);
}

}  // namespace ppsparse::mcpi
