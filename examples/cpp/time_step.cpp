// A time-step loop through the C++ interface, as an implicit CFD code runs it: the structure
// of a 7-point block stencil on a G^3 grid (nb = 5) is set up once; at every step a device
// kernel assembles new values straight into the solver's storage (no second copy), the solver
// refactors D, and MCPI solves to a tolerance on device vectors, printing its residual checks.
// The last step is solved again by FGMRES + MCPI. Exits 1 if a step does not converge.
// Usage: example_time_step_cpp [G] [steps]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/solver.hpp>

namespace mcpi = ppsparse::mcpi;
using Exec = ppsparse::DefaultExecSpace;
using Mem = Exec::memory_space;
constexpr int kNb = 5;

int run(int g, int steps) {
  const ppsparse::ordinal_t n = g * g * g;
  // The structure, in the code's own numbering (0-based, host arrays here).
  Kokkos::View<ppsparse::offset_t*, ppsparse::HostSpace> row_ptr("row_ptr", n + 1);
  std::vector<ppsparse::ordinal_t> cols;
  for (int z = 0, i = 0; z < g; ++z)
    for (int y = 0; y < g; ++y)
      for (int x = 0; x < g; ++x, ++i) {
        for (int j : {z > 0 ? i - g * g : -1, y > 0 ? i - g : -1, x > 0 ? i - 1 : -1, x + 1 < g ? i + 1 : -1,
                      y + 1 < g ? i + g : -1, z + 1 < g ? i + g * g : -1})
          if (j >= 0) cols.push_back(j);
        row_ptr(i + 1) = static_cast<ppsparse::offset_t>(cols.size());
      }
  Kokkos::View<ppsparse::ordinal_t*, ppsparse::HostSpace> col_idx("col_idx", cols.size());
  for (size_t k = 0; k < cols.size(); ++k) col_idx(k) = cols[k];

  mcpi::Solver<Exec> solver(mcpi::BlockPattern<ppsparse::HostSpace>{kNb, n, row_ptr, col_idx, 0});
  std::printf("C++: %d block rows, nb %d, %lld blocks, %d colours on %s\n", n, kNb,
              static_cast<long long>(solver.nnzb()), solver.coloring().ncolors, Exec::name());

  // The code's device copies of its structure, for its assembly kernel.
  const auto rp = Kokkos::create_mirror_view_and_copy(Mem(), row_ptr);
  const auto ci = Kokkos::create_mirror_view_and_copy(Mem(), col_idx);
  Kokkos::View<double*, Mem> R("R", static_cast<size_t>(n) * kNb), dq("dq", static_cast<size_t>(n) * kNb);
  Exec exec;
  mcpi::Control control;
  control.max_sweeps = 500;
  control.rtol = 1e-6;
  control.check_interval = 5;
  bool ok = true;
  for (int t = 0; t < steps; ++t) {
    // Assembly in place: each block is written where the sweep reads it.
    const auto st = solver.storage();
    const double scale = 1.0 + 0.1 * t;
    Kokkos::parallel_for(
        "assemble", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(const int i) {
          constexpr int nb2 = kNb * kNb;
          for (auto k = rp(i); k < rp(i + 1); ++k)
            for (int b = 0; b < kNb; ++b)
              for (int a = 0; a < kNb; ++a)  // column-major: (a, b) at b * nb + a
                st.O(static_cast<size_t>(st.o_slot(k)) * nb2 + b * kNb + a) =
                    static_cast<float>((a == b ? -1.0 : 0.01 * ((i + ci(k) + 3 * a + 7 * b) % 11 - 5)) * scale);
          const double deg = static_cast<double>(rp(i + 1) - rp(i));
          for (int b = 0; b < kNb; ++b) {
            for (int a = 0; a < kNb; ++a)
              st.D(static_cast<size_t>(st.d_slot(i)) * nb2 + b * kNb + a) =
                  a == b ? (deg + 0.5) * scale : 0.004 * ((i + a * b) % 11 - 5);
            R(static_cast<size_t>(i) * kNb + b) = ((7 * i + 3 * b + t) % 13 - 6) / 6.0;
          }
        });
    solver.factor(exec);
    const mcpi::Status s = solver.apply(exec, R, dq, control);
    std::printf("step %d: %s, %d sweeps, ||r|| %.3e -> %.3e (%s); checks:", t, s.kernel.c_str(), s.sweeps,
                s.initial_residual, s.final_residual, mcpi::name(s.reason));
    for (const auto& c : s.history) std::printf(" %d:%.2e", c.sweep, c.residual);
    std::printf("\n");
    ok = ok && s.converged();
  }
  mcpi::FgmresControl fc;
  fc.rtol = 1e-6;
  fc.sweeps = 2;
  mcpi::Fgmres<Exec> gmres(solver, fc);
  const mcpi::Status s = gmres.solve(exec, R, dq);
  std::printf("last step again: FGMRES + MCPI %d iterations, %d sweeps, ||r|| %.3e -> %.3e (%s)\n", s.iterations,
              s.sweeps, s.initial_residual, s.final_residual, mcpi::name(s.reason));
  ok = ok && s.converged();
  std::printf(ok ? "C++ example: OK\n" : "C++ example: FAILED\n");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  const int g = argc > 1 ? std::atoi(argv[1]) : 12, steps = argc > 2 ? std::atoi(argv[2]) : 3;
  if (g < 2 || steps < 1) {
    std::fprintf(stderr, "usage: example_time_step_cpp [G >= 2] [steps >= 1]\n");
    return 2;
  }
  Kokkos::ScopeGuard guard(argc, argv);
  try {
    return run(g, steps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_time_step_cpp: %s\n", e.what());
    return 1;
  }
}
