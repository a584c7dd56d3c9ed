// mcpi --flow's options (flow_mode.hpp): its help text and their parsing, each bad value named
// in one line with its option.
#include <cmath>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/read.hpp>

#include "boundary_conditions.hpp"
#include "common/multigrid_options.hpp"
#include "common/option_values.hpp"
#include "flow_mode.hpp"

namespace mcpi_app {

using ppsparse::InvalidArgument;

bool wants_flow_mode(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--flow") return true;
  return false;
}

std::string flow_help_text() {
  return std::string(R"(usage: mcpi --flow MESH --mach M --bc NAME=TYPE ... [options]

Solves the steady compressible Euler equations (median-dual finite volumes, first or second
order, implicit pseudo-time stepping) on MESH; each step's linear system is assembled on the device
into the MCPI solver and solved there. Prints a line per step; writes flow_history.json and
.png, flow_solution.vtu, flow_wall_cp.csv and .png into --output. Exit status: 0 when the
density residual dropped by --drop, 1 when --steps came first, 2 on bad input.

problem:
  --flow MESH            the mesh: )") +
         ppsparse::mesh::known_mesh_formats() + R"(
  --refine K             refine it uniformly K times first
  --zone K               of a multizone file, zone K only
  --mach M               free-stream Mach number (> 0)
  --alpha A, --beta B    angle of attack and sideslip, degrees (default 0)
  --up y|z               3-D: the axis lift points along (default z, as SU2; x is the chord)
  --bc NAME=TYPE         boundary condition of the markers NAME (a glob: 'periodic-*');
                         repeatable, the first match wins; every marker needs one. TYPE:
                         )" +
         flow::boundary_kind_names() + R"(
  --inlet-pt X, --inlet-tt X   subsonic inlet total pressure and temperature / free stream's
                         static ones (default: the free stream's totals)
  --inlet-dir X,Y[,Z]    subsonic inlet flow direction (default: the free stream's)
  --outlet-p X           subsonic outlet static pressure / free stream's (default 1)
  --flux rusanov|roe|hllc|hlle|ausm+up
                         numerical flux (default rusanov: the one that converges every
                         measured case, strong shocks included; roe: Harten's entropy fix
                         0.1, the least dissipative at first order but unstable at strong
                         shocks; hllc; hlle; ausm+up, Liou's)
  --order 1|2            order in space (default 1); 2: MUSCL, each face's states
                         reconstructed from limited Green-Gauss gradients of the primitive
                         variables (the Jacobian stays first order)
  --limiter-k K          second order: Venkatakrishnan's limiter constant (default 1; larger
                         limits less; 0: no limiter, for smooth flows)
  --limiter-freeze X     second order: once the density residual fell by X from its first
                         second-order value, each vertex's limiter may only decrease, which
                         ends its switching (default 0.5; 0: never)
  --limiter-hold X       second order: once the density residual fell by X from its first
                         second-order value, the limiter is held as it is (default 1e-3;
                         0: never)
  --ref-area A           reference area (2-D: length) of cl and cd (default 1)
  --jacobian-lanes K     device threads per block row of the Jacobian kernel: 2 nb
                         (default) or 2 (a tuning)
  --o-format F           how the MCPI solver stores the Jacobian's off-diagonal blocks:
                         fp32 (default), bf16, fp16 or int8 (mcpi/o_format.hpp)
  --o-keep-fp32          with a reduced --o-format, also keep them in FP32 for FGMRES's
                         operator and the linear solves' true residuals
  --lu-fp32              the MCPI sweeps read the diagonal blocks' LU factors rounded to FP32
                         (4 bytes per entry instead of 8; FGMRES's operator keeps FP64)

solver:
  --cfl C                first CFL number (default 10); local: a vertex's grows 2-10x after
                         a step that applied its whole update, whose linear solve removed
                         at least half of its residual and whose density residual fell; it
                         is cut where the residual rose or the update had to be scaled down
  --cfl-max C            its cap (default 1e6 with FGMRES, 5e3 with MCPI alone)
  --max-change X         how far a step may move a vertex's density or pressure q: to
                         within [q (1 - X), q / (1 - X)] (default 0.5); larger updates are
                         scaled down vertex by vertex, and that vertex's CFL number held
                         or cut
  --drop X               stop when the density residual fell by X (default 1e-8)
  --first-order-drop X   second order: run first order until the density residual fell
                         by X, then second order from there (default 1e-2; 0: second
                         order from the start)
  --steps N              at most N pseudo-time steps (default 100)
  --linear mcpi|fgmres|multigrid
                         MCPI sweeps alone, FGMRES + MCPI sweeps, or FGMRES + one cycle
                         of an aggregation multigrid whose levels sweep by MCPI (the
                         default; its hierarchy from the first step's Jacobian, refreshed
                         every step; the step lines then count cycles and levels); its
                         options:
)" + mcpi_app::multigrid_options_help(flow::NonlinearControl{}.multigrid, 2) +
         R"(
  --newton-krylov auto|yes|no
                         FGMRES's operator: the residual's own Jacobian by finite
                         differences (Newton-Krylov), preconditioned over the assembled
                         first-order one, or the first-order one itself (no: defect
                         correction). auto (default): Newton-Krylov at second order from
                         the step at which the limiter only decreases (--limiter-freeze)
  --linear-rtol X        each step's linear tolerance (default 1e-2)
  --linear-iterations K  FGMRES's iteration limit per step (default 60)
  --restart K            FGMRES's restart length (default 30 at first order; at second,
                         the iteration limit: no restart)
  --sweeps K             --linear mcpi: sweep limit (default 100); --linear fgmres:
                         sweeps per preconditioner (default 20 at first order, 40 at
                         second)

output:
  --output DIR           where the files go (default: the current folder)
  --dump-system K[,K..]  write step K's linear system as DIR/flow_stepK_A.mtx (scalar,
                         read it with mcpi --matrix F --block nb) and _R.mtx
  --no-vtu, --no-plots   skip the solution file or the plots
)";
}

