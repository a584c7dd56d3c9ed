#pragma once
// What the CUDA MCPI kernels and their launches share (through colour_launch.hpp): the launch
// geometry constants, the per-launch settings, error checks, D's factors in either precision,
// the warp substitution, L2 prefetches, cp.async copies and the two steps of a programmatic
// dependent launch.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/backend.hpp>
#include <ppsparse/mcpi/detail/o_codec.hpp>

namespace ppsparse::mcpi::backend::cuda {

constexpr int kWarps = 4;  // warps per thread block
// Largest nb of the 11_x / 16_x kernels. At nb = 16 their lanes hold 16 partial sums each and
// reduce them with 256 shuffles per row, slower than wide_block_kernel there
// (docs/perf/kernel_choices.md, "MCPI narrow kernels' largest nb").
constexpr int kMaxNarrowNb = 15;
constexpr int kMaxNb = 64;  // largest nb of the solver (mcpi/geometry.hpp)
constexpr unsigned kFull = 0xffffffffu;

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("mcpi cuda backend: ") + what + ": " + cudaGetErrorString(e));
}

// What one colour's launch needs besides its arguments: the caller's stream, whether colours
// are launched as programmatic dependents, the device's multiprocessors, and the tuning.
struct Launch {
  cudaStream_t stream = nullptr;
  bool dependent = false;
  bool checked = false;  // a.residual_sq is set: the kernels' RES instantiations
  int sms = 1;
  KernelTuning tuning;
};

// The column loads of the coded formats (load_halves, load_bytes) take the array to start on a
// 16-byte boundary, as every Kokkos allocation does (LevelArrays::allocate_o).
inline void check_o_alignment(const ColorArgs& a) {
  if (reinterpret_cast<std::uintptr_t>(a.o_coded) % 16 != 0)
    throw Error("mcpi cuda backend: O's coded entries do not start on a 16-byte boundary");
}

// O's coded entries in format F, as its codec stores them (mcpi/detail/o_codecs/).
template <OFormat F>
__device__ __forceinline__ const typename detail::codec_t<F>::stored* o_stored(const ColorArgs& a) {
  return static_cast<const typename detail::codec_t<F>::stored*>(a.o_coded);
}

// The address of entry `at` (slot * NB^2 + j * NB + i) of O in format F, for L2 prefetches.
template <OFormat F>
__device__ __forceinline__ const void* o_entry(const ColorArgs& a, const long long at) {
  if constexpr (F == OFormat::fp32)
    return a.O + at;
  else
    return o_stored<F>(a) + at;
}

// The NB consecutive 16-bit values at p (2-byte aligned) into h, read as the aligned 32-bit
// words that cover them: NB / 2 + 1 loads instead of NB (a column's load instructions, not its
// bytes, bound the reduced formats' sweep; docs/perf/mcpi_o_formats.md). Reads up to 2 bytes
// past the values: the arrays are padded (LevelArrays::allocate_o).
// An even NB's column (at a multiple of 2 NB bytes of the array, whose start is 16-byte
// aligned: check_o_alignment) is NB / 2 aligned words instead, read as 8-byte loads where NB is a
// multiple of 4: one load per column at nb 4, the 2-D flows' block size.
template <int NB>
__device__ __forceinline__ void load_halves(const std::uint16_t* p, std::uint32_t (&h)[NB]) {
  if constexpr (NB % 2 == 0) {
    std::uint32_t x[NB / 2];
    if constexpr (NB % 4 == 0) {
      const uint2* w = reinterpret_cast<const uint2*>(p);
#pragma unroll
      for (int q = 0; q < NB / 4; ++q) {
        const uint2 y = __ldg(w + q);
        x[2 * q] = y.x;
        x[2 * q + 1] = y.y;
      }
    } else {
      const std::uint32_t* w = reinterpret_cast<const std::uint32_t*>(p);
#pragma unroll
      for (int q = 0; q < NB / 2; ++q) x[q] = __ldg(w + q);
    }
#pragma unroll
    for (int m = 0; m < NB; ++m) h[m] = m % 2 == 0 ? (x[m / 2] & 0xffffu) : (x[m / 2] >> 16);
    return;
  }
  const unsigned long long addr = reinterpret_cast<unsigned long long>(p);
  const std::uint32_t* w = reinterpret_cast<const std::uint32_t*>(addr & ~3ull);
  const bool odd = (addr & 2) != 0;
  constexpr int W = NB / 2 + 1;
  std::uint32_t x[W];
#pragma unroll
  for (int q = 0; q < W; ++q) x[q] = __ldg(w + q);
#pragma unroll
  for (int m = 0; m < NB; ++m) {
    const std::uint32_t even_at = m % 2 == 0 ? (x[m / 2] & 0xffffu) : (x[m / 2] >> 16);
    const std::uint32_t odd_at = (m + 1) % 2 == 0 ? (x[(m + 1) / 2] & 0xffffu) : (x[(m + 1) / 2] >> 16);
    h[m] = odd ? odd_at : even_at;
  }
}

