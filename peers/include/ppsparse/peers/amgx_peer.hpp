#pragma once
/// @file
/// NVIDIA's AmgX (an aggregation algebraic multigrid for GPUs, block CSR, multicolour smoothers)
/// as a benchmark peer of mcpi::Multigrid: the same block system, the same right-hand side, the
/// same start (x = 0) and the same stopping rule (||b - A x||_2 <= rtol ||b||_2).
///
/// Built only where CMake was given AmgX (-DPPSPARSE_AMGX_ROOT=..., CUDA builds:
/// peers/amgx/amgx_peer.cpp). Elsewhere available() is false and every other call refuses.
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/formats/bsr.hpp>

namespace ppsparse::mcpi {

/// One AmgX solve.
struct AmgxSolve {
  int iterations = 0;
  bool converged = false;
  double seconds = 0;  ///< AMGX_solver_solve, the device synchronised after it
  std::string status;  ///< "success", "failed", "diverged" or "not converged"
};

class AmgxPeer {
 public:
  /// The AmgX configuration of the comparison (docs/perf/multigrid.md): its shipped
  /// FGMRES_AGGREGATION setting (pairwise aggregation of block rows, "SIZE_2"; a V-cycle with
  /// 3 multicolour DILU sweeps after the correction; a dense LU on the coarsest level) with
  /// FGMRES restarted every 30 iterations, as mcpi::Fgmres is by default.
  static std::string default_config();

  /// Whether this build has AmgX, and which ("AmgX 2.5.0", or "none").
  static bool available();
  static std::string library();

  /// `config`: AmgX's configuration text, its JSON or its "key=value, ..." form (AmgX checks
  /// it). The solver stops at ||b - A x||_2 <= rtol ||b||_2 or after max_iterations.
  AmgxPeer(const std::string& config, double rtol, int max_iterations);
  ~AmgxPeer();
  AmgxPeer(AmgxPeer&&) noexcept;
  AmgxPeer& operator=(AmgxPeer&&) noexcept;
  AmgxPeer(const AmgxPeer&) = delete;
  AmgxPeer& operator=(const AmgxPeer&) = delete;

  /// The full A = D + O (FP64, column-major blocks as BsrMatrix keeps them): uploaded (AmgX takes
  /// row-major blocks and 32-bit indices) and set up (AmgX's hierarchy). Returns the seconds,
  /// the upload included. InvalidArgument past 32-bit sizes; Error naming AmgX's message.
  double setup(const BsrMatrix<double, HostSpace>& a);
  /// New values of the same pattern (a flow's next Newton step): AmgX's coefficients replaced
  /// and its hierarchy set up again. Returns the seconds.
  double refresh(const BsrMatrix<double, HostSpace>& a);
  /// x from zero for right-hand side b (n * nb values, each block row's nb together).
  AmgxSolve solve(const std::vector<double>& b, std::vector<double>& x);
  /// AmgX's levels after setup(), from the grid statistics it prints (0 where it printed none).
  int levels() const;
  /// "AmgX: L levels of n0 n1 ... block rows", finest first.
  std::string describe() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppsparse::mcpi
