#pragma once
// The portable MCPI kernel for one colour: r = R_c - O_c dQ, then dQ_c = D_c^-1 r by
// forward/backward substitution with the in-place LU factors of D.
//
// A team runs "lane phases": every lane of the team executes a phase, then the lanes of a
// group synchronise (end of a ThreadVectorRange: a warp sync on CUDA, lock step on HIP; a
// team barrier when a group spans several vector groups). State that outlives a phase lives
// in team scratch, so the same code runs on CPUs, where lanes are logical and phases run
// one after another.
#include <ppsparse/mcpi/geometry.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

enum class Stage { fused, spmv_only, solve_only };

template <class MemSpace>
struct SweepViews {
  Kokkos::View<const offset_t*, MemSpace> ia;
  Kokkos::View<const ordinal_t*, MemSpace> ja;
  Kokkos::View<const float*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>> O;
  Kokkos::View<const double*, MemSpace> D;  // LU factors
  Kokkos::View<const double*, MemSpace> R;
  Kokkos::View<float*, MemSpace> dq;        // written for this colour's rows
  Kokkos::View<const float*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>> dq_read;  // same memory, other colours
  Kokkos::View<double*, MemSpace> r_tmp;    // split variant: r for the colour's rows
};

// NB > 0 fixes the block size at compile time (unrolled column loops); NB == 0 reads nb_rt.
template <class ExecSpace, int NB>
struct SweepFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using scratch_space = typename ExecSpace::scratch_memory_space;
  using ScratchD = Kokkos::View<double*, scratch_space, Kokkos::MemoryUnmanaged>;
  using ScratchF = Kokkos::View<float*, scratch_space, Kokkos::MemoryUnmanaged>;

  SweepViews<typename ExecSpace::memory_space> v;
  Geometry g;
  int nb_rt;
  ordinal_t row_begin, row_end;
  Stage stage;
  bool prefetch;

  KOKKOS_INLINE_FUNCTION int nb() const { return NB > 0 ? NB : nb_rt; }

  // Per-group scratch sizes (elements).
  KOKKOS_INLINE_FUNCTION int r_len() const { return g.rows_per_group * nb(); }
  KOKKOS_INLINE_FUNCTION int part_len() const { return g.map == LaneMap::rows ? 0 : g.group_lanes(); }
  KOKKOS_INLINE_FUNCTION int pf_len() const { return prefetch ? 3 * g.rows_per_group * nb() : 0; }

  static size_t scratch_bytes(const Geometry& g, int nb, bool prefetch) {
    const size_t groups = static_cast<size_t>(g.groups_per_team);
    const size_t r = groups * g.rows_per_group * nb;
    const size_t part = g.map == LaneMap::rows ? 0 : groups * g.group_lanes();
    const size_t pf = prefetch ? groups * 3 * g.rows_per_group * nb : 0;
    return ScratchD::shmem_size(r) + ScratchF::shmem_size(part + pf) + 64;
  }

  // Runs f(group, lane) on every lane of the team, then synchronises the groups.
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

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    const int n_b = nb();
    const int nb2 = n_b * n_b;
    const int groups = g.groups_per_team;
    const int rpg = g.rows_per_group;
    const ordinal_t team_row0 = row_begin + static_cast<ordinal_t>(m.league_rank()) * g.rows_per_team();

    ScratchD r_s(m.team_scratch(0), static_cast<size_t>(groups) * r_len());
    ScratchF f_s(m.team_scratch(0), static_cast<size_t>(groups) * (part_len() + pf_len()));
    // Views into scratch per group.
    auto r_at = [&](int gi, int q) -> double& { return r_s(gi * r_len() + q); };
    auto part_at = [&](int gi, int q) -> float& { return f_s(gi * part_len() + q); };
    float* pf_base = f_s.data() + static_cast<size_t>(groups) * part_len();
    auto row_of = [&](int gi, int rr) { return team_row0 + gi * rpg + rr; };

    if (stage == Stage::solve_only) {
      phase(m, [&](int gi, int t) {
        if (t < rpg * n_b) {
          const ordinal_t row = row_of(gi, t / n_b);
          if (row < row_end) r_at(gi, t) = v.r_tmp(static_cast<size_t>(row - row_begin) * n_b + t % n_b);
        }
      });
    } else {
      spmv(m, n_b, nb2, rpg, r_at, part_at, pf_base, row_of);
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
    substitute(m, n_b, nb2, rpg, r_at, row_of);
  }

  template <class RAt, class PartAt, class RowOf>
  KOKKOS_INLINE_FUNCTION void spmv(const member_type& m, const int n_b, const int nb2, const int rpg, const RAt& r_at,
                                   const PartAt& part_at, float* pf_base, const RowOf& row_of) const {
    if (g.map == LaneMap::entry) {
      // Lanes on the entries of `slots` consecutive blocks: one coalesced load per lane per step.
      const int slots = g.slots;
      phase(m, [&](int gi, int t) {
        const ordinal_t row = row_of(gi, 0);
        float acc = 0.0f;
        const int s = t / nb2, e = t - s * nb2;
        if (row < row_end && s < slots) {
          const int j = e / n_b;
          const offset_t kend = v.ia(row + 1);
          for (offset_t k = v.ia(row) + s; k < kend; k += slots)
            acc += v.O(static_cast<size_t>(k) * nb2 + e) * v.dq_read(static_cast<size_t>(v.ja(k)) * n_b + j);
        }
        part_at(gi, t) = acc;
      });
      phase(m, [&](int gi, int t) {
        const ordinal_t row = row_of(gi, 0);
        if (t < n_b && row < row_end) {
          double sum = 0.0;
          for (int s = 0; s < slots; ++s)
            for (int j = 0; j < n_b; ++j) sum += part_at(gi, s * nb2 + j * n_b + t);
          r_at(gi, t) = v.R(static_cast<size_t>(row) * n_b + t) - sum;
        }
      });
    } else if (g.map == LaneMap::block_row) {
      // Lanes on the rows of `slots` blocks; each lane sweeps its block row's columns.
      const int slots = g.slots, lps = g.lanes_per_slot;
      phase(m, [&](int gi, int t) {
        const ordinal_t row = row_of(gi, 0);
        const int s = t / lps, i = t - s * lps;
        if (row < row_end && i < n_b) {
          float acc = 0.0f;
          const offset_t kend = v.ia(row + 1);
          for (offset_t k = v.ia(row) + s; k < kend; k += slots) {
            const size_t ob = static_cast<size_t>(k) * nb2 + i;
            const size_t xb = static_cast<size_t>(v.ja(k)) * n_b;
            for (int j = 0; j < n_b; ++j) acc += v.O(ob + static_cast<size_t>(j) * n_b) * v.dq_read(xb + j);
          }
          part_at(gi, s * n_b + i) = acc;
        }
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
      // rows_per_warp (seed 000, fig. 7): nb consecutive lanes own one block row; no reduction.
      phase(m, [&](int gi, int t) {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < row_end) {
          float acc = 0.0f;
          const offset_t kend = v.ia(row + 1);
          for (offset_t k = v.ia(row); k < kend; ++k) {
            const size_t ob = static_cast<size_t>(k) * nb2 + i;
            const size_t xb = static_cast<size_t>(v.ja(k)) * n_b;
            for (int j = 0; j < n_b; ++j) acc += v.O(ob + static_cast<size_t>(j) * n_b) * v.dq_read(xb + j);
          }
          r_at(gi, t) = v.R(static_cast<size_t>(row) * n_b + i) - acc;
        }
      });
    } else {
      spmv_prefetch(m, n_b, nb2, rpg, r_at, pf_base, row_of);
    }
  }

  // rows_per_warp with dQ prefetched into two scratch buffers (seed 000, fig. 9): while the
  // lanes multiply block s with buffer s%2, they load dQ of block s+1 into the other buffer.
  template <class RAt, class RowOf>
  KOKKOS_INLINE_FUNCTION void spmv_prefetch(const member_type& m, const int n_b, const int nb2, const int rpg,
                                            const RAt& r_at, float* pf_base, const RowOf& row_of) const {
    const int len = 3 * rpg * n_b;
    auto buf = [&](int gi, int which) { return pf_base + static_cast<size_t>(gi) * len + which * rpg * n_b; };
    auto acc_at = [&](int gi, int t) -> float& { return pf_base[static_cast<size_t>(gi) * len + 2 * rpg * n_b + t]; };
    // The step count must be uniform over the team: the longest row of the team.
    int steps = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(m, g.rows_per_team()),
        [&](const int q, int& mx) {
          const ordinal_t row = row_of(0, 0) + q;
          const int l = row < row_end ? static_cast<int>(v.ia(row + 1) - v.ia(row)) : 0;
          mx = l > mx ? l : mx;
        },
        Kokkos::Max<int>(steps));
    phase(m, [&](int gi, int t) {
      const int rr = t / n_b, i = t - rr * n_b;
      const ordinal_t row = row_of(gi, rr);
      if (rr < rpg) {
        acc_at(gi, t) = 0.0f;
        if (row < row_end && v.ia(row + 1) > v.ia(row))
          buf(gi, 0)[i * rpg + rr] = v.dq_read(static_cast<size_t>(v.ja(v.ia(row))) * n_b + i);
      }
    });
    for (int s = 0; s < steps; ++s) {
      phase(m, [&](int gi, int t) {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < row_end) {
          const offset_t k = v.ia(row) + s;
          const offset_t kend = v.ia(row + 1);
          if (k < kend) {
            const float* cur = buf(gi, s & 1);
            float a = acc_at(gi, t);
            const size_t ob = static_cast<size_t>(k) * nb2 + i;
            for (int j = 0; j < n_b; ++j) a += v.O(ob + static_cast<size_t>(j) * n_b) * cur[j * rpg + rr];
            acc_at(gi, t) = a;
            if (k + 1 < kend) buf(gi, (s + 1) & 1)[i * rpg + rr] = v.dq_read(static_cast<size_t>(v.ja(k + 1)) * n_b + i);
          }
        }
      });
    }
    phase(m, [&](int gi, int t) {
      const int rr = t / n_b, i = t - rr * n_b;
      const ordinal_t row = row_of(gi, rr);
      if (rr < rpg && row < row_end) r_at(gi, t) = v.R(static_cast<size_t>(row) * n_b + i) - acc_at(gi, t);
    });
  }

  // Forward (unit L) and backward (U) substitution, one lane per (block row, entry).
  template <class RAt, class RowOf>
  KOKKOS_INLINE_FUNCTION void substitute(const member_type& m, const int n_b, const int nb2, const int rpg,
                                         const RAt& r_at, const RowOf& row_of) const {
    for (int j = 0; j + 1 < n_b; ++j) {
      phase(m, [&](int gi, int t) {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < row_end && i > j)
          r_at(gi, t) -= v.D(static_cast<size_t>(row) * nb2 + j * n_b + i) * r_at(gi, rr * n_b + j);
      });
    }
    for (int j = n_b - 1; j > 0; --j) {
      phase(m, [&](int gi, int t) {
        const int rr = t / n_b, i = t - rr * n_b;
        const ordinal_t row = row_of(gi, rr);
        if (rr < rpg && row < row_end && i < j) {
          const size_t db = static_cast<size_t>(row) * nb2 + static_cast<size_t>(j) * n_b;
          r_at(gi, t) -= v.D(db + i) * (r_at(gi, rr * n_b + j) / v.D(db + j));
        }
      });
    }
    phase(m, [&](int gi, int t) {
      const int rr = t / n_b, i = t - rr * n_b;
      const ordinal_t row = row_of(gi, rr);
      if (rr < rpg && row < row_end)
        v.dq(static_cast<size_t>(row) * n_b + i) =
            static_cast<float>(r_at(gi, t) / v.D(static_cast<size_t>(row) * nb2 + static_cast<size_t>(i) * n_b + i));
    });
  }
};

}  // namespace ppsparse::mcpi::impl
