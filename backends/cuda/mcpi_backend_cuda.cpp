// CUDA specialisations of the MCPI kernels (seed 000's 11_x and 16_x) and the persisting-L2
// window, implementing core's mcpi/backend.hpp. Compiled by nvcc (nvcc_wrapper) only.
//
// Compared with the portable functors, a warp keeps its partial sums and the substitution in
// registers (warp shuffles instead of scratch phases), unrolls blocks so that their ja -> dQ
// chains overlap, gathers one dQ value per block (column-wise mapping), gives small colours a
// kernel that spreads a row's blocks over the warp, and, in the _async variants, copies its D
// blocks to shared memory with cp.async (__pipeline_memcpy_async) while the SpMV loads are in
// flight. Those kernels cover nb <= 15 (a row's NB partial sums or NB^2 / 32 entries per
// lane); nb 16..64 run wide_block_kernel, one warp per block row with one or two rows per
// lane (in colours of few rows, four warps per block row). Every nb of the solver (1..64)
// thus has a kernel for rows_per_warp and warp_per_row.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/backend.hpp>

namespace ppsparse::mcpi::backend {
namespace {

constexpr int kWarps = 4;  // warps per thread block
// Largest nb of the 11_x / 16_x kernels. At nb = 16 their lanes hold 16 partial sums each and
// reduce them with 256 shuffles per row: on an H100 (512 MB nb-sweep problem) rows_per_warp
// reached 38.0 % of copy there, wide_block_kernel 50.5 %.
constexpr int kMaxNarrowNb = 15;
constexpr int kMaxNb = 64;  // largest nb of the solver (mcpi/geometry.hpp)
constexpr unsigned kFull = 0xffffffffu;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("mcpi cuda backend: ") + what + ": " + cudaGetErrorString(e));
}

// What one colour's launch needs besides its arguments: the caller's stream, whether colours
// are launched as programmatic dependents, the device's multiprocessors, and the tuning.
struct Launch {
  cudaStream_t stream = nullptr;
  bool dependent = false;
  int sms = 1;
  KernelTuning tuning;
};

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

// Prefetches the 128-byte line holding p into L2 (no register held, never waited for).
__device__ __forceinline__ void prefetch_line_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

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
//
// S > 1 slots: a block row gets S groups of NB lanes, slot s taking blocks s, s + S, ... of
// the row (R = 32 / (S NB) rows per warp), so that one load instruction covers S consecutive
// blocks of each row instead of one block of each of S times more rows; the slots' partial
// sums are added by the same shuffles.
// A programmatic dependent launch's two steps (griddepcontrol, sm_90 and up; older targets
// compile without them, and run_color never launches them this way below 9.0). allow_next_grid: the next
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

// PDL: launched as a programmatic dependent of the previous colour (Hopper; see launch_colour). Every
// block lets the next colour launch as soon as it starts, and reads its row pointers and the
// first lines of its O and ja before griddepcontrol.wait, which returns once the previous
// grid has completed and its dQ is visible; dQ is read and written only after it. So a colour's
// start overlaps the previous colour's drain.
template <int NB, bool ASYNC, int S = 1, bool PDL = false>
__global__ void __launch_bounds__(kWarps * 32) rows_per_warp_kernel(const ColorArgs a) {
  static_assert(S >= 1 && S * NB <= 32, "a block row's lanes fit in the warp");
  constexpr int UNROLL = 2;
  constexpr int G = S * NB;  // lanes per block row
  constexpr int R = 32 / G;
  constexpr int NB2 = NB * NB;
  __shared__ double sD[kWarps][ASYNC ? R * NB2 : 1];
  allow_next_grid<PDL>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r = lane / G, s = (lane / NB) % S, i = lane % NB;
  const long long first = a.row_begin + (static_cast<long long>(blockIdx.x) * kWarps + warp) * R;
  const long long row = first + r;
  const bool in_row = r < R && row < a.row_end;  // the lane takes part in the row's SpMV
  const bool active = in_row && s == 0;          // ... and in its substitution
  if (ASYNC && first < a.row_end) {
    const int rows = static_cast<int>(min(static_cast<long long>(R), a.row_end - first));
    async_copy_doubles(sD[warp], a.D + first * NB2, rows * NB2, lane);
  }
  const float* __restrict__ dq = a.dq;
  float acc[NB];
#pragma unroll
  for (int m = 0; m < NB; ++m) acc[m] = 0.f;
  offset_t k = 0, kend = 0;
  if (in_row) {
    k = __ldg(a.ia + row) + s;
    kend = __ldg(a.ia + row + 1);
  }
  if constexpr (PDL) {
    if (in_row && k < kend) {
      prefetch_line_l2(a.O + k * NB2);
      prefetch_line_l2(a.ja + k);
    }
  }
  wait_previous_grid<PDL>();  // the previous colour's dQ is complete
  if (in_row) {
    for (; k + (UNROLL - 1) * S < kend; k += UNROLL * S) {
      float x[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) x[u] = __ldg(dq + static_cast<long long>(__ldg(a.ja + k + u * S)) * NB + i);
      const float* o0 = a.O + k * NB2 + i * NB;
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int m = 0; m < NB; ++m) acc[m] += __ldg(o0 + u * S * NB2 + m) * x[u];
    }
    for (; k < kend; k += S) {
      const float x = __ldg(dq + __ldg(a.ja + k) * NB + i);
      const float* o = a.O + k * NB2 + i * NB;
#pragma unroll
      for (int m = 0; m < NB; ++m) acc[m] += __ldg(o + m) * x;
    }
  }
  // Lane (r, 0, i) needs row i's sum over the G lanes of its block row.
  float mine = 0.f;
