#pragma once
/// @file
/// An aggregation multigrid preconditioner for the block systems of the MCPI solver, on the
/// device, whose smoother on every level is MCPI sweeps (Notay 2010; Mavriplis 1998): the block
/// rows are aggregated by repeated pairwise matching along their strongest couplings, each coarse
/// operator is the Galerkin product of a piecewise-constant block prolongation, and a cycle (K by
/// default, or V or W) sweeps, restricts the residual, corrects from the coarser level and sweeps
/// again; the coarsest level is solved by sweeps. A cycle keeps its inner products on the
/// device, so that on GPUs it is recorded once as a device graph and replayed: its thousands of
/// small launches on the coarse levels would otherwise bound its time (docs/perf/multigrid.md).
///
///   mcpi::Multigrid<> mg(pattern);                  // the finest level: an mcpi::Solver
///   mg.update(exec, O, D);                         // values: the hierarchy (first call), its values
///   mcpi::Fgmres<> gmres(mg.fine(), control);
///   gmres.set_preconditioner(mg.preconditioner()); // FGMRES right-preconditioned by one cycle
///   gmres.solve(exec, R, dQ);
///
/// or, assembled in place: write the finest values into mg.storage() (as Solver::storage()),
/// then mg.factor(exec).
///
/// The aggregates and the coarse patterns are formed at the first update() or factor(), from
/// its values' couplings, and kept: every later one refreshes the coarse values only (a flow's
/// Newton steps), which gives the same hierarchy as a fresh setup, bit for bit. Each coarse
/// level's values are summed (in FP64) from the level above's storage straight into its own:
/// O in FP32 or coded straight from the sums (MultigridOptions::coarse_o_format; BF16 by
/// default), D in FP64 before it is factored. The hierarchy keeps no other copy of any level's
/// values.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ppsparse/mcpi/solver.hpp>

namespace ppsparse::mcpi {

/// How the hierarchy is built and cycled.
struct MultigridOptions {
  int max_levels = 12;          ///< levels, the finest included; >= 1
  ordinal_t coarse_rows = 500;  ///< coarsening stops at or below this many block rows; >= 1
  int matching_passes = 2;      ///< pairwise matchings per level (mostly 2^passes rows per aggregate); >= 1
  /// MCPI sweeps before and after the coarse correction; >= 0. Two each: on the flows'
  /// Jacobians one each leaves the preconditioner weaker than the sweeps it saves.
  int pre_sweeps = 2;
  int post_sweeps = 2;
  int coarse_sweeps = 20;  ///< on the coarsest level; >= 1
  /// How a level corrects from the coarser one (Notay and Vassilevski 2008):
  /// - v: once (a V-cycle);
  /// - w: twice, each from the residual left by the last (a W-cycle);
  /// - k: by up to two steps of a flexible Krylov method (GCR) on the coarse system, each
  ///   preconditioned by the coarser level's cycle, the second skipped where the first cut the
  ///   coarse residual 4-fold (a K-cycle). Aggregation's piecewise-constant prolongation needs
  ///   the W- or K-cycle for iterations that do not grow with the mesh. On the flows' Jacobians
  ///   the K-cycle takes the fewest steps; on a GPU its many visits of the coarse levels cost
  ///   more time than a V-cycle's in a deep hierarchy (docs/perf/multigrid.md).
  enum class Cycle { v, w, k } cycle = Cycle::k;
  /// The W- or K-cycle's corrections at every cycle_every-th level only (levels cycle_every - 1,
  /// 2 cycle_every - 1, ..., the finest being 0), the V-cycle's single correction between; >= 1.
  /// Over aggregates of two, 2 visits each level about as often as a K-cycle over aggregates of
  /// four does.
  int cycle_every = 1;
  /// The W- or K-cycle's corrections only at levels of at least this many block rows, the
  /// V-cycle's single correction below; >= 0. The deep levels of a hierarchy over pairs are small
  /// and many: visited more than once, their launches, not their bytes, bound the cycle's time.
  ordinal_t cycle_min_rows = 0;
  /// How each prolonged coarse correction e is scaled before it is added, by an alpha from one
  /// more operator product per correction:
  /// - energy: alpha = (e, r) / (e, A e), the energy norm's best for a symmetric A (near 2 on the
  ///   Laplacian: aggregation's coarse operators correct too little there; Braess 1995);
  /// - residual: alpha minimising |r - alpha A e| (0.13-0.23 on the flows' Jacobians, where the
  ///   unscaled correction overshoots and gains nothing over the sweeps it costs);
  /// - automatic (the default): energy where the finest O is nearly symmetric (|O - O^T|_F at
  ///   most a tenth of |O|_F), residual otherwise;
  /// - none: alpha = 1.
  enum class Scaling { automatic, none, energy, residual } scaling = Scaling::automatic;
  /// O's storage format on the coarse levels (mcpi/o_formats.def), each level coded straight
  /// from its Galerkin sums, with no FP32 copy. Unset (the default): BF16 where the finest
  /// level's O is FP32, else the finest level's format. The coarse operators only precondition:
  /// on the flows' Jacobians BF16 coarse levels take the steps FP32 ones take, for half their O
  /// bytes (docs/perf/multigrid.md).
  std::optional<OFormat> coarse_o_format;

