#pragma once
// mcpi --flow: the implicit Euler solver (apps/flow) on a mesh, its linear systems solved by
// ppsparse's MCPI solver. Parses its own options (argv after Kokkos' were removed).
#include <string>
#include <vector>

#include "flow_solver.hpp"

namespace mcpi_app {

struct FlowOptions {
  std::string mesh;
  int refine = 0;
  int zone = 0;
  flow::FlowSetup setup;
  std::vector<std::string> bc;  // NAME=TYPE, in order
  flow::NonlinearControl control;
  std::string output = ".";
  std::vector<int> dump_steps;
  bool vtu = true;
  bool plots = true;
  bool help = false;
};

/// True when argv asks for the flow mode (--flow anywhere).
bool wants_flow_mode(int argc, const char* const* argv);
/// InvalidArgument, one line naming the option, for bad options.
FlowOptions parse_flow_options(int argc, const char* const* argv);
std::string flow_help_text();
/// Runs the flow; returns 0 when the density residual dropped by --drop, 1 when the step limit
/// came first (or the run broke down), and throws InvalidArgument / InputError for bad input.
int run_flow_mode(const FlowOptions& opt);

}  // namespace mcpi_app
