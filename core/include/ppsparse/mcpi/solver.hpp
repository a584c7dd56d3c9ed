#pragma once
/// @file
/// FUN3D's multicolour point-implicit (MCPI) solver: for each sweep and each colour c,
/// r = R_c - O_c dQ, then dQ_c = D_c^-1 r with the in-place LU factors of D.
///
/// As a library, in three phases (AmgX's upload / replace coefficients / solve):
///
///   mcpi::BlockPattern<> pattern{nb, n, row_ptr, col_idx};   // O's structure, user numbering
///   mcpi::Solver<> solver(pattern);                          // setup: colouring, order, device arrays
///   for (each time step) {
///     solver.update(exec, O_values, D_values);               // numeric: scatter + LU of D, on the device
///     mcpi::Control control;  control.rtol = 1e-6;
///     mcpi::Status status = solver.apply(exec, R, dQ, control);   // device vectors, user numbering
///   }
///
/// or in place: write values into solver.storage() (the slots the sweep reads), then
/// solver.factor(exec). mcpi::Fgmres (mcpi/fgmres.hpp) uses the solver as its preconditioner.
///
/// Distributed over MPI ranks (mcpi/distributed.hpp), the same object holds one rank's rows and
/// a Halo: each colour's boundary rows run first, their dQ travels while the interior rows
/// run, and norms, stopping decisions and errors are agreed by every rank.
///
/// The implementation is compiled into the library for ExecSpace = DefaultExecSpace and the
/// precisions (O, D, dQ) = (float, double, float), (double, double, double), (float, float,
/// float) and (float, double, double). With the first, O may also be stored in BF16, scaled
/// FP16 or scaled int8 (SetupOptions::o_storage, mcpi/o_format.hpp).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/backend/l2_window.hpp>
#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/mcpi/control.hpp>
#include <ppsparse/mcpi/detail/user_array.hpp>
#include <ppsparse/mcpi/geometry.hpp>
#include <ppsparse/mcpi/halo.hpp>
#include <ppsparse/mcpi/setup.hpp>
#include <ppsparse/mcpi/traffic.hpp>
#include <ppsparse/mcpi/tuning.hpp>
#include <ppsparse/mcpi/variant.hpp>
#include <ppsparse/reorder/coloring.hpp>

namespace ppsparse::mcpi {

/// Checks the system and colouring a user hands to the solver; throws InvalidArgument or
/// NumericalError naming the first offending block row, counted from index_base (0 or 1).
void check_system(const BlockSystem<HostSpace>& system, const Coloring& coloring, int index_base = 0);

/// InvalidArgument naming the field unless c is a valid Control.
void check_control(const Control& c);

namespace detail {
template <class ExecSpace, class OScalar, class DScalar, class XScalar>
struct SolverImpl;
}
template <class ExecSpace>
class Multigrid;

/// The MCPI solver for one block structure on ExecSpace. Setup (the constructor) works from the
/// structure only; the numeric phase (update, or storage + factor) may be repeated with new
/// values at no allocation; apply solves on device vectors in the user's numbering.
///
/// OScalar, DScalar and XScalar are the precisions (float or double) of the stored O, of D's LU
/// factors and of the iterate dQ; R, residuals and the Krylov vectors are FP64. The default,
/// FP32 O and dQ with FP64 D, is FUN3D's and the only one the CUDA backend's specialised kernels
/// take; other precisions run the portable kernels (Status::kernel says which ran). A double
/// iterate reaches residuals an FP32 one cannot (about 1e-7 relative).
template <class ExecSpace = DefaultExecSpace, class OScalar = float, class DScalar = double, class XScalar = float>
class Solver {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using Progress = std::function<void(const std::string&)>;
  /// Vectors in the solver's colour-ordered numbering (the Krylov methods' space).
  using Vector = Kokkos::View<double*, memory_space>;
  using ConstVector = Kokkos::View<const double*, memory_space>;

  /// The solver's value storage, for assembly in place: block k of the user's O (its position
  /// in col_idx, 0-based) is written column-major at O(o_slot(k) * nb * nb + j * nb + i); the
  /// user's block row r's diagonal block at D(d_slot(r) * nb * nb + j * nb + i). After writing,
  /// call factor(): it factors D in place (so every entry of D must be written again before the
  /// next factor()). With O stored in a reduced format (SetupOptions::o_storage), O here is an
  /// FP32 staging of the user's blocks (allocated by the first storage() call unless keep_fp32
  /// already holds one: 4 bytes per entry) and factor() converts it into the reduced format on
  /// the device, as update() does.
  struct Storage {
    int nb = 0;
    Kokkos::View<OScalar*, memory_space> O;
    Kokkos::View<DScalar*, memory_space> D;
    Kokkos::View<const offset_t*, memory_space> o_slot;
    Kokkos::View<const ordinal_t*, memory_space> d_slot;
  };

