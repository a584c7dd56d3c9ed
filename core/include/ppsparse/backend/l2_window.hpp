#pragma once
/// @file
/// A persisting-L2 access-policy window on an execution-space instance's stream: the lines of
/// [base, base+bytes) stay in the L2 while other data streams through it (CUDA's
/// cudaAccessPolicyWindow, Walden et al. 2021, fig. 8). Used by MCPI for dQ and by SpMV for x.
///
/// Chosen by overloading on the execution space (ArborX's way): the templates below are the
/// portable fallback, whose window is never active and whose note says why; backends/cuda
/// overloads them for Kokkos::Cuda (the window on exec.cuda_stream()), backends/hip for
/// Kokkos::HIP (no such window in HIP; the note names the architecture).
#include <cstddef>
#include <string>

#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

/// The state of a persisting-L2 window: whether it is set, what was set (or why not), and what
/// l2_window_end restores.
struct L2Window {
  bool active = false;
  std::string note;             ///< what was set, or why not
  std::size_t saved_limit = 0;  ///< previous persisting-L2 set-aside
  std::size_t set_aside = 0;    ///< the set-aside and the device's largest window, while active
  std::size_t max_window = 0;
  unsigned char saved_attr[64];  ///< previous stream attribute (opaque)
};

/// Sets the set-aside (3/4 of the L2, capped by the device's persisting maximum) and the
/// window on exec's stream (clamped to the maximum window size; hit ratio = set-aside / window
/// when the range is larger), saving the previous state. Error if the device refuses a call.
template <class ExecSpace>
L2Window l2_window_begin(const ExecSpace&, const void* /*base*/, std::size_t /*bytes*/) {
  L2Window w;
  w.note = std::string("no persisting-L2 window on ") + ExecSpace::name();
  return w;
}
/// Points an active window at another range (no synchronisation; the saved state is kept).
template <class ExecSpace>
void l2_window_move(const ExecSpace&, L2Window& /*w*/, const void* /*base*/, std::size_t /*bytes*/) {}
/// Restores the previous state (synchronises exec, resets persisting lines). Pass the instance
/// the window was begun on.
template <class ExecSpace>
void l2_window_end(const ExecSpace&, L2Window& w) {
  w.active = false;
}

}  // namespace ppsparse::backend

// The backends' overloads (backend/backends.hpp).
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_L2_WINDOW_HOOKS(Exec, NAME)                                               \
  L2Window l2_window_begin(const Exec& exec, const void* base, std::size_t bytes);         \
  void l2_window_move(const Exec& exec, L2Window& w, const void* base, std::size_t bytes); \
  void l2_window_end(const Exec& exec, L2Window& w);
namespace ppsparse::backend {
PPSPARSE_DECLARE_BACKEND_HOOKS(L2_WINDOW, PPSPARSE_L2_WINDOW_HOOKS)
}  // namespace ppsparse::backend
