#pragma once
// nb 16..64: wide_block_kernel, one kernel for every variant.
#include "kernel_common.hpp"

namespace ppsparse::mcpi::backend::cuda {

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
// prefetched anyway. KernelTuning::wide_prefetch = false turns the L2 prefetch off, for measurements.
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
//
// RES: a checked sweep: the substituting warp also adds the row's squared residual before its
// update to a.residual_sq, D q = L (U q) for the row's own dQ q read column by column.
// DT: the precision of D's LU factors (lu_factors).
template <int NB, int SPLIT, bool PDL = false, bool RES = false, class DT = double>
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
  const DT* Drow = lu_factors<DT>(a) + row * NB2;
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
      if (substitutes) prefetch_l2(reinterpret_cast<const char*>(Drow), NB2 * static_cast<long long>(sizeof(DT)), lane);
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
  if constexpr (RES) {
    const float q0 = own0 ? a.dq[row * NB + i0] : 0.f, q1 = own1 ? a.dq[row * NB + i1] : 0.f;
    double u0 = 0.0, u1 = 0.0;  // (U q)_i
#pragma unroll 8
    for (int j = 0; j < NB; ++j) {
      const double qj = __shfl_sync(kFull, static_cast<double>(j < 32 ? q0 : q1), j & 31);
      if (own0 && j >= i0) u0 += __ldg(Drow + j * NB + i0) * qj;
      if (own1 && j >= i1) u1 += __ldg(Drow + j * NB + i1) * qj;
    }
    double y0 = u0, y1 = u1;  // (L U q)_i, unit L
#pragma unroll 8
    for (int k = 0; k < NB - 1; ++k) {
      const double uk = __shfl_sync(kFull, k < 32 ? u0 : u1, k & 31);
      if (own0 && i0 > k) y0 += __ldg(Drow + k * NB + i0) * uk;
      if (own1 && i1 > k) y1 += __ldg(Drow + k * NB + i1) * uk;
    }
    const double e0 = own0 ? rv0 - y0 : 0.0, e1 = own1 ? rv1 - y1 : 0.0;
    add_warp_residual(e0 * e0 + e1 * e1, a);
  }

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

}  // namespace ppsparse::mcpi::backend::cuda
