// The portable persisting-L2 window hooks (backend/l2_window.hpp), linked when no device
// backend supplies them: the window is never active.
#if !defined(PPSPARSE_HAVE_L2_WINDOW_BACKEND)
#include <Kokkos_Core.hpp>
#include <ppsparse/backend/l2_window.hpp>

namespace ppsparse::backend {

L2Window l2_window_begin(const void*, std::size_t) {
  L2Window w;
  w.note = std::string("no persisting-L2 window on ") + Kokkos::DefaultExecutionSpace::name();
  return w;
}

void l2_window_move(L2Window&, const void*, std::size_t) {}

void l2_window_end(L2Window& w) { w.active = false; }

}  // namespace ppsparse::backend
#endif