// The NB consecutive bytes at p (any alignment) into b, sign-extended, from the aligned 32-bit
// words that cover them; reads up to 3 bytes past them (the arrays are padded).
// Where NB is a multiple of 4 the column is NB / 4 aligned words (as load_halves'), read without
// shifts.
template <int NB>
__device__ __forceinline__ void load_bytes(const std::int8_t* p, int (&b)[NB]) {
  if constexpr (NB % 4 == 0) {
    const std::uint32_t* w = reinterpret_cast<const std::uint32_t*>(p);
#pragma unroll
    for (int q = 0; q < NB / 4; ++q) {
      const std::uint32_t y = __ldg(w + q);
#pragma unroll
      for (int m = 0; m < 4; ++m) b[4 * q + m] = static_cast<signed char>((y >> (8 * m)) & 0xffu);
    }
    return;
  }
  const unsigned long long addr = reinterpret_cast<unsigned long long>(p);
  const std::uint32_t* w = reinterpret_cast<const std::uint32_t*>(addr & ~3ull);
  const unsigned shift = 8u * static_cast<unsigned>(addr & 3);
  constexpr int W = (NB + 2) / 4 + 1;  // words holding bytes 0 .. NB + 2 of the aligned run
  constexpr int Y = (NB + 3) / 4;      // words of the shifted run
  std::uint32_t x[W + 1];
#pragma unroll
  for (int q = 0; q < W; ++q) x[q] = __ldg(w + q);
  x[W] = 0;
#pragma unroll
  for (int q = 0; q < Y; ++q) {
    const std::uint32_t y = __funnelshift_r(x[q], x[q + 1], shift);
#pragma unroll
    for (int m = 4 * q; m < NB && m < 4 * q + 4; ++m) b[m] = static_cast<signed char>((y >> (8 * (m - 4 * q))) & 0xffu);
  }
}

// Column i of the block in slot k (its NB entries, rows m = 0 .. NB-1, contiguous in every
// format) decoded to FP32 into v, less the factor its entries share, which is returned: the
// caller multiplies the dQ value the column meets by it (int8's column scale, one multiply per
// column instead of NB). `at` is the column's first entry (k * NB^2 + i * NB), `column` its index
// among the block columns (k * NB + i). fp16 leaves out the block row's scale, which the caller
// applies once to the row's sum (block_row_scale).
template <OFormat F, int NB>
__device__ __forceinline__ float load_column(const ColorArgs& a, const long long at, const long long column,
                                             float (&v)[NB]) {
  if constexpr (F == OFormat::fp32) {
#pragma unroll
    for (int m = 0; m < NB; ++m) v[m] = __ldg(a.O + at + m);
  } else if constexpr (F == OFormat::bf16 || F == OFormat::fp16) {
    std::uint32_t h[NB];
    load_halves<NB>(o_stored<F>(a) + at, h);
#pragma unroll
    for (int m = 0; m < NB; ++m)
      v[m] = F == OFormat::bf16 ? detail::decode_bf16(static_cast<std::uint16_t>(h[m]))
                                : detail::decode_half(static_cast<std::uint16_t>(h[m]));
  } else {
    int q[NB];
    load_bytes<NB>(o_stored<F>(a) + at, q);
#pragma unroll
    for (int m = 0; m < NB; ++m) v[m] = static_cast<float>(q[m]);
    return detail::exp2_int(__ldg(a.o_scale + column));
  }
  return 1.0f;
}

