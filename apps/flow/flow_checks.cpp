// The checks of a flow's setup and of its nonlinear control (flow_solver.hpp): one line naming
// the setting, before anything is allocated; and the check of a run for stagnation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <ppsparse/error.hpp>

#include "flow_solver.hpp"

namespace flow {

using ppsparse::InvalidArgument;

void check_setup(const FlowSetup& s, int dim, size_t markers) {
  auto bad = [](const std::string& what) { throw InvalidArgument("flow: " + what); };
  if (!(s.mach > 0) || !std::isfinite(s.mach)) bad("the Mach number is " + std::to_string(s.mach) + ", must be > 0");
  if (!std::isfinite(s.alpha) || std::abs(s.alpha) > 90) bad("the angle of attack must be within [-90, 90] degrees");
  if (!std::isfinite(s.beta) || std::abs(s.beta) > 90) bad("the sideslip angle must be within [-90, 90] degrees");
  if (dim == 2 && s.beta != 0) bad("a sideslip angle needs a 3-D mesh");
  if (s.up != 1 && s.up != 2) bad("the up axis is y (1) or z (2)");
  if (s.jacobian_lanes != 0 && s.jacobian_lanes != 2 && s.jacobian_lanes != 2 * (dim + 2))
    bad("the Jacobian's threads per block row are 2 or " + std::to_string(2 * (dim + 2)) +
        " (0: " + std::to_string(2 * (dim + 2)) + ")");
  if (!(s.gamma > 1) || s.gamma > 5) bad("gamma must be within (1, 5]");
  if (!(s.entropy_fix >= 0) || s.entropy_fix > 1) bad("the entropy fix must be within [0, 1]");
  if (s.marker_kinds.size() != markers)
    bad(std::to_string(s.marker_kinds.size()) + " boundary conditions for " + std::to_string(markers) + " markers");
  if (!(s.inlet_total_pressure >= 0) || !(s.inlet_total_temperature >= 0))
    bad("the inlet's total pressure and temperature must be >= 0 (0: the free stream's)");
  if (!s.inlet_direction.empty() && s.inlet_direction.size() != static_cast<size_t>(dim))
    bad("the inlet direction has " + std::to_string(s.inlet_direction.size()) + " components for a " +
        std::to_string(dim) + "-D mesh");
  if (!(s.outlet_pressure > 0)) bad("the outlet pressure must be > 0");
  if (!(s.ref_area > 0)) bad("the reference area must be > 0");
  if (s.order != 1 && s.order != 2) bad("the order in space is 1 or 2, got " + std::to_string(s.order));
  if (!(s.limiter_k >= 0) || !std::isfinite(s.limiter_k)) bad("the limiter constant K must be >= 0 (0: no limiter)");
  if (!(s.limiter_freeze >= 0) || !(s.limiter_freeze < 1))
    bad("the limiter's freezing drop (--limiter-freeze) must be within [0, 1) (0: never)");
  if (!(s.limiter_hold >= 0) || !(s.limiter_hold < 1))
    bad("the limiter's holding drop (--limiter-hold) must be within [0, 1) (0: never)");
}

void check_control(const NonlinearControl& c) {
  auto bad = [](const std::string& what) { throw InvalidArgument("flow: " + what); };
  if (!(c.cfl > 0) || !std::isfinite(c.cfl)) bad("--cfl must be > 0");
  if (c.cfl_max != 0 && !(c.cfl_max >= c.cfl)) bad("--cfl-max must be >= --cfl (or 0: automatic)");
  if (!(c.max_change > 0) || !(c.max_change < 1)) bad("--max-change must be within (0, 1)");
  if (!(c.drop > 0) || !(c.drop < 1)) bad("--drop must be within (0, 1)");
  if (c.max_steps < 1) bad("--steps must be >= 1");
  if (!(c.first_order_drop == 0 || (c.first_order_drop > c.drop && c.first_order_drop < 1)))
    bad("--first-order-drop must be 0 (second order from the start) or within (--drop, 1)");
  if (!(c.linear_rtol > 0) || !(c.linear_rtol < 1)) bad("--linear-rtol must be within (0, 1)");
  if (c.mcpi_sweeps < 1 || c.fgmres_sweeps < 0 || c.fgmres_restart < 0 || c.fgmres_iterations < 1)
    bad("sweeps, restart and iteration limits must be >= 1 (FGMRES's sweeps and restart 0: by the order)");
  if (c.linear == NonlinearControl::Linear::multigrid) ppsparse::mcpi::check_multigrid_options(c.multigrid);
  if (c.newton_krylov == NonlinearControl::NewtonKrylov::on && c.linear == NonlinearControl::Linear::mcpi)
    bad("--newton-krylov yes needs FGMRES (--linear fgmres or multigrid), not --linear mcpi");
}

namespace {

/// The records of solved steps (the closing record has no linear solve).
std::vector<StepRecord> solved(const std::vector<StepRecord>& h) {
  std::vector<StepRecord> out;
  for (const auto& r : h)
    if (r.cfl > 0) out.push_back(r);
  return out;
}

}  // namespace

NonlinearControl resolve_control(const NonlinearControl& c, int order) {
  NonlinearControl r = c;
  if (r.fgmres_sweeps == 0) r.fgmres_sweeps = order == 2 ? 40 : 20;
  if (r.fgmres_restart == 0) r.fgmres_restart = order == 2 ? r.fgmres_iterations : 30;
  return r;
}

CflFactors cfl_factors(const NonlinearControl& c, const StepRecord& last, double residual) {
  const double fall = residual > 0 ? last.residual / residual : 10;
  const double solved = std::max(0.5, c.linear_rtol);  // the solve removed at least half
  CflFactors f;
  if (last.linear_relative > 0.9) {
    f.whole = f.limited = 0.5;
  } else if (fall < 1) {
    f.whole = f.limited = std::max(0.1, fall);
  } else if (last.linear_relative <= solved) {
    f.whole = std::min(10.0, std::max(2.0, fall));
  }
  return f;
}

bool stagnated(const std::vector<StepRecord>& history, int window) {
  const auto h = solved(history);
  if (window < 1 || h.size() < static_cast<size_t>(window) + 1) return false;
  const double before = h[h.size() - 1 - static_cast<size_t>(window)].residual;
  for (size_t k = h.size() - static_cast<size_t>(window); k < h.size(); ++k)
    if (h[k].residual < 0.5 * before) return false;
  return true;
}

std::string stagnation_advice(const std::vector<StepRecord>& history, int window) {
  const auto h = solved(history);
  if (h.empty()) return "";
  const size_t first = h.size() > static_cast<size_t>(window) ? h.size() - static_cast<size_t>(window) : 0;
  int at_limit = 0, retries = 0;
  double cfl_low = h.back().cfl, cfl_high = h.back().cfl;
  for (size_t k = first; k < h.size(); ++k) {
    at_limit += h[k].linear_at_limit;
    retries += h[k].retries;
    cfl_low = std::min(cfl_low, h[k].cfl);
    cfl_high = std::max(cfl_high, h[k].cfl);
  }
  const int n = static_cast<int>(h.size() - first);
  char line[400];
  std::snprintf(
      line, sizeof line,
      "flow: stagnating: the density residual has not halved in %d steps (%.3e of the first; CFL %.3g to "
      "%.3g; %d linear solves at their limit, %d retries); try %s",
      n, h.back().relative, cfl_low, cfl_high, at_limit, retries,
      at_limit * 2 > n
          // Linear solves that fail at large CFL numbers: a cap keeps the systems
          // diagonally stronger (docs/perf/flow_second_order.md).
          ? (h.back().levels > 0 ? "a lower --cfl-max such as 1e4, or more --mg-sweeps"
                                 : "--linear multigrid or more --sweeps, or a lower --cfl-max")
          : retries > 0 ? "a lower --cfl or --cfl-max, or --flux rusanov" : "a lower --cfl-max, or --flux rusanov");
  return line;
}

}  // namespace flow
