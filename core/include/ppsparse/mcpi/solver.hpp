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
/// solver.factor(exec). mcpi::fgmres (mcpi/fgmres.hpp) uses the solver as its preconditioner.
/// The benchmark path, solve(Options), runs timed sweeps from dQ = 0 on the stored R.
///
/// Distributed over MPI ranks (mcpi/distributed.hpp), the same object holds one rank's rows and
/// a Halo: each colour's boundary rows run first, their dQ travels while the interior rows
/// run, and norms, stopping decisions and errors are agreed by every rank.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/mcpi/backend.hpp>
#include <ppsparse/mcpi/block_lu.hpp>
#include <ppsparse/mcpi/control.hpp>
#include <ppsparse/mcpi/geometry.hpp>
#include <ppsparse/mcpi/halo.hpp>
#include <ppsparse/mcpi/sweep_kernel.hpp>
#include <ppsparse/mcpi/traffic.hpp>
#include <ppsparse/mcpi/tuning.hpp>
#include <ppsparse/mcpi/setup.hpp>
#include <ppsparse/mcpi/variant.hpp>
#include <ppsparse/mcpi/vector_kernels.hpp>
#include <ppsparse/reorder/coloring.hpp>
#include <ppsparse/reorder/permutation.hpp>

namespace ppsparse::mcpi {

/// What Solver::solve runs: the number of sweeps, the kernel and its hardware features, and
/// the kernel settings.
struct Options {
  /// Sweeps to run (>= 0).
  int sweeps = 15;
  /// The kernel and the hardware features (Variant's flags l2_window, async_copy), or auto.
  Variant variant = Variant::automatic();
  bool residual_history = false;  ///< ||R - A dQ|| after each sweep, computed outside the timed path
  /// Stage each group's D blocks through registers into scratch while the SpMV loads are in
  /// flight (the portable form of seed 000's asynchronous copy of D).
  bool stage_diagonal = false;
  /// Use the device backend's specialised kernel for the variant when it has one (chosen
  /// automatically on CUDA); false forces the portable Kokkos kernels.
  bool backend_kernels = true;
  /// Settings of the backend's specialised kernels (mcpi/tuning.hpp); the defaults are the
  /// automatic rules.
  KernelTuning tuning = {};
};

/// What Solver::solve returns: dQ in the user's numbering, residual norms when asked, the
/// times of the sweeps, and what ran.
struct Result {
  std::vector<double> dq;              ///< n * nb, user's numbering (the FP32 iterate, widened)
  std::vector<double> residual_norms;  ///< residual_history: one per sweep
  double initial_residual_norm = 0.0;  ///< ||R|| (dQ = 0), when residual_history
  double seconds = 0.0;                ///< all timed sweeps (device fenced); residuals excluded
  std::vector<double> sweep_seconds;   ///< each sweep's time
  /// Sweeps run, and the variant that ran (auto resolved).
  int sweeps = 0;
  Variant variant = Kernel::rows_per_warp;
  std::string kernel;  ///< what ran: "cuda rows_per_warp_l2_async", "portable rows_per_warp", ...
  std::string note;    ///< fallbacks and hardware settings (L2 window), one line
  /// Mean and median time of one sweep (0 without sweeps).
  double seconds_per_sweep() const { return sweeps ? seconds / sweeps : 0.0; }
  double median_sweep_seconds() const {
    if (sweep_seconds.empty()) return 0.0;
    auto t = sweep_seconds;
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

/// Checks the system and colouring a user hands to the solver; throws InvalidArgument or
/// NumericalError naming the first offending block row (user's numbering).
void check_system(const BlockSystem<HostSpace>& system, const Coloring& coloring);

/// InvalidArgument naming the field unless c is a valid Control.
void check_control(const Control& c);

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
  static_assert(std::is_same_v<OScalar, float> || std::is_same_v<OScalar, double>, "mcpi: O is float or double");
  static_assert(std::is_same_v<DScalar, float> || std::is_same_v<DScalar, double>, "mcpi: D is float or double");
  static_assert(std::is_same_v<XScalar, float> || std::is_same_v<XScalar, double>, "mcpi: dQ is float or double");

 public:
  using execution_space = ExecSpace;
  using o_scalar = OScalar;
  using d_scalar = DScalar;
  using x_scalar = XScalar;
  /// FUN3D's precisions, which the backends' specialised kernels take.
  static constexpr bool default_precision =
      std::is_same_v<OScalar, float> && std::is_same_v<DScalar, double> && std::is_same_v<XScalar, float>;
  /// Where the solver's arrays live, and the callback that reports setup steps.
  using memory_space = typename ExecSpace::memory_space;
  using Progress = std::function<void(const std::string&)>;
  /// Vectors in the solver's colour-ordered numbering (the Krylov methods' space).
  using Vector = Kokkos::View<double*, memory_space>;
  using ConstVector = Kokkos::View<const double*, memory_space>;

  /// The solver's value storage, for assembly in place: block k of the user's O (its position
  /// in col_idx, 0-based) is written column-major at O(o_slot(k) * nb * nb + j * nb + i); the
  /// user's block row r's diagonal block at D(d_slot(r) * nb * nb + j * nb + i). After writing,
  /// call factor(): it factors D in place (so every entry of D must be written again before the
  /// next factor()).
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
  explicit Solver(const BlockPattern<PatternSpace>& pattern, const SetupOptions& options = {}) : nb_(pattern.nb) {
    if (pattern.n < 0)
      throw InvalidArgument("mcpi setup: negative number of block rows n = " + std::to_string(pattern.n));
    if (pattern.row_ptr.extent(0) != static_cast<size_t>(pattern.n) + 1)
      throw InvalidArgument("mcpi setup: row_ptr has " + std::to_string(pattern.row_ptr.extent(0)) +
                            " entries, expected n + 1 = " + std::to_string(static_cast<long long>(pattern.n) + 1));
    const auto ia = Kokkos::create_mirror_view_and_copy(HostSpace(), pattern.row_ptr);
    const offset_t nnzb = ia(pattern.n) - pattern.index_base;
    if (nnzb < 0 || static_cast<size_t>(nnzb) > pattern.col_idx.extent(0))
      throw InvalidArgument("mcpi setup: row_ptr[n] - index_base = " + std::to_string(nnzb) +
                            " blocks, but col_idx has " + std::to_string(pattern.col_idx.extent(0)) + " entries");
    const auto ja = Kokkos::create_mirror_view_and_copy(HostSpace(), pattern.col_idx);
    if (options.progress) options.progress("checking and colouring " + std::to_string(pattern.n) + " block rows");
    init(detail::make_setup_plan(pattern.nb, pattern.n, ia.data(), ja.data(), pattern.index_base, options.colors),
         options.progress);
  }

  /// A system with its values at once (the benchmarks' and the tests' path): checks system and
  /// colouring (check_system), sets up with this colouring, copies O, D (factoring it unless
  /// system.d_factored) and R. InvalidArgument or NumericalError (a failed pivot, naming the
  /// user's block row) on bad input; progress, if given, hears each step.
  Solver(const BlockSystem<HostSpace>& system, const Coloring& coloring, const Progress& progress = {})
      : nb_(system.nb) {
    check_system(system, coloring);
    init(detail::make_setup_plan(system.nb, system.n, system.O.ia.data(), system.O.ja.data(), 0, {}, &coloring),
         progress);
    if (progress) progress("copying the system to " + std::string(ExecSpace::name()));
    ExecSpace exec;
    if (progress && !system.d_factored)
      progress("factoring " + std::to_string(n_) + " diagonal blocks (LU, no pivoting)");
    load_values(exec, system.O.values, system.D, BlockOrder::column_major, !system.d_factored);
    to_internal(exec, ConstVector(device_vector(exec, system.R, vec_in_)), r_);
    exec.fence();
  }

  /// Setup from a plan built elsewhere (the distributed setup, mcpi/distributed.hpp): `halo`
  /// (if set) carries the exchanges of plan.n_ghost ghost rows, colour by colour.
  Solver(detail::SetupPlan&& plan, std::shared_ptr<Halo<ExecSpace, XScalar>> halo, const Progress& progress = {})
      : nb_(plan.nb), halo_(std::move(halo)) {
    if (halo_ && (halo_->ncolors() != plan.coloring.ncolors ||
                  plan.boundary_end.size() != static_cast<size_t>(plan.coloring.ncolors)))
      throw std::logic_error("mcpi: the halo's colours do not match the plan's");
    init(std::move(plan), progress);
  }

  /// The block size, block rows and off-diagonal blocks of the system, and its colouring.
  int nb() const { return nb_; }
  ordinal_t n() const { return n_; }
  offset_t nnzb() const { return nnzb_; }
  const Coloring& coloring() const { return coloring_; }
  /// Ghost block rows (rows of other ranks read by this one's): 0 on one rank.
  ordinal_t n_ghost() const { return n_ghost_; }
  /// The distributed solver's communication, or null on one rank.
  const Halo<ExecSpace, XScalar>* halo() const { return halo_.get(); }
  Halo<ExecSpace, XScalar>* halo() { return halo_.get(); }
  /// The minimum bytes one sweep moves (mcpi/traffic.hpp).
  SweepTraffic traffic() const { return sweep_traffic(n_, nb_, nnzb_); }
  /// Vector-group width the kernels are laid out for (logical 32 on CPUs).
  static int group_width() { return compat::is_gpu_space<ExecSpace>() ? compat::vector_width_for<ExecSpace>() : 32; }
  /// The lane layout of kernel k for this system's nb on this device.
  Geometry geometry(Kernel k) const { return make_geometry(k, nb_, group_width()); }
  /// What `v` runs here: auto resolved for this nb (resolve_variant).
  Variant resolve(const Variant& v) const { return resolve_variant(v, nb_); }

  // ---- numeric phase ----

  /// New values in the user's numbering: O's blocks in the order of col_idx (nnzb * nb * nb)
  /// and the diagonal blocks by block row (n * nb * nb), each block in `order`; float or double,
  /// host or device views. Scatters O into the solver's storage on exec and factors D as it
  /// reads it (as factor(exec) would after a copy).
  /// InvalidArgument for wrong sizes; NumericalError naming the user's block for NaN or Inf in
  /// O, or a zero, tiny or non-finite pivot of D. No allocation after the first call with host
  /// views (they are staged through one device buffer).
  template <class OView, class DView>
  void update(const ExecSpace& exec, const OView& O, const DView& D, BlockOrder order = BlockOrder::column_major) {
    collectively([&] { load_values(exec, O, D, order, true); });
  }

  /// The value storage and the user-to-slot maps, for assembly in place (see Storage). The
  /// solver holds no usable values until factor() has run.
  Storage storage() {
    has_values_ = false;
    return Storage{nb_, o_, d_, o_slot_, old_to_new_};
  }

  /// Factors D in place (LU without pivoting, as FUN3D), on exec; NumericalError naming the
  /// user's block row and the row of the failed pivot. (O is checked by update(); after an
  /// assembly in place, a NaN or Inf in O shows in apply()'s status as not_finite.)
  void factor(const ExecSpace& exec) {
    collectively([&] { factor_local(exec); });
  }

 private:
  void factor_local(const ExecSpace& exec) {
    has_values_ = false;
    check_factored(factor_diagonal_blocks(exec, d_, nb_, n_));
    has_values_ = true;
  }

  /// NumericalError naming the user's block row for a failure code of factor_diagonal_blocks.
  void check_factored(long long failure) const {
    if (failure >= 0) throw_pivot_failure(failure, nb_, coloring_.perm.new_to_old[failed_block(failure)]);
  }

 public:
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
    const bool given = control.initial_guess == InitialGuess::given;
    Vector x;
    collectively([&] {
      check_control(control);
      require_values("apply");
      check_vector_size("apply: R", R.extent(0));
      check_vector_size("apply: dQ", dQ.extent(0));
      const auto r = device_vector(exec, R, vec_in_);
      to_internal(exec, ConstVector(r), r_);
      rhs_ = r_;
      x = device_vector(exec, dQ, vec_out_, given);
      Kokkos::deep_copy(exec, dq_, 0.0f);
      if (given) impl::to_internal(exec, new_to_old_, nb_, ConstVector(x), dq_owned());
    });
    if (given && halo_) halo_->exchange_all(exec, dq_);

    const Variant v = resolve(control.variant);
    Status st;
    st.kernel = kernel_name(exec, v);
    const bool tolerance = control.rtol > 0 || control.atol > 0;
    const bool sync = control.final_residual || tolerance || control.check_interval > 0;
    double tol = 0.0;
    st.initial_residual = st.final_residual = std::numeric_limits<double>::quiet_NaN();
    if (sync) {
      const double rn = norm(exec, ConstVector(r_));
      if (!std::isfinite(rn)) throw_not_finite(exec, ConstVector(r_), "R");
      st.initial_residual = rn;
      if (given) {
        st.initial_residual = true_residual(exec);
        if (!std::isfinite(st.initial_residual)) throw_not_finite(exec, dq_owned(), "the initial dQ");
      }
      tol = std::max(control.atol, control.rtol * st.initial_residual);
    }
    backend::L2Window window;
    if (v.l2_window && uses_backend_kernel(v))
      window = backend::l2_window_begin(exec, dq_.data(), dq_.span() * sizeof(XScalar));
    bool have_final = false;
    int s = 0;
    while (s < control.max_sweeps) {
      const bool check = control.check_interval > 0 && (s + 1) % control.check_interval == 0;
      have_final = false;  // a sweep changes dQ
      if (!check) {
        sweep(exec, v);
        ++s;
        continue;
      }
      const double est = checked_sweep(exec, v);
      ++s;
      st.history.push_back({s, est});
      if (!std::isfinite(est)) {
        st.reason = StopReason::not_finite;
        break;
      }
      if (tolerance && est <= tol) {
        st.final_residual = true_residual(exec);
        have_final = true;
        if (st.final_residual <= tol) {
          st.reason = StopReason::converged;
          break;
        }
      }
      if (est > control.divergence_factor * st.initial_residual) {
        st.reason = StopReason::diverged;
        break;
      }
    }
    if (window.active) backend::l2_window_end(exec, window);
    st.sweeps = s;
    if (control.final_residual && !have_final) {
      st.final_residual = true_residual(exec);
      have_final = true;
    }
    if (have_final && !std::isfinite(st.final_residual)) {
      st.reason = StopReason::not_finite;
    } else if (have_final && tolerance && st.reason == StopReason::max_sweeps && st.final_residual <= tol) {
      st.reason = StopReason::converged;
    }
    impl::to_user(exec, new_to_old_, nb_, dq_owned(), x);
    if (x.data() != dQ.data()) {
      Kokkos::deep_copy(exec, dQ, x);
      exec.fence();
    }
    return st;
  }

