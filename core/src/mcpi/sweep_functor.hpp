#pragma once
/// @file
/// The portable MCPI kernel for one colour: r = R_c - O_c dQ, then dQ_c = D_c^-1 r by
/// forward/backward substitution with the in-place LU factors of D.
///
/// A team runs "lane phases": every lane of the team executes a phase, then the lanes of a
/// group synchronise (end of a ThreadVectorRange: a warp sync on CUDA, lock step on HIP; a
/// team barrier when a group spans several vector groups). State that outlives a phase lives
/// in team scratch, so the same code runs on CPUs, where lanes are logical and phases run
/// one after another.
#include <type_traits>

#include <ppsparse/mcpi/geometry.hpp>
#include <ppsparse/types.hpp>

#include "kernels/rows_per_warp_body.hpp"
#include "kernels/rows_per_warp_prefetch_body.hpp"
#include "kernels/warp_per_row_body.hpp"
#include "o_access.hpp"
#include "sweep_stage.hpp"

namespace ppsparse::mcpi::impl {

/// The arrays a sweep reads and writes: O through its accessor OA (o_access.hpp), D's LU
/// factors in DS, the iterate dQ in XS, R and the temporaries in FP64.
template <class MemSpace, class OA = PlainO<MemSpace, float>, class DS = double, class XS = float>
struct SweepViews {
  Kokkos::View<const offset_t*, MemSpace> ia;
  Kokkos::View<const ordinal_t*, MemSpace> ja;
  OA O;
  Kokkos::View<const DS*, MemSpace> D;  ///< LU factors
  Kokkos::View<const double*, MemSpace> R;
  Kokkos::View<XS*, MemSpace> dq;  ///< written for this colour's rows
  Kokkos::View<const XS*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>> dq_read;  // same memory, other colours
  Kokkos::View<double*, MemSpace> r_tmp;  ///< split variant: r for the colour's rows
  /// Where the rows' squared residuals R - (D + O) dQ (dQ as read before the update) are added
  /// when the functor's `residual` is set: a team adds its sum to slot league_rank % extent
  /// (the caller sums the slots), so that teams do not queue on one address.
  Kokkos::View<double*, MemSpace> residual_sq;
};

/// NB > 0 fixes the block size at compile time (unrolled column loops); NB == 0 reads nb_rt.
/// StageD compiles in the register staging of D (it costs registers in every path of the
/// kernel, so it is a compile-time choice, measured per variant).
/// OA, DS, XS: O's accessor and the precisions of D and dQ (SweepViews); the SpMV multiplies
/// and accumulates in float when O's values and dQ are both float and not WideAcc, else in
/// double (a true residual needs double, products included).
template <class ExecSpace, int NB, bool StageD = false, class OA = PlainO<typename ExecSpace::memory_space, float>,
          class DS = double, class XS = float, bool WideAcc = false>
struct SweepFunctor {
  using OS = typename OA::value_type;
  using Acc = std::conditional_t<!WideAcc && std::is_same_v<OS, float> && std::is_same_v<XS, float>, float, double>;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using scratch_space = typename ExecSpace::scratch_memory_space;
  using ScratchD = Kokkos::View<double*, scratch_space, Kokkos::MemoryUnmanaged>;
  using ScratchF = Kokkos::View<Acc*, scratch_space, Kokkos::MemoryUnmanaged>;

  SweepViews<typename ExecSpace::memory_space, OA, DS, XS> v;
  Geometry g;
  int nb_rt;
  ordinal_t row_begin, row_end;
  Stage stage;
  bool prefetch;
  bool stage_d;  ///< StageD and the group's D blocks fit (see can_stage_d)
  /// Add each row's squared residual before its update to v.residual_sq (fused stage).
  bool residual = false;

  /// At most this many D entries per lane are staged (registers, compile-time bound).
  static constexpr int max_staged_per_lane = StageD ? 16 : 1;
  /// The rows lane map without prefetch puts a block row's nb lanes on its columns instead of its
  /// rows where O is scaled by column (o_access.hpp): a lane then scales its one dQ value per block
  /// rather than every entry, keeps nb row sums in registers (nb fixed at compile time) and the
  /// lanes add them through scratch (kernels/rows_per_warp_body.hpp).
  static constexpr bool rows_on_columns = NB > 0 && OA::scaled_by_column;
  static constexpr int block_size = NB;

  KOKKOS_INLINE_FUNCTION int nb() const { return NB > 0 ? NB : nb_rt; }

