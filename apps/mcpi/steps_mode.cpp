#include "steps_mode.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/solver.hpp>

#include "common/multigrid_options.hpp"

namespace mcpi_app {

namespace {

using namespace ppsparse;
using Exec = DefaultExecSpace;
using Mem = Exec::memory_space;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Step t's values from the base system: each row of O scaled by a factor in [0.95, 1.05] that
// changes with the step, the diagonal of D by 1 + 0.02 cos(t), R rotated by the step. FP32 O, as FUN3D stores it.
void perturb(const Exec& exec, int t, int nb, const Kokkos::View<const offset_t*, Mem>& row_ptr,
             const Kokkos::View<const float*, Mem>& o0, const Kokkos::View<const double*, Mem>& d0,
             const Kokkos::View<const double*, Mem>& r0, const Kokkos::View<float*, Mem>& o,
             const Kokkos::View<double*, Mem>& d, const Kokkos::View<double*, Mem>& r) {
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  const double dscale = 1.0 + 0.02 * std::cos(static_cast<double>(t));
  const ordinal_t n = static_cast<ordinal_t>(row_ptr.extent(0)) - 1;
  Kokkos::parallel_for(
      "mcpi_app::perturb", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        const float s = static_cast<float>(1.0 + 0.005 * ((7 * i + 13 * t) % 21 - 10));
        for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k)
          for (size_t e = 0; e < nb2; ++e)
            o(static_cast<size_t>(k) * nb2 + e) = s * o0(static_cast<size_t>(k) * nb2 + e);
        for (size_t e = 0; e < nb2; ++e)
          d(i * nb2 + e) = (e % (nb + 1) == 0 ? dscale : 1.0) * d0(static_cast<size_t>(i) * nb2 + e);
        for (int e = 0; e < nb; ++e)
          r(static_cast<size_t>(i) * nb + e) = r0(static_cast<size_t>(i) * nb + (e + t) % nb);
      });
}

}  // namespace