  /// y = A x = (D + O) x in FP64 on exec, x and y n * nb doubles in the user's numbering (device
  /// views; host views are staged, with a fence). D is applied through its LU factors.
  template <class XView, class YView>
  void multiply(const ExecSpace& exec, const XView& x, const YView& y) {
    require_single_rank("multiply");
    require_values("multiply");
    check_vector_size("multiply: x", x.extent(0));
    check_vector_size("multiply: y", y.extent(0));
    const auto xd = device_vector(exec, x, vec_in_);
    const auto yd = device_vector(exec, y, vec_out_, false);
    operator_apply(exec, ConstVector(xd), yd, true);
    if (yd.data() != y.data()) {
      Kokkos::deep_copy(exec, y, yd);
      exec.fence();
    }
  }

  // ---- colour-ordered numbering, for Krylov methods built on the solver ----

  /// x (user's numbering, device) -> xi (colour order), on exec.
  void to_internal(const ExecSpace& exec, const ConstVector& x, const Vector& xi) const {
    impl::to_internal(exec, new_to_old_, nb_, x, xi);
  }
  /// xi (colour order) -> x (user's numbering), on exec.
  void to_user(const ExecSpace& exec, const ConstVector& xi, const Vector& x) const {
    impl::to_user(exec, new_to_old_, nb_, xi, x);
  }
  /// y = A x in colour order, on exec.
  void multiply_internal(const ExecSpace& exec, const ConstVector& x, const Vector& y) const {
    require_single_rank("multiply_internal");
    operator_apply(exec, x, y, false);
  }
  /// z = M^-1 v: `sweeps` MCPI sweeps on A z = v from z = 0, in colour order, on exec (the
  /// preconditioner of FGMRES; the iterate is FP32, widened into z).
  void precondition(const ExecSpace& exec, const ConstVector& v, const Vector& z, int sweeps,
                    const Variant& variant = Variant::automatic()) {
    require_values("precondition");
    rhs_ = Kokkos::View<double*, memory_space>(const_cast<double*>(v.data()), v.extent(0));
    Kokkos::deep_copy(exec, dq_, 0.0f);
    const Variant rv = resolve(variant);
    for (int s = 0; s < sweeps; ++s) sweep(exec, rv);
    impl::convert(exec, dq_owned(), z);
    rhs_ = r_;
  }
  /// ||x||_2 on exec (NaN if x holds a NaN or Inf); synchronises.
  double norm(const ExecSpace& exec, const ConstVector& x) const {
    return std::sqrt(global_sum(impl::sum_squares(exec, x)));
  }