FlowOptions parse_flow_options(int argc, const char* const* argv) {
  FlowOptions o;
  bool sweeps_given = false, mach_given = false, mg_option_given = false;
  int sweeps = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InvalidArgument("mcpi: " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--flow") {
      o.mesh = value();
    } else if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--refine") {
      o.refine = static_cast<int>(parse_int(a, value(), 0, 8));
    } else if (a == "--zone") {
      o.zone = static_cast<int>(parse_int(a, value(), 0, 1 << 20));
    } else if (a == "--mach") {
      o.setup.mach = parse_real(a, value());
      mach_given = true;
      if (!(o.setup.mach > 0)) throw InvalidArgument("mcpi: --mach must be > 0, got " + std::string(argv[i]));
    } else if (a == "--alpha") {
      o.setup.alpha = parse_real(a, value());
    } else if (a == "--up") {
      const std::string v = value();
      if (v != "y" && v != "z") throw InvalidArgument("mcpi: --up is y or z, got '" + v + "'");
      o.setup.up = v == "y" ? 1 : 2;
    } else if (a == "--beta") {
      o.setup.beta = parse_real(a, value());
    } else if (a == "--bc") {
      o.bc.push_back(value());
      flow::parse_boundary_rule(o.bc.back());
    } else if (a == "--inlet-pt") {
      o.setup.inlet_total_pressure = parse_real(a, value());
    } else if (a == "--inlet-tt") {
      o.setup.inlet_total_temperature = parse_real(a, value());
    } else if (a == "--inlet-dir") {
      o.setup.inlet_direction = parse_real_list(a, value());
    } else if (a == "--outlet-p") {
      o.setup.outlet_pressure = parse_real(a, value());
    } else if (a == "--flux") {
      std::string v = value();
      if (v == "ausmup") v = "ausm+up";  // also without the '+'
      bool known = false;
      for (const auto f : {flow::FluxScheme::roe, flow::FluxScheme::rusanov, flow::FluxScheme::hllc,
                           flow::FluxScheme::ausm_up, flow::FluxScheme::hlle})
        if (v == flow::name(f)) o.setup.flux = f, known = true;
      if (!known) throw InvalidArgument("mcpi: --flux is roe, hllc, hlle, ausm+up or rusanov, got '" + v + "'");
    } else if (a == "--order") {
      o.setup.order = static_cast<int>(parse_int(a, value(), 1, 2));
    } else if (a == "--limiter-k") {
      o.setup.limiter_k = parse_real(a, value());
    } else if (a == "--limiter-freeze") {
      o.setup.limiter_freeze = parse_real(a, value());
    } else if (a == "--limiter-hold") {
      o.setup.limiter_hold = parse_real(a, value());
    } else if (a == "--jacobian-lanes") {
      o.setup.jacobian_lanes = static_cast<int>(parse_int(a, value(), 0, 16));
    } else if (a == "--o-format") {
      o.setup.o_storage.format = ppsparse::mcpi::parse_o_format(value());
    } else if (a == "--o-keep-fp32") {
      o.setup.o_storage.keep_fp32 = true;
    } else if (a == "--lu-fp32") {
      o.setup.o_storage.lu_fp32 = true;
    } else if (a == "--ref-area") {
      o.setup.ref_area = parse_real(a, value());
    } else if (a == "--cfl") {
      o.control.cfl = parse_real(a, value());
    } else if (a == "--cfl-max") {
      o.control.cfl_max = parse_real(a, value());
    } else if (a == "--max-change") {
      o.control.max_change = parse_real(a, value());
    } else if (a == "--drop") {
      o.control.drop = parse_real(a, value());
    } else if (a == "--first-order-drop") {
      o.control.first_order_drop = parse_real(a, value());
    } else if (a == "--steps") {
      o.control.max_steps = static_cast<int>(parse_int(a, value(), 1, 1000000));
    } else if (a == "--linear") {
      const std::string v = value();
      if (v == "mcpi") {
        o.control.linear = flow::NonlinearControl::Linear::mcpi;
      } else if (v == "fgmres") {
        o.control.linear = flow::NonlinearControl::Linear::fgmres;
      } else if (v == "multigrid") {
        o.control.linear = flow::NonlinearControl::Linear::multigrid;
      } else {
        throw InvalidArgument("mcpi: --linear is mcpi, fgmres or multigrid, got '" + v + "'");
      }
    } else if (a == "--newton-krylov") {
      const std::string v = value();
      using NK = flow::NonlinearControl::NewtonKrylov;
      if (v == "auto") {
        o.control.newton_krylov = NK::automatic;
      } else if (v == "yes") {
        o.control.newton_krylov = NK::on;
      } else if (v == "no") {
        o.control.newton_krylov = NK::off;
      } else {
        throw InvalidArgument("mcpi: --newton-krylov is auto, yes or no, got '" + v + "'");
      }
    } else if (parse_multigrid_option(a, value, o.control.multigrid)) {
      mg_option_given = true;
    } else if (a == "--linear-rtol") {
      o.control.linear_rtol = parse_real(a, value());
    } else if (a == "--linear-iterations") {
      o.control.fgmres_iterations = static_cast<int>(parse_int(a, value(), 1, 100000));
    } else if (a == "--restart") {
      o.control.fgmres_restart = static_cast<int>(parse_int(a, value(), 1, 100000));
    } else if (a == "--sweeps") {
      sweeps = static_cast<int>(parse_int(a, value(), 1, 100000));
      sweeps_given = true;
    } else if (a == "--output") {
      o.output = value();
    } else if (a == "--dump-system") {
      for (double s : parse_real_list(a, value())) {
        if (s < 1 || s != std::floor(s)) throw InvalidArgument("mcpi: --dump-system lists steps >= 1");
        o.dump_steps.push_back(static_cast<int>(s));
      }
    } else if (a == "--no-vtu") {
      o.vtu = false;
    } else if (a == "--no-plots") {
      o.plots = false;
    } else {
      throw InvalidArgument("mcpi: unknown option '" + a + "' for --flow (mcpi --flow --help lists them)");
    }
  }
  if (o.help) return o;
  if (o.mesh.empty()) throw InvalidArgument("mcpi: --flow needs a mesh file");
  if (!mach_given) throw InvalidArgument("mcpi: --flow needs --mach");
  if (sweeps_given) {
    o.control.mcpi_sweeps = sweeps;
    o.control.fgmres_sweeps = sweeps;
  }
  if (mg_option_given && o.control.linear != flow::NonlinearControl::Linear::multigrid)
    throw InvalidArgument("mcpi: the --mg-* options apply to --linear multigrid");
  // The multigrid's sweeps are per level: --sweeps would silently do nothing there.
  if (sweeps_given && o.control.linear == flow::NonlinearControl::Linear::multigrid)
    throw InvalidArgument(
        "mcpi: --sweeps counts the sweeps of --linear fgmres or mcpi; the multigrid (the default) takes "
        "--mg-sweeps and --mg-coarse-sweeps");
  flow::check_control(o.control);
  return o;
}

}  // namespace mcpi_app
