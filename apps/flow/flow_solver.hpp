#pragma once
// An implicit finite-volume Euler solver on median-dual control volumes, first order or second
// (MUSCL): the reference integration of ppsparse's MCPI solver. The residual and its first-order
// exact Jacobian are computed on the device; the Jacobian is assembled in place into
// mcpi::Solver::storage() and factored there; each pseudo-time step solves by MCPI sweeps, FGMRES
// + MCPI or FGMRES + an aggregation multigrid with MCPI smoothing. At second order FGMRES's
// operator is the first-order Jacobian (defect correction) or the second-order residual's, by
// finite differences (Newton-Krylov). Pseudo-transient continuation with local time steps and
// local CFL numbers (Blazek 2015, ch. 6; Mulder and van Leer 1985).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/mesh/mesh.hpp>

#include "dual_mesh.hpp"
#include "euler.hpp"

namespace flow {

/// The physical problem.
struct FlowSetup {
  double mach = 0.5;           ///< free-stream Mach number, > 0
  double alpha = 0, beta = 0;  ///< angle of attack and sideslip, degrees
  int up = 2;                  ///< 3-D: the axis lift points along at alpha = 0 (2: z, as SU2; 1: y); x is the chord
  double gamma = 1.4;
  FluxScheme flux = FluxScheme::rusanov;  ///< the one that converges every measured case (docs/perf/flow_defaults.md)
  double entropy_fix = 0.1;               ///< Harten's delta / speed of sound
  /// Order in space: 1 (each face sees its vertices' states) or 2 (MUSCL: the states
  /// reconstructed to the face from limited gradients, reconstruction.hpp). The Jacobian is
  /// first order either way (defect correction).
  int order = 1;
  /// Second order: Venkatakrishnan's limiter constant K (eps^2 = (K h)^3: the larger, the less
  /// it limits in smooth regions); 0: no limiter (smooth flows only). 1 by measurement
  /// (docs/perf/flow_second_order.md): with 5, flows past sharp corners stalled, their limiters
  /// switching there; with 1 they converge and smooth bodies' forces barely change.
  double limiter_k = 1;
  /// Second order: once the density residual fell by this factor from its first second-order
  /// value (NonlinearControl::first_order_drop), each vertex's limiter may only
  /// decrease (it becomes the smaller of its last value and the new one). Its switching, which
  /// stalls the convergence at sharp trailing edges, then ends, while vertices whose states
  /// still change can still be limited. A limiter kept wholly as it was diverged there
  /// (docs/perf/flow_defaults.md). 0: never.
  double limiter_freeze = 0.5;
  /// Second order: once the density residual fell by this factor from its first second-order
  /// value, the limiter is held as it is, no longer recomputed: the residual is then one smooth
  /// function, which Newton-Krylov steps converge (while the limiter only decreases, each step
  /// changes the function a little, and the residual crept up on the triangular aerofoil
  /// refined once, docs/perf/flow_second_order.md). 0: never.
  double limiter_hold = 1e-3;
  std::vector<BoundaryKind> marker_kinds;  ///< one per mesh marker (assign_boundaries)
  /// Subsonic inlet data, relative to the free stream's static pressure and temperature (0: the
  /// free stream's totals); its direction (empty: the free stream's).
  double inlet_total_pressure = 0, inlet_total_temperature = 0;
  std::vector<double> inlet_direction;
  double outlet_pressure = 1;  ///< subsonic outlet static pressure / free-stream pressure
  double ref_area = 1;         ///< reference area (2-D: length) of the force coefficients
  /// Device threads per block row in the Jacobian's kernel: 2 nb (one derivative direction
  /// each; 0 says the same) or 2 (nb directions each; fewer flux evaluations, more registers).
  /// A tuning.
  int jacobian_lanes = 0;
  /// How the MCPI solver stores the Jacobian's off-diagonal blocks (mcpi/o_format.hpp).
  ppsparse::mcpi::OStorage o_storage;
};

/// InvalidArgument naming the field unless the setup is usable for a mesh of dimension dim with
/// `markers` markers.
void check_setup(const FlowSetup& s, int dim, size_t markers);

/// How the pseudo-time steps run and stop.
struct NonlinearControl {
  double cfl = 10;  ///< every vertex's first CFL number (cfl_factors, AdaptLocalCfl: the next ones)
  /// The CFL number's cap; 0: 1e6 with FGMRES, 5e3 with MCPI alone (whose sweeps stall on the
  /// stiffer systems of larger CFL numbers)
  double cfl_max = 0;
  /// How far a step may move a vertex's density or pressure q: to within [q (1 - x), q / (1 - x)],
  /// x in (0, 1); larger updates are scaled down vertex by vertex (StepRecord::relaxation).
  double max_change = 0.5;
  double drop = 1e-8;  ///< stop when the density residual fell by this factor
  /// Second order: the steps run first order until the density residual fell by this factor,
  /// then second order from that state (its limiter's freezing drop, FlowSetup::limiter_freeze,
  /// counted from the first second-order residual); 0: second order from the start.
  double first_order_drop = 1e-2;
  int max_steps = 100;
  /// MCPI sweeps alone, FGMRES + MCPI sweeps, or FGMRES + an aggregation multigrid cycle
  /// whose levels sweep by MCPI (mcpi/multigrid.hpp; the default, by measurement: faster than
  /// FGMRES + sweeps on the large meshes, GPU and CPU alike, docs/perf/multigrid.md).
  enum class Linear { mcpi, fgmres, multigrid } linear = Linear::multigrid;
  double linear_rtol = 1e-2;  ///< each step's linear tolerance
  int mcpi_sweeps = 100;      ///< MCPI alone: the sweep limit
  /// FGMRES: sweeps per preconditioner application; 0: 20 at first order, 40 at second (the
  /// fastest measured at each, docs/perf/flow_defaults.md and flow_second_order.md).
  int fgmres_sweeps = 0;
  /// FGMRES: the restart length; 0: 30 at first order, the iteration limit at second (no
  /// restart), where the Newton-Krylov steps' solves, preconditioned over the first-order
  /// Jacobian, converge slowly and a restart throws away the subspace they built
  /// (docs/perf/flow_second_order.md).
  int fgmres_restart = 0;
  int fgmres_iterations = 60;  ///< FGMRES: the iteration limit
  /// FGMRES's operator: the assembled first-order Jacobian (defect correction), or the
  /// finite-difference product of the residual's own Jacobian, the limiter held
  /// (Jacobian-free Newton-Krylov, Knoll and Keyes 2004), preconditioned by the linear solver
  /// over the assembled one. automatic: Newton-Krylov at second order from the step at which
  /// the limiter starts only decreasing (FlowSetup::limiter_freeze; at once where that is 0),
  /// defect correction before and at first order (whose Jacobian is exact). on: every step.
  /// Needs FGMRES (Linear::fgmres or multigrid).
  enum class NewtonKrylov { automatic, off, on } newton_krylov = NewtonKrylov::automatic;
  /// Linear::multigrid: the hierarchy and its cycle (a V-cycle over aggregates of two block
  /// rows, by measurement: MultigridOptions::flow_jacobian).
  ppsparse::mcpi::MultigridOptions multigrid = ppsparse::mcpi::MultigridOptions::flow_jacobian();
};
void check_control(const NonlinearControl& c);
/// The control with its "by the order" settings (0) made concrete for a run at `order`: FGMRES's
/// sweeps per preconditioner application and its restart length.
NonlinearControl resolve_control(const NonlinearControl& c, int order);

/// One pseudo-time step (or, for the last record, the residual that stopped the run).
struct StepRecord {
  int step = 0;
  double residual = 0;         ///< ||R_rho||_2 at the step's start
  double relative = 0;         ///< residual / the first step's
  double cfl = 0;              ///< the largest vertex's CFL number (local time steps, AdaptLocalCfl)
  double cfl_min = 0;          ///< the smallest's
  int linear_iterations = 0;   ///< FGMRES iterations (MCPI: 0); with multigrid, also its cycles
  int levels = 0;              ///< the multigrid's levels (else 0)
  int sweeps = 0;              ///< MCPI sweeps, in all
  double linear_relative = 0;  ///< the linear residual reached, relative to its start
  /// The linear solve stopped at its iteration or sweep limit above its tolerance
  /// (NonlinearControl::linear_rtol): the step went on with a partly solved update.
  bool linear_at_limit = false;
  int retries = 0;  ///< steps redone at a smaller CFL after a non-physical update
  /// FGMRES's operator was the residual's finite-difference Jacobian (NonlinearControl::newton_krylov).
  bool newton_krylov = false;
  int order = 1;  ///< the residual's order in space at this step (NonlinearControl::first_order_drop)
  /// The smallest fraction of a vertex's update applied (1: all), so that no density or
  /// pressure moved farther than NonlinearControl::max_change allows.
  double relaxation = 1;
  double t_residual = 0, t_jacobian = 0, t_factor = 0, t_solve = 0, t_update = 0;  ///< seconds
  double elapsed = 0;  ///< seconds since the run started, at the step's end
};

/// How each vertex's CFL number changes for the next step (AdaptLocalCfl): by `whole` where
/// its last update was applied whole, by `limited` where it was scaled down to no less than a
/// tenth, by `cut` where to less.
struct CflFactors {
  double whole = 1, limited = 1, cut = 0.1;
};
/// The factors after the step `last`, whose update left the density residual `residual`: where
/// last's linear solve removed at least half of its residual and the density residual fell,
/// whole updates grow the CFL number by 2-10x (by the residual's fall, as switched evolution
/// relaxation would, Mulder and van Leer 1985); where the residual rose, every vertex's is cut
/// by the rise (at most 10x); where the solve removed less than a tenth, halved; otherwise kept.
CflFactors cfl_factors(const NonlinearControl& c, const StepRecord& last, double residual);

/// Whether a run has stagnated: over its last `window` steps the density residual never fell
/// below half of what it was `window` steps before. The history is run()'s, the closing record
/// included or not; false for fewer than window + 1 steps.
bool stagnated(const std::vector<StepRecord>& history, int window = 25);
/// One line for a stagnated run: where the residual stands and what to try, from how its last
/// steps went (linear solves at their limit, retries, the CFL number).
std::string stagnation_advice(const std::vector<StepRecord>& history, int window = 25);

struct Forces {
  double cl = 0, cd = 0;
  double force[3] = {0, 0, 0};  ///< pressure force on the walls, non-dimensional
};

class FlowSolver {
 public:
  virtual ~FlowSolver() = default;
  virtual int dim() const = 0;
  virtual int nb() const = 0;
  virtual ordinal_t nvertices() const = 0;
  virtual const DualMesh& dual() const = 0;
  virtual const FlowSetup& setup() const = 0;