#pragma unroll
  for (int m = 0; m < NB; ++m) {
    float sum = 0.f;
#pragma unroll
    for (int q = 0; q < G; ++q) sum += __shfl_sync(kFull, acc[m], r * G + q);
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
  const double x = substitute<NB>(rv, i, r * G, active, Dij);
  if (active) a.dq[row * NB + i] = static_cast<float>(x);
}

// Small colours (too few rows to fill the GPU) are latency chains: a warp walks a block row's
// ~17 blocks one step after another. Here one warp owns one block row and its S = 32 / NB
// slots take every S-th block (column-wise, one dQ gather per block), so a row takes about
// 17 / S steps; partial sums are reduced through shared memory.
// PDL: as rows_per_warp_kernel's. It carries the overlap through a sweep's last, small colours:
// nb = 1 43.8-43.9 -> 45.4-45.6 % of copy on an H100, nb = 2..5 within noise.
template <int NB, bool ASYNC, bool PDL = false>
__global__ void __launch_bounds__(kWarps * 32) row_slots_colwise_kernel(const ColorArgs a) {
  constexpr int NB2 = NB * NB;
  constexpr int S = 32 / NB;
  __shared__ float sAcc[kWarps][32 * NB];
  __shared__ double sD[kWarps][ASYNC ? NB2 : 1];
  allow_next_grid<PDL>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row = a.row_begin + static_cast<long long>(blockIdx.x) * kWarps + warp;
  if (row >= a.row_end) return;  // whole warp leaves together
  if (ASYNC) async_copy_doubles(sD[warp], a.D + row * NB2, NB2, lane);
  wait_previous_grid<PDL>();  // the previous colour's dQ is complete
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

// An attribute of a device (0 if it cannot be read), cached per device: read once per device
// and attribute, not on every colour.
int device_attribute(const int device, const cudaDeviceAttr attr) {
  constexpr int kMaxDevices = 64;
  static int cached[kMaxDevices][2] = {};
  const int slot = attr == cudaDevAttrMultiProcessorCount ? 0 : attr == cudaDevAttrComputeCapabilityMajor ? 1 : -1;
  if (slot >= 0 && device >= 0 && device < kMaxDevices && cached[device][slot] > 0) return cached[device][slot];
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) value = 0;
  if (slot >= 0 && device >= 0 && device < kMaxDevices) cached[device][slot] = value;
  return value;
}