  /// Per-group scratch sizes (elements).
  KOKKOS_INLINE_FUNCTION int r_len() const { return g.rows_per_group * nb(); }
  KOKKOS_INLINE_FUNCTION int part_len() const { return part_per_group(g, nb(), prefetch); }
  KOKKOS_INLINE_FUNCTION int pf_len() const { return prefetch ? 3 * g.rows_per_group * nb() : 0; }
  KOKKOS_INLINE_FUNCTION int d_len() const { return stage_d ? g.rows_per_group * nb() * nb() : 0; }
  KOKKOS_INLINE_FUNCTION int u_len() const { return residual ? g.rows_per_group * nb() : 0; }

  /// Whether a group's D blocks fit the register staging and a modest scratch budget.
  static bool can_stage_d(const Geometry& g, int nb) {
    if (!StageD) return false;
    const size_t len = static_cast<size_t>(g.rows_per_group) * nb * nb;
    return len <= static_cast<size_t>(max_staged_per_lane) * g.group_lanes() &&
           len * g.groups_per_team * sizeof(double) <= 32 * 1024;
  }

  /// Partial sums per group: a lane's (nb of them where rows_on_columns), none for the rows map.
  KOKKOS_INLINE_FUNCTION static int part_per_group(const Geometry& g, const int nb, const bool prefetch) {
    if (g.map != LaneMap::rows) return g.group_lanes();
    return rows_on_columns && !prefetch ? g.group_lanes() * nb : 0;
  }

  static size_t scratch_bytes(const Geometry& g, int nb, bool prefetch, bool stage_d, bool residual = false) {
    const size_t groups = static_cast<size_t>(g.groups_per_team);
    const size_t r =
        groups * g.rows_per_group * nb * ((stage_d ? 1 + static_cast<size_t>(nb) : 1) + (residual ? 1 : 0));
    const size_t part = groups * static_cast<size_t>(part_per_group(g, nb, prefetch));
    const size_t pf = prefetch ? groups * 3 * g.rows_per_group * nb : 0;
    return ScratchD::shmem_size(r) + ScratchF::shmem_size(part + pf) + 64;
  }

