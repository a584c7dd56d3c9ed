#pragma once
// mcpi --steps N: a CFD code's time-step loop on the app's problem. The solver is set up once
// from the structure of O (user numbering), then each step assembles perturbed values on the
// device, calls update() and solves A dQ = R on device vectors (apply(), or FGMRES + MCPI with
// --fgmres), and prints one line: update and solve times, sweeps (and iterations), the initial
// and final residuals and the stop reason. A summary line compares update + solve with the
// solve alone. Returns 0 when every step ran (and, with a tolerance, converged), 1 otherwise.
#include "options.hpp"
#include "problem.hpp"

namespace mcpi_app {

int run_steps_mode(const Problem& problem, const Options& options);

}  // namespace mcpi_app
