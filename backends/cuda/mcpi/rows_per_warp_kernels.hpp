#pragma once
// The 16_x kernels of Walden et al. (2021): rows_per_warp_kernel (several block rows per warp) and
// row_slots_colwise_kernel (one block row per warp, for small colours).
#include "kernel_common.hpp"

namespace ppsparse::mcpi::backend::cuda {

// 16_x: a warp owns R = 32 / NB block rows, NB consecutive lanes per row (Walden et al. 2021, fig. 6).
// Unlike the seed's fig. 7 (lane i takes row i of each block and gathers NB dQ values), lane
// (r, i) multiplies column i of each block
// (NB contiguous floats) by the single dQ value it needs, accumulating partial sums for all NB
// rows of the block; the NB partial vectors of a block row are summed with shuffles once per
// row. One dQ gather per block instead of NB.
// Faster than the fig. 7 mapping as measured (docs/perf/kernel_choices.md, "MCPI column-wise
// mapping").
//
// S > 1 slots: a block row gets S groups of NB lanes, slot s taking blocks s, s + S, ... of
// the row (R = 32 / (S NB) rows per warp), so that one load instruction covers S consecutive
// blocks of each row instead of one block of each of S times more rows; the slots' partial
// sums are added by the same shuffles.
// PDL: launched as a programmatic dependent of the previous colour (Hopper; see launch_colour). Every
// block lets the next colour launch as soon as it starts, and reads its row pointers and the
// first lines of its O and ja before griddepcontrol.wait, which returns once the previous
// grid has completed and its dQ is visible; dQ is read and written only after it. So a colour's
// start overlaps the previous colour's drain.
// RES: a checked sweep: each row's squared residual before its update goes to a.residual_sq
// (residual_entry_sq: its D q reads the D the substitution reads, and the row's own dQ).
// F: O's storage format (load_column decodes it). U: blocks of a row a lane has in flight per
// step (their ja -> dQ chains overlap). DT: the precision of D's LU factors (lu_factors).
template <int NB, bool ASYNC, int S = 1, bool PDL = false, bool RES = false, OFormat F = OFormat::fp32, int U = 2,
          class DT = double>
__global__ void __launch_bounds__(kWarps * 32) rows_per_warp_kernel(const ColorArgs a) {
  static_assert(S >= 1 && S * NB <= 32, "a block row's lanes fit in the warp");
  constexpr int UNROLL = U;
  constexpr int G = S * NB;  // lanes per block row
  constexpr int R = 32 / G;
  constexpr int NB2 = NB * NB;
  __shared__ DT sD[kWarps][ASYNC ? R * NB2 : 1];
  const DT* __restrict__ lu = lu_factors<DT>(a);
  __shared__ float sPart[kWarps][F == OFormat::fp32 ? 1 : 32 * NB];
  allow_next_grid<PDL>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r = lane / G, s = (lane / NB) % S, i = lane % NB;
  const long long first = a.row_begin + (static_cast<long long>(blockIdx.x) * kWarps + warp) * R;
  const long long row = first + r;
  const bool in_row = r < R && row < a.row_end;  // the lane takes part in the row's SpMV
  const bool active = in_row && s == 0;          // ... and in its substitution
  if (ASYNC && first < a.row_end) {
    const int rows = static_cast<int>(min(static_cast<long long>(R), a.row_end - first));
    async_copy(sD[warp], lu + first * NB2, rows * NB2, lane);
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
      prefetch_line_l2(o_entry<F>(a, k * NB2));
      prefetch_line_l2(a.ja + k);
    }
  }
  // The block columns of the lane's next step, loaded a step ahead: a step's dQ gathers are
  // issued at its start, beside its O loads, so that the ja -> dQ chain costs one memory latency
  // per step instead of two (docs/perf/mcpi_o_formats.md). ja is not written by the colours, so
  // the first step's are read before waiting for the previous one.
  const ordinal_t* __restrict__ ja = a.ja + k;
  ordinal_t c[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) c[u] = in_row && k + u * S < kend ? __ldg(ja + u * S) : 0;
  wait_previous_grid<PDL>();  // the previous colour's dQ is complete
  if (in_row) {
    // Addresses advanced by a step rather than recomputed from k (64-bit multiplies) per block:
    // fewer instructions and registers (52 -> 39 for FP32 O at nb 5; docs/perf/mcpi_o_formats.md).
    const float* __restrict__ dq_i = dq + i;
    long long at = k * NB2 + i * NB, column = k * NB + i;
    for (; k + (UNROLL - 1) * S < kend;
         k += UNROLL * S, ja += UNROLL * S, at += UNROLL * S * NB2, column += UNROLL * S * NB) {
      float x[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) x[u] = __ldg(dq_i + static_cast<long long>(c[u]) * NB);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) c[u] = k + (UNROLL + u) * S < kend ? __ldg(ja + (UNROLL + u) * S) : 0;
      float o[UNROLL][NB];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) x[u] *= load_column<F, NB>(a, at + u * S * NB2, column + u * S * NB, o[u]);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int m = 0; m < NB; ++m) acc[m] += o[u][m] * x[u];
    }
    // Fewer than UNROLL blocks left, their columns in c.
