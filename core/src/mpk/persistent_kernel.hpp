#pragma once
// The single-launch (persistent) kernel: tickets, completion counts and the hand-off between
// teams, and the functor.
#include "../backend/team_handoff.hpp"
#include "row_sources.hpp"

namespace ppsparse::mpk::detail {

// Tickets and completion counts of the single-launch kernel. std::uint64_t, not unsigned
// long long: Kokkos 4.6's CUDA atomics (desul) have native atom.add overloads for the
// <cstdint> types only, and an unsigned long long fetch-add falls back to a compare-and-swap
// loop, which under thousands of teams handing out tickets ran the persistent MPK one block
// at a time (docs/perf/kernel_choices.md, "MPK counters").
using Counter = std::uint64_t;

// Register bounds of the single-launch kernel on GPUs (Kokkos::LaunchBounds): at least this
// many teams of kPersistentBoundThreads threads per multiprocessor, for rows loaded in batches
// of `batch` (0: no bound): the most teams that still compile without spills
// (docs/perf/kernel_choices.md, "MPK register bounds").
constexpr int kPersistentBoundThreads = 128;
constexpr int persistent_min_teams_per_sm(const int batch) { return batch == 16 ? 6 : batch == 8 ? 8 : 0; }

// The pipelined kernel's register bound, for teams of `threads` threads (32, 64 or 128; 0
// for any other size, which has none): the persistent kernel's registers per thread where
// that has a bound, and 128 with spmv's strided loop (batch 0), as teams per multiprocessor.
// The bound guarantees the residency the pipelined kernel needs (see "Pipelined kernel" in
// mpk/matrix_power.hpp).
constexpr int pipelined_min_teams_per_sm(const int batch, const int threads) {
  const int per_128 = persistent_min_teams_per_sm(batch) ? persistent_min_teams_per_sm(batch) : 4;
  return threads == 32 || threads == 64 || threads == 128 ? per_128 * (128 / threads) : 0;
}

// Tickets, completion counts and the stall flag the single-launch kernels share. Completion
// is counted per (power, dependency segment); run `epoch` waits for epoch x the segment's
// blocks, so the counters are never reset.
template <class MemSpace>
struct SegmentHandoff {
  RandomAccessView<Counter, MemSpace> segment_blocks;  // blocks of each segment (the same at every power)
  Kokkos::View<Counter*, MemSpace> done;               // (power-1) * S + segment: blocks finished, all runs
  Kokkos::View<Counter*, MemSpace> ticket;             // 1 entry: tickets handed out, all runs
  Kokkos::View<long long*, MemSpace> stalled;          // 1 entry: 0, or 1 + the code of a stalled wait
  ordinal_t nsegments = 0;
  Counter ticket_base = 0;  // tickets handed out by earlier runs
  Counter epoch = 0;        // runs so far, this one included
  long long spin_limit = 0;

  // Leader only: the next ticket of this run (0, 1, ...).
  KOKKOS_INLINE_FUNCTION long long take_ticket() const {
    return static_cast<long long>(Kokkos::atomic_fetch_add(&ticket(0), Counter(1)) - ticket_base);
  }

  // Leader only: waits until segments [lo, hi] of y_{k_in} have finished epoch x their
  // blocks, then makes their values visible to the team (acquire; the caller's broadcast is
  // the team barrier after it). On a stall (spin_limit polls, or another team's stall) it
  // records 1 + code and returns. Each round reads all the counters before testing any, so
  // that their loads are in flight together.
  KOKKOS_INLINE_FUNCTION void wait_for(const ordinal_t lo, const ordinal_t hi, const int k_in,
                                       const long long code) const {
    const long long base = (k_in - 1) * static_cast<long long>(nsegments);
    ordinal_t first = lo;  // segments below first are known done
    long long polls = 0;
    while (true) {
      bool ready = true;
      ordinal_t next = hi + 1;
      for (ordinal_t s = first; s <= hi; ++s)
        if (ppsparse::backend::handoff_load_relaxed(&done(base + s)) < epoch * segment_blocks(s)) {
          ready = false;
          if (s < next) next = s;
        }
      if (ready) break;
      first = next;
      if (++polls > spin_limit ||
          ((polls & 1023) == 0 && compat::atomic_load_relaxed(&stalled(0)) != 0)) {  // another gave up
        Kokkos::atomic_compare_exchange(&stalled(0), 0LL, 1 + code);
        break;
      }
    }
    ppsparse::backend::handoff_acquire_fence();  // the dependencies' values before our reads
  }

  // Leader only, after a team barrier: our values (all of them, by the barrier) before the count.
  KOKKOS_INLINE_FUNCTION void release(const int power, const ordinal_t segment) const {
    ppsparse::backend::handoff_add_release(&done((power - 1) * static_cast<long long>(nsegments) + segment),
                                           Counter(1));
  }
};

// y_{k-1} is written by other teams during a single launch: on GPUs ordinary (coherent) loads
// only, never the non-coherent read-only path that RandomAccess selects there. On CPUs caches
// are coherent and RandomAccess only tells the compiler that y_in and y_out do not overlap
// (they are different columns), which it needs to keep the row loop tight.
template <class ExecSpace, class Scalar, class MemSpace>
using SingleLaunchInput = std::conditional_t<
    compat::is_gpu_space<ExecSpace>(), Kokkos::View<const Scalar**, Kokkos::LayoutLeft, MemSpace>,
    Kokkos::View<const Scalar**, Kokkos::LayoutLeft, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>>;

// The single-launch kernel: see "Persistent kernel" in mpk/matrix_power.hpp.
template <class ExecSpace, class Scalar, class MemSpace, class Rows>
struct PersistentFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Rows rows;
  SingleLaunchInput<ExecSpace, Scalar, MemSpace> y_in;
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> y_out;
  Kokkos::View<const Block*, MemSpace> blocks;  // tickets in schedule order
  SegmentHandoff<MemSpace> handoff;
  ordinal_t ngroups;
  long long total_blocks;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    while (true) {
      long long t = 0;
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](long long& mine) {
            mine = handoff.take_ticket();
            if (mine < total_blocks) {
              const Block b = blocks(mine);
              if (b.power > 1)
                handoff.wait_for(b.dep_lo, b.dep_hi, b.power - 1,
                                 (b.power - 1) * static_cast<long long>(ngroups) + b.group);
            }
          },
          t);  // the broadcast is a team barrier: every thread reads after the leader's acquire
      if (t >= total_blocks) return;
      const Block b = blocks(t);
      compute_block(team, rows, b, y_in, y_out);
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { handoff.release(b.power, b.segment); });
    }
  }
};

}  // namespace ppsparse::mpk::detail