  /// Runs f(group, lane) on every lane of the team, then synchronises the groups.
  template <class F>
  KOKKOS_INLINE_FUNCTION void phase(const member_type& m, const F& f) const {
    const int W = g.W, G = g.group_lanes();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, g.team_size()), [&](const int w) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, W), [&](const int lane) {
        const int flat = w * W + lane;
        f(flat / G, flat % G);
      });
    });
    if (g.group_spans_team_threads()) m.team_barrier();
  }

  /// As phase, with f(group, lane) returning a value: the team's sum, on every lane.
  template <class F>
  KOKKOS_INLINE_FUNCTION double phase_sum(const member_type& m, const F& f) const {
    const int W = g.W, G = g.group_lanes();
    double total = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(m, g.team_size()),
        [&](const int w, double& acc) {
          double part = 0.0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, W),
              [&](const int lane, double& s) {
                const int flat = w * W + lane;
                s += f(flat / G, flat % G);
              },
              part);
          acc += part;
        },
        total);
    if (g.group_spans_team_threads()) m.team_barrier();
    return total;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    const int n_b = nb();
    const int nb2 = n_b * n_b;
    const int groups = g.groups_per_team;
    const int rpg = g.rows_per_group;
    const ordinal_t team_row0 = row_begin + static_cast<ordinal_t>(m.league_rank()) * g.rows_per_team();

    ScratchD r_s(m.team_scratch(0), static_cast<size_t>(groups) * (r_len() + d_len() + u_len()));
    ScratchF f_s(m.team_scratch(0), static_cast<size_t>(groups) * (part_len() + pf_len()));
    // Views into scratch per group.
    auto r_at = [&](int gi, int q) -> double& { return r_s(gi * r_len() + q); };
    double* d_s = r_s.data() + static_cast<size_t>(groups) * r_len();
    double* u_s = d_s + static_cast<size_t>(groups) * d_len();
    auto part_at = [&](int gi, int q) -> Acc& { return f_s(gi * part_len() + q); };
    Acc* pf_base = f_s.data() + static_cast<size_t>(groups) * part_len();
    auto row_of = [&](int gi, int rr) { return team_row0 + gi * rpg + rr; };

    if (stage == Stage::solve_only) {
      phase(m, [&](int gi, int t) {
        with_staged_d(gi, t, row_of(gi, 0), d_s, [&]() {
          if (t < rpg * n_b) {
            const ordinal_t row = row_of(gi, t / n_b);
            if (row < row_end) r_at(gi, t) = v.r_tmp(static_cast<size_t>(row - row_begin) * n_b + t % n_b);
          }
        });
      });
    } else {
      spmv(m, n_b, nb2, rpg, r_at, part_at, pf_base, d_s, row_of);
      if (residual) add_residual(m, n_b, rpg, r_at, d_s, u_s, row_of);
      if (stage == Stage::residual_only) return;
      if (stage == Stage::spmv_only) {
        phase(m, [&](int gi, int t) {
          if (t < rpg * n_b) {
            const ordinal_t row = row_of(gi, t / n_b);
            if (row < row_end) v.r_tmp(static_cast<size_t>(row - row_begin) * n_b + t % n_b) = r_at(gi, t);
          }
        });
        return;
      }
    }
    substitute(m, n_b, nb2, rpg, r_at, d_s, row_of);
  }

  /// Runs body() for lane t of group gi with the group's D blocks (contiguous: its rows are
  /// consecutive) loaded into registers before and stored to scratch after, so the D loads
  /// are in flight while body's SpMV loads are: the portable form of an asynchronous copy.
  template <class Body>
  KOKKOS_INLINE_FUNCTION void with_staged_d(const int gi, const int t, const ordinal_t first_row, double* d_s,
                                            const Body& body) const {
    if (!StageD || !stage_d) {
      body();
      return;
    }
    const int nb2 = nb() * nb();
    const int G = g.group_lanes();
    const long long avail = first_row < row_end ? static_cast<long long>(row_end - first_row) * nb2 : 0;
    const long long len = static_cast<long long>(d_len()) < avail ? static_cast<long long>(d_len()) : avail;
    const size_t base = static_cast<size_t>(first_row) * nb2;
    double regs[max_staged_per_lane];
    PPSPARSE_UNROLL
    for (int q = 0; q < max_staged_per_lane; ++q) {
      const long long e = t + static_cast<long long>(q) * G;
      if (e < len) regs[q] = v.D(base + e);
    }
    body();
    PPSPARSE_UNROLL
    for (int q = 0; q < max_staged_per_lane; ++q) {
      const long long e = t + static_cast<long long>(q) * G;
      if (e < len) d_s[static_cast<size_t>(gi) * d_len() + e] = regs[q];
    }
  }

  /// Entry idx of the LU factors of the diagonal block of row rr of group gi.
  KOKKOS_INLINE_FUNCTION double d_at(const double* d_s, const int gi, const int rr, const ordinal_t row,
                                     const int idx) const {
    const int nb2 = nb() * nb();
    return stage_d ? d_s[static_cast<size_t>(gi) * d_len() + rr * nb2 + idx]
                   : v.D(static_cast<size_t>(row) * nb2 + idx);
  }

  /// Row i of O_row * dQ over the blocks s, s+step, ... of a block row; two blocks per step
  /// so that their ja -> dQ chains overlap.
  KOKKOS_INLINE_FUNCTION Acc block_row_dot(const ordinal_t row, const int i, const int s, const int step, const int n_b,
                                           const int nb2) const {
    Acc a0 = 0, a1 = 0;
    const offset_t kend = v.ia(row + 1);
    offset_t k = v.ia(row) + s;
    for (; k + step < kend; k += 2 * step) {
      const size_t ob0 = static_cast<size_t>(k) * nb2 + i, ob1 = static_cast<size_t>(k + step) * nb2 + i;
      const size_t xb0 = static_cast<size_t>(v.ja(k)) * n_b, xb1 = static_cast<size_t>(v.ja(k + step)) * n_b;
      for (int j = 0; j < n_b; ++j) {
        a0 += static_cast<Acc>(v.O(row, ob0 + static_cast<size_t>(j) * n_b, k, j)) * v.dq_read(xb0 + j);
        a1 += static_cast<Acc>(v.O(row, ob1 + static_cast<size_t>(j) * n_b, k + step, j)) * v.dq_read(xb1 + j);
      }
    }
    if (k < kend) {
      const size_t ob = static_cast<size_t>(k) * nb2 + i;
      const size_t xb = static_cast<size_t>(v.ja(k)) * n_b;
      for (int j = 0; j < n_b; ++j)
        a0 += static_cast<Acc>(v.O(row, ob + static_cast<size_t>(j) * n_b, k, j)) * v.dq_read(xb + j);
    }
    return a0 + a1;
  }

  /// r = R - O dQ for the group's rows into r_at, by the lane map's body: each kernel's own in
  /// its file (kernels/<id>_body.hpp), the block_row map's (every layout's for blocks too large for
  /// its group) here. One functor runs them all, chosen at run time, as it always has: split
  /// into a functor per body, nvcc compiled the portable kernels 7 % faster to 33 % slower
  /// (docs/perf/refactoring_ab.md).
  template <class RAt, class PartAt, class RowOf>
  KOKKOS_INLINE_FUNCTION void spmv(const member_type& m, const int n_b, const int nb2, const int rpg, const RAt& r_at,
                                   const PartAt& part_at, Acc* pf_base, double* d_s, const RowOf& row_of) const {
    if (g.map == LaneMap::entry) {
      WarpPerRowBody::spmv(*this, m, n_b, nb2, rpg, r_at, part_at, pf_base, d_s, row_of);
    } else if (g.map == LaneMap::block_row) {
      // Lanes on the rows of `slots` blocks; each lane sweeps its block row's columns.
      const int slots = g.slots, lps = g.lanes_per_slot;
      phase(m, [&](int gi, int t) {
        with_staged_d(gi, t, row_of(gi, 0), d_s, [&]() {
          const ordinal_t row = row_of(gi, 0);
          const int s = t / lps, i = t - s * lps;
          if (row < row_end && i < n_b) {
            part_at(gi, s * n_b + i) = block_row_dot(row, i, s, slots, n_b, nb2);
          }
        });
      });
      phase(m, [&](int gi, int t) {
        const ordinal_t row = row_of(gi, 0);
        if (t < n_b && row < row_end) {
          double sum = 0.0;
          for (int s = 0; s < slots; ++s) sum += part_at(gi, s * n_b + t);
          r_at(gi, t) = v.R(static_cast<size_t>(row) * n_b + t) - sum;
        }
      });
    } else if (!prefetch) {
      RowsPerWarpBody::spmv(*this, m, n_b, nb2, rpg, r_at, part_at, pf_base, d_s, row_of);
    } else {
      PrefetchBody::spmv(*this, m, n_b, nb2, rpg, r_at, part_at, pf_base, d_s, row_of);
    }
  }

  /// Adds sum over the group's rows of (r - D dQ_row)^2 to v.residual_sq, r = R - O dQ in r_at
  /// and dQ_row as read before this colour's update: D dQ = L (U dQ) from the LU factors, U dQ
  /// staged in u_s. D is read as the substitution reads it (staged or from memory).
  template <class RAt, class RowOf>
  KOKKOS_INLINE_FUNCTION void add_residual(const member_type& m, const int n_b, const int rpg, const RAt& r_at,
                                           const double* d_s, double* u_s, const RowOf& row_of) const {
    const int ul = u_len();
    phase(m, [&](int gi, int t) {
      const int rr = t / n_b, i = t - rr * n_b;
      const ordinal_t row = row_of(gi, rr);
      if (rr < rpg && row < row_end) {
        double u = 0.0;
        for (int j = i; j < n_b; ++j)
          u += d_at(d_s, gi, rr, row, j * n_b + i) * v.dq_read(static_cast<size_t>(row) * n_b + j);
        u_s[gi * ul + t] = u;
      }
    });
    const double sum = phase_sum(m, [&](int gi, int t) -> double {
      const int rr = t / n_b, i = t - rr * n_b;
      const ordinal_t row = row_of(gi, rr);
      if (rr >= rpg || row >= row_end) return 0.0;
      double y = u_s[gi * ul + t];
      for (int k = 0; k < i; ++k) y += d_at(d_s, gi, rr, row, k * n_b + i) * u_s[gi * ul + rr * n_b + k];
      const double e = r_at(gi, t) - y;
      return e * e;
    });
    Kokkos::single(Kokkos::PerTeam(m), [&]() {
      Kokkos::atomic_add(&v.residual_sq(static_cast<size_t>(m.league_rank()) % v.residual_sq.extent(0)), sum);
    });
  }

  /// Forward (unit L) and backward (U) substitution, one lane per (block row, entry).
  template <class RAt, class RowOf>
  KOKKOS_INLINE_FUNCTION void substitute(const member_type& m, const int n_b, const int nb2, const int rpg,
                                         const RAt& r_at, const double* d_s, const RowOf& row_of) const {
    for (int j = 0; j + 1 < n_b; ++j) {
      phase(m, [&](int gi, int t) {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < row_end && i > j)
          r_at(gi, t) -= d_at(d_s, gi, rr, row, j * n_b + i) * r_at(gi, rr * n_b + j);
      });
    }
    for (int j = n_b - 1; j > 0; --j) {
      phase(m, [&](int gi, int t) {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < row_end && i < j) {
          r_at(gi, t) -=
              d_at(d_s, gi, rr, row, j * n_b + i) * (r_at(gi, rr * n_b + j) / d_at(d_s, gi, rr, row, j * n_b + j));
        }
      });
    }
    phase(m, [&](int gi, int t) {
      const int rr = t / n_b, i = t - rr * n_b;
      const ordinal_t row = row_of(gi, rr);
      if (rr < rpg && row < row_end)
        v.dq(static_cast<size_t>(row) * n_b + i) = static_cast<XS>(r_at(gi, t) / d_at(d_s, gi, rr, row, i * n_b + i));
    });
  }
};

}  // namespace ppsparse::mcpi::impl
