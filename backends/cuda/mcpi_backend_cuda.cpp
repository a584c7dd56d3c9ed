// CUDA specialisations of the MCPI kernels (seed 000's 11_x and 16_x) and the persisting-L2
// window, implementing core's mcpi/backend.hpp. Compiled by nvcc (nvcc_wrapper) only.
//
// Compared with the portable functors, a warp keeps its partial sums and the substitution in
// registers (warp shuffles instead of scratch phases), unrolls blocks so that their ja -> dQ
// chains overlap, gathers one dQ value per block (column-wise mapping), gives small colours a
// kernel that spreads a row's blocks over the warp, and, in the _async variants, copies its D
// blocks to shared memory with cp.async (__pipeline_memcpy_async) while the SpMV loads are in
// flight.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/backend.hpp>

namespace ppsparse::mcpi::backend {
namespace {

constexpr int kWarps = 4;  // warps per thread block
constexpr unsigned kFull = 0xffffffffu;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("mcpi cuda backend: ") + what + ": " + cudaGetErrorString(e));
}

cudaStream_t stream() { return Kokkos::Cuda().cuda_stream(); }

// Forward (unit L) and backward (U) substitution of one block row held by lanes base..base+NB-1,
// lane value rv = r_i; Dij(i, j) reads the LU factors. Every lane of the warp must call it.
template <int NB, class DAt>
__device__ __forceinline__ double substitute(double rv, const int i, const int base, const bool active, const DAt& Dij) {
#pragma unroll
  for (int j = 0; j < NB - 1; ++j) {
    const double rj = __shfl_sync(kFull, rv, base + j);
    if (active && i > j) rv -= Dij(i, j) * rj;
  }
#pragma unroll
  for (int j = NB - 1; j > 0; --j) {
    const double rj = __shfl_sync(kFull, rv, base + j);
    if (active && i < j) rv -= Dij(i, j) * (rj / Dij(j, j));
  }
  return active ? rv / Dij(i, i) : 0.0;
}

// Copies `count` doubles from global src to shared dst with cp.async, spread over the warp.
__device__ __forceinline__ void async_copy_doubles(double* dst, const double* src, int count, int lane) {
  for (int e = lane; e < count; e += 32) __pipeline_memcpy_async(dst + e, src + e, sizeof(double));
  __pipeline_commit();
}

// 16_x: a warp owns R = 32 / NB block rows, NB consecutive lanes per row (seed 000, fig. 6).
// Unlike the seed's fig. 7 (lane i takes row i of each block and gathers NB dQ values), lane
// (r, i) multiplies column i of each block
// (NB contiguous floats) by the single dQ value it needs, accumulating partial sums for all NB
// rows of the block; the NB partial vectors of a block row are summed with shuffles once per
// row. One dQ gather per block instead of NB.
// Measured on an H200 (default problem, nb = 5): 70.9 % of the copy bandwidth against 61.5 % for
// the fig. 7 mapping; unrolling 4 blocks instead of 2 gained nothing (docs/perf/mcpi_cuda_h200.md).
template <int NB, bool ASYNC>
__global__ void __launch_bounds__(kWarps * 32) rows_per_warp_kernel(const ColourArgs a) {
  constexpr int UNROLL = 2;
  constexpr int R = 32 / NB;
  constexpr int NB2 = NB * NB;
  __shared__ double sD[kWarps][ASYNC ? R * NB2 : 1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r = lane / NB, i = lane % NB;
  const long long first = a.row_begin + (static_cast<long long>(blockIdx.x) * kWarps + warp) * R;
  const long long row = first + r;
  const bool active = r < R && row < a.row_end;
  if (ASYNC && first < a.row_end) {
    const int rows = static_cast<int>(min(static_cast<long long>(R), a.row_end - first));
    async_copy_doubles(sD[warp], a.D + first * NB2, rows * NB2, lane);
  }
  const float* __restrict__ dq = a.dq;
  float acc[NB];
#pragma unroll
  for (int m = 0; m < NB; ++m) acc[m] = 0.f;
  if (active) {
    offset_t k = __ldg(a.ia + row);
    const offset_t kend = __ldg(a.ia + row + 1);
    for (; k + UNROLL - 1 < kend; k += UNROLL) {
      float x[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) x[u] = __ldg(dq + static_cast<long long>(__ldg(a.ja + k + u)) * NB + i);
      const float* o0 = a.O + k * NB2 + i * NB;
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int m = 0; m < NB; ++m) acc[m] += __ldg(o0 + u * NB2 + m) * x[u];
    }
    for (; k < kend; ++k) {
      const float x = __ldg(dq + __ldg(a.ja + k) * NB + i);
      const float* o = a.O + k * NB2 + i * NB;
#pragma unroll
      for (int m = 0; m < NB; ++m) acc[m] += __ldg(o + m) * x;
    }
  }
  // Lane (r, i) needs row i's sum over the NB lanes of its block row.
  float mine = 0.f;
#pragma unroll
  for (int m = 0; m < NB; ++m) {
    float sum = 0.f;
#pragma unroll
    for (int q = 0; q < NB; ++q) sum += __shfl_sync(kFull, acc[m], r * NB + q);
    if (m == i) mine = sum;
  }
  const double rv = active ? __ldg(a.R + row * NB + i) - static_cast<double>(mine) : 0.0;
  if (ASYNC) {
    __pipeline_wait_prior(0);
    __syncwarp();
  }
  auto Dij = [&](int ii, int jj) {
    return ASYNC ? sD[warp][r * NB2 + jj * NB + ii] : __ldg(a.D + row * NB2 + jj * NB + ii);
  };
  const double x = substitute<NB>(rv, i, r * NB, active, Dij);
  if (active) a.dq[row * NB + i] = static_cast<float>(x);
}

