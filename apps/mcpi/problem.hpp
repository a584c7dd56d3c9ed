#pragma once
// Builds the system and colouring the app solves, from the options.
#include <functional>
#include <string>

#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/reorder/coloring.hpp>

#include "options.hpp"

namespace mcpi_app {

struct Problem {
  std::string description;
  ppsparse::BlockSystem<ppsparse::HostSpace> system;
  ppsparse::Coloring coloring;
};

// gpu: whether the default device is a GPU (sizes the embedded problem).
Problem build_problem(const Options& o, bool gpu, const std::function<void(const std::string&)>& progress);

}  // namespace mcpi_app
