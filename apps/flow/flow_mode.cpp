#include "flow_mode.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/refine.hpp>
#include <ppsparse/util/copy_bandwidth.hpp>

#include "boundary_conditions.hpp"
#include "common/multigrid_options.hpp"

namespace mcpi_app {
namespace {

const char* linear_name(flow::NonlinearControl::Linear l) {
  switch (l) {
    case flow::NonlinearControl::Linear::mcpi:
      return "mcpi";
    case flow::NonlinearControl::Linear::fgmres:
      return "fgmres";
    case flow::NonlinearControl::Linear::multigrid:
      break;
  }
  return "multigrid";
}

void write_history(const std::string& path, const FlowOptions& opt, const std::vector<flow::StepRecord>& h,
                   const flow::Forces& f, bool converged, long long vertices) {
  std::ofstream out(path);
  if (!out) throw ppsparse::Error("mcpi: cannot write '" + path + "'");
  out.precision(10);
  const flow::NonlinearControl resolved = flow::resolve_control(opt.control, opt.setup.order);
  out << "{\n  \"mesh\": \"" << opt.mesh << "\",\n  \"refine\": " << opt.refine << ",\n  \"vertices\": " << vertices
      << ",\n  \"mach\": " << opt.setup.mach << ",\n  \"alpha\": " << opt.setup.alpha << ",\n  \"flux\": \""
      << flow::name(opt.setup.flux) << "\",\n  \"order\": " << opt.setup.order << ",\n  \"linear\": \""
      << linear_name(opt.control.linear) << "\",\n  \"o_format\": \""
      << ppsparse::mcpi::name(opt.setup.o_storage.format) << "\",\n  \"coarse_o_format\": \""
      << ppsparse::mcpi::name(ppsparse::mcpi::coarse_o_format(opt.control.multigrid, opt.setup.o_storage.format))
      << "\",\n  \"fgmres_iterations\": " << resolved.fgmres_iterations
      << ",\n  \"fgmres_restart\": " << resolved.fgmres_restart
      << ",\n  \"o_keep_fp32\": " << (opt.setup.o_storage.keep_fp32 ? "true" : "false")
      << ",\n  \"lu_fp32\": " << (opt.setup.o_storage.lu_fp32 ? "true" : "false")
      << ",\n  \"converged\": " << (converged ? "true" : "false") << ",\n  \"cl\": " << f.cl << ",\n  \"cd\": " << f.cd
      << ",\n  \"steps\": [\n";
  for (size_t k = 0; k < h.size(); ++k) {
    const auto& r = h[k];
    out << "    {\"step\": " << r.step << ", \"residual\": " << r.residual << ", \"relative\": " << r.relative
        << ", \"cfl\": " << r.cfl << ", \"cfl_min\": " << r.cfl_min
        << ", \"linear_iterations\": " << r.linear_iterations << ", \"sweeps\": " << r.sweeps
        << ", \"linear_relative\": " << r.linear_relative
        << ", \"linear_at_limit\": " << (r.linear_at_limit ? "true" : "false") << ", \"levels\": " << r.levels
        << ", \"retries\": " << r.retries << ", \"relaxation\": " << r.relaxation << ", \"order\": " << r.order
        << ", \"newton_krylov\": " << (r.newton_krylov ? "true" : "false") << ", \"t_residual\": " << r.t_residual
        << ", \"t_jacobian\": " << r.t_jacobian << ", \"t_factor\": " << r.t_factor << ", \"t_solve\": " << r.t_solve
        << ", \"t_update\": " << r.t_update << ", \"elapsed\": " << r.elapsed << "}" << (k + 1 < h.size() ? "," : "")
        << "\n";
  }
  out << "  ]\n}\n";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The plots, drawn by matplotlib where python3 has it (the data files stay either way).
const char* kPlotScript = R"PY(
import json, sys
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except Exception:
    print("mcpi: no plots (python3 has no matplotlib); the data are in the JSON and CSV files")
    sys.exit(0)
hist, hist_png, cp_csv, cp_png = sys.argv[1:5]
h = json.load(open(hist))
s = h["steps"]
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
ax[0].semilogy([r["step"] for r in s], [r["relative"] for r in s], "o-", ms=3)
ax[0].set_xlabel("pseudo-time step"); ax[0].set_ylabel("density residual / first")
ax[1].semilogy([r["elapsed"] for r in s], [r["relative"] for r in s], "o-", ms=3)
ax[1].set_xlabel("time (s)")
for a in ax: a.grid(True, which="both", alpha=0.3)
fig.suptitle("%s: M %.3g, alpha %.3g, %s flux, %s (%s vertices)" % (h["mesh"].split("/")[-1], h["mach"], h["alpha"], h["flux"], h["linear"], h["vertices"]))
fig.tight_layout(); fig.savefig(hist_png, dpi=110)
if cp_csv:
    rows = [l.strip().split(",") for l in open(cp_csv)][1:]
    if rows:
        x = [float(r[0]) for r in rows]; cp = [float(r[-1]) for r in rows]
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(x, cp, ".", ms=2)
        ax.invert_yaxis(); ax.set_xlabel("x"); ax.set_ylabel("Cp"); ax.grid(True, alpha=0.3)
        ax.set_title("wall pressure coefficient (cl %.4f, cd %.4f)" % (h["cl"], h["cd"]))
        fig.tight_layout(); fig.savefig(cp_png, dpi=110)
)PY";

// Draws the plots; returns the names of the files it wrote (none where python3 or matplotlib is
// missing, which it says). Stale plots of an earlier run go first, so that only what this run
// drew is named.
std::vector<std::string> plot(const std::string& hist, const std::string& hist_png, const std::string& cp_csv,
                              const std::string& cp_png) {
  std::error_code ec;
  std::filesystem::remove(hist_png, ec);
  std::filesystem::remove(cp_png, ec);
  const std::string cmd = "python3 - " + shell_quote(hist) + " " + shell_quote(hist_png) + " " + shell_quote(cp_csv) +
                          " " + shell_quote(cp_png) + " 2>&1";
  FILE* p = popen(cmd.c_str(), "w");
  if (!p) {
    std::printf("mcpi: no plots (python3 not found); the data are in the JSON and CSV files\n");
    return {};
  }
  std::fputs(kPlotScript, p);
  if (pclose(p) != 0) std::printf("mcpi: no plots (python3 failed); the data are in the JSON and CSV files\n");
  std::vector<std::string> written;
  for (const std::string& f : {hist_png, cp_png})
    if (std::filesystem::exists(f, ec)) written.push_back(std::filesystem::path(f).filename().string());
  return written;
}

// The median step's split and the residual's and assembly's bandwidth against the copy
// bandwidth measured now (the first step, which sets things up, left out when there are more).
void report_step_split(const std::vector<flow::StepRecord>& history, const flow::FlowSolver& solver) {
  std::vector<flow::StepRecord> steps;
  for (const auto& r : history)
    if (r.cfl > 0 && (r.step > 1 || history.size() <= 2)) steps.push_back(r);
  if (steps.empty()) return;
  auto median = [&](double flow::StepRecord::*field) {
    std::vector<double> v;
    for (const auto& r : steps) v.push_back(r.*field);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double res = median(&flow::StepRecord::t_residual), jac = median(&flow::StepRecord::t_jacobian);
  const double fac = median(&flow::StepRecord::t_factor), sol = median(&flow::StepRecord::t_solve);
  const double copy = ppsparse::measure_copy_bandwidth<>().gbs;
  std::printf(
      "median step: residual %.3f ms, jacobian %.3f ms, factor %.3f ms, solve %.3f ms; "
      "(residual + jacobian) / solve = %.3f\n",
      1e3 * res, 1e3 * jac, 1e3 * fac, 1e3 * sol, (res + jac) / sol);
  const double rb = solver.residual_bytes(), ab = solver.assembly_bytes();
  std::printf(
      "bandwidth (minimum traffic): residual %.1f MB at %.1f GB/s, jacobian assembly %.1f MB at %.1f GB/s; "
      "copy bandwidth %.1f GB/s: %.0f %% and %.0f %% of it\n",
      rb / 1e6, rb / res / 1e9, ab / 1e6, ab / jac / 1e9, copy, 100 * rb / res / 1e9 / copy,
      100 * ab / jac / 1e9 / copy);
}

std::string format_number(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", x);
  return text;
}

}  // namespace

int run_flow_mode(const FlowOptions& opt) {
  auto say = [](const std::string& s) { std::printf("[setup] %s\n", s.c_str()); };
  ppsparse::mesh::Mesh m = ppsparse::mesh::read(opt.mesh, opt.zone);
  say("read " + opt.mesh + ": " + std::to_string(m.npoints()) + " points, " + std::to_string(m.nelements()) +
      " elements, " + std::to_string(m.nfaces()) + " boundary faces on " + std::to_string(m.marker_names.size()) +
      " markers");
  flow::FlowSetup setup = opt.setup;
  std::vector<flow::BoundaryRule> rules;
  for (const auto& b : opt.bc) rules.push_back(flow::parse_boundary_rule(b));
  setup.marker_kinds = flow::assign_boundaries(m.marker_names, rules, opt.mesh);
  flow::check_setup(setup, m.dim, m.marker_names.size());
  if (opt.refine > 0) {
    m = ppsparse::mesh::refine_uniform(m, opt.refine);
    say("refined " + std::to_string(opt.refine) + " times: " + std::to_string(m.npoints()) + " points, " +
        std::to_string(m.nelements()) + " elements");
  }
  for (size_t k = 0; k < m.marker_names.size(); ++k)
    say("marker '" + m.marker_names[k] + "': " + flow::name(setup.marker_kinds[k]));
  std::error_code ec;
  std::filesystem::create_directories(opt.output, ec);
  if (ec) throw ppsparse::InputError(opt.output, "cannot create the output folder: " + ec.message());
  const std::string dir = opt.output + "/";

  say(std::string(flow::name(setup.flux)) + " flux, " +
      (setup.order == 1 ? std::string("first order")
                        : "second order (MUSCL, " +
                              (setup.limiter_k > 0 ? "Venkatakrishnan's limiter, K " + format_number(setup.limiter_k)
                                                   : std::string("no limiter")) +
                              (setup.limiter_k > 0 && setup.limiter_freeze > 0
                                   ? ", only decreasing after a drop of " + format_number(setup.limiter_freeze)
                                   : std::string()) +
                              (setup.limiter_k > 0 && setup.limiter_hold > 0
                                   ? ", held after a drop of " + format_number(setup.limiter_hold)
                                   : std::string()) +
                              (opt.control.first_order_drop > 0 ? "; from a first-order solution" : "") +
                              (opt.control.newton_krylov == flow::NonlinearControl::NewtonKrylov::off
                                   ? std::string("; first-order Jacobian")
                                   : std::string("; Newton-Krylov steps over the first-order Jacobian")) +
                              ")"));
  auto solver = flow::make_flow_solver(m, setup, say);
  const bool multigrid = opt.control.linear == flow::NonlinearControl::Linear::multigrid;
  say(std::string("Jacobian: off-diagonal blocks in ") + ppsparse::mcpi::name(opt.setup.o_storage.format) +
      (opt.setup.o_storage.keep_fp32 && opt.setup.o_storage.format != ppsparse::mcpi::OFormat::fp32
           ? " (and FP32 for FGMRES's operator)"
           : "") +
      ", diagonal blocks' LU factors in FP64" + (opt.setup.o_storage.lu_fp32 ? ", read by the sweeps in FP32" : ""));
  if (opt.control.linear != flow::NonlinearControl::Linear::mcpi) {
    const flow::NonlinearControl c = flow::resolve_control(opt.control, opt.setup.order);
    const std::string krylov =
        "FGMRES (at most " + std::to_string(c.fgmres_iterations) + " iterations a step, " +
        (c.fgmres_restart >= c.fgmres_iterations ? std::string("no restart")
                                                 : "restarted every " + std::to_string(c.fgmres_restart)) +
        ")";
    say("linear solver: " + krylov + " + " +
        (multigrid ? mcpi_app::describe(opt.control.multigrid, opt.setup.o_storage.format)
                   : std::to_string(c.fgmres_sweeps) + " MCPI sweeps per preconditioner application"));
  }
  // With multigrid, each FGMRES iteration is one cycle, and the sweeps column counts the levels.
  std::printf("%5s %12s %10s %9s %6s %6s %9s %9s %9s %9s %9s %8s\n", "step", "residual", "relative", "cfl",
              multigrid ? "cycles" : "lin.it", multigrid ? "levels" : "sweeps", "lin.res", "t_res", "t_jac", "t_factor",
              "t_solve", "elapsed");
  auto print_step = [multigrid](const flow::StepRecord& r) {
    if (r.cfl == 0) {  // the residual that ended the run: no linear solve
      std::printf("%5d %12.5e %10.3e %9s %6s %6s %9s %8.2fms %9s %9s %9s %7.2fs\n", r.step, r.residual, r.relative, "-",
                  "-", "-", "-", 1e3 * r.t_residual, "-", "-", "-", r.elapsed);
      return;
    }
    std::printf("%5d %12.5e %10.3e %9.3g %6d %6d %9.2e %8.2fms %8.2fms %8.2fms %8.2fms %7.2fs%s\n", r.step, r.residual,
                r.relative, r.cfl, r.linear_iterations, multigrid ? r.levels : r.sweeps, r.linear_relative,
                1e3 * r.t_residual, 1e3 * r.t_jacobian, 1e3 * r.t_factor, 1e3 * r.t_solve, r.elapsed,
                (std::string(r.cfl_min < 0.5 * r.cfl ? " (local CFL from " + format_number(r.cfl_min) + ")" : "") +
                 (r.relaxation < 1 ? " (update x " + format_number(r.relaxation) + ")" : "") +
                 (r.linear_at_limit ? " (linear solve at its limit)" : "") +
                 (r.retries ? " (" + std::to_string(r.retries) + " retries)" : ""))
                    .c_str());
  };
  std::vector<flow::StepRecord> so_far;  // for the stagnation check, said once
  bool said_stagnating = false;
  const auto history = solver->run(
      opt.control,
      [&](const flow::StepRecord& r) {
        if (r.order == 2 && !so_far.empty() && so_far.back().order == 1)
          std::printf("second order from step %d (the first-order residual fell by %s)\n", r.step,
                      format_number(opt.control.first_order_drop).c_str());
        if (r.newton_krylov && (so_far.empty() || !so_far.back().newton_krylov))
          std::printf(
              "Newton-Krylov from step %d: FGMRES's operator is the residual's Jacobian by finite differences, "
              "preconditioned over the first-order one\n",
              r.step);
        print_step(r);
        so_far.push_back(r);
        if (!said_stagnating && flow::stagnated(so_far)) {
          std::printf("%s\n", flow::stagnation_advice(so_far).c_str());
          said_stagnating = true;
        }
        std::fflush(stdout);
      },
      opt.dump_steps, dir + "flow_");
  const bool converged = history.back().relative <= opt.control.drop || history.back().residual == 0;
  int at_limit = 0, solves = 0;
  double worst = 0;  // the largest relative linear residual such a step reached
  for (const auto& r : history) {
    if (r.cfl == 0) continue;  // the closing residual: no linear solve
    ++solves;
    if (!r.linear_at_limit) continue;
    ++at_limit;
    worst = std::max(worst, r.linear_relative);
  }
  if (at_limit > 0)
    std::printf(
        "linear solves: %d of %d steps stopped at their limit above the tolerance %.1e (reaching up to %.2e); %s or "
        "a lower --cfl-max leave fewer such steps\n",
        at_limit, solves, opt.control.linear_rtol, worst,
        multigrid ? "more sweeps per level (--mg-sweeps)"
                  : "--linear multigrid, more sweeps per preconditioner application (--sweeps)");
  report_step_split(history, *solver);
  std::printf("%s\n", solver->linear_solver_summary().c_str());
  const flow::Forces f = solver->forces();
  std::printf("cl %.6f  cd %.6f  (pressure forces on the walls, reference area %g)\n", f.cl, f.cd, setup.ref_area);
  bool has_wall = false;
  for (auto k : setup.marker_kinds) has_wall = has_wall || k == flow::BoundaryKind::wall;
  write_history(dir + "flow_history.json", opt, history, f, converged, m.npoints());
  if (has_wall) solver->write_wall_cp(dir + "flow_wall_cp.csv");
  if (opt.vtu) solver->write_vtu(dir + "flow_solution.vtu", m);
  std::vector<std::string> plots;
  if (opt.plots)
    plots = plot(dir + "flow_history.json", dir + "flow_history.png", has_wall ? dir + "flow_wall_cp.csv" : "",
                 dir + "flow_wall_cp.png");
  std::string wrote = dir + "flow_history.json";
  if (has_wall) wrote += ", flow_wall_cp.csv";
  if (opt.vtu) wrote += ", flow_solution.vtu";
  for (const std::string& f : plots) wrote += ", " + f;
  std::printf("wrote %s\n", wrote.c_str());
  if (converged) {
    std::printf("converged: the density residual fell by %.3e in %d steps\n", history.back().relative,
                history.back().step - 1);
    return 0;
  }
  std::printf("not converged: the density residual fell by %.3e in %d steps (--steps)\n", history.back().relative,
              static_cast<int>(history.size()) - 1);
  return 1;
}

}  // namespace mcpi_app
