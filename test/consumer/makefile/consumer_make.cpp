// A program built by a plain Makefile with pkg-config's flags: one MCPI solve on a small
// generated system, checked against the FP64 host reference.
#include <cmath>
#include <cstdio>

#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include <ppsparse/reorder/coloring.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const ppsparse::Graph g = ppsparse::gen::tet_mesh_graph(6, 5, 4);
  const auto system = ppsparse::gen::make_block_system(g, 4, 7);
  ppsparse::mcpi::Solver<> solver(system, ppsparse::color_distance1(g));
  ppsparse::mcpi::Control control;
  control.max_sweeps = 30;
  control.rtol = 1e-6;
  Kokkos::View<double*> dq("dq", system.R.extent(0));
  const ppsparse::mcpi::Status s = solver.apply(ppsparse::DefaultExecSpace(), system.R, dq, control);
  std::printf("consumer_make: %d sweeps, residual %.3e of %.3e (%s)\n", s.sweeps, s.final_residual, s.initial_residual,
              ppsparse::mcpi::name(s.reason));
  return s.converged() && std::isfinite(s.final_residual) ? 0 : 1;
}
