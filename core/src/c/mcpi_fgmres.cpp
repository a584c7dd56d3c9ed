// The C interface's FGMRES (c/mcpi.h): on the solver's A, or on the caller's operator, and the
// residual history of the last solve.
#include <string>
#include <vector>

#include "mcpi_handle.hpp"

using ppsparse::DefaultExecSpace;
using ppsparse::HostSpace;
using ppsparse::InvalidArgument;
using namespace ppsparse::c_binding;

namespace {

/// The handle's FGMRES for the control (made anew when the control changed).
mcpi::Fgmres<>& fgmres_of(ppsparse_mcpi_solver* s, const ppsparse_fgmres_control* control) {
  auto& solver = solver_of(s);
  const mcpi::FgmresControl c = to_control(control);
  if (s->fgmres) {
    s->fgmres->set_control(c);
  } else {
    s->fgmres = std::make_unique<mcpi::Fgmres<>>(solver, c);
    if (s->multigrid) s->fgmres->set_preconditioner(s->multigrid->preconditioner());
  }
  return *s->fgmres;
}

/// FGMRES on A, or on op where it is not null.
void solve_fgmres(ppsparse_mcpi_solver* s, mcpi::Fgmres<>& gmres, const double* R, double* dq, int memory,
                  ppsparse_mcpi_status* status, const mcpi::Fgmres<>::Operator* op = nullptr) {
  with_vectors(solver_of(s), memory, R, dq, [&](const auto& r, const auto& x) {
    const mcpi::Status st =
        op ? gmres.solve(DefaultExecSpace(), r, x, *op, "the caller's op") : gmres.solve(DefaultExecSpace(), r, x);
    s->history = st.history;
    to_status(st, status);
  });
}

}  // namespace

extern "C" {

int ppsparse_mcpi_fgmres(ppsparse_mcpi_solver* s, const double* R, double* dq, int memory,
                         const ppsparse_fgmres_control* control, ppsparse_mcpi_status* status) {
  failed_status(status);
  return guarded("ppsparse_mcpi_fgmres", [&] { solve_fgmres(s, fgmres_of(s, control), R, dq, memory, status); });
}

int ppsparse_mcpi_fgmres_operator(ppsparse_mcpi_solver* s, ppsparse_operator op, void* context, const double* R,
                                  double* dq, int memory, const ppsparse_fgmres_control* control,
                                  ppsparse_mcpi_status* status) {
  failed_status(status);
  return guarded("ppsparse_mcpi_fgmres_operator", [&] {
    if (op == nullptr) throw InvalidArgument("op is NULL");
    check_memory(memory);
    mcpi::Fgmres<>& gmres = fgmres_of(s, control);
    const size_t len = static_cast<size_t>(solver_of(s).n()) * solver_of(s).nb();
    // Host memory: op sees host copies of the device vectors.
    std::vector<double> hx(memory == PPSPARSE_MEMORY_HOST ? len : 0), hy(hx.size());
    int products = 0;
    const mcpi::Fgmres<>::Operator product = [&](const DefaultExecSpace& exec, const mcpi::Fgmres<>::ConstVector& x,
                                                 const mcpi::Fgmres<>::Vector& y) {
      ++products;
      const bool host = memory == PPSPARSE_MEMORY_HOST;
      if (host) Kokkos::deep_copy(exec, wrap<double, HostSpace>(hx.data(), len), x);
      exec.fence();
      const int code = host ? op(hx.data(), hy.data(), context) : op(x.data(), y.data(), context);
      if (code != 0)
        throw InvalidArgument("op returned " + std::to_string(code) + " at its product " + std::to_string(products) +
                              " (1-based)");
      if (host) Kokkos::deep_copy(exec, y, wrap<const double, HostSpace>(hy.data(), len));
    };
    solve_fgmres(s, gmres, R, dq, memory, status, &product);
  });
}

int ppsparse_mcpi_history(const ppsparse_mcpi_solver* s, int capacity, int* steps, double* residuals, int* count) {
  return guarded("ppsparse_mcpi_history", [&] {
    solver_of(const_cast<ppsparse_mcpi_solver*>(s));
    if (capacity < 0) throw InvalidArgument("capacity must be >= 0, got " + std::to_string(capacity));
    if (capacity > 0) {
      require(steps, "steps");
      require(residuals, "residuals");
    }
    require(count, "count");
    const auto& h = s->history;
    for (size_t i = 0; i < h.size() && i < static_cast<size_t>(capacity); ++i) {
      steps[i] = h[i].sweep;
      residuals[i] = h[i].residual;
    }
    *count = static_cast<int>(h.size());
  });
}

}  // extern "C"
