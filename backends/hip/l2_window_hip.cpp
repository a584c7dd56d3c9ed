// The persisting-L2 window hook (core/include/ppsparse/backend/l2_window.hpp) for Kokkos::HIP:
// HIP has no access-policy window (backends/hip/README.md), so the window is never active
// and its note names the device's architecture.
#include <ppsparse/backend/l2_window.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/hip/device_features.hpp>

namespace ppsparse::backend {

L2Window l2_window_begin(const Kokkos::HIP&, const void*, std::size_t) {
  L2Window w;
  try {
    w.note = hip::feature_support(hip::kokkos_device().arch).l2_note + ": ran without the window";
  } catch (const Error& e) {
    w.note = e.what();
  }
  return w;
}

// The window is never active: nothing to move or to restore.
void l2_window_move(const Kokkos::HIP&, L2Window&, const void*, std::size_t) {}
void l2_window_end(const Kokkos::HIP&, L2Window& w) { w.active = false; }

}  // namespace ppsparse::backend