  /// The backend's name and the kernel that `v` runs here: "cuda rows_per_warp_l2", "portable
  /// rows_per_warp", ...
  std::string kernel_name(const ExecSpace& exec, const Variant& v, bool backend_kernels = true) const {
    const Variant rv = resolve(v);
    const bool specialised = uses_backend_kernel(rv, backend_kernels);
    return (specialised ? backend::features(exec).name : std::string("portable")) + " " +
           (specialised ? name(rv) : std::string(name(rv.kernel)));
  }

  // ---- the benchmark path ----

  /// Runs opt.sweeps sweeps from dQ = 0 on the stored R (the constructor's or the last
  /// apply()'s) on a default instance of ExecSpace, each timed (device fenced).
  /// InvalidArgument for negative sweeps or bad tuning.
  Result solve(const Options& opt) {
    if (opt.sweeps < 0) throw InvalidArgument("mcpi: sweeps must be >= 0, got " + std::to_string(opt.sweeps));
    check_tuning(opt.tuning);
    require_values("solve");
    Result res;
    res.sweeps = opt.sweeps;
    const Variant v = resolve(opt.variant);
    res.variant = v;
    rhs_ = r_;
    reset();  // the MCPI iteration starts from dQ = 0
    // Poison the split variant's temporary so an unwritten entry shows up as NaN.
    Kokkos::deep_copy(r_tmp_, std::numeric_limits<double>::quiet_NaN());
    if (opt.residual_history) res.initial_residual_norm = residual_norm();
    ExecSpace exec;
    const bool specialised = uses_backend_kernel(v, opt.backend_kernels);
    res.kernel = kernel_name(exec, v, opt.backend_kernels);
    backend::L2Window window;
    if (v.has_features()) {
      if (!specialised) {
        res.note = std::string("fell back to the portable ") + name(v.kernel) + ": " +
                   (opt.backend_kernels ? backend::features(exec).why_not : std::string("backend kernels disabled"));
      } else if (v.l2_window) {
        window = backend::l2_window_begin(exec, dq_.data(), dq_.span() * sizeof(XScalar));
        res.note = window.note;
      }
    }
    for (int it = 0; it < opt.sweeps; ++it) {
      exec.fence();
      Kokkos::Timer timer;
      sweep(exec, v, opt.stage_diagonal, opt.backend_kernels, opt.tuning);
      exec.fence();
      const double t = timer.seconds();
      res.seconds += t;
      res.sweep_seconds.push_back(t);
      if (opt.residual_history) res.residual_norms.push_back(residual_norm());
    }
    if (window.active) backend::l2_window_end(exec, window);
    res.dq = dq_user();
    return res;
  }

