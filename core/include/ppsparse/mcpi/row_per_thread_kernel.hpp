#pragma once
// The row_per_thread MCPI kernel for one colour: each thread owns one block row of a
// sliced copy of O (mcpi/sliced_blocks.hpp), forms r = R - sum_k O_k dQ_{col k} in its
// registers and substitutes with the row's LU factors of D. No lane talks to another, so
// there is no reduction and no synchronisation; a chunk's C threads read each block entry
// as one contiguous run. Small nb is where this pays: the vector-group kernels spend a
// lane group and a shuffle reduction on blocks of 1-9 entries.
#include <ppsparse/mcpi/sliced_blocks.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

// NB > 0 fixes the block size at compile time; NB == 0 reads nb_rt (at most 64).
template <class ExecSpace, int NB>
struct RowPerThreadFunctor {
  using MemSpace = typename ExecSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int max_nb = NB > 0 ? NB : 64;

  Kokkos::View<const offset_t*, MemSpace> chunk_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> row, row_len, cols;
  Kokkos::View<const float*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>> values;
  Kokkos::View<const double*, MemSpace> D;  // LU factors
  Kokkos::View<const double*, MemSpace> R;
  Kokkos::View<float*, MemSpace> dq;                                                         // this colour's rows
  Kokkos::View<const float*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>> dq_read;  // other colours
  int nb_rt = NB;
  int C = 32;
  int chunks_per_team = 4;
  ordinal_t chunk_begin = 0, chunk_end = 0;

  KOKKOS_INLINE_FUNCTION int nb() const { return NB > 0 ? NB : nb_rt; }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, chunks_per_team * C), [&](const int t) {
      const ordinal_t chunk = chunk_begin + m.league_rank() * chunks_per_team + t / C;
      if (chunk < chunk_end) block_row(chunk, t % C);
    });
  }

  static constexpr int batch = 4;

  // acc += O_block x_col for one block: v is its entry 0 in `values`, col its dQ offset.
  KOKKOS_INLINE_FUNCTION void add_block(float* acc, const size_t v, const size_t col) const {
    const int n = nb();
    for (int j = 0; j < n; ++j) {
      const float x = dq_read(col + j);
      for (int i = 0; i < n; ++i) acc[i] += values(v + (static_cast<size_t>(j) * n + i) * C) * x;
    }
  }

  KOKKOS_INLINE_FUNCTION void block_row(const ordinal_t chunk, const int lane) const {
    const size_t at = static_cast<size_t>(chunk) * C + lane;
    const ordinal_t r = row(at);
    if (r < 0) return;  // past the colour's last row
    const int n = nb();
    const size_t n2 = static_cast<size_t>(n) * n;
    const ordinal_t len = row_len(at);
    const size_t base = static_cast<size_t>(chunk_ptr(chunk));  // first slot of the chunk
    float acc[max_nb];
    for (int i = 0; i < n; ++i) acc[i] = 0.0f;
    // Batches of `batch` blocks: their column loads, then their gathers and values, are
    // independent, so a thread keeps several in flight. A colour has only one thread per
    // row, too few to cover the memory latency with one load at a time.
    ordinal_t k = 0;
    for (; k + batch <= len; k += batch) {
      size_t col[batch];
      for (int u = 0; u < batch; ++u) col[u] = static_cast<size_t>(cols((base + k + u) * C + lane)) * n;
      for (int u = 0; u < batch; ++u) add_block(acc, (base + k + u) * C * n2 + lane, col[u]);
    }
    for (; k < len; ++k) add_block(acc, (base + k) * C * n2 + lane, static_cast<size_t>(cols((base + k) * C + lane)) * n);
    // D dQ_r = R_r - acc with D = L U (unit lower L, column-major, in place).
    const double* lu = D.data() + static_cast<size_t>(r) * n2;
    double y[max_nb];
    for (int i = 0; i < n; ++i) {
      double s = R(static_cast<size_t>(r) * n + i) - static_cast<double>(acc[i]);
      for (int j = 0; j < i; ++j) s -= lu[j * n + i] * y[j];
      y[i] = s;
    }
    for (int i = n - 1; i >= 0; --i) {
      double s = y[i];
      for (int j = i + 1; j < n; ++j) s -= lu[j * n + i] * y[j];
      y[i] = s / lu[i * n + i];
    }
    for (int i = 0; i < n; ++i) dq(static_cast<size_t>(r) * n + i) = static_cast<float>(y[i]);
  }
};

}  // namespace ppsparse::mcpi::impl
