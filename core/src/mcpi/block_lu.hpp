#pragma once
/// @file
/// In-place LU factorisation of the nb x nb diagonal blocks (column-major, no pivoting,
/// as FUN3D does): L is unit lower triangular, U upper; both overwrite the block.
#include <algorithm>
#include <cfloat>
#include <climits>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi {

enum class PivotFailure : int { none = 0, tiny = 1, not_finite = 2 };

/// A pivot is "tiny" when |u_kk| <= relative_tiny * max|entry of the block| (or exactly 0).
constexpr double default_relative_tiny_pivot = 1e-13;

/// Factors one column-major block (float or double) in place. Returns the failure and the pivot
/// row through *row.
template <class T>
KOKKOS_INLINE_FUNCTION PivotFailure lu_factor_block(T* a, int nb, double relative_tiny, int* row) {
  double scale = 0.0;
  for (int e = 0; e < nb * nb; ++e) {
    const double v = a[e];
    if (!(compat::fabs(v) <= DBL_MAX)) {  // NaN or Inf
      *row = e % nb;
      return PivotFailure::not_finite;
    }
    scale = compat::fmax(scale, compat::fabs(v));
  }
  for (int k = 0; k < nb; ++k) {
    const double p = a[k * nb + k];
    if (!(compat::fabs(p) > relative_tiny * scale) || !(compat::fabs(p) <= DBL_MAX)) {
      *row = k;
      return (compat::fabs(p) <= DBL_MAX) ? PivotFailure::tiny : PivotFailure::not_finite;
    }
    for (int i = k + 1; i < nb; ++i) a[k * nb + i] /= p;
    for (int j = k + 1; j < nb; ++j) {
      const double ukj = a[j * nb + k];
      for (int i = k + 1; i < nb; ++i) a[j * nb + i] -= a[k * nb + i] * ukj;
    }
  }
  *row = -1;
  return PivotFailure::none;
}

namespace impl {
/// Loads a thread issues before using them, where a kernel needs bytes in flight (namespace
/// scope: an extended lambda may not capture a local constexpr used as an array bound).
inline constexpr int kLoadBatch = 4;
}  // namespace impl

/// Factors all n blocks of D (n * nb * nb, float or double) on ExecSpace, after reading each
/// block from `source` (source(b, e): entry e of block b, column-major) unless
/// Source::in_place. Returns -1 when every block factored, otherwise a code for the first
/// failing block (lowest index) that throw_pivot_failure turns into a message.
///
/// On GPUs a team stages a run of consecutive blocks in scratch with coalesced loads, each
/// thread factors one block there, and the team stores them back: one thread per block in
/// global memory would read each block with strided, uncoalesced loads.
template <class ExecSpace, class T, class Source>
long long factor_diagonal_blocks_from(const ExecSpace& exec, const Source& source,
                                      const Kokkos::View<T*, typename ExecSpace::memory_space>& D, int nb, ordinal_t n,
                                      double relative_tiny = default_relative_tiny_pivot) {
  /// Encodes (block, row, failure) so that a Min reduction finds the first failing block.
  long long first = LLONG_MAX;
  if (n <= 0) return -1;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  if (!compat::is_gpu_space<ExecSpace>()) {
    Kokkos::parallel_reduce(
        "ppsparse::mcpi::factor_diagonal_blocks", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const ordinal_t b, long long& mn) {
          T* a = D.data() + static_cast<size_t>(b) * nb2;
          if (!Source::in_place)
            for (int e = 0; e < static_cast<int>(nb2); ++e) a[e] = static_cast<T>(source(b, e));
          int row = -1;
          const PivotFailure f = lu_factor_block(a, nb, relative_tiny, &row);
          if (f != PivotFailure::none) {
            const long long code = (static_cast<long long>(b) * 64 + row) * 4 + static_cast<int>(f);
            mn = code < mn ? code : mn;
          }
        },
        Kokkos::Min<long long>(first));
    return first == LLONG_MAX ? -1 : first;
  }
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  // Up to 128 blocks per team within 32 KiB of scratch; threads in whole warps.
  const int per_team = static_cast<int>(std::max<size_t>(1, std::min<size_t>(128, 32768 / (nb2 * sizeof(T)))));
  const int threads = (per_team + 31) / 32 * 32;
  const int league = static_cast<int>((static_cast<long long>(n) + per_team - 1) / per_team);
  const int nb2i = static_cast<int>(nb2);
  Policy policy(exec, league, threads);
  policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(static_cast<size_t>(per_team) * nb2)));
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::factor_diagonal_blocks", policy,
      KOKKOS_LAMBDA(const typename Policy::member_type& m, long long& mn) {
        const long long b0 = static_cast<long long>(m.league_rank()) * per_team;
        const int count = static_cast<int>(b0 + per_team <= n ? per_team : n - b0);
        const size_t base = static_cast<size_t>(b0) * nb2, len = static_cast<size_t>(count) * nb2;
        Scratch s(m.team_scratch(0), len);
        // kLoadBatch loads per thread before their stores to scratch: bytes in flight.
        const int n_len = static_cast<int>(len), step = m.team_size();
        for (int q0 = m.team_rank(); q0 < n_len; q0 += impl::kLoadBatch * step) {
          T v[impl::kLoadBatch] = {};
          PPSPARSE_UNROLL
          for (int u = 0; u < impl::kLoadBatch; ++u) {
            const int q = q0 + u * step;
            if (q < n_len) {
              if (Source::in_place) {
                v[u] = D(base + q);
              } else {
                const int b = q / nb2i;
                v[u] = static_cast<T>(source(static_cast<size_t>(b0 + b), q - b * nb2i));
              }
            }
          }
          PPSPARSE_UNROLL
          for (int u = 0; u < impl::kLoadBatch; ++u)
            if (q0 + u * step < n_len) s(q0 + u * step) = v[u];
        }
        m.team_barrier();
        long long team_first = LLONG_MAX;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, count),
            [&](const int b, long long& tm) {
              int row = -1;
              const PivotFailure f = lu_factor_block(s.data() + static_cast<size_t>(b) * nb2, nb, relative_tiny, &row);
              if (f != PivotFailure::none) {
                const long long code = ((b0 + b) * 64 + row) * 4 + static_cast<int>(f);
                tm = code < tm ? code : tm;
              }
            },
            Kokkos::Min<long long>(team_first));
        mn = team_first < mn ? team_first : mn;
        m.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const size_t q) { D(base + q) = s(q); });
      },
      Kokkos::Min<long long>(first));
  return first == LLONG_MAX ? -1 : first;
}