  /// The free stream everywhere.
  virtual void set_free_stream() = 0;
  /// The state in the user's numbering (nvertices x nb, vertex-major), on the host.
  virtual void set_state(const std::vector<double>& U) = 0;
  virtual std::vector<double> state() const = 0;
  /// R(U) (host copy), and the boundary fluxes' part of it summed over all vertices.
  virtual std::vector<double> residual() = 0;
  virtual std::vector<double> boundary_flux_sum() = 0;
  /// dR/dU in FP64 (no pseudo-time term): O's blocks in the order of dual().col_idx and the
  /// diagonal blocks by vertex, each column-major nb x nb.
  virtual void jacobian(std::vector<double>& O, std::vector<double>& D) = 0;
  /// dR/dU x (no pseudo-time term) by a forward difference of R from the current state, at
  /// second order with the limiter of that state held: the Newton-Krylov steps' operator
  /// (NonlinearControl::newton_krylov). x and the result as state().
  virtual std::vector<double> jacobian_product(const std::vector<double>& x) = 0;

  /// Runs pseudo-time steps from the current state; calls on_step after each.
  /// `dump_steps`: steps whose linear system (A, R) is written as Matrix Market files
  /// `dump_prefix`step<k>_A.mtx and _R.mtx. Returns the history; the last record may be the
  /// converged residual with no linear solve.
  virtual std::vector<StepRecord> run(const NonlinearControl& c, const std::function<void(const StepRecord&)>& on_step,
                                      const std::vector<int>& dump_steps = {}, const std::string& dump_prefix = "") = 0;

  /// Minimum bytes moved by one residual evaluation (U and the edges read once, R and the
  /// spectral radii written once) and by one Jacobian assembly (U, the pattern, the edges and the
  /// slot maps read once; O in FP32 and D in FP64 written once).
  virtual double residual_bytes() const = 0;
  virtual double assembly_bytes() const = 0;

  /// The linear solver's levels and device memory, in a line ("" before the first run()).
  virtual std::string linear_solver_summary() const = 0;

  virtual Forces forces() const = 0;
  /// The solution as VTK XML unstructured grid (density, velocity, pressure, Mach number).
  virtual void write_vtu(const std::string& path, const ppsparse::mesh::Mesh& m) const = 0;
  /// x, y, [z], Cp of every wall vertex, CSV.
  virtual void write_wall_cp(const std::string& path) const = 0;
};

/// Builds the dual mesh and the solver's storage for mesh m (InvalidArgument, see
/// build_dual_mesh and check_setup). The state starts as the free stream.
std::unique_ptr<FlowSolver> make_flow_solver(const ppsparse::mesh::Mesh& m, const FlowSetup& setup,
                                             const std::function<void(const std::string&)>& progress = {});

}  // namespace flow
