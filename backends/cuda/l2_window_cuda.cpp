// The persisting-L2 window (core/include/ppsparse/backend/l2_window.hpp) on the stream of
// Kokkos' default CUDA instance.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include <Kokkos_Core.hpp>
#include <ppsparse/backend/l2_window.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("persisting-L2 window: ") + what + ": " + cudaGetErrorString(e));
}

cudaStream_t stream() { return Kokkos::Cuda().cuda_stream(); }

cudaDeviceProp properties() {
  int dev = 0;
  cudaDeviceProp p{};
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  return p;
}

// Seed 000, fig. 8: set aside 3/4 of the L2, capped by the device's persisting maximum.
std::size_t set_aside_for(const cudaDeviceProp& p) {
  return std::min(static_cast<std::size_t>(0.75 * p.l2CacheSize), static_cast<std::size_t>(p.persistingL2CacheMaxSize));
}
std::size_t set_aside_bytes() {
  static const std::size_t b = set_aside_for(properties());
  return b;
}
std::size_t max_window_bytes() {
  static const std::size_t b = static_cast<std::size_t>(properties().accessPolicyMaxWindowSize);
  return b;
}

}  // namespace

L2Window l2_window_begin(const void* base, std::size_t bytes) {
  static_assert(sizeof(cudaStreamAttrValue) <= sizeof(L2Window::saved_attr), "saved_attr too small");
  L2Window w;
  const cudaDeviceProp p = properties();
  if (p.persistingL2CacheMaxSize <= 0 || p.accessPolicyMaxWindowSize <= 0) {
    w.note = "no persisting L2 on this GPU: ran without the window";
    return w;
  }
  check(cudaDeviceGetLimit(&w.saved_limit, cudaLimitPersistingL2CacheSize), "cudaDeviceGetLimit");
  const std::size_t set_aside = set_aside_for(p);
  if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside) != cudaSuccess) {
    cudaGetLastError();
    w.note = "the persisting-L2 set-aside could not be set: ran without the window";
    return w;
  }
  cudaStreamAttrValue prev{};
  check(cudaStreamGetAttribute(stream(), cudaStreamAttributeAccessPolicyWindow, &prev), "cudaStreamGetAttribute");
  std::memcpy(w.saved_attr, &prev, sizeof prev);
  const std::size_t window = std::min(bytes, static_cast<std::size_t>(p.accessPolicyMaxWindowSize));
  // When the range exceeds the set-aside, persist only the fraction that fits (the rest streams).
  const double hit = std::min(1.0, static_cast<double>(set_aside) / static_cast<double>(window));
  cudaStreamAttrValue attr{};
  attr.accessPolicyWindow.base_ptr = const_cast<void*>(base);
  attr.accessPolicyWindow.num_bytes = window;
  attr.accessPolicyWindow.hitRatio = static_cast<float>(hit);
  attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  check(cudaStreamSetAttribute(stream(), cudaStreamAttributeAccessPolicyWindow, &attr), "cudaStreamSetAttribute");
  w.active = true;
  char buf[200];
  std::snprintf(buf, sizeof buf, "L2 window: %.1f of %.1f MB, set-aside %.1f MB of %.1f MB L2, hit ratio %.2f",
                window / 1e6, bytes / 1e6, set_aside / 1e6, p.l2CacheSize / 1e6, hit);
  w.note = buf;
  return w;
}

void l2_window_move(L2Window& w, const void* base, std::size_t bytes) {
  if (!w.active) return;
  cudaStreamAttrValue attr{};
  check(cudaStreamGetAttribute(stream(), cudaStreamAttributeAccessPolicyWindow, &attr), "cudaStreamGetAttribute");
  const std::size_t window = std::min(bytes, max_window_bytes());
  if (window == 0) return;
  attr.accessPolicyWindow.base_ptr = const_cast<void*>(base);
  attr.accessPolicyWindow.num_bytes = window;
  attr.accessPolicyWindow.hitRatio =
      static_cast<float>(std::min(1.0, static_cast<double>(set_aside_bytes()) / static_cast<double>(window)));
  check(cudaStreamSetAttribute(stream(), cudaStreamAttributeAccessPolicyWindow, &attr), "cudaStreamSetAttribute");
}

void l2_window_end(L2Window& w) {
  if (!w.active) return;
  cudaStreamAttrValue prev{};
  std::memcpy(&prev, w.saved_attr, sizeof prev);
  check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
  check(cudaStreamSetAttribute(stream(), cudaStreamAttributeAccessPolicyWindow, &prev), "restoring the stream window");
  check(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
  check(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, w.saved_limit), "restoring the persisting-L2 limit");
  w.active = false;
}

}  // namespace ppsparse::backend
