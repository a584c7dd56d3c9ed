#pragma once
/// @file
/// FUN3D's multicolour point-implicit (MCPI) solver: for each sweep and each colour c,
/// r = R_c - O_c dQ, then dQ_c = D_c^-1 r with the in-place LU factors of D.
///
///   mcpi::Solver<> solver(system, colouring);   // permute to colour order, copy, factor D
///   auto result = solver.solve({/*sweeps*/ 15, mcpi::Kernel::rows_per_warp});
///   result.dq;                                  // in the user's numbering
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <functional>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/mcpi/backend.hpp>
#include <ppsparse/mcpi/block_lu.hpp>
#include <ppsparse/mcpi/geometry.hpp>
#include <ppsparse/mcpi/sweep_kernel.hpp>
#include <ppsparse/mcpi/traffic.hpp>
#include <ppsparse/mcpi/tuning.hpp>
#include <ppsparse/mcpi/variant.hpp>
#include <ppsparse/reorder/coloring.hpp>
#include <ppsparse/reorder/permutation.hpp>

namespace ppsparse::mcpi {

/// What Solver::solve runs: the number of sweeps, the kernel and its hardware features, and
/// the kernel settings.
struct Options {
  /// Sweeps to run (>= 0).
  int sweeps = 15;
  /// The kernel and the hardware features (Variant's flags l2_window, async_copy).
  Variant variant = Kernel::warp_per_row;
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
  /// Sweeps run, the variant asked for, and (below) what actually ran.
  int sweeps = 0;
  Variant variant = Kernel::warp_per_row;
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

/// The MCPI solver for one block system and colouring on ExecSpace: the setup (checks, colour
/// order, device copy, LU of D) happens once in the constructor; solve() runs sweeps from dQ = 0.
template <class ExecSpace = DefaultExecSpace>
class Solver {
 public:
  /// Where the solver's arrays live, and the callback that reports setup steps.
  using memory_space = typename ExecSpace::memory_space;
  using Progress = std::function<void(const std::string&)>;

  /// Checks the system and colouring (check_system), renumbers to colour order, copies to the
  /// device and factors D unless system.d_factored. InvalidArgument or NumericalError (a failed
  /// pivot, naming the user's block row) on bad input; progress, if given, hears each step.
  Solver(const BlockSystem<HostSpace>& system, const Coloring& coloring, const Progress& progress = {})
      : nb_(system.nb), n_(system.n), coloring_(coloring) {
    auto say = [&](const std::string& s) {
      if (progress) progress(s);
    };
    check_system(system, coloring);
    say("renumbering " + std::to_string(n_) + " block rows into " + std::to_string(coloring.ncolors) + " colours");
    const BlockSystem<HostSpace> s = permute(system, coloring.perm);
    say("copying the system to " + std::string(ExecSpace::name()));
    dev_ = copy_to<memory_space>(s);
    nnzb_ = s.O.nnzb();
    if (!dev_.d_factored) {
      say("factoring " + std::to_string(n_) + " diagonal blocks (LU, no pivoting)");
      const long long failure = factor_diagonal_blocks<ExecSpace>(dev_.D, nb_, n_);
      if (failure >= 0) throw_pivot_failure(failure, nb_, coloring_.perm.new_to_old[failed_block(failure)]);
      dev_.d_factored = true;
    }
    dq_ = Kokkos::View<float*, memory_space>("mcpi.dq", static_cast<size_t>(n_) * nb_);
    ordinal_t max_color_rows = 0;
    for (ordinal_t c = 0; c < coloring.ncolors; ++c)
      max_color_rows = std::max(max_color_rows, coloring.color_offsets[c + 1] - coloring.color_offsets[c]);
    r_tmp_ = Kokkos::View<double*, memory_space>("mcpi.r_tmp", static_cast<size_t>(max_color_rows) * nb_);
  }

  /// The block size, block rows and off-diagonal blocks of the system, and its colouring.
  int nb() const { return nb_; }
  ordinal_t n() const { return n_; }
  offset_t nnzb() const { return nnzb_; }
  const Coloring& coloring() const { return coloring_; }
  /// The minimum bytes one sweep moves (mcpi/traffic.hpp).
  SweepTraffic traffic() const { return sweep_traffic(n_, nb_, nnzb_); }
  /// Vector-group width the kernels are laid out for (logical 32 on CPUs).
  static int group_width() { return compat::is_gpu_space<ExecSpace>() ? compat::vector_width_for<ExecSpace>() : 32; }
  /// The lane layout of kernel k for this system's nb on this device.
  Geometry geometry(Kernel k) const { return make_geometry(k, nb_, group_width()); }

