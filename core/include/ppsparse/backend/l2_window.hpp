#pragma once
// A persisting-L2 access-policy window on the device stream: the lines of [base, base+bytes)
// stay in the L2 while other data streams through it (CUDA's cudaAccessPolicyWindow, seed
// 000's fig. 8). Used by MCPI for dQ and by SpMV for x. Implemented by a device backend
// (backends/cuda) where the hardware has it; elsewhere begin() returns an inactive window
// whose note says why.
#include <cstddef>
#include <string>

namespace ppsparse::backend {

struct L2Window {
  bool active = false;
  std::string note;              // what was set, or why not
  std::size_t saved_limit = 0;   // previous persisting-L2 set-aside
  unsigned char saved_attr[64];  // previous stream attribute (opaque)
};

// Sets the set-aside (3/4 of the L2, capped by the device's persisting maximum) and the
// window (clamped to the maximum window size; hit ratio = set-aside / window when the range
// is larger), saving the previous state.
L2Window l2_window_begin(const void* base, std::size_t bytes);
// Points an active window at another range (no synchronisation; the saved state is kept).
void l2_window_move(L2Window& w, const void* base, std::size_t bytes);
// Restores the previous state (synchronises the stream, resets persisting lines).
void l2_window_end(L2Window& w);

}  // namespace ppsparse::backend