#pragma unroll
    for (int u = 0; u < UNROLL - 1; ++u) {
      if (k + u * S < kend) {
        float o[NB];
        const float x = __ldg(dq_i + static_cast<long long>(c[u]) * NB) *
                        load_column<F, NB>(a, at + u * S * NB2, column + u * S * NB, o);
#pragma unroll
        for (int m = 0; m < NB; ++m) acc[m] += o[m] * x;
      }
    }
  }
  // Lane (r, 0, i) needs row i's sum over the G lanes of its block row. FP32: every lane forms
  // every row's sum by NB * G shuffles. A reduced O, whose sweep is bound by instructions rather
  // than bytes (docs/perf/mcpi_o_formats.md): the partial sums go through shared memory, NB
  // stores a lane and G loads for the lanes that need a sum.
  float mine = 0.f;
  if constexpr (F == OFormat::fp32) {
#pragma unroll
    for (int m = 0; m < NB; ++m) {
      float sum = 0.f;
#pragma unroll
      for (int q = 0; q < G; ++q) sum += __shfl_sync(kFull, acc[m], r * G + q);
      if (m == i) mine = sum;
    }
  } else {
#pragma unroll
    for (int m = 0; m < NB; ++m) sPart[warp][lane * NB + m] = acc[m];
    __syncwarp();
    if (active) {
#pragma unroll
      for (int q = 0; q < G; ++q) mine += sPart[warp][(r * G + q) * NB + i];
    }
  }
  if constexpr (F == OFormat::fp16) {
    if (active) mine *= block_row_scale<F>(a, row);
  }
  const double rv = active ? __ldg(a.R + row * NB + i) - static_cast<double>(mine) : 0.0;
  if (ASYNC) {
    __pipeline_wait_prior(0);
    __syncwarp();
  }
  auto Dij = [&](int ii, int jj) {
    return static_cast<double>(ASYNC ? sD[warp][r * NB2 + jj * NB + ii] : __ldg(lu + row * NB2 + jj * NB + ii));
  };
  double e2 = 0.0;
  if constexpr (RES) e2 = residual_entry_sq<NB>(rv, active ? a.dq[row * NB + i] : 0.f, i, r * G, active, Dij);
  const double x = substitute<NB>(rv, i, r * G, active, Dij);
  if (active) a.dq[row * NB + i] = static_cast<float>(x);
  if constexpr (RES) add_warp_residual(e2, a);
}

// Small colours (too few rows to fill the GPU) are latency chains: a warp walks a block row's
// ~17 blocks one step after another. Here one warp owns one block row and its S = 32 / NB
// slots take every S-th block (column-wise, one dQ gather per block), so a row takes about
// 17 / S steps; partial sums are reduced through shared memory.
// PDL: as rows_per_warp_kernel's. It carries the overlap through a sweep's last, small colours
// (docs/perf/kernel_choices.md, "MCPI small-colour kernel"). RES, F, DT: as rows_per_warp_kernel's.
template <int NB, bool ASYNC, bool PDL = false, bool RES = false, OFormat F = OFormat::fp32, class DT = double>
__global__ void __launch_bounds__(kWarps * 32) row_slots_colwise_kernel(const ColorArgs a) {
  constexpr int NB2 = NB * NB;
  constexpr int S = 32 / NB;
  __shared__ float sAcc[kWarps][32 * NB];
  __shared__ DT sD[kWarps][ASYNC ? NB2 : 1];
  const DT* __restrict__ lu = lu_factors<DT>(a);
  allow_next_grid<PDL>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row = a.row_begin + static_cast<long long>(blockIdx.x) * kWarps + warp;
  if (row >= a.row_end) return;  // whole warp leaves together
  if (ASYNC) async_copy(sD[warp], lu + row * NB2, NB2, lane);
  wait_previous_grid<PDL>();  // the previous colour's dQ is complete
  const int s = lane / NB, i = lane % NB;
  float acc[NB];
#pragma unroll
  for (int m = 0; m < NB; ++m) acc[m] = 0.f;
  if (s < S) {
    const offset_t kend = __ldg(a.ia + row + 1);
    for (offset_t k = __ldg(a.ia + row) + s; k < kend; k += S) {
      float o[NB];
      const float x = __ldg(a.dq + static_cast<long long>(__ldg(a.ja + k)) * NB + i) *
                      load_column<F, NB>(a, k * NB2 + i * NB, k * NB + i, o);
#pragma unroll
      for (int m = 0; m < NB; ++m) acc[m] += o[m] * x;
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
    rv = __ldg(a.R + row * NB + lane) - sum * block_row_scale<F>(a, row);
  }
  if (ASYNC) {
    __pipeline_wait_prior(0);
    __syncwarp();
  }
  auto Dij = [&](int ii, int jj) {
    return static_cast<double>(ASYNC ? sD[warp][jj * NB + ii] : __ldg(lu + row * NB2 + jj * NB + ii));
  };
  double e2 = 0.0;
  if constexpr (RES) e2 = residual_entry_sq<NB>(rv, active ? a.dq[row * NB + lane] : 0.f, lane, 0, active, Dij);
  const double x = substitute<NB>(rv, lane, 0, active, Dij);
  if (active) a.dq[row * NB + lane] = static_cast<float>(x);
  if constexpr (RES) add_warp_residual(e2, a);
}

}  // namespace ppsparse::mcpi::backend::cuda