  /// Whether `variant` runs the device backend's specialised kernel here (the backend of
  /// ExecSpace, whichever instance).
  bool uses_backend_kernel(const Variant& variant, bool backend_kernels = true) const {
    const Variant v = resolve(variant);
    return default_precision && backend_kernels && backend::has_kernel(ExecSpace(), v.kernel, nb_);
  }

  /// One sweep over all colours on the current right-hand side, asynchronous on exec's stream
  /// (benchmarks time this directly). `tuning` must pass check_tuning (solve() checks it).
  void sweep(const ExecSpace& exec, const Variant& variant, bool stage_diagonal = false, bool backend_kernels = true,
             const KernelTuning& tuning = {}) {
    stage_diagonal_ = stage_diagonal;
    const Variant v = resolve(variant);
    const bool specialised = uses_backend_kernel(v, backend_kernels);
    // The split kernel's temporary holds one range of rows at a time: no overlap.
    const bool overlap = specialised || v.kernel != Kernel::split;
    for_each_color(exec, overlap, [&](const ExecSpace& on, ordinal_t b, ordinal_t e) {
      if constexpr (default_precision) {
        if (specialised) {
          backend::run_color(on, v, color_args(b, e, false), tuning);
          return;
        }
      }
      run_portable(on, v.kernel, b, e);
    });
  }

  /// dQ = 0 (ghosts included), the iteration's start (solve() does this itself; callers of
  /// sweep() need it).
  void reset() { Kokkos::deep_copy(dq_, 0.0f); }

  /// ||R - (D + O) dQ||_2 in FP64 for the current dQ and right-hand side (D applied through its
  /// LU factors), on a default instance.
  double residual_norm() { return true_residual(ExecSpace()); }