  /// Runs opt.sweeps sweeps from dQ = 0 on a default instance of ExecSpace, each timed (device
  /// fenced). InvalidArgument for negative sweeps or bad tuning.
  Result solve(const Options& opt) {
    if (opt.sweeps < 0) throw InvalidArgument("mcpi: sweeps must be >= 0, got " + std::to_string(opt.sweeps));
    check_tuning(opt.tuning);
    Result res;
    res.sweeps = opt.sweeps;
    res.variant = opt.variant;
    reset();  // the MCPI iteration starts from dQ = 0
    // Poison the split variant's temporary so an unwritten entry shows up as NaN.
    Kokkos::deep_copy(r_tmp_, std::numeric_limits<double>::quiet_NaN());
    if (opt.residual_history) res.initial_residual_norm = residual_norm();
    ExecSpace exec;
    const bool specialised = uses_backend_kernel(opt.variant, opt.backend_kernels);
    res.kernel = (specialised ? backend::features(exec).name : std::string("portable")) + " " +
                 (specialised ? name(opt.variant) : std::string(name(opt.variant.kernel)));
    backend::L2Window window;
    if (opt.variant.has_features()) {
      if (!specialised) {
        res.note = std::string("fell back to the portable ") + name(opt.variant.kernel) + ": " +
                   (opt.backend_kernels ? backend::features(exec).why_not : std::string("backend kernels disabled"));
      } else if (opt.variant.l2_window) {
        window = backend::l2_window_begin(exec, dq_.data(), dq_.span() * sizeof(float));
        res.note = window.note;
      }
    }
    for (int it = 0; it < opt.sweeps; ++it) {
      exec.fence();
      Kokkos::Timer timer;
      sweep(exec, opt.variant, opt.stage_diagonal, opt.backend_kernels, opt.tuning);
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
    return backend_kernels && backend::has_kernel(ExecSpace(), variant.kernel, nb_);
  }

  /// One sweep over all colours, asynchronous on exec's stream (benchmarks time this directly).
  /// `tuning` must pass check_tuning (solve() checks it).
  void sweep(const ExecSpace& exec, const Variant& variant, bool stage_diagonal = false, bool backend_kernels = true,
             const KernelTuning& tuning = {}) {
    stage_diagonal_ = stage_diagonal;
    const bool specialised = uses_backend_kernel(variant, backend_kernels);
    for (ordinal_t c = 0; c < coloring_.ncolors; ++c) {
      const ordinal_t b = coloring_.color_offsets[c], e = coloring_.color_offsets[c + 1];
      if (b == e) continue;
      if (specialised) {
        backend::ColorArgs a;
        a.nb = nb_;
        a.row_begin = b;
        a.row_end = e;
        a.ia = dev_.O.ia.data();
        a.ja = dev_.O.ja.data();
        a.O = dev_.O.values.data();
        a.D = dev_.D.data();
        a.R = dev_.R.data();
        a.dq = dq_.data();
        backend::run_color(exec, variant, a, tuning);
        continue;
      }
      run_portable(exec, variant.kernel, b, e);
    }
  }

  /// dQ = 0, the iteration's start (solve() does this itself; callers of sweep() need it).
  void reset() { Kokkos::deep_copy(dq_, 0.0f); }

  /// ||R - (D + O) dQ||_2 in FP64 for the current dQ (D applied through its LU factors).
  double residual_norm() const {
    const auto O = dev_.O;
    const auto D = dev_.D;
    const auto R = dev_.R;
    const auto dq = dq_;
    const int nb = nb_;
    double sum = 0.0;
    Kokkos::parallel_reduce(
        "ppsparse::mcpi::residual_norm", Kokkos::RangePolicy<ExecSpace>(0, n_),
        KOKKOS_LAMBDA(const ordinal_t row, double& acc) {
          double y[64];
          const size_t nb2 = static_cast<size_t>(nb) * nb;
          const double* lu = D.data() + static_cast<size_t>(row) * nb2;
          const float* x = dq.data() + static_cast<size_t>(row) * nb;
          // y = U x, then D x = L y with unit lower L.
          for (int i = 0; i < nb; ++i) {
            double s = 0.0;
            for (int j = i; j < nb; ++j) s += lu[j * nb + i] * x[j];
            y[i] = s;
          }
          for (int i = nb - 1; i >= 0; --i) {
            double s = y[i];
            for (int j = 0; j < i; ++j) s += lu[j * nb + i] * y[j];
            y[i] = s;
          }
          for (int i = 0; i < nb; ++i) {
            double r = R(static_cast<size_t>(row) * nb + i) - y[i];
            for (offset_t k = O.ia(row); k < O.ia(row + 1); ++k) {
              const size_t col = static_cast<size_t>(O.ja(k));
              for (int j = 0; j < nb; ++j)
                r -= static_cast<double>(O.values(static_cast<size_t>(k) * nb2 + j * nb + i)) * dq(col * nb + j);
            }
            acc += r * r;
          }
        },
        sum);
    return std::sqrt(sum);
  }

  /// The current dQ in the user's numbering.
  std::vector<double> dq_user() const {
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), dq_);
    std::vector<double> x(h.extent(0));
    for (size_t i = 0; i < x.size(); ++i) x[i] = h(i);
    return to_old(x, coloring_.perm, nb_);
  }