// Small colours (too few rows to fill the GPU) are latency chains: a warp walks a block row's
// ~17 blocks one step after another. Here one warp owns one block row and its S = 32 / NB
// slots take every S-th block (column-wise, one dQ gather per block), so a row takes about
// 17 / S steps; partial sums are reduced through shared memory.
template <int NB, bool ASYNC>
__global__ void __launch_bounds__(kWarps * 32) row_slots_colwise_kernel(const ColourArgs a) {
  constexpr int NB2 = NB * NB;
  constexpr int S = 32 / NB;
  __shared__ float sAcc[kWarps][32 * NB];
  __shared__ double sD[kWarps][ASYNC ? NB2 : 1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row = a.row_begin + static_cast<long long>(blockIdx.x) * kWarps + warp;
  if (row >= a.row_end) return;  // whole warp leaves together
  if (ASYNC) async_copy_doubles(sD[warp], a.D + row * NB2, NB2, lane);
  const int s = lane / NB, i = lane % NB;
  float acc[NB];
#pragma unroll
  for (int m = 0; m < NB; ++m) acc[m] = 0.f;
  if (s < S) {
    const offset_t kend = __ldg(a.ia + row + 1);
    for (offset_t k = __ldg(a.ia + row) + s; k < kend; k += S) {
      const float x = __ldg(a.dq + static_cast<long long>(__ldg(a.ja + k)) * NB + i);
      const float* o = a.O + k * NB2 + i * NB;
#pragma unroll
      for (int m = 0; m < NB; ++m) acc[m] += __ldg(o + m) * x;
    }
  }
#pragma unroll
  for (int m = 0; m < NB; ++m) sAcc[warp][lane * NB + m] = acc[m];
  __syncwarp();
  const bool active = lane < NB;
  double rv = 0.0;
  if (active) {
    double sum = 0.0;
    for (int l = 0; l < S * NB; ++l) sum += sAcc[warp][l * NB + lane];
    rv = __ldg(a.R + row * NB + lane) - sum;
  }
  if (ASYNC) {
    __pipeline_wait_prior(0);
    __syncwarp();
  }
  auto Dij = [&](int ii, int jj) { return ASYNC ? sD[warp][jj * NB + ii] : __ldg(a.D + row * NB2 + jj * NB + ii); };
  const double x = substitute<NB>(rv, lane, 0, active, Dij);
  if (active) a.dq[row * NB + lane] = static_cast<float>(x);
}

// The small-colour kernel is on by default (measured: 0.766 -> 0.755 ms per sweep on the
// default problem); PPSPARSE_MCPI_CUDA_SMALL=0 turns it off, for measurements.
bool small_colour_kernel() {
  static const bool b = [] {
    const char* e = std::getenv("PPSPARSE_MCPI_CUDA_SMALL");
    return !(e && std::string(e) == "0");
  }();
  return b;
}
int sm_count() {
  static const int n = [] {
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return sms > 0 ? sms : 1;
  }();
  return n;
}

// 11_x: a warp owns one block row; lanes on the entries of S = 32 / NB^2 blocks (NB <= 5) or,
// for larger blocks, M = ceil(NB^2 / 32) entries of each block; partial sums reduced per row i
// through shared memory, then the first NB lanes substitute.
template <int NB, bool ASYNC>
__global__ void __launch_bounds__(kWarps * 32) warp_per_row_kernel(const ColourArgs a) {
  constexpr int NB2 = NB * NB;
  constexpr int S = NB2 <= 32 ? 32 / NB2 : 1;
  constexpr int M = (NB2 + 31) / 32;
  __shared__ float sPart[kWarps][32 * M];
  __shared__ double sD[kWarps][ASYNC ? NB2 : 1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row = a.row_begin + static_cast<long long>(blockIdx.x) * kWarps + warp;
  if (row >= a.row_end) return;  // whole warp leaves together
  if (ASYNC) async_copy_doubles(sD[warp], a.D + row * NB2, NB2, lane);
  const float* __restrict__ dq = a.dq;
  const offset_t kbeg = __ldg(a.ia + row), kend = __ldg(a.ia + row + 1);
  if constexpr (NB2 <= 32) {
    const int s = lane / NB2, e = lane % NB2, j = e / NB;
    float acc0 = 0.f, acc1 = 0.f;
    if (s < S) {
      offset_t k = kbeg + s;
      for (; k + S < kend; k += 2 * S) {
        const long long c0 = __ldg(a.ja + k), c1 = __ldg(a.ja + k + S);
        acc0 += __ldg(a.O + k * NB2 + e) * __ldg(dq + c0 * NB + j);
        acc1 += __ldg(a.O + (k + S) * NB2 + e) * __ldg(dq + c1 * NB + j);
      }
      if (k < kend) acc0 += __ldg(a.O + k * NB2 + e) * __ldg(dq + __ldg(a.ja + k) * NB + j);
    }
    sPart[warp][lane] = acc0 + acc1;
  } else {
    float acc[M];
#pragma unroll
    for (int m = 0; m < M; ++m) acc[m] = 0.f;
    for (offset_t k = kbeg; k < kend; ++k) {
      const long long c = __ldg(a.ja + k);
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const int e = lane + 32 * m;
        if (e < NB2) acc[m] += __ldg(a.O + k * NB2 + e) * __ldg(dq + c * NB + e / NB);
      }
    }
#pragma unroll
    for (int m = 0; m < M; ++m) sPart[warp][lane + 32 * m] = acc[m];
  }
  __syncwarp();
  const int i = lane;
  const bool active = i < NB;
  double rv = 0.0;
  if (active) {
    double sum = 0.0;
    constexpr int entries = NB2 <= 32 ? S * NB2 : NB2;
    for (int e = i; e < entries; e += NB) sum += sPart[warp][e];
    rv = __ldg(a.R + row * NB + i) - sum;
  }
  if (ASYNC) {
    __pipeline_wait_prior(0);
    __syncwarp();
  }
  auto Dij = [&](int ii, int jj) { return ASYNC ? sD[warp][jj * NB + ii] : __ldg(a.D + row * NB2 + jj * NB + ii); };
  const double x = substitute<NB>(rv, i, 0, active, Dij);
  if (active) a.dq[row * NB + i] = static_cast<float>(x);
}

template <int NB>
void launch(Variant v, const ColourArgs& a) {
  const long long rows = a.row_end - a.row_begin;
  const bool async = uses_async_copy(v);
  if (base_variant(v) == Variant::rows_per_warp) {
    constexpr int R = 32 / NB;
    const unsigned grid = static_cast<unsigned>((rows + kWarps * R - 1) / (kWarps * R));
    if (small_colour_kernel() && rows / R < 2LL * sm_count()) {
      const unsigned g1 = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
      if (async)
        row_slots_colwise_kernel<NB, true><<<g1, kWarps * 32, 0, stream()>>>(a);
      else
        row_slots_colwise_kernel<NB, false><<<g1, kWarps * 32, 0, stream()>>>(a);
    } else if (async) {
      rows_per_warp_kernel<NB, true><<<grid, kWarps * 32, 0, stream()>>>(a);
    } else {
      rows_per_warp_kernel<NB, false><<<grid, kWarps * 32, 0, stream()>>>(a);
    }
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    if (async)
      warp_per_row_kernel<NB, true><<<grid, kWarps * 32, 0, stream()>>>(a);
    else
      warp_per_row_kernel<NB, false><<<grid, kWarps * 32, 0, stream()>>>(a);
  }
  check(cudaGetLastError(), "kernel launch");
}

template <int... NBs>
void dispatch(Variant v, const ColourArgs& a, std::integer_sequence<int, NBs...>) {
  ((a.nb == NBs + 1 ? (launch<NBs + 1>(v, a), 0) : 0), ...);
}

}  // namespace

