#pragma once
/// @file
/// What the facade of mcpi/solver.hpp holds: the solver's three layers, one of each (the
/// system's arrays and numeric phase, the colour loop, the apply loop's host-vector staging).
#include <memory>

#include <ppsparse/mcpi/halo.hpp>
#include <ppsparse/mcpi/setup.hpp>

#include "apply_loop.hpp"
#include "color_loop.hpp"
#include "level_arrays.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
struct SolverImpl {
  using Arrays = LevelArrays<ExecSpace, OScalar, DScalar, XScalar>;
  using Loop = ColorLoop<ExecSpace, OScalar, DScalar, XScalar>;

  SolverImpl(SetupPlan&& plan, std::shared_ptr<typename Loop::HaloType> halo, const typename Arrays::Progress& progress)
      : arrays(std::move(plan), progress), loop(arrays, std::move(halo)) {}
  SolverImpl(const SolverImpl&) = delete;  // the loop refers to the arrays
  SolverImpl& operator=(const SolverImpl&) = delete;

  Arrays arrays;
  Loop loop;
  typename Arrays::Vector vec_in, vec_out;  ///< host vectors of apply() and multiply(), staged
};

}  // namespace ppsparse::mcpi::detail