// D's LU factors as the kernels read them: DT = double, ColorArgs::D; DT = float, the FP32
// copy (ColorArgs::d_lu32, OStorage::lu_fp32). Substitutions compute in FP64 either way.
template <class DT>
__device__ __forceinline__ const DT* lu_factors(const ColorArgs& a) {
  if constexpr (std::is_same_v<DT, float>)
    return a.d_lu32;
  else
    return a.D;
}

// The factor a block row's SpMV sum takes after load_column: fp16's scale of the row, else 1.
template <OFormat F>
__device__ __forceinline__ float block_row_scale(const ColorArgs& a, const long long row) {
  if constexpr (F == OFormat::fp16) return detail::exp2_int(__ldg(a.o_scale + row));
  return 1.0f;
}

// Forward (unit L) and backward (U) substitution of one block row held by lanes base..base+NB-1,
// lane value rv = r_i; Dij(i, j) reads the LU factors. Every lane of the warp must call it.
template <int NB, class DAt>
__device__ __forceinline__ double substitute(double rv, const int i, const int base, const bool active,
                                             const DAt& Dij) {
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

// A checked sweep's share of lane i of a block row held by lanes base..base+NB-1: the squared
// entry (r - D q)_i^2, r = R - O dQ in rv, q the row's dQ before its update (lane value qv),
// D q = L (U q) through the LU factors (Dij as in substitute). 0 on inactive lanes. Every lane
// of the warp must call it.
template <int NB, class DAt>
__device__ __forceinline__ double residual_entry_sq(const double rv, const float qv, const int i, const int base,
                                                    const bool active, const DAt& Dij) {
  double u = 0.0;  // (U q)_i
#pragma unroll
  for (int j = 0; j < NB; ++j) {
    const double qj = __shfl_sync(kFull, static_cast<double>(qv), base + j);
    if (active && j >= i) u += Dij(i, j) * qj;
  }
  double y = u;  // (L U q)_i, unit L
#pragma unroll
  for (int k = 0; k < NB - 1; ++k) {
    const double uk = __shfl_sync(kFull, u, base + k);
    if (active && i > k) y += Dij(i, k) * uk;
  }
  const double e = rv - y;
  return active ? e * e : 0.0;
}

// Adds the warp's sum of v to a.residual_sq[warp % a.residual_slots]: spread over slots so
// that a colour's warps do not queue on one address. Every lane of the warp must call it.
__device__ __forceinline__ void add_warp_residual(double v, const ColorArgs& a) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(kFull, v, d);
  if (threadIdx.x % 32 == 0) {
    const long long w = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    atomicAdd(a.residual_sq + w % a.residual_slots, v);
  }
}

// Prefetches the 128-byte line holding p into L2 (no register held, never waited for).
__device__ __forceinline__ void prefetch_line_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// Copies `count` values (4 or 8 bytes each) from global src to shared dst with cp.async,
// spread over the warp.
template <class T>
__device__ __forceinline__ void async_copy(T* dst, const T* src, int count, int lane) {
  for (int e = lane; e < count; e += 32) __pipeline_memcpy_async(dst + e, src + e, sizeof(T));
  __pipeline_commit();
}

// A programmatic dependent launch's two steps (griddepcontrol, sm_90 and up; older targets
// compile without them, and run never launches them this way below 9.0). allow_next_grid: the next
// kernel may become resident once every block of this one has executed it. wait_previous_grid:
// returns once the previous kernel has completed and its memory is visible.
template <bool PDL>
__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (PDL) asm volatile("griddepcontrol.launch_dependents;");
#endif
}
template <bool PDL>
__device__ __forceinline__ void wait_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (PDL) asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Prefetches the 128-byte lines of [p, p + bytes) into L2, spread over the warp. A prefetch
// holds no register and is never waited for, so it keeps bytes in flight beyond what the
// registers of a load batch can.
__device__ __forceinline__ void prefetch_l2(const char* p, const long long bytes, const int lane) {
  if (bytes <= 0) return;
  const unsigned long long first = reinterpret_cast<unsigned long long>(p) >> 7;
  const unsigned long long last = (reinterpret_cast<unsigned long long>(p) + bytes - 1) >> 7;
  for (unsigned long long l = first + lane; l <= last; l += 32) prefetch_line_l2(reinterpret_cast<const void*>(l << 7));
}

}  // namespace ppsparse::mcpi::backend::cuda