  /// Setup from the structure of O: checks it (InvalidArgument naming the first defect: sizes,
  /// index range, a diagonal or repeated block, a colouring that does not fit), colours the
  /// block rows unless options.colors is given, builds the colour order, allocates every device
  /// array and the map from the user's blocks to their slots. Values come with update().
  template <class PatternSpace>
  explicit Solver(const BlockPattern<PatternSpace>& pattern, const SetupOptions& options = {})
      : Solver(detail::host_pattern(pattern), options) {}

  /// A system with its values at once (the benchmarks' and the tests' path): checks system and
  /// colouring (check_system), sets up with this colouring, copies O, D (factoring it unless
  /// system.d_factored) and R. InvalidArgument or NumericalError (a failed pivot, naming the
  /// block row, counted from index_base, as a 1-based file numbers them) on bad input; progress,
  /// if given, hears each step; o_storage as SetupOptions::o_storage.
  Solver(const BlockSystem<HostSpace>& system, const Coloring& coloring, const Progress& progress = {},
         int index_base = 0, const OStorage& o_storage = {});

  /// Setup from a plan built elsewhere (the distributed setup, mcpi/distributed.hpp): `halo`
  /// (if set) carries the exchanges of plan.n_ghost ghost rows, colour by colour.
  Solver(detail::SetupPlan&& plan, std::shared_ptr<Halo<ExecSpace, XScalar>> halo, const Progress& progress = {});

  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  ~Solver();

  /// How the sweeps store O (SetupOptions::o_storage).
  OStorage o_storage() const;
  /// The block size, block rows and off-diagonal blocks of the system, and its colouring.
  int nb() const;
  ordinal_t n() const;
  offset_t nnzb() const;
  const Coloring& coloring() const;
  /// Ghost block rows (rows of other ranks read by this one's): 0 on one rank.
  ordinal_t n_ghost() const;
  /// The distributed solver's communication, or null on one rank.
  Halo<ExecSpace, XScalar>* halo() const;
  /// Bytes of device memory the solver's arrays hold (O in its format, an FP32 staging of an
  /// assembly in place once storage() allocated it, D, the vectors, the maps): with O's format,
  /// what decides the largest system one device holds. Not counted: the buffers through which
  /// host arrays handed to update(), apply() and multiply() are staged (their sizes).
  size_t device_bytes() const;
  /// The minimum bytes one sweep moves (mcpi/traffic.hpp), O in its stored format.
  SweepTraffic traffic() const { return sweep_traffic(n(), nb(), nnzb(), o_storage().format, o_storage().lu_fp32); }
  /// Vector-group width the kernels are laid out for (logical 32 on CPUs).
  static int group_width();
  /// The lane layout of kernel k for this system's nb on this device.
  Geometry geometry(Kernel k) const { return make_geometry(k, nb(), group_width()); }
  /// What `v` runs here: auto resolved for this nb (resolve_variant).
  Variant resolve(const Variant& v) const { return resolve_variant(v, nb()); }

  // ---- numeric phase ----

  /// New values in the user's numbering: O's blocks in the order of col_idx (nnzb * nb * nb)
  /// and the diagonal blocks by block row (n * nb * nb), each block in `order`; float or double,
  /// host or device views (contiguous). Scatters O into the solver's storage on exec and
  /// factors D as it reads it (as factor(exec) would after a copy).
  /// InvalidArgument for wrong sizes; NumericalError naming the user's block for NaN or Inf in
  /// O, or a zero, tiny or non-finite pivot of D. No allocation after the first call with host
  /// views (they are staged through one device buffer).
  template <class OView, class DView>
  void update(const ExecSpace& exec, const OView& O, const DView& D, BlockOrder order = BlockOrder::column_major) {
    update_arrays(exec, detail::user_array<ExecSpace>(O, "update: O"), detail::user_array<ExecSpace>(D, "update: D"),
                  order);
  }

  /// The value storage and the user-to-slot maps, for assembly in place (see Storage). The
  /// solver holds no usable values until factor() has run.
  Storage storage();

  /// Factors D in place (LU without pivoting, as FUN3D), on exec; NumericalError naming the
  /// user's block row and the row of the failed pivot. (O is checked by update(); after an
  /// assembly in place, a NaN or Inf in O shows in apply()'s status as not_finite, except in a
  /// reduced format, whose conversion here names the user's block as update() does.)
  void factor(const ExecSpace& exec);

  // ---- solve ----

  /// Solves A dQ = R by MCPI sweeps on exec (its stream): R and dQ are views of n * nb doubles
  /// in the user's numbering, device views (host views are staged, with a fence). Runs up to
  /// control.max_sweeps sweeps from the control's initial guess, with residual checks and
  /// stopping criteria as the control says; dQ receives the iterate. InvalidArgument for bad
  /// sizes or control, or before the first update/factor; NumericalError naming the block row
  /// for NaN or Inf in R (or in a given initial dQ). A NaN or Inf that appears in dQ is the
  /// status not_finite.
  template <class RView, class XView>
  Status apply(const ExecSpace& exec, const RView& R, const XView& dQ, const Control& control = {}) {
    return apply_arrays(exec, detail::user_vector<ExecSpace>(R, "apply: R"),
                        detail::user_vector<ExecSpace>(dQ, "apply: dQ"), control);
  }