// 11_x: a warp owns one block row; lanes on the entries of S = 32 / NB^2 blocks (NB <= 5) or,
// for larger blocks, M = ceil(NB^2 / 32) entries of each block; partial sums reduced per row i
// through shared memory, then the first NB lanes substitute.
template <int NB, bool ASYNC>
__global__ void __launch_bounds__(kWarps * 32) warp_per_row_kernel(const ColorArgs a) {
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

// Prefetches the 128-byte lines of [p, p + bytes) into L2, spread over the warp. A prefetch
// holds no register and is never waited for, so it keeps bytes in flight beyond what the
// registers of a load batch can.
__device__ __forceinline__ void prefetch_l2(const char* p, const long long bytes, const int lane) {
  if (bytes <= 0) return;
  const unsigned long long first = reinterpret_cast<unsigned long long>(p) >> 7;
  const unsigned long long last = (reinterpret_cast<unsigned long long>(p) + bytes - 1) >> 7;
  for (unsigned long long l = first + lane; l <= last; l += 32) prefetch_line_l2(reinterpret_cast<const void*>(l << 7));
}

// nb 16..64, every variant: one warp per block row; lane l owns rows l and, for NB > 32,
// l + 32, so partial sums and the substitution stay in registers with no reduction. The
// row's O blocks are contiguous, so the row is one stream of columns (NB contiguous floats
// across the lanes, column g at g * NB), multiplied by x[g], the concatenated dQ vectors of
// the row's blocks: these are gathered once per block (one coalesced load) into shared
// memory, chunks of kChunk blocks at a time. Columns are loaded in batches of about
// kWideBatchBytes per warp (CB loads per lane before their FMAs), and the L2 prefetch runs
// kWidePrefetchBatches batches ahead, then fetches D, so that a warp keeps several KB in
// flight: a colour of a few thousand rows puts only ~15 warps on an SM, one row each.
// The substitution reads D through a ring of register look-ahead loads (kRing columns), and
// multiplies by the reciprocals of U's diagonal (computed off the shuffle chain) instead of
// dividing: the same operations as `substitute` and the portable kernel up to FP64
// round-off. The _async variants run this kernel unchanged: a warp's NB x NB FP64 block in
// shared memory (up to 32 KB) would cost more occupancy than the copy saves, and D is
// prefetched anyway. PPSPARSE_MCPI_CUDA_PREFETCH=0 turns the L2 prefetch off, for measurements.
constexpr int kWideBatchBytes = 2048;
constexpr int kWidePrefetchBatches = 2;
// Thread blocks per SM that the register budget must allow. One row per lane: 6 (24 warps,
// <= 80 registers, no spills; unbounded, ptxas takes up to ~100). Two rows: no bound; ptxas
// takes 92-126 registers (16 warps per SM), and a bound of 4 or 5 blocks makes it spill.
template <int NB>
constexpr int kWideMinBlocks = NB > 32 ? 1 : 6;
//
// SPLIT = kWarps: the thread block's warps share one block row, each taking a contiguous
// quarter of its blocks; their partial sums meet in shared memory and warp 0 substitutes.
// Small colours of large nb (a few thousand rows or fewer) then still put enough warps on
// every SM.
//
// PDL: launched as a programmatic dependent of the previous colour, as rows_per_warp_kernel:
// R, D's diagonal, the row pointers and the first L2 prefetches of O come before
// griddepcontrol.wait, dQ only after it.
template <int NB, int SPLIT, bool PDL = false>
__global__ void __launch_bounds__(kWarps * 32, kWideMinBlocks<NB>)
    wide_block_kernel(const ColorArgs a, const bool prefetch) {
  static_assert(NB >= 16 && NB <= 64, "one warp per block row, at most two rows per lane");
  static_assert(SPLIT == 1 || SPLIT == kWarps, "a row's warps are the whole thread block (__syncthreads)");
  constexpr int NB2 = NB * NB;
  constexpr bool TWO = NB > 32;  // lanes own a second row
  // Columns per batch: ~kWideBatchBytes, a multiple of 4 (x is read as float4).
  constexpr int CB = ((kWideBatchBytes / 4 + NB - 1) / NB + 3) / 4 * 4;
  constexpr int kChunk = 32;  // blocks whose dQ vectors sit in shared memory at a time
  constexpr int kRing = 8;
  static_assert(kRing <= NB - 1, "the substitution's look-ahead ring is filled from whole columns");
  constexpr long long kColBytes = NB * static_cast<long long>(sizeof(float));
  // + CB: the last batch of a chunk reads (and ignores) up to CB - 1 entries past its end.
  __shared__ __align__(16) float sX[kWarps][kChunk * NB + CB];
  __shared__ float sPart[SPLIT > 1 ? kWarps : 1][SPLIT > 1 ? 64 : 1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int part = SPLIT > 1 ? warp : 0;  // this warp's share of the row's blocks
  const long long row = a.row_begin + static_cast<long long>(blockIdx.x) * (kWarps / SPLIT) + (SPLIT > 1 ? 0 : warp);
  if (row >= a.row_end) return;  // whole warp (SPLIT > 1: whole thread block) leaves together
  const int i0 = lane, i1 = lane + 32;
  const bool own0 = i0 < NB, own1 = TWO && i1 < NB;
  float* x = sX[warp];
  allow_next_grid<PDL>();
  // Independent of the SpMV: issued first so that their latency hides behind it (only the
  // warp that substitutes needs them).
  const bool substitutes = part == 0;
  const double* Drow = a.D + row * NB2;
  const double rhs0 = substitutes && own0 ? __ldg(a.R + row * NB + i0) : 0.0;
  const double rhs1 = substitutes && own1 ? __ldg(a.R + row * NB + i1) : 0.0;
  const double inv0 = substitutes && own0 ? 1.0 / __ldg(Drow + i0 * NB + i0) : 0.0;  // 1 / U(i, i)
  const double inv1 = substitutes && own1 ? 1.0 / __ldg(Drow + i1 * NB + i1) : 0.0;
  const offset_t row_kbeg = __ldg(a.ia + row), row_kend = __ldg(a.ia + row + 1);
  const offset_t kbeg = row_kbeg + (row_kend - row_kbeg) * part / SPLIT;
  const offset_t kend = row_kbeg + (row_kend - row_kbeg) * (part + 1) / SPLIT;

  // L2 prefetch of the row's O bytes [0, o_bytes) up to `upto`, then of D.
  const char* o_row = reinterpret_cast<const char*>(a.O + kbeg * NB2);
  const long long o_bytes = (kend - kbeg) * NB2 * static_cast<long long>(sizeof(float));
  long long prefetched = 0;
  bool d_prefetched = !prefetch;
  auto prefetch_to = [&](long long upto) {
    if (d_prefetched) return;
    upto = min(upto, o_bytes);
    prefetch_l2(o_row + prefetched, upto - prefetched, lane);
    prefetched = max(prefetched, upto);
    if (prefetched == o_bytes) {
      if (substitutes)
        prefetch_l2(reinterpret_cast<const char*>(Drow), NB2 * static_cast<long long>(sizeof(double)), lane);
      d_prefetched = true;
    }
  };
  prefetch_to(kWidePrefetchBatches * CB * kColBytes);

  wait_previous_grid<PDL>();                         // the previous colour's dQ is complete
  const float* __restrict__ dq = a.dq;               // other colours' rows: read-only here
  float acc0[2] = {0.f, 0.f}, acc1[2] = {0.f, 0.f};  // rows i0, i1; even and odd columns
  for (offset_t k0 = kbeg; k0 < kend; k0 += kChunk) {
    const int n = static_cast<int>(min(kend - k0, static_cast<offset_t>(kChunk)));
    const int T = n * NB;  // columns of the chunk
    const float* oc = a.O + k0 * NB2;
    float v0[CB], v1[TWO ? CB : 1];
    auto load_batch = [&](const int g0) {
#pragma unroll
      for (int q = 0; q < CB; ++q) {
        const int g = g0 + q;
        v0[q] = own0 && g < T ? __ldg(oc + g * NB + i0) : 0.f;
        if constexpr (TWO) v1[q] = own1 && g < T ? __ldg(oc + g * NB + i1) : 0.f;
      }
    };
    // x of the chunk: x[u * NB + c] = dQ(ja[k0 + u])_c, eight blocks' gathers in flight.
    const ordinal_t my_ja = lane < n ? __ldg(a.ja + k0 + lane) : 0;
    __syncwarp();  // the previous chunk's reads of x are done
    for (int u0 = 0; u0 < n; u0 += 8) {
      float g0v[8], g1v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const float* xb = dq + static_cast<long long>(__shfl_sync(kFull, my_ja, (u0 + u) & 31)) * NB;
        g0v[u] = own0 && u0 + u < n ? __ldg(xb + i0) : 0.f;
        g1v[u] = own1 && u0 + u < n ? __ldg(xb + i1) : 0.f;
      }
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        if (u0 + u < n) {
          if (own0) x[(u0 + u) * NB + i0] = g0v[u];
          if (own1) x[(u0 + u) * NB + i1] = g1v[u];
        }
      }
    }
    __syncwarp();
    for (int g0 = 0; g0 < T; g0 += CB) {
      load_batch(g0);
      prefetch_to((k0 - kbeg) * NB2 * static_cast<long long>(sizeof(float)) +
                  (g0 + (1 + kWidePrefetchBatches) * CB) * kColBytes);
#pragma unroll
      for (int q4 = 0; q4 < CB; q4 += 4) {
        const float4 x4 = *reinterpret_cast<const float4*>(x + g0 + q4);
        const float xs[4] = {x4.x, x4.y, x4.z, x4.w};
#pragma unroll
        for (int q = q4; q < q4 + 4; ++q) {
          if (g0 + q < T) {
            acc0[q & 1] += v0[q] * xs[q - q4];
            if constexpr (TWO) acc1[q & 1] += v1[q] * xs[q - q4];
          }
        }
      }
    }
  }
  float sum0 = acc0[0] + acc0[1], sum1 = acc1[0] + acc1[1];
  if constexpr (SPLIT > 1) {
    // The parts' partial sums, added in part order by the substituting warp.
    sPart[part][i0] = sum0;
    if constexpr (TWO) sPart[part][i1] = sum1;
    __syncthreads();
    if (!substitutes) return;
    sum0 = sPart[0][i0];
    if constexpr (TWO) sum1 = sPart[0][i1];
#pragma unroll
    for (int q = 1; q < SPLIT; ++q) {
      sum0 += sPart[q][i0];
      if constexpr (TWO) sum1 += sPart[q][i1];
    }
  }
  double rv0 = rhs0 - static_cast<double>(sum0);
  double rv1 = rhs1 - static_cast<double>(sum1);

  // D(i, j) for the lanes that need it, else 0 (no load).
  auto dcol = [&](const bool need, const int i, const int j) { return need ? __ldg(Drow + j * NB + i) : 0.0; };
  // The substitution steps run in groups of kRing, unrolled inside a group only: ring slot t
  // holds the D entries of the group's step t, reloaded for the next group's step t once
  // used. (Unrolled over all steps, ptxas hoists the D loads as far as registers allow.)
  double ring0[kRing], ring1[kRing];
  // Forward, unit L: step j, rows i > j: r_i -= L(i, j) r_j.
#pragma unroll
  for (int t = 0; t < kRing; ++t) {
    ring0[t] = dcol(own0 && i0 > t, i0, t);
    ring1[t] = dcol(own1 && i1 > t, i1, t);
  }
  for (int jg = 0; jg < NB - 1; jg += kRing) {
#pragma unroll
    for (int t = 0; t < kRing; ++t) {
      const int j = jg + t;
      if (j < NB - 1) {
        const double l0 = ring0[t], l1 = ring1[t];
        const int ahead = j + kRing;
        if (ahead < NB - 1) {
          ring0[t] = dcol(own0 && i0 > ahead, i0, ahead);
          ring1[t] = dcol(own1 && i1 > ahead, i1, ahead);
        }
        const double rj = __shfl_sync(kFull, j < 32 ? rv0 : rv1, j & 31);
        if (own0 && i0 > j) rv0 -= l0 * rj;
        if (own1 && i1 > j) rv1 -= l1 * rj;
      }
    }
  }
  // Backward, U: step s, column j = NB-1-s, rows i < j: r_i -= U(i, j) x_j, where
  // x_j = r_j / U(j, j) is final (rows > j are done); its owner lane computes it.
#pragma unroll
  for (int t = 0; t < kRing; ++t) {
    const int j = NB - 1 - t;
    ring0[t] = dcol(own0 && i0 < j, i0, j);
    ring1[t] = dcol(own1 && i1 < j, i1, j);
  }
  for (int sg = 0; sg < NB - 1; sg += kRing) {
#pragma unroll
    for (int t = 0; t < kRing; ++t) {
      const int j = NB - 1 - (sg + t);
      if (j > 0) {
        const double u0 = ring0[t], u1 = ring1[t];
        const int ahead = j - kRing;
        if (ahead > 0) {
          ring0[t] = dcol(own0 && i0 < ahead, i0, ahead);
          ring1[t] = dcol(own1 && i1 < ahead, i1, ahead);
        }
        const double xj = __shfl_sync(kFull, j < 32 ? rv0 * inv0 : rv1 * inv1, j & 31);
        if (own0 && i0 < j) rv0 -= u0 * xj;
        if (own1 && i1 < j) rv1 -= u1 * xj;
      }
    }
  }
  if (own0) a.dq[row * NB + i0] = static_cast<float>(rv0 * inv0);
  if (own1) a.dq[row * NB + i1] = static_cast<float>(rv1 * inv1);
}