  /// The setting for the Jacobians of compressible flows (nonsymmetric, convection-dominated),
  /// by measurement (docs/perf/multigrid.md): aggregates of two block rows (one matching pass)
  /// down to 32 block rows, a V-cycle with 1 MCPI sweep before each coarse correction and 4
  /// after, 30 sweeps on the coarsest level, the corrections unscaled (AmgX's aggregation AMG
  /// cycles the same way, with 0 + 3). On the flows it takes fewer FGMRES iterations than the
  /// K-cycle over aggregates of four, and the same V-cycle with the automatic (residual)
  /// scaling does not converge. mcpi --flow's default for --linear multigrid.
  static MultigridOptions flow_jacobian() {
    MultigridOptions o;
    o.max_levels = 20;
    o.coarse_rows = 32;
    o.matching_passes = 1;
    o.pre_sweeps = 1;
    o.post_sweeps = 4;
    o.coarse_sweeps = 30;
    o.cycle = Cycle::v;
    o.scaling = Scaling::none;
    return o;
  }

  friend bool operator==(const MultigridOptions& a, const MultigridOptions& b) {
    return a.max_levels == b.max_levels && a.coarse_rows == b.coarse_rows && a.matching_passes == b.matching_passes &&
           a.pre_sweeps == b.pre_sweeps && a.post_sweeps == b.post_sweeps && a.coarse_sweeps == b.coarse_sweeps &&
           a.cycle == b.cycle && a.cycle_every == b.cycle_every && a.cycle_min_rows == b.cycle_min_rows &&
           a.scaling == b.scaling && a.coarse_o_format == b.coarse_o_format;
  }
};

/// One level of the hierarchy.
struct MultigridLevel {
  ordinal_t n = 0;    ///< block rows
  offset_t nnzb = 0;  ///< off-diagonal blocks
  int colors = 0;
  size_t device_bytes = 0;  ///< its arrays' (mcpi::Solver::device_bytes)
};

/// InvalidArgument naming the field unless o is valid.
void check_multigrid_options(const MultigridOptions& o);

/// The coarse levels' O format under o for a finest level whose O is in `finest`
/// (MultigridOptions::coarse_o_format resolved).
OFormat coarse_o_format(const MultigridOptions& o, OFormat finest);

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

  /// The finest level's value storage for an assembly in place (Solver::storage()); factor()
  /// then completes the numeric phase of every level.
  typename Solver<ExecSpace>::Storage storage();
  /// After writing into storage(): the coarse levels' values by the Galerkin product (the
  /// hierarchy formed at the first call), then every level's D factored and O coded.
  /// NumericalError naming the level and block for a failed pivot.
  void factor(const ExecSpace& exec);

  /// The finest level: its Solver (FGMRES's operator and its numbering).
  Solver<ExecSpace>& fine();
  /// z = M^-1 v by one cycle, in the finest solver's colour order, on exec.
  void precondition(const ExecSpace& exec, const ConstVector& v, const Vector& z);
  /// precondition() as FGMRES takes it (Fgmres::set_preconditioner); the hierarchy must outlive it.
  std::function<void(const ExecSpace&, const ConstVector&, const Vector&)> preconditioner();
  /// The recordings and replays of the whole cycle as one device graph (CUDA and HIP: every
  /// cycle after the first is a replay, with no host work inside it), and why a cycle ran
  /// eagerly where it did.
  GraphStats graph_stats() const;
  /// The levels, finest first (only the finest before the first update()).
  std::vector<MultigridLevel> levels() const;
  /// Device memory held: every level's arrays, and the transfers and Galerkin maps between them.
  size_t device_bytes() const;

 private:
  Multigrid(const detail::HostPattern& pattern, const MultigridOptions& options, const SetupOptions& setup);
  void update_arrays(const ExecSpace& exec, const detail::UserArray& O, const detail::UserArray& D, BlockOrder order);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppsparse::mcpi
