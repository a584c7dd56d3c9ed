#include "linear_solver.hpp"

#include <cstdio>

namespace flow {

LinearSolver::LinearSolver(int nb, ordinal_t n, const std::vector<offset_t>& row_ptr,
                           const std::vector<ordinal_t>& col_idx, const ppsparse::mcpi::OStorage& o_storage,
                           std::function<void(const std::string&)> say)
    : nb_(nb), n_(n), row_ptr_(row_ptr), col_idx_(col_idx), o_storage_(o_storage), say_(std::move(say)) {}

LinearSolver::~LinearSolver() = default;

void LinearSolver::prepare(const NonlinearControl& c) {
  const bool multigrid = c.linear == NonlinearControl::Linear::multigrid;
  const bool have = multigrid ? mg_ && control_.multigrid == c.multigrid : solver_ != nullptr;
  gmres_.reset();  // it refers to the solver
  if (!have) {
    solver_.reset();
    mg_.reset();
    if (say_)
      say_(std::string("flow: setting up the ") + (multigrid ? "multigrid's finest level" : "MCPI solver") + " (" +
           std::to_string(n_) + " block rows of " + std::to_string(nb_) + ")");
    using HostOffsets = Kokkos::View<const offset_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using HostOrdinals = Kokkos::View<const ordinal_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const ppsparse::mcpi::BlockPattern<Kokkos::HostSpace> pattern{
        nb_, n_, HostOffsets(row_ptr_.data(), row_ptr_.size()), HostOrdinals(col_idx_.data(), col_idx_.size()), 0};
    ppsparse::mcpi::SetupOptions options;
    options.progress = say_;
    options.o_storage = o_storage_;
    if (multigrid) {
      mg_ = std::make_unique<ppsparse::mcpi::Multigrid<Exec>>(pattern, c.multigrid, options);
    } else {
      solver_ = std::make_unique<McpiSolver>(pattern, options);
    }
  }
  control_ = c;
  if (c.linear != NonlinearControl::Linear::mcpi) {
    ppsparse::mcpi::FgmresControl fc;
    fc.rtol = c.linear_rtol;
    fc.sweeps = c.fgmres_sweeps;
    fc.restart = c.fgmres_restart;
    fc.max_iterations = c.fgmres_iterations;
    gmres_ = std::make_unique<ppsparse::mcpi::Fgmres<Exec>>(fine(), fc);
    if (mg_) gmres_->set_preconditioner(mg_->preconditioner());
  }
}

int LinearSolver::factor(const Exec& exec) {
  if (!mg_) {
    solver_->factor(exec);
    return 0;
  }
  mg_->factor(exec);  // the coarse levels' values too (the hierarchy at the first call)
  return static_cast<int>(mg_->levels().size());
}

ppsparse::mcpi::Status LinearSolver::solve(const Exec& exec, const Vector& rhs, const Vector& dQ) {
  if (gmres_) return gmres_->solve(exec, rhs, dQ);
  ppsparse::mcpi::Control control;
  control.max_sweeps = control_.mcpi_sweeps;
  control.rtol = control_.linear_rtol;
  control.check_interval = 5;
  return solver_->apply(exec, rhs, dQ, control);
}

ppsparse::mcpi::Status LinearSolver::solve(const Exec& exec, const Vector& rhs, const Vector& dQ, const Operator& op,
                                           const std::string& name) {
  if (!gmres_) throw ppsparse::InvalidArgument("flow: an operator needs FGMRES, and the linear solver is MCPI alone");
  return gmres_->solve(exec, rhs, dQ, op, name);
}

namespace {

std::string bytes(double b) {
  char s[32];
  if (b < 1e6)
    std::snprintf(s, sizeof s, "%.1f kB", b / 1e3);
  else
    std::snprintf(s, sizeof s, "%.1f MB", b / 1e6);
  return s;
}

}  // namespace

std::string LinearSolver::summary() const {
  if (solver_)
    return "MCPI solver: " + std::to_string(n_) + " block rows, " +
           bytes(static_cast<double>(solver_->device_bytes())) + " on the device";
  if (!mg_) return "";
  const auto levels = mg_->levels();
  std::string rows;
  for (const auto& l : levels) rows += (rows.empty() ? "" : " ") + std::to_string(l.n);
  const double all = static_cast<double>(mg_->device_bytes()), finest = static_cast<double>(levels[0].device_bytes);
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", all / finest);
  const ppsparse::mcpi::GraphStats gs = mg_->graph_stats();
  const std::string cycles = gs.recordings > 0 ? "cycles replayed as one device graph (" + std::to_string(gs.replays) +
                                                     " replays, " + std::to_string(gs.recordings) + " recorded)"
                                               : "cycles launched kernel by kernel: " + gs.why_not;
  return "multigrid: " + std::to_string(levels.size()) + " levels of " + rows + " block rows; " + bytes(all) +
         " on the device, " + ratio + " its finest level's " + bytes(finest) + " (a one-level solver's); " + cycles;
}

}  // namespace flow