 private:
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

  template <int NB, bool StageD>
  void launch_nb(const ExecSpace& exec, const Geometry& g, impl::Stage stage, bool prefetch, ordinal_t b, ordinal_t e) {
    using Functor = impl::SweepFunctor<ExecSpace, NB, StageD>;
    Functor f;
    f.v.ia = dev_.O.ia;
    f.v.ja = dev_.O.ja;
    f.v.O = dev_.O.values;
    f.v.D = dev_.D;
    f.v.R = dev_.R;
    f.v.dq = dq_;
    f.v.dq_read = dq_;
    f.v.r_tmp = r_tmp_;
    f.g = g;
    f.nb_rt = nb_;
    f.row_begin = b;
    f.row_end = e;
    f.stage = stage;
    f.prefetch = prefetch;
    f.stage_d = stage != impl::Stage::spmv_only && Functor::can_stage_d(g, nb_);
    const bool gpu = compat::is_gpu_space<ExecSpace>();
    const int league = static_cast<int>((static_cast<long long>(e - b) + g.rows_per_team() - 1) / g.rows_per_team());
    Kokkos::TeamPolicy<ExecSpace> policy(exec, league, gpu ? g.team_size() : 1, gpu ? g.W : 1);
    policy.set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(g, nb_, prefetch, f.stage_d)));
    Kokkos::parallel_for("ppsparse::mcpi::sweep", policy, f);
  }

  void launch(const ExecSpace& exec, const Geometry& g, impl::Stage stage, bool prefetch, ordinal_t b, ordinal_t e) {
    if (stage_diagonal_)
      launch_dispatch<true>(exec, g, stage, prefetch, b, e);
    else
      launch_dispatch<false>(exec, g, stage, prefetch, b, e);
  }

  template <bool StageD>
  void launch_dispatch(const ExecSpace& exec, const Geometry& g, impl::Stage stage, bool prefetch, ordinal_t b,
                       ordinal_t e) {
    // Compile-time block sizes for the common small nb (unrolled column loops).
    switch (nb_) {
      case 1:
        return launch_nb<1, StageD>(exec, g, stage, prefetch, b, e);
      case 2:
        return launch_nb<2, StageD>(exec, g, stage, prefetch, b, e);
      case 3:
        return launch_nb<3, StageD>(exec, g, stage, prefetch, b, e);
      case 4:
        return launch_nb<4, StageD>(exec, g, stage, prefetch, b, e);
      case 5:
        return launch_nb<5, StageD>(exec, g, stage, prefetch, b, e);
      default:
        return launch_nb<0, StageD>(exec, g, stage, prefetch, b, e);
    }
  }

  int nb_;
  ordinal_t n_;
  offset_t nnzb_ = 0;
  Coloring coloring_;
  BlockSystem<memory_space> dev_;
  Kokkos::View<float*, memory_space> dq_;
  Kokkos::View<double*, memory_space> r_tmp_;
  bool stage_diagonal_ = false;
};

/// Convenience: set up and solve once on the default execution space.
Result mcpi_solve(const BlockSystem<HostSpace>& system, const Coloring& coloring, const Options& options);

}  // namespace ppsparse::mcpi