Features features() {
  Features f;
  f.name = "cuda";
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&p, dev) == cudaSuccess) {
    f.l2_persistence = p.persistingL2CacheMaxSize > 0;
    f.async_copy = p.major >= 8;
  }
  if (!f.l2_persistence) f.why_not = "this GPU has no persisting-L2 set-aside";
  return f;
}

bool has_kernel(Variant v, int nb) {
  const Variant b = base_variant(v);
  // Specialised for nb <= 16 (register-resident rows); larger blocks use the portable kernels.
  return (b == Variant::rows_per_warp || b == Variant::warp_per_row) && nb >= 1 && nb <= 16;
}

void run_colour(Variant v, const ColourArgs& a) {
  if (!has_kernel(v, a.nb)) throw InvalidArgument(std::string("mcpi cuda backend: no kernel for ") + name(v));
  if (a.row_end <= a.row_begin) return;
  dispatch(v, a, std::make_integer_sequence<int, 16>{});
}

L2Window l2_window_begin(const void* base, std::size_t bytes) {
  static_assert(sizeof(cudaStreamAttrValue) <= sizeof(L2Window::saved_attr), "saved_attr too small");
  L2Window w;
  int dev = 0;
  cudaDeviceProp p{};
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  if (p.persistingL2CacheMaxSize <= 0 || p.accessPolicyMaxWindowSize <= 0) {
    w.note = "no persisting L2 on this GPU: ran without the window";
    return w;
  }
  check(cudaDeviceGetLimit(&w.saved_limit, cudaLimitPersistingL2CacheSize), "cudaDeviceGetLimit");
  // Seed 000, fig. 8: set aside 3/4 of the L2, capped by the device's persisting maximum.
  const std::size_t set_aside =
      std::min(static_cast<std::size_t>(0.75 * p.l2CacheSize), static_cast<std::size_t>(p.persistingL2CacheMaxSize));
  if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside) != cudaSuccess) {
    cudaGetLastError();
    w.note = "the persisting-L2 set-aside could not be set: ran without the window";
    return w;
  }
  cudaStreamAttrValue prev{};
  check(cudaStreamGetAttribute(stream(), cudaStreamAttributeAccessPolicyWindow, &prev), "cudaStreamGetAttribute");
  std::memcpy(w.saved_attr, &prev, sizeof prev);
  const std::size_t window = std::min(bytes, static_cast<std::size_t>(p.accessPolicyMaxWindowSize));
  // When dQ exceeds the set-aside, persist only the fraction that fits (the rest streams).
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
  std::snprintf(buf, sizeof buf, "L2 window on dQ: %.1f of %.1f MB, set-aside %.1f MB of %.1f MB L2, hit ratio %.2f",
                window / 1e6, bytes / 1e6, set_aside / 1e6, p.l2CacheSize / 1e6, hit);
  w.note = buf;
  return w;
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

}  // namespace ppsparse::mcpi::backend
