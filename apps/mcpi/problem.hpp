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

// The base from which the user's numbering of the problem's block rows counts: 1 for the values
// of a Matrix Market file (its rows count from 1), else 0.
int user_index_base(const Options& o);
// A NumericalError of the problem's values (counted from user_index_base) in the file's terms:
// InputError naming the file, with which of the file's rows a block row holds; e itself for the
// problems that have no file.
[[noreturn]] void rethrow_in_file_terms(const Options& o, int nb, const ppsparse::NumericalError& e);
// The message without the "mcpi: " its thrower put first, also after a distributed error's
// "rank R: " (the line already starts "mcpi: error: ").
std::string without_prefix(const std::string& message);

}  // namespace mcpi_app