/// factor_diagonal_blocks_from's source for D factored in place.
struct DiagonalBlocksInPlace {
  static constexpr bool in_place = true;
  KOKKOS_INLINE_FUNCTION double operator()(size_t, int) const { return 0.0; }
};

/// Factors all n blocks of D in place (factor_diagonal_blocks_from).
template <class ExecSpace, class T>
long long factor_diagonal_blocks(const ExecSpace& exec, const Kokkos::View<T*, typename ExecSpace::memory_space>& D,
                                 int nb, ordinal_t n, double relative_tiny = default_relative_tiny_pivot) {
  return factor_diagonal_blocks_from(exec, DiagonalBlocksInPlace{}, D, nb, n, relative_tiny);
}
/// The same on a default instance of ExecSpace.
template <class ExecSpace, class T>
long long factor_diagonal_blocks(const Kokkos::View<T*, typename ExecSpace::memory_space>& D, int nb, ordinal_t n,
                                 double relative_tiny = default_relative_tiny_pivot) {
  return factor_diagonal_blocks(ExecSpace(), D, nb, n, relative_tiny);
}

/// The block row a failure code of factor_diagonal_blocks names.
inline ordinal_t failed_block(long long code) { return static_cast<ordinal_t>(code / 256); }

/// Throws NumericalError for a failure code; user_block is the block's index in the user's
/// numbering, counted from 0; block and row are named from `base` (the user's index base), and a
/// 1-based message says so; `also_named` (a distributed row's " (global id G)") follows the block.
[[noreturn]] inline void throw_pivot_failure(long long code, int nb, ordinal_t user_block, int base = 0,
                                             const std::string& also_named = {}) {
  const long long row = (code / 4) % 64;
  const auto f = static_cast<PivotFailure>(code % 4);
  throw NumericalError("diagonal block " + std::to_string(user_block + base) + (base ? " (numbered from 1)" : "") +
                       also_named + ": " + (f == PivotFailure::tiny ? "zero or tiny pivot" : "NaN or Inf") +
                       " at row " + std::to_string(row + base) + " of the " + std::to_string(nb) + "x" +
                       std::to_string(nb) + " block (LU without pivoting cannot factor it)");
}

}  // namespace ppsparse::mcpi
