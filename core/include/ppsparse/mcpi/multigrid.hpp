#pragma once
/// @file
/// An aggregation multigrid preconditioner for the block systems of the MCPI solver, on the
/// device, whose smoother on every level is MCPI sweeps (Notay 2010; Mavriplis 1998): the block
/// rows are aggregated by repeated pairwise matching along their strongest couplings, each coarse
/// operator is the Galerkin product of a piecewise-constant block prolongation, and a cycle (W by
/// default, or V) sweeps, restricts the residual, corrects from the coarser level and sweeps
/// again; the coarsest level is solved by sweeps.
///
///   mcpi::Multigrid<> mg(pattern);                  // the finest level: an mcpi::Solver
///   mg.update(exec, O, D);                         // values: the hierarchy (first call), its values
///   mcpi::Fgmres<> gmres(mg.fine(), control);
///   gmres.set_preconditioner(mg.preconditioner()); // FGMRES right-preconditioned by one cycle
///   gmres.solve(exec, R, dQ);
///
/// The aggregates and the coarse patterns are formed at the first update(), from its values'
/// couplings, and kept: every later update() refreshes the coarse values only (a flow's Newton
/// steps), which gives the same hierarchy as a fresh setup, bit for bit.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/mcpi/solver.hpp>

namespace ppsparse::mcpi {

/// How the hierarchy is built and cycled.
struct MultigridOptions {
  int max_levels = 12;          ///< levels, the finest included; >= 1
  ordinal_t coarse_rows = 500;  ///< coarsening stops at or below this many block rows; >= 1
  int matching_passes = 2;      ///< pairwise matchings per level (up to 2^passes rows per aggregate); >= 1
  int pre_sweeps = 1;           ///< MCPI sweeps before the coarse correction; >= 0
  int post_sweeps = 1;          ///< after it; >= 0
  int coarse_sweeps = 20;       ///< on the coarsest level; >= 1
  /// Coarse corrections per visit of a level: 1 a V-cycle, 2 (the default) a W-cycle, each a
  /// residual, its restriction, a cycle on the coarser level and the prolongation; 1..3.
  /// Aggregation's piecewise-constant prolongation needs the W-cycle for iterations that do
  /// not grow with the mesh (on a 3-D block Laplacian: 13, 12, 12 FGMRES iterations at 6^3,
  /// 12^3, 24^3 vertices against 14, 19, 22 with V-cycles; test_multigrid).
  int cycle_index = 2;
};

/// One level of the hierarchy.
struct MultigridLevel {
  ordinal_t n = 0;    ///< block rows
  offset_t nnzb = 0;  ///< off-diagonal blocks
  int colors = 0;
};

/// InvalidArgument naming the field unless o is valid.
void check_multigrid_options(const MultigridOptions& o);

template <class ExecSpace = DefaultExecSpace>
class Multigrid {
 public:
  using Vector = typename Solver<ExecSpace>::Vector;
  using ConstVector = typename Solver<ExecSpace>::ConstVector;

  /// The finest level's setup from the structure of O (as mcpi::Solver's, with `setup`).
  template <class PatternSpace>
  explicit Multigrid(const BlockPattern<PatternSpace>& pattern, const MultigridOptions& options = {},
                     const SetupOptions& setup = {})
      : Multigrid(detail::host_pattern(pattern), options, setup) {}
  Multigrid(Multigrid&&) noexcept;
  Multigrid& operator=(Multigrid&&) noexcept;
  ~Multigrid();

  /// New values in the user's numbering, as Solver::update: the finest level's, then every
  /// coarse level's by the Galerkin product (the hierarchy formed at the first call).
  template <class OView, class DView>
  void update(const ExecSpace& exec, const OView& O, const DView& D, BlockOrder order = BlockOrder::column_major) {
    update_arrays(exec, detail::user_array<ExecSpace>(O, "multigrid update: O"),
                  detail::user_array<ExecSpace>(D, "multigrid update: D"), order);
  }

  /// The finest level: its Solver (FGMRES's operator and its numbering).
  Solver<ExecSpace>& fine();
  /// z = M^-1 v by one cycle, in the finest solver's colour order, on exec.
  void precondition(const ExecSpace& exec, const ConstVector& v, const Vector& z);
  /// precondition() as FGMRES takes it (Fgmres::set_preconditioner); the hierarchy must outlive it.
  std::function<void(const ExecSpace&, const ConstVector&, const Vector&)> preconditioner();
  /// The levels, finest first (only the finest before the first update()).
  std::vector<MultigridLevel> levels() const;

 private:
  Multigrid(const detail::HostPattern& pattern, const MultigridOptions& options, const SetupOptions& setup);
  void update_arrays(const ExecSpace& exec, const detail::UserArray& O, const detail::UserArray& D, BlockOrder order);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppsparse::mcpi
