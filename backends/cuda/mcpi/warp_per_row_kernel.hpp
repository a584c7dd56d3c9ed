#pragma once
// The 11_x kernel of Walden et al. (2021): warp_per_row_kernel (one block row per warp, lanes on block entries).
#include "kernel_common.hpp"

namespace ppsparse::mcpi::backend::cuda {

// 11_x: a warp owns one block row; lanes on the entries of S = 32 / NB^2 blocks (NB <= 5) or,
// for larger blocks, M = ceil(NB^2 / 32) entries of each block; partial sums reduced per row i
// through shared memory, then the first NB lanes substitute. DT: the precision of D's LU
// factors (lu_factors).
template <int NB, bool ASYNC, class DT = double>
__global__ void __launch_bounds__(kWarps * 32) warp_per_row_kernel(const ColorArgs a) {
  constexpr int NB2 = NB * NB;
  constexpr int S = NB2 <= 32 ? 32 / NB2 : 1;
  constexpr int M = (NB2 + 31) / 32;
  __shared__ float sPart[kWarps][32 * M];
  __shared__ DT sD[kWarps][ASYNC ? NB2 : 1];
  const DT* __restrict__ lu = lu_factors<DT>(a);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row = a.row_begin + static_cast<long long>(blockIdx.x) * kWarps + warp;
  if (row >= a.row_end) return;  // whole warp leaves together
  if (ASYNC) async_copy(sD[warp], lu + row * NB2, NB2, lane);
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
  auto Dij = [&](int ii, int jj) {
    return static_cast<double>(ASYNC ? sD[warp][jj * NB + ii] : __ldg(lu + row * NB2 + jj * NB + ii));
  };
  const double x = substitute<NB>(rv, i, 0, active, Dij);
  if (active) a.dq[row * NB + i] = static_cast<float>(x);
}

}  // namespace ppsparse::mcpi::backend::cuda
