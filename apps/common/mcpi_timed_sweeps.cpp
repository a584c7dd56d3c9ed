#include "mcpi_timed_sweeps.hpp"

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/backend.hpp>

namespace ppsparse::mcpi {

TimedSweeps time_sweeps(Solver<>& solver, const TimedSweepOptions& opt) {
  using Exec = DefaultExecSpace;
  if (opt.sweeps < 0) throw InvalidArgument("mcpi: sweeps must be >= 0, got " + std::to_string(opt.sweeps));
  check_tuning(opt.tuning);
  TimedSweeps res;
  res.sweeps = opt.sweeps;
  const Variant v = solver.resolve(opt.variant);
  res.variant = v;
  solver.reset();  // the MCPI iteration starts from dQ = 0
  if (opt.residual_history) res.initial_residual_norm = solver.residual_norm();
  Exec exec;
  const bool specialised = solver.uses_backend_kernel(v, opt.backend_kernels);
  res.kernel = solver.kernel_name(exec, v, opt.backend_kernels);
  backend::L2Window window;
  if (v.has_features()) {
    if (!specialised) {
      res.note = std::string("fell back to the portable ") + name(v.kernel) + ": " +
                 (opt.backend_kernels ? backend::features(exec).why_not : std::string("backend kernels disabled"));
    } else if (v.l2_window) {
      window = solver.keep_iterate_in_l2(exec);
      res.note = window.note;
    }
  }
  if (opt.graph && opt.sweeps > 0) {  // recorded (and run once) before the timed sweeps
    if (opt.stage_diagonal || !opt.backend_kernels)
      throw InvalidArgument("mcpi: graph sweeps run the backend's kernels, without stage_diagonal");
    const double before = solver.graph_stats().record_seconds;
    res.graph = solver.sweep_graph(exec, 1, v, opt.tuning);
    exec.fence();
    res.graph_record_seconds = solver.graph_stats().record_seconds - before;
    if (!res.graph) res.note += (res.note.empty() ? "" : "; ") + ("no graph: " + solver.graph_stats().why_not);
    solver.reset();
  }
  for (int it = 0; it < opt.sweeps; ++it) {
    exec.fence();
    Kokkos::Timer timer;
    if (res.graph)
      solver.sweep_graph(exec, 1, v, opt.tuning);
    else
      solver.sweep(exec, v, opt.stage_diagonal, opt.backend_kernels, opt.tuning);
    exec.fence();
    const double t = timer.seconds();
    res.seconds += t;
    res.sweep_seconds.push_back(t);
    if (opt.residual_history) res.residual_norms.push_back(solver.residual_norm());
  }
  if (window.active) backend::l2_window_end(exec, window);
  res.dq = solver.dq_user();
  return res;
}

}  // namespace ppsparse::mcpi
