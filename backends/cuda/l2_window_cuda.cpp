// The persisting-L2 window (core/include/ppsparse/backend/l2_window.hpp) for Kokkos::Cuda: on
// the instance's stream and device.
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

cudaDeviceProp properties(const int device) {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  return p;
}

// Walden et al. (2021), fig. 8: set aside 3/4 of the L2, capped by the device's persisting maximum.
std::size_t set_aside_for(const cudaDeviceProp& p) {
  return std::min(static_cast<std::size_t>(0.75 * p.l2CacheSize), static_cast<std::size_t>(p.persistingL2CacheMaxSize));
}

}  // namespace

L2Window l2_window_begin(const Kokkos::Cuda& exec, const void* base, std::size_t bytes) {
  static_assert(sizeof(cudaStreamAttrValue) <= sizeof(L2Window::saved_attr), "saved_attr too small");
  L2Window w;
  const cudaStream_t stream = exec.cuda_stream();
  const cudaDeviceProp p = properties(exec.cuda_device());
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
  check(cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &prev), "cudaStreamGetAttribute");
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
  check(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr), "cudaStreamSetAttribute");
  w.active = true;
  w.set_aside = set_aside;
  w.max_window = static_cast<std::size_t>(p.accessPolicyMaxWindowSize);
  char buf[200];
  std::snprintf(buf, sizeof buf, "L2 window: %.1f of %.1f MB, set-aside %.1f MB of %.1f MB L2, hit ratio %.2f",
                window / 1e6, bytes / 1e6, set_aside / 1e6, p.l2CacheSize / 1e6, hit);
  w.note = buf;
  return w;
}

void l2_window_move(const Kokkos::Cuda& exec, L2Window& w, const void* base, std::size_t bytes) {
  if (!w.active) return;
  const cudaStream_t stream = exec.cuda_stream();
  cudaStreamAttrValue attr{};
  check(cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr), "cudaStreamGetAttribute");
  const std::size_t window = std::min(bytes, w.max_window);
  if (window == 0) return;
  attr.accessPolicyWindow.base_ptr = const_cast<void*>(base);
  attr.accessPolicyWindow.num_bytes = window;
  attr.accessPolicyWindow.hitRatio =
      static_cast<float>(std::min(1.0, static_cast<double>(w.set_aside) / static_cast<double>(window)));
  check(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr), "cudaStreamSetAttribute");
}

void l2_window_end(const Kokkos::Cuda& exec, L2Window& w) {
  if (!w.active) return;
  const cudaStream_t stream = exec.cuda_stream();
  cudaStreamAttrValue prev{};
  std::memcpy(&prev, w.saved_attr, sizeof prev);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &prev), "restoring the stream window");
  check(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
  check(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, w.saved_limit), "restoring the persisting-L2 limit");
  w.active = false;
}

}  // namespace ppsparse::backend
