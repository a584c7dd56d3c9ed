#pragma once
// The flow's linear solver for each pseudo-time step (NonlinearControl::linear): MCPI sweeps
// alone, FGMRES + MCPI sweeps, or FGMRES + an aggregation multigrid cycle, over the dual mesh's
// block pattern. The Jacobian is assembled into storage(), then factor() and solve().
#include <functional>
#include <memory>
#include <string>

#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/solver.hpp>

#include "flow_solver.hpp"

namespace flow {

class LinearSolver {
 public:
  using Exec = ppsparse::DefaultExecSpace;
  using McpiSolver = ppsparse::mcpi::Solver<Exec>;
  using Vector = Kokkos::View<double*, Exec::memory_space>;

  /// The pattern (0-based, host) stays owned by the caller and must outlive this object.
  LinearSolver(int nb, ordinal_t n, const std::vector<offset_t>& row_ptr, const std::vector<ordinal_t>& col_idx,
               const ppsparse::mcpi::OStorage& o_storage, std::function<void(const std::string&)> say);
  ~LinearSolver();

  /// Sets up what `c` asks for, unless already set up for it (a multigrid's coarse levels come
  /// at its first factor()).
  void prepare(const NonlinearControl& c);
  /// The finest level's value storage, into which the Jacobian is assembled.
  McpiSolver::Storage storage() { return fine().storage(); }
  /// After the assembly: every level's numeric phase. Returns the multigrid's levels (else 0).
  int factor(const Exec& exec);
  /// dQ ~ A^-1 rhs by the prepared method (user numbering, device vectors).
  ppsparse::mcpi::Status solve(const Exec& exec, const Vector& rhs, const Vector& dQ);
  /// Whether solve() runs FGMRES (which can take an operator in place of the assembled matrix).
  bool krylov() const { return gmres_ != nullptr; }
  /// dQ ~ op^-1 rhs by FGMRES with `op` in place of the assembled matrix, which still
  /// preconditions (Fgmres::solve with an operator); needs krylov().
  using Operator = ppsparse::mcpi::Fgmres<Exec>::Operator;
  ppsparse::mcpi::Status solve(const Exec& exec, const Vector& rhs, const Vector& dQ, const Operator& op,
                               const std::string& name);
  /// Its levels' block rows and device memory, in a line ("" before the first prepare()).
  std::string summary() const;

 private:
  McpiSolver& fine() { return mg_ ? mg_->fine() : *solver_; }

  int nb_;
  ordinal_t n_;
  const std::vector<offset_t>& row_ptr_;
  const std::vector<ordinal_t>& col_idx_;
  ppsparse::mcpi::OStorage o_storage_;
  std::function<void(const std::string&)> say_;
  NonlinearControl control_;
  std::unique_ptr<McpiSolver> solver_;                   ///< Linear::mcpi and fgmres
  std::unique_ptr<ppsparse::mcpi::Multigrid<Exec>> mg_;  ///< Linear::multigrid
  std::unique_ptr<ppsparse::mcpi::Fgmres<Exec>> gmres_;
};

}  // namespace flow