// Slots per block row of rows_per_warp_kernel. Measured on an H100 (4 GB nb-sweep problems,
// mesh <= 102^3; % of copy for S = 1 / 2 / 4): nb = 1 35.8 / 36.1 / 39.8, nb = 2 41.3 / 50.7 /
// 50.8, nb = 4 69.9 / 75.4 / 71.4, nb = 5 (default problem) 75.2 / 77.9 / 56.8, nb = 6 79.5 /
// 83.5, nb = 8 83.2 / 85.7 / 65.9, nb = 9 83.6 / 74.3, nb = 12 83.4 / 80.4.
template <int NB>
constexpr int kRowSlots = NB == 1   ? 4
                          : NB <= 8 ? 2
                                    : 1;

// KernelTuning::row_slots = 1, 2 or 4 forces the slots (where S * nb <= 32); 0: kRowSlots.

// rows_per_warp_kernel, the small-colour kernel and wide_block_kernel are launched as
// programmatic dependents of the previous kernel (warp_per_row_kernel, never the best case,
// launches the ordinary way). At nb = 1 a big colour launch is about 9 us of work between a
// start and a drain of about 5 us (ncu: the SMs idle 37 % of its cycles), so overlapping them
// pays most there. Measured on an H100, alternating in one binary (docs/perf/bench_mcpi_h100.md),
// % of copy without -> with: rows_per_warp_kernel nb = 1 34.7-40.1 -> 44.3-45.0, nb = 3
// 61.4-61.5 -> 65.8-66.2, nb = 4 75.0-75.3 -> 77.8-78.5, nb = 8 85.1-85.5 -> 87.4-88.3, default
// problem (nb = 5) 77.7-77.9 -> 79.8-80.8; wide_block_kernel nb = 16 80.7 -> 82.1-82.9, nb = 24
// 92.7 -> 95.3-95.7, nb = 64 74.5-74.7 -> 74.9-75.8. Devices before compute capability 9.0
// launch the ordinary way. KernelTuning::dependent_launch = false turns it off.
// Launches a colour kernel of kWarps warps per block: `dependent` (its PDL instantiation) as a
// programmatic dependent launch when l.dependent, `plain` the ordinary way otherwise; both on
// the caller's stream.
template <class... Args>
void launch_color(const Launch& l, void (*plain)(Args...), void (*dependent)(Args...), const unsigned grid,
                  const Args... args) {
  if (!l.dependent) {
    plain<<<grid, kWarps * 32, 0, l.stream>>>(args...);
    return;
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(kWarps * 32);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = l.stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  check(cudaLaunchKernelEx(&cfg, dependent, args...), "programmatic dependent launch");
}

template <int NB, int S>
void launch_rows_per_warp(const Launch& l, const bool async, const ColorArgs& a, const long long rows) {
  constexpr int R = 32 / (S * NB);
  const unsigned grid = static_cast<unsigned>((rows + kWarps * R - 1) / (kWarps * R));
  if (async)
    launch_color(l, rows_per_warp_kernel<NB, true, S>, rows_per_warp_kernel<NB, true, S, true>, grid, a);
  else
    launch_color(l, rows_per_warp_kernel<NB, false, S>, rows_per_warp_kernel<NB, false, S, true>, grid, a);
}

template <int NB>
void launch(const Launch& l, const Variant& v, const ColorArgs& a) {
  const long long rows = a.row_end - a.row_begin;
  const bool async = v.async_copy;
  if (v.kernel == Kernel::rows_per_warp) {
    constexpr int R = 32 / NB;
    using Small = KernelTuning::SmallColor;
    const Small small = l.tuning.small_color;
    if (small == Small::always || (small == Small::automatic && rows / R < 2LL * l.sms)) {
      const unsigned g1 = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
      if (async)
        launch_color(l, row_slots_colwise_kernel<NB, true>, row_slots_colwise_kernel<NB, true, true>, g1, a);
      else
        launch_color(l, row_slots_colwise_kernel<NB, false>, row_slots_colwise_kernel<NB, false, true>, g1, a);
    } else {
      const int slots = l.tuning.row_slots != 0 ? l.tuning.row_slots : kRowSlots<NB>;
      if (slots == 4 && 4 * NB <= 32) {
        if constexpr (4 * NB <= 32) launch_rows_per_warp<NB, 4>(l, async, a, rows);
      } else if (slots == 2 && 2 * NB <= 32) {
        if constexpr (2 * NB <= 32) launch_rows_per_warp<NB, 2>(l, async, a, rows);
      } else {
        launch_rows_per_warp<NB, 1>(l, async, a, rows);
      }
    }
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    if (async)
      warp_per_row_kernel<NB, true><<<grid, kWarps * 32, 0, l.stream>>>(a);
    else
      warp_per_row_kernel<NB, false><<<grid, kWarps * 32, 0, l.stream>>>(a);
  }
  check(cudaGetLastError(), "kernel launch");
}

// nb 16..64: one kernel for every variant (see wide_block_kernel). KernelTuning::wide_split = 1
// or 4 (kWarps) forces the warps per block row; 0: the rule below.
template <int NB>
void launch_wide(const Launch& l, const ColorArgs& a) {
  static_assert(kWarps == 4, "KernelTuning::wide_split's values are 1 and kWarps");
  const long long rows = a.row_end - a.row_begin;
  // A row per warp while the colour has rows for about 96 warps per SM; fewer rows (small
  // colours, large nb): the thread block's warps share a row. Measured on an H100 (4 GB
  // nb-sweep problems, 11 colours, all colours split or none): split gained at nb = 24 (82.7 ->
  // 92.5 % of copy; 8.3 k rows per colour), 32 (75.1 -> 78.7), 48 (67.8 -> 78.9) and 64
  // (70.5 -> 74.8), and lost at nb = 16 (80.6 -> 75.0; 18.7 k rows per colour).
  const int forced = l.tuning.wide_split;
  const bool split = forced == kWarps || (forced != 1 && rows < 96LL * l.sms);
  const bool prefetch = l.tuning.wide_prefetch;
  if (split) {
    launch_color(l, wide_block_kernel<NB, kWarps>, wide_block_kernel<NB, kWarps, true>, static_cast<unsigned>(rows), a,
                 prefetch);
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    launch_color(l, wide_block_kernel<NB, 1>, wide_block_kernel<NB, 1, true>, grid, a, prefetch);
  }
  check(cudaGetLastError(), "kernel launch");
}

template <int NB>
void launch_for_nb(const Launch& l, const Variant& v, const ColorArgs& a) {
  if constexpr (NB <= kMaxNarrowNb)
    launch<NB>(l, v, a);
  else
    launch_wide<NB>(l, a);
}

template <int... NBs>
void dispatch(const Launch& l, const Variant& v, const ColorArgs& a, std::integer_sequence<int, NBs...>) {
  ((a.nb == NBs + 1 ? (launch_for_nb<NBs + 1>(l, v, a), 0) : 0), ...);
}

}  // namespace

