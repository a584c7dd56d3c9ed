#pragma once
/// @file
/// What one multiprocessor of an execution-space instance's device can hold at once, for
/// kernels whose teams must all be resident together (the pipelined matrix power kernel).
/// Chosen by overloading on the execution space: backends/cuda answers for Kokkos::Cuda; the
/// portable template answers 0 for every figure, meaning unknown.
#include <cstddef>

#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

/// Residency limits of one multiprocessor (0: unknown).
struct MultiprocessorLimits {
  int count = 0;                      ///< multiprocessors of the device
  std::size_t shared_bytes = 0;       ///< shared memory of one multiprocessor, all its teams together
  std::size_t reserved_per_team = 0;  ///< shared memory the runtime keeps per team (block) besides the kernel's
  int max_threads = 0;                ///< resident threads of one multiprocessor
  int max_teams = 0;                  ///< resident teams (blocks) of one multiprocessor
};

/// The limits of exec's device; all 0 (unknown) here.
template <class ExecSpace>
MultiprocessorLimits multiprocessor_limits(const ExecSpace&) {
  return {};
}

}  // namespace ppsparse::backend

// The backends' overloads (backend/backends.hpp).
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_MULTIPROCESSORS_HOOKS(Exec, NAME) MultiprocessorLimits multiprocessor_limits(const Exec& exec);
namespace ppsparse::backend {
PPSPARSE_DECLARE_BACKEND_HOOKS(MULTIPROCESSORS, PPSPARSE_MULTIPROCESSORS_HOOKS)
}  // namespace ppsparse::backend