int run_steps_mode(const Problem& p, const Options& opt) {
  const auto& s = p.system;
  const bool gpu = compat::is_gpu_space<Exec>();
  const auto t_setup = Clock::now();
  mcpi::SetupOptions setup;
  setup.colors = p.coloring.color;
  setup.o_storage = opt.o_storage;
  // In the user's numbering: from 1 for a Matrix Market file, so that every error counts as the
  // file does (and names it: rethrow_in_file_terms).
  const int base = user_index_base(opt);
  Kokkos::View<offset_t*, HostSpace> ia("ia", s.O.ia.extent(0));
  Kokkos::View<ordinal_t*, HostSpace> ja("ja", s.O.ja.extent(0));
  for (size_t q = 0; q < ia.extent(0); ++q) ia(q) = s.O.ia(q) + base;
  for (size_t q = 0; q < ja.extent(0); ++q) ja(q) = s.O.ja(q) + base;
  std::unique_ptr<mcpi::Solver<Exec>> made;
  std::unique_ptr<mcpi::Multigrid<Exec>> mg;  // --multigrid: its finest level is the solver
  try {
    const mcpi::BlockPattern<HostSpace> pattern{s.nb, s.n, ia, ja, base};
    if (opt.multigrid)
      mg = std::make_unique<mcpi::Multigrid<Exec>>(pattern, opt.mg, setup);
    else
      made = std::make_unique<mcpi::Solver<Exec>>(pattern, setup);
  } catch (const NumericalError& e) {
    rethrow_in_file_terms(opt, s.nb, e);
  }
  mcpi::Solver<Exec>& solver = mg ? mg->fine() : *made;
  const double setup_s = since(t_setup);
  std::printf(
      "steps     %d time steps on %s: %d block rows, nb %d, %lld blocks, %d colours; setup from the "
      "structure %.3f s\n",
      opt.steps, Exec::name(), s.n, s.nb, static_cast<long long>(s.O.nnzb()), solver.coloring().ncolors, setup_s);
  // The base values on the device, in the user's numbering.
  const auto row_ptr = Kokkos::create_mirror_view_and_copy(Mem(), s.O.ia);
  const auto o0 = Kokkos::create_mirror_view_and_copy(Mem(), s.O.values);
  const auto d0 = Kokkos::create_mirror_view_and_copy(Mem(), s.D);
  const auto r0 = Kokkos::create_mirror_view_and_copy(Mem(), s.R);
  Kokkos::View<float*, Mem> o("O", o0.extent(0));
  Kokkos::View<double*, Mem> d("D", d0.extent(0)), r("R", r0.extent(0)), dq("dQ", r0.extent(0));

  mcpi::Control control;
  control.max_sweeps = opt.rtol > 0 ? 100 * opt.sweeps : opt.sweeps;
  control.rtol = opt.rtol;
  control.check_interval = opt.check_interval;
  mcpi::FgmresControl fc;
  fc.sweeps = opt.sweeps;
  fc.rtol = opt.rtol > 0 ? opt.rtol : 1e-6;
  std::unique_ptr<mcpi::Fgmres<Exec>> gmres;
  if (opt.fgmres) gmres = std::make_unique<mcpi::Fgmres<Exec>>(solver, fc);
  if (mg) gmres->set_preconditioner(mg->preconditioner());
  if (mg)
    std::printf("solver    FGMRES(%d) right-preconditioned by one cycle of aggregation multigrid (%s), rtol %.1e\n",
                fc.restart, describe(opt.mg, opt.o_storage.format).c_str(), fc.rtol);
  else if (opt.fgmres)
    std::printf("solver    FGMRES(%d) right-preconditioned by %d MCPI sweeps, rtol %.1e\n", fc.restart, fc.sweeps,
                fc.rtol);
  else
    std::printf("solver    MCPI, at most %d sweeps, rtol %.1e, residual check every %d sweeps\n", control.max_sweeps,
                control.rtol, control.check_interval);
  std::printf("\n%5s %10s %10s %8s %6s %12s %12s  %s\n", "step", "update ms", "solve ms", "sweeps", "iters",
              "||R-AdQ0||", "||R-AdQ||", "reason (kernel)");
  Exec exec;
  bool ok = true;
  double update_total = 0, solve_total = 0;
  for (int t = 0; t < opt.steps; ++t) {
    perturb(exec, t, s.nb, row_ptr, o0, d0, r0, o, d, r);  // the code's assembly
    exec.fence();
    const auto t0 = Clock::now();
    try {
      if (mg)
        mg->update(exec, o, d);
      else
        solver.update(exec, o, d);
    } catch (const NumericalError& e) {
      rethrow_in_file_terms(opt, s.nb, e);
    }
    if (mg && t == 0) {
      std::printf("multigrid");
      for (const auto& l : mg->levels()) std::printf(" %d", l.n);
      std::printf(" block rows on %zu levels\n", mg->levels().size());
    }
    exec.fence();
    const double tu = since(t0);
    const auto t1 = Clock::now();
    const mcpi::Status st = opt.fgmres ? gmres->solve(exec, r, dq) : solver.apply(exec, r, dq, control);
    exec.fence();
    const double ts = since(t1);
    if (t > 0 || opt.steps == 1) {  // step 0 includes first launches
      update_total += tu;
      solve_total += ts;
    }
    std::printf("%5d %10.3f %10.3f %8d %6d %12.4e %12.4e  %s (%s)\n", t, tu * 1e3, ts * 1e3, st.sweeps, st.iterations,
                st.initial_residual, st.final_residual, mcpi::name(st.reason), st.kernel.c_str());
    if (st.reason == mcpi::StopReason::not_finite || st.reason == mcpi::StopReason::diverged) ok = false;
    if ((opt.rtol > 0 || opt.fgmres) && !st.converged()) ok = false;
  }
  const int counted = opt.steps > 1 ? opt.steps - 1 : 1;
  std::printf("\nmean of %d step%s%s: update %.3f ms + solve %.3f ms = %.3f ms, %.3fx the solve alone\n", counted,
              counted > 1 ? "s" : "", opt.steps > 1 ? " after the first" : "", update_total / counted * 1e3,
              solve_total / counted * 1e3, (update_total + solve_total) / counted * 1e3,
              solve_total > 0 ? (update_total + solve_total) / solve_total : 0.0);
  if (!gpu) std::printf("(on the host the times include no device transfer: all arrays are host memory)\n");
  if (!ok) std::fprintf(stderr, "mcpi: a step diverged, went non-finite or missed its tolerance\n");
  return ok ? 0 : 1;
}

}  // namespace mcpi_app