  /// The current dQ in the user's numbering, on the host.
  std::vector<double> dq_user() const {
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), dq_owned());
    std::vector<double> x(h.extent(0));
    for (size_t i = 0; i < x.size(); ++i) x[i] = h(i);
    return to_old(x, coloring_.perm, nb_);
  }

 private:
  void init(detail::SetupPlan&& plan, const Progress& progress) {
    n_ = plan.n;
    n_ghost_ = plan.n_ghost;
    nnzb_ = static_cast<offset_t>(plan.ja.size());
    coloring_ = std::move(plan.coloring);
    boundary_end_ = std::move(plan.boundary_end);
    if (progress)
      progress("allocating " + std::to_string(n_) + " block rows in " + std::to_string(coloring_.ncolors) +
               " colours on " + std::string(ExecSpace::name()));
    const size_t nb2 = static_cast<size_t>(nb_) * nb_;
    ia_ = Kokkos::View<offset_t*, memory_space>("mcpi.ia", static_cast<size_t>(n_) + 1);
    ja_ = Kokkos::View<ordinal_t*, memory_space>("mcpi.ja", static_cast<size_t>(nnzb_));
    o_ = Kokkos::View<OScalar*, memory_space>("mcpi.O", static_cast<size_t>(nnzb_) * nb2);
    d_ = Kokkos::View<DScalar*, memory_space>("mcpi.D", static_cast<size_t>(n_) * nb2);
    r_ = Kokkos::View<double*, memory_space>("mcpi.R", static_cast<size_t>(n_) * nb_);
    o_slot_ = Kokkos::View<offset_t*, memory_space>("mcpi.o_slot", static_cast<size_t>(nnzb_));
    new_to_old_ = Kokkos::View<ordinal_t*, memory_space>("mcpi.new_to_old", static_cast<size_t>(n_));
    old_to_new_ = Kokkos::View<ordinal_t*, memory_space>("mcpi.old_to_new", static_cast<size_t>(n_));
    copy_in(ia_, plan.ia);
    copy_in(ja_, plan.ja);
    copy_in(o_slot_, plan.o_slot);
    copy_in(new_to_old_, coloring_.perm.new_to_old);
    copy_in(old_to_new_, coloring_.perm.old_to_new);
    ia_host_ = std::move(plan.ia);
    rhs_ = r_;
    dq_ = Kokkos::View<XScalar*, memory_space>("mcpi.dq", (static_cast<size_t>(n_) + n_ghost_) * nb_);
    work_ = Kokkos::View<double*, memory_space>("mcpi.work", static_cast<size_t>(n_) * nb_);
    residual_sq_ = Kokkos::View<double*, memory_space>("mcpi.residual_sq", kResidualSlots);
    first_bad_block_ = Kokkos::View<long long, memory_space>("mcpi.first_bad_block");
    ordinal_t max_color_rows = 0;
    for (ordinal_t c = 0; c < coloring_.ncolors; ++c)
      max_color_rows = std::max(max_color_rows, coloring_.color_offsets[c + 1] - coloring_.color_offsets[c]);
    r_tmp_ = Kokkos::View<double*, memory_space>("mcpi.r_tmp", static_cast<size_t>(max_color_rows) * nb_);
  }

  template <class T>
  static void copy_in(const Kokkos::View<T*, memory_space>& dst, const std::vector<T>& src) {
    Kokkos::deep_copy(dst, Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(src.data(), src.size()));
  }

  /// The owned rows of dQ (the ghosts follow them).
  Kokkos::View<XScalar*, memory_space> dq_owned() const {
    return Kokkos::subview(dq_, std::make_pair(size_t(0), static_cast<size_t>(n_) * nb_));
  }

  /// Runs rows(instance, b, e) over every colour's rows in order. With a halo: the boundary
  /// rows on exec, then their exchange, the interior rows meanwhile (on the halo's interior
  /// instance when `overlap`), and the ghosts written before the next colour.
  template <class Rows>
  void for_each_color(const ExecSpace& exec, bool overlap, Rows&& rows) {
    for (ordinal_t c = 0; c < coloring_.ncolors; ++c) {
      const ordinal_t b = coloring_.color_offsets[c], e = coloring_.color_offsets[c + 1];
      if (!halo_ || !halo_->active(c)) {
        if (b < e) rows(exec, b, e);
        continue;
      }
      const ordinal_t m = boundary_end_[c];
      if (b < m) rows(exec, b, m);
      halo_->start(exec, c, dq_);
      if (m < e) rows(overlap ? halo_->interior() : exec, m, e);
      halo_->finish(exec, c, dq_);
    }
  }

  double global_sum(double local) const { return halo_ ? halo_->sum(local) : local; }

  /// Runs `local` (which may throw ppsparse errors); on a distributed solver every rank then
  /// throws the first failing rank's error, so that no rank is left waiting in a collective.
  template <class F>
  void collectively(F&& local) const {
    if (!halo_) {
      local();
      return;
    }
    std::string message;
    const ErrorKind agreed = halo_->agree(capture_error(local, message), message);
    if (agreed != ErrorKind::none) throw_error(agreed, message);
  }

  void require_single_rank(const char* what) const {
    if (halo_)
      throw InvalidArgument(std::string("mcpi ") + what +
                            ": not available on a distributed solver (apply, precondition and solve are)");
  }

  void require_values(const char* what) const {
    if (!has_values_)
      throw InvalidArgument(std::string("mcpi ") + what +
                            ": the solver holds no factored values (call update(), or factor() after writing into "
                            "storage())");
  }
  void check_vector_size(const char* what, size_t size) const {
    const size_t want = static_cast<size_t>(n_) * nb_;
    if (size != want)
      throw InvalidArgument(std::string("mcpi ") + what + " has " + std::to_string(size) +
                            " entries, expected n * nb = " + std::to_string(want));
  }

  /// A device view of the user's input: itself when exec can read it, otherwise a copy in a
  /// device staging buffer (allocated on first use, then reused).
  template <class V>
  Kokkos::View<const typename V::non_const_value_type*, memory_space, Kokkos::MemoryUnmanaged> device_input(
      const ExecSpace& exec, const V& v, size_t byte_offset) {
    static_assert(compat::is_view_v<V> && V::rank == 1, "mcpi: values must be rank-1 Kokkos views");
    using T = typename V::non_const_value_type;
    using Out = Kokkos::View<const T*, memory_space, Kokkos::MemoryUnmanaged>;
    if constexpr (Kokkos::SpaceAccessibility<ExecSpace, typename V::memory_space>::accessible) {
      return Out(v.data(), v.extent(0));
    } else {
      const size_t need = byte_offset + v.extent(0) * sizeof(T);
      if (stage_.extent(0) < need) throw std::logic_error("mcpi: staging buffer not reserved");
      Kokkos::View<T*, memory_space, Kokkos::MemoryUnmanaged> dst(reinterpret_cast<T*>(stage_.data() + byte_offset),
                                                                  v.extent(0));
      Kokkos::deep_copy(exec, dst, v);
      return Out(dst.data(), dst.extent(0));
    }
  }

  /// Grows the staging buffer of host inputs to `bytes` (first update() with host views).
  void reserve_stage(size_t bytes) {
    if (stage_.extent(0) < bytes)
      stage_ = Kokkos::View<unsigned char*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mcpi.stage"),
                                                          bytes);
  }

  /// A device vector for a user vector: itself when exec can reach it, otherwise `stage`
  /// (allocated on first use), filled from v when `fill`.
  template <class V>
  Vector device_vector(const ExecSpace& exec, const V& v, Vector& stage, bool fill = true) {
    static_assert(compat::is_view_v<V> && V::rank == 1, "mcpi: vectors must be rank-1 Kokkos views");
    static_assert(std::is_same_v<typename V::non_const_value_type, double>, "mcpi: vectors hold double");
    if constexpr (Kokkos::SpaceAccessibility<ExecSpace, typename V::memory_space>::accessible) {
      return Vector(const_cast<double*>(v.data()), v.extent(0));
    } else {
      if (stage.extent(0) != v.extent(0))
        stage = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mcpi.vector_stage"), v.extent(0));
      if (fill) Kokkos::deep_copy(exec, stage, v);
      return stage;
    }
  }

  /// The user's O and D on exec: O's blocks scattered into their slots, and D factored as it is
  /// read (`factor`) or copied as given (already factored). Synchronises; NumericalError naming
  /// the user's block for a NaN or Inf in O (checked first) or a failed pivot.
  template <class OView, class DView>
  void load_values(const ExecSpace& exec, const OView& O, const DView& D, BlockOrder order, bool factor) {
    has_values_ = false;
    const size_t nb2 = static_cast<size_t>(nb_) * nb_;
    if (O.extent(0) != static_cast<size_t>(nnzb_) * nb2)
      throw InvalidArgument("mcpi update: O has " + std::to_string(O.extent(0)) +
                            " values, expected nnzb * nb * nb = " + std::to_string(static_cast<size_t>(nnzb_) * nb2));
    if (D.extent(0) != static_cast<size_t>(n_) * nb2)
      throw InvalidArgument("mcpi update: D has " + std::to_string(D.extent(0)) +
                            " values, expected n * nb * nb = " + std::to_string(static_cast<size_t>(n_) * nb2));
    // Host inputs share one staging buffer, sized for both before either is staged.
    const size_t o_bytes = (O.extent(0) * sizeof(typename OView::non_const_value_type) + 63) / 64 * 64;
    constexpr bool o_here = Kokkos::SpaceAccessibility<ExecSpace, typename OView::memory_space>::accessible;
    constexpr bool d_here = Kokkos::SpaceAccessibility<ExecSpace, typename DView::memory_space>::accessible;
    if (!o_here || !d_here) reserve_stage(o_bytes + D.extent(0) * sizeof(typename DView::non_const_value_type));
    const auto o = device_input(exec, O, 0);
    const auto d = device_input(exec, D, o_bytes);
    const bool row_major = order == BlockOrder::row_major;
    Kokkos::deep_copy(exec, first_bad_block_, LLONG_MAX);
    impl::scatter_o(exec, o, o_slot_, nb_, row_major, o_, first_bad_block_);
    const impl::UserDiagonalBlocks<decltype(d), decltype(new_to_old_)> source{d, new_to_old_, nb_, row_major};
    long long failure = -1;
    if (factor)
      failure = factor_diagonal_blocks_from(exec, source, d_, nb_, n_);
    else
      impl::copy_diagonal_blocks(exec, source, nb_, d_);
    long long bad = LLONG_MAX;
    Kokkos::deep_copy(exec, Kokkos::View<long long, HostSpace>(&bad), first_bad_block_);
    exec.fence();
    if (bad != LLONG_MAX) throw_not_finite_block(bad);
    check_factored(failure);
    has_values_ = true;
  }

  /// NumericalError naming user block k of O (its user row and column).
  [[noreturn]] void throw_not_finite_block(long long k) const {
    offset_t slot = 0;
    Kokkos::deep_copy(Kokkos::View<offset_t, HostSpace>(&slot), Kokkos::subview(o_slot_, static_cast<size_t>(k)));
    const auto row = std::upper_bound(ia_host_.begin(), ia_host_.end(), slot) - ia_host_.begin() - 1;
    ordinal_t col = 0;
    Kokkos::deep_copy(Kokkos::View<ordinal_t, HostSpace>(&col), Kokkos::subview(ja_, static_cast<size_t>(slot)));
    const std::string column =
        col < n_ ? std::to_string(coloring_.perm.new_to_old[col]) : "ghost " + std::to_string(col - n_);
    throw NumericalError("mcpi: O block " + std::to_string(k) + " (" + std::to_string(coloring_.perm.new_to_old[row]) +
                         ", " + column + ") holds a NaN or Inf");
  }

  /// NumericalError naming the first user block row of x (colour order) holding a NaN or Inf
  /// (on a distributed solver, of the first rank holding one), or saying that x's norm
  /// overflows when no entry is a NaN or Inf.
  template <class X>
  [[noreturn]] void throw_not_finite(const ExecSpace& exec, const X& x, const char* what) const {
    collectively([&] {
      const long long first = impl::first_not_finite_row(exec, x, nb_);
      if (first >= 0)
        throw NumericalError(std::string("mcpi: ") + what + " holds a NaN or Inf in block row " +
                             std::to_string(coloring_.perm.new_to_old[first]));
    });
    throw NumericalError(std::string("mcpi: the norm of ") + what + " overflows");
  }

  /// The operator's row evaluator for x, with U x computed into work_ on exec first.
  template <class XView>
  impl::OperatorRow<memory_space, XView, OScalar, DScalar> operator_rows(const ExecSpace& exec, const XView& x,
                                                                         bool user) const {
    impl::OperatorRow<memory_space, XView, OScalar, DScalar> op{new_to_old_, d_, work_, ia_, ja_, o_, x, nb_, user};
    impl::operator_upper(exec, op, work_);
    return op;
  }

  /// y = (D + O) x, x and y in the user's numbering (`user`) or in colour order, on exec.
  void operator_apply(const ExecSpace& exec, const ConstVector& x, const Vector& y, bool user) const {
    impl::operator_apply(exec, operator_rows(exec, x, user), y);
  }

  /// The kernel a residual-forming sweep runs for v: v's portable kernel (the split kernel's
  /// two passes cannot carry it: rows_per_warp instead).
  static Kernel residual_kernel(const Variant& v) {
    return v.kernel == Kernel::split ? Kernel::rows_per_warp : v.kernel;
  }

  /// The backend kernels' arguments for rows [b, e), forming the residual when `checked`.
  backend::ColorArgs color_args(ordinal_t b, ordinal_t e, bool checked) const {
    backend::ColorArgs a;
    if constexpr (default_precision) {
      a.nb = nb_;
      a.row_begin = b;
      a.row_end = e;
      a.ia = ia_.data();
      a.ja = ja_.data();
      a.O = o_.data();
      a.D = d_.data();
      a.R = rhs_.data();
      a.dq = dq_.data();
      if (checked) {
        a.residual_sq = residual_sq_.data();
        a.residual_slots = static_cast<int>(residual_sq_.extent(0));
      }
    }
    return a;
  }

  /// One sweep that also forms the residual: each colour's ||R_c - A_c dQ||^2 just before its
  /// update, summed over colours. Returns its square root (the device is synchronised). The
  /// backend's kernel forms it where it can (has_residual_kernel), else v's portable kernel.
  double checked_sweep(const ExecSpace& exec, const Variant& v) {
    Kokkos::deep_copy(exec, residual_sq_, 0.0);
    if constexpr (default_precision) {
      if (uses_backend_kernel(v) && backend::has_residual_kernel(exec, v.kernel, nb_)) {
        for_each_color(exec, true, [&](const ExecSpace& on, ordinal_t b, ordinal_t e) {
          backend::run_color(on, v, color_args(b, e, true), KernelTuning{});
        });
        return read_residual(exec);
      }
    }
    const Kernel k = residual_kernel(v);
    const Geometry g = geometry(k);
    const bool prefetch = k == Kernel::rows_per_warp_prefetch && g.map == LaneMap::rows;
    for_each_color(exec, true, [&](const ExecSpace& on, ordinal_t b, ordinal_t e) {
      launch(on, g, impl::Stage::fused, prefetch, b, e, true);
    });
    return read_residual(exec);
  }

  /// The true ||rhs - A dQ||_2 of the current dQ in FP64 (dQ unchanged), on exec; synchronises.
  /// One pass of the sweep's portable kernel over all rows at once, summing in FP64, with the
  /// residual of the rows as a checked sweep forms it, and no update.
  double true_residual(const ExecSpace& exec) const {
    Kokkos::deep_copy(exec, residual_sq_, 0.0);
    if (n_ > 0) launch(exec, geometry(Kernel::rows_per_warp), impl::Stage::residual_only, false, 0, n_);
    return read_residual(exec);
  }

  double read_residual(const ExecSpace& exec) const { return std::sqrt(global_sum(impl::sum(exec, residual_sq_))); }

  /// kernels.def's dispatch table of portable kernels: run_<id> for each kernel.
  void run_portable(const ExecSpace& exec, Kernel kernel, ordinal_t b, ordinal_t e) {
    using Run = void (Solver::*)(const ExecSpace&, ordinal_t, ordinal_t);
    static constexpr Run kRun[] = {
#define PPSPARSE_MCPI_KERNEL(id, layout, summary) &Solver::run_##id,
#include <ppsparse/mcpi/kernels.def>
#undef PPSPARSE_MCPI_KERNEL
    };
    const auto i = static_cast<std::size_t>(kernel);
    if (i >= sizeof(kRun) / sizeof(kRun[0])) throw InvalidArgument("mcpi: not a kernel of kernels.def");
    (this->*kRun[i])(exec, b, e);
  }

  /// The portable kernels (impl::SweepFunctor) over the colour rows [b, e).
  void run_warp_per_row(const ExecSpace& exec, ordinal_t b, ordinal_t e) {
    launch(exec, geometry(Kernel::warp_per_row), impl::Stage::fused, false, b, e);
  }
  void run_rows_per_warp(const ExecSpace& exec, ordinal_t b, ordinal_t e) {
    launch(exec, geometry(Kernel::rows_per_warp), impl::Stage::fused, false, b, e);
  }
  void run_rows_per_warp_prefetch(const ExecSpace& exec, ordinal_t b, ordinal_t e) {
    const Geometry g = geometry(Kernel::rows_per_warp_prefetch);
    launch(exec, g, impl::Stage::fused, g.map == LaneMap::rows, b, e);
  }
  void run_split(const ExecSpace& exec, ordinal_t b, ordinal_t e) {
    launch(exec, geometry(Kernel::split), impl::Stage::spmv_only, false, b, e);
    launch(exec, geometry(Kernel::rows_per_warp), impl::Stage::solve_only, false, b, e);
  }

  template <int NB, bool StageD, bool WideAcc>
  void launch_nb(const ExecSpace& exec, const Geometry& g, impl::Stage stage, bool prefetch, ordinal_t b, ordinal_t e,
                 bool residual) const {
    using Functor = impl::SweepFunctor<ExecSpace, NB, StageD, OScalar, DScalar, XScalar, WideAcc>;
    Functor f;
    f.v.ia = ia_;
    f.v.ja = ja_;
    f.v.O = o_;
    f.v.D = d_;
    f.v.R = rhs_;
    f.v.dq = dq_;
    f.v.dq_read = dq_;
    f.v.r_tmp = r_tmp_;
    f.v.residual_sq = residual_sq_;
    f.g = g;
    f.nb_rt = nb_;
    f.row_begin = b;
    f.row_end = e;
    f.stage = stage;
    f.prefetch = prefetch;
    f.stage_d = stage != impl::Stage::spmv_only && Functor::can_stage_d(g, nb_);
    f.residual = residual;
    const bool gpu = compat::is_gpu_space<ExecSpace>();
    const int league = static_cast<int>((static_cast<long long>(e - b) + g.rows_per_team() - 1) / g.rows_per_team());
    Kokkos::TeamPolicy<ExecSpace> policy(exec, league, gpu ? g.team_size() : 1, gpu ? g.W : 1);
    policy.set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(g, nb_, prefetch, f.stage_d, residual)));
    Kokkos::parallel_for("ppsparse::mcpi::sweep", policy, f);
  }

  void launch(const ExecSpace& exec, const Geometry& g, impl::Stage stage, bool prefetch, ordinal_t b, ordinal_t e,
              bool residual = false) const {
    if (stage == impl::Stage::residual_only)  // FP64 sums: the true residual
      launch_dispatch<false, true>(exec, g, stage, prefetch, b, e, true);
    else if (stage_diagonal_)
      launch_dispatch<true, false>(exec, g, stage, prefetch, b, e, residual);
    else
      launch_dispatch<false, false>(exec, g, stage, prefetch, b, e, residual);
  }

  template <bool StageD, bool WideAcc>
  void launch_dispatch(const ExecSpace& exec, const Geometry& g, impl::Stage stage, bool prefetch, ordinal_t b,
                       ordinal_t e, bool residual) const {
    // Compile-time block sizes for the common small nb (unrolled column loops).
    switch (nb_) {
      case 1:
        return launch_nb<1, StageD, WideAcc>(exec, g, stage, prefetch, b, e, residual);
      case 2:
        return launch_nb<2, StageD, WideAcc>(exec, g, stage, prefetch, b, e, residual);
      case 3:
        return launch_nb<3, StageD, WideAcc>(exec, g, stage, prefetch, b, e, residual);
      case 4:
        return launch_nb<4, StageD, WideAcc>(exec, g, stage, prefetch, b, e, residual);
      case 5:
        return launch_nb<5, StageD, WideAcc>(exec, g, stage, prefetch, b, e, residual);
      default:
        return launch_nb<0, StageD, WideAcc>(exec, g, stage, prefetch, b, e, residual);
    }
  }

  int nb_;
  std::shared_ptr<Halo<ExecSpace, XScalar>> halo_;  ///< distributed: the exchanges; null on one rank
  ordinal_t n_ = 0;
  ordinal_t n_ghost_ = 0;
  std::vector<ordinal_t> boundary_end_;  ///< per colour, with a halo
  offset_t nnzb_ = 0;
  Coloring coloring_;
  std::vector<offset_t> ia_host_;             ///< colour-ordered row pointers (error messages)
  Kokkos::View<offset_t*, memory_space> ia_;  ///< colour-ordered block CSR of O
  Kokkos::View<ordinal_t*, memory_space> ja_;
  Kokkos::View<OScalar*, memory_space> o_;
  Kokkos::View<DScalar*, memory_space> d_;  ///< D, LU-factored once factor() ran
  Kokkos::View<double*, memory_space> r_;   ///< R in colour order
  Kokkos::View<ordinal_t*, memory_space> new_to_old_, old_to_new_;
  Kokkos::View<offset_t*, memory_space> o_slot_;
  Kokkos::View<double*, memory_space> rhs_;  ///< what the sweeps read as R: r_ or a Krylov vector
  Kokkos::View<XScalar*, memory_space> dq_;
  Kokkos::View<double*, memory_space> r_tmp_;
  Kokkos::View<double*, memory_space> work_;  ///< U x of the operator, n * nb
  /// A checked sweep's squared residual, in slots that the kernels' teams or warps spread their
  /// atomic additions over.
  Kokkos::View<double*, memory_space> residual_sq_;
  static constexpr int kResidualSlots = 1024;
  Kokkos::View<unsigned char*, memory_space> stage_;       ///< host inputs of update(), on first use
  Kokkos::View<long long, memory_space> first_bad_block_;  ///< update(): the first user block of O with a NaN or Inf
  Vector vec_in_, vec_out_;                                ///< host vectors of apply() and multiply()
  bool has_values_ = false;
  bool stage_diagonal_ = false;
};

/// Convenience: set up and solve once on the default execution space.
Result mcpi_solve(const BlockSystem<HostSpace>& system, const Coloring& coloring, const Options& options);

}  // namespace ppsparse::mcpi