  /// y = A x = (D + O) x in FP64 on exec, x and y n * nb doubles in the user's numbering (device
  /// views; host views are staged, with a fence). D is applied through its LU factors.
  template <class XView, class YView>
  void multiply(const ExecSpace& exec, const XView& x, const YView& y) {
    multiply_arrays(exec, detail::user_vector<ExecSpace>(x, "multiply: x"),
                    detail::user_vector<ExecSpace>(y, "multiply: y"));
  }

  // ---- colour-ordered numbering, for Krylov methods built on the solver ----

  /// x (user's numbering, device) -> xi (colour order), on exec.
  void to_internal(const ExecSpace& exec, const ConstVector& x, const Vector& xi) const;
  /// xi (colour order) -> x (user's numbering), on exec.
  void to_user(const ExecSpace& exec, const ConstVector& xi, const Vector& x) const;
  /// y = A x in colour order, on exec.
  void multiply_internal(const ExecSpace& exec, const ConstVector& x, const Vector& y) const;
  /// z = M^-1 v: `sweeps` MCPI sweeps on A z = v from z = 0, in colour order, on exec (the
  /// preconditioner of FGMRES; the iterate is FP32, widened into z).
  void precondition(const ExecSpace& exec, const ConstVector& v, const Vector& z, int sweeps,
                    const Variant& variant = Variant::automatic());
  /// ||x||_2 on exec (NaN if x holds a NaN or Inf); synchronises.
  double norm(const ExecSpace& exec, const ConstVector& x) const;
  /// The system that multiply() and multiply_internal() apply (FGMRES's operator), in
  /// Status::system's words: O as stored, its FP32 copy, or the user's O in FP64 (OStorage).
  std::string operator_system() const;

  /// The backend's name and the kernel that `v` runs here: "cuda rows_per_warp_l2", "portable
  /// rows_per_warp", ... (backend_kernels false: the portable kernel's).
  std::string kernel_name(const ExecSpace& exec, const Variant& v, bool backend_kernels = true) const;
  /// Whether `variant` runs the device backend's specialised kernel here.
  bool uses_backend_kernel(const Variant& variant, bool backend_kernels = true) const;

  // ---- sweep by sweep, for codes that drive the iteration themselves (and benchmarks) ----

  /// dQ = 0 (ghosts included) on the stored R (the constructor's or the last apply()'s).
  void reset();
  /// One sweep over all colours on the stored R, asynchronous on exec's stream.
  /// stage_diagonal stages D through registers; backend_kernels false forces the portable
  /// kernels; tuning (check_tuning) sets the backend's kernels. InvalidArgument before the first
  /// update/factor.
  void sweep(const ExecSpace& exec, const Variant& variant, bool stage_diagonal = false, bool backend_kernels = true,
             const KernelTuning& tuning = {});
  /// `count` sweeps on the stored R, asynchronous on exec, as one recorded device graph where
  /// one can be recorded (Control::sweep_graphs says where): recorded at the first call for this
  /// count, variant and tuning, replayed after. Else the colours are launched one by one, as
  /// `count` sweep() calls would. Returns whether a graph ran (graph_stats().why_not says why
  /// not). InvalidArgument for a negative count, bad tuning, or before the first update/factor.
  /// On a distributed solver, collective.
  bool sweep_graph(const ExecSpace& exec, int count, const Variant& variant, const KernelTuning& tuning = {});
  /// The recordings and replays of sweep graphs so far.
  GraphStats graph_stats() const;
  /// ||R - (D + O) dQ||_2 in FP64 for the current dQ and the stored R (D through its LU
  /// factors), on a default instance.
  double residual_norm();
  /// The current dQ in the user's numbering, on the host.
  std::vector<double> dq_user() const;
  /// Keeps dQ in the device's persisting L2 while the caller's sweeps run (where the backend
  /// has one: the window's note says what it got); end it with backend::l2_window_end.
  ppsparse::backend::L2Window keep_iterate_in_l2(const ExecSpace& exec);

 private:
  Solver(const detail::HostPattern& pattern, const SetupOptions& options);
  void update_arrays(const ExecSpace& exec, const detail::UserArray& O, const detail::UserArray& D, BlockOrder order);
  Status apply_arrays(const ExecSpace& exec, const detail::UserArray& R, const detail::UserArray& dQ,
                      const Control& control);
  void multiply_arrays(const ExecSpace& exec, const detail::UserArray& x, const detail::UserArray& y);

  std::unique_ptr<detail::SolverImpl<ExecSpace, OScalar, DScalar, XScalar>> impl_;
  template <class>
  friend class Multigrid;  // its finest level is this solver's arrays and colour loop
};

}  // namespace ppsparse::mcpi