Features features(const Kokkos::Cuda& exec) {
  Features f;
  f.name = "cuda";
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, exec.cuda_device()) == cudaSuccess) {
    f.l2_persistence = p.persistingL2CacheMaxSize > 0;
    f.async_copy = p.major >= 8;
  }
  if (!f.l2_persistence) f.why_not = "this GPU has no persisting-L2 set-aside";
  return f;
}

bool has_kernel(const Kokkos::Cuda&, Kernel k, int nb) {
  // Every nb of the solver (1..64): the 11_x / 16_x kernels for nb <= 15, wide_block_kernel
  // above; rows_per_warp_prefetch and split run the portable kernels.
  return (k == Kernel::rows_per_warp || k == Kernel::warp_per_row) && nb >= 1 && nb <= kMaxNb;
}

void run_color(const Kokkos::Cuda& exec, const Variant& v, const ColorArgs& a, const KernelTuning& tuning) {
  if (!has_kernel(exec, v.kernel, a.nb)) throw InvalidArgument("mcpi cuda backend: no kernel for " + name(v));
  if (a.row_end <= a.row_begin) return;
  Launch l;
  l.stream = exec.cuda_stream();
  const int device = exec.cuda_device();
  l.dependent = tuning.dependent_launch && device_attribute(device, cudaDevAttrComputeCapabilityMajor) >= 9;
  l.sms = std::max(1, device_attribute(device, cudaDevAttrMultiProcessorCount));
  l.tuning = tuning;
  dispatch(l, v, a, std::make_integer_sequence<int, kMaxNb>{});
}

}  // namespace ppsparse::mcpi::backend
