// Sets up, fills and solves a small MCPI system through the installed headers and library.
#include <cstdio>

#include <ppsparse/mcpi/solver.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  namespace mcpi = ppsparse::mcpi;
  using ppsparse::HostSpace;
  // A chain of 4 block rows (nb = 2): i couples to i - 1 and i + 1.
  const int n = 4, nb = 2;
  Kokkos::View<ppsparse::offset_t*, HostSpace> row_ptr("row_ptr", n + 1);
  Kokkos::View<ppsparse::ordinal_t*, HostSpace> col_idx("col_idx", 6);
  int k = 0;
  for (int i = 0; i < n; ++i) {
    if (i > 0) col_idx(k++) = i - 1;
    if (i + 1 < n) col_idx(k++) = i + 1;
    row_ptr(i + 1) = k;
  }
  mcpi::Solver<> solver(mcpi::BlockPattern<HostSpace>{nb, n, row_ptr, col_idx, 0});
  Kokkos::View<double*, HostSpace> O("O", 6 * nb * nb), D("D", n * nb * nb), R("R", n * nb), dq("dq", n * nb);
  for (int q = 0; q < 6 * nb * nb; ++q) O(q) = (q % 3 == 0) ? -1.0 : 0.1;
  for (int i = 0; i < n; ++i)
    for (int e = 0; e < nb * nb; ++e) D(i * nb * nb + e) = (e % (nb + 1) == 0) ? 4.0 : 0.2;
  for (int q = 0; q < n * nb; ++q) R(q) = 1.0 + q;
  solver.update(ppsparse::DefaultExecSpace(), O, D);
  mcpi::Control control;
  control.max_sweeps = 200;
  control.rtol = 1e-6;
  control.check_interval = 1;
  const mcpi::Status s = solver.apply(ppsparse::DefaultExecSpace(), R, dq, control);
  std::printf("consumer: %s after %d sweeps, ||r|| %.2e -> %.2e\n", mcpi::name(s.reason), s.sweeps, s.initial_residual,
              s.final_residual);
  if (!s.converged()) {
    std::puts("consumer: FAILED");
    return 1;
  }
  std::puts("consumer: OK");
  return 0;
}
