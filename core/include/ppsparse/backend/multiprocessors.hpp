#pragma once
// What one multiprocessor of the default device can hold at once, for kernels whose teams
// must all be resident together (the pipelined matrix power kernel). Implemented by a device
// backend (backends/cuda); elsewhere every figure is 0, meaning unknown.
#include <cstddef>

namespace ppsparse::backend {

struct MultiprocessorLimits {
  int count = 0;                      // multiprocessors of the device
  std::size_t shared_bytes = 0;       // shared memory of one multiprocessor, all its teams together
  std::size_t reserved_per_team = 0;  // shared memory the runtime keeps per team (block) besides the kernel's
  int max_threads = 0;                // resident threads of one multiprocessor
  int max_teams = 0;                  // resident teams (blocks) of one multiprocessor
};

MultiprocessorLimits multiprocessor_limits();

}  // namespace ppsparse::backend
