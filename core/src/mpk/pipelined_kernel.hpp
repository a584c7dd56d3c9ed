#pragma once
// The pipelined single-launch kernel.
#include "persistent_kernel.hpp"

namespace ppsparse::mpk::detail {

// The pipelined single-launch kernel: see "Pipelined kernel" in mpk/matrix_power.hpp. A team
// takes row blocks by ticket in row order and computes all p powers of each, waiting before
// each power for the segments of the previous one that its rows read. Where they fit
// (scratch_entries), the block's stored entries (values and column indices) are kept in team
// scratch and every power after the first reads them there, so only the vectors go through
// memory; a larger block reads memory at every power.
// RowsInFlight 2 (one vector lane per row only): a team thread computes rows i and
// i + ceil(rows / 2) of the block together (pair_product), both rows' loads in flight at once,
// and the block's entries and its rows' spans (two 32-bit offsets each) are copied to scratch
// before the first power (kCopyAhead). RowsInFlight 1: the first power reads the entries from
// memory and keeps them as read.
// A power of a block is a chain of dependent steps (wait, fence, barrier, loads, gathers,
// barrier, release) whose latency, not bandwidth, bounds the kernel (docs/perf/mpk.md);
// the pair halves the loads' share of that chain where a thread has two rows.
template <class ExecSpace, class Scalar, class MemSpace, class Rows, int RowsInFlight>
struct PipelinedFunctor {
  static_assert(RowsInFlight == 1 || RowsInFlight == 2, "a team thread computes one row or two at a time");
  // Row pairs copy the block to scratch before its first power; one row per thread reads its
  // entries at the first power and keeps them as read (KeepInScratch), which was faster where
  // the power-1 loads were already batched 16 deep (docs/perf/kernel_choices.md, "MPK copy ahead").
  static constexpr bool kCopyAhead = RowsInFlight == 2;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Index = typename Rows::StoredIndex;
  using ScratchValues = Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using ScratchIndex = Kokkos::View<Index*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using ScratchSpans = Kokkos::View<std::int32_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Rows rows;
  SingleLaunchInput<ExecSpace, Scalar, MemSpace> y_in;
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> y_out;
  Kokkos::View<const Block*, MemSpace> blocks;  // row blocks in row order (power unused)
  SegmentHandoff<MemSpace> handoff;
  long long nblocks;
  int first_power = 0;  // this pass computes powers first_power + 1 .. first_power + powers
  int powers;
  offset_t scratch_entries;  // entries of a block that team scratch holds
  ordinal_t block_rows;      // rows of the largest block (kept_span_count)

  // Spans team scratch holds for a block of `rows` rows: two per row where they are copied.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t kept_span_count(const ordinal_t rows) {
    return kCopyAhead ? 2 * static_cast<size_t>(rows) : 0;
  }
  // Team scratch for `entries` stored entries and the spans of a block of `rows` rows.
  static std::size_t scratch_bytes(const offset_t entries, const ordinal_t rows) {
    return ScratchValues::shmem_size(static_cast<size_t>(entries)) +
           ScratchIndex::shmem_size(static_cast<size_t>(entries)) + ScratchSpans::shmem_size(kept_span_count(rows));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const ScratchValues kept_values(team.team_scratch(0), static_cast<size_t>(scratch_entries));
    const ScratchIndex kept_index(team.team_scratch(0), static_cast<size_t>(scratch_entries));
    const ScratchSpans kept_spans(team.team_scratch(0), kept_span_count(block_rows));
    // Tickets, not fixed blocks (team i: i, i + R, ...; docs/perf/kernel_choices.md, "MPK
    // tickets"): a fixed block waits for its team to start, and a team that is not
    // resident (the residency estimate is one team per multiprocessor too high, say) then never starts while the others
    // wait for its blocks. A ticket goes only to a running team.
    while (true) {
      long long t = 0;
      Kokkos::single(
          Kokkos::PerTeam(team), [&](long long& mine) { mine = handoff.take_ticket(); }, t);
      if (t >= nblocks) return;
      const Block b = blocks(t);
      offset_t first = 0, last = 0;
      rows.entry_range(b.row_begin, b.row_end, first, last);
      const bool keep = last - first <= scratch_entries;
      const ordinal_t nrows = b.row_end - b.row_begin;
      if (keep && kCopyAhead) {
        // The block's entries and its rows' spans into scratch, as whole contiguous ranges (every
        // load independent of the others), before its first power reads them there.
        ppsparse::backend::team_copy_start(team, rows.stored_values().data() + first, last - first, kept_values.data());
        ppsparse::backend::team_copy_start(team, rows.stored_index().data() + first, last - first, kept_index.data());
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, nrows), [&](const ordinal_t i) {
          const RowSpan s = rows.span(b.row_begin + i);
          kept_spans(2 * i) = static_cast<std::int32_t>(s.begin - first);
          kept_spans(2 * i + 1) = static_cast<std::int32_t>(s.end - first);
        });
        ppsparse::backend::team_copy_finish();
        team.team_barrier();
      }
      const ScratchEntries<Scalar> values_in_scratch{kept_values.data(), first};
      const ScratchEntries<Index> index_in_scratch{kept_index.data(), first};
      using SV = std::decay_t<decltype(rows.stored_values())>;
      using SI = std::decay_t<decltype(rows.stored_index())>;
      const KeepInScratch<SV, Scalar> values_kept{rows.stored_values(), kept_values.data(), first};
      const KeepInScratch<SI, Index> index_kept{rows.stored_index(), kept_index.data(), first};
      auto span_of = [&](const ordinal_t i) {
        return keep ? RowSpan{first + kept_spans(2 * i), first + kept_spans(2 * i + 1)} : rows.span(b.row_begin + i);
      };
      const ordinal_t thread_rows = RowsInFlight == 2 ? (nrows + 1) / 2 : nrows;
      // k: the power computed; the pass's first reads y_{first_power}, finished by the launch
      // before (stream order), so it waits for nothing.
      for (int k = first_power + 1; k <= first_power + powers; ++k) {
        if (k > first_power + 1) {
          int ready = 0;
          Kokkos::single(
              Kokkos::PerTeam(team),
              [&](int& r) {
                handoff.wait_for(b.dep_lo, b.dep_hi, k - 1, (k - 1) * nblocks + t);
                r = 1;
              },
              ready);  // the broadcast is the team barrier after the leader's acquire: faster than a single()
                       // without a value and a team_barrier() (docs/perf/kernel_choices.md, "MPK broadcast")
        }
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, thread_rows), [&](const ordinal_t i) {
          if constexpr (RowsInFlight == 1) {
            const ordinal_t r = b.row_begin + i;
            const RowSpan s = rows.span(r);
            Scalar sum;
            if (!keep)
              sum = rows.product(team, r, y_in, k - 1);
            else if (k == first_power + 1)
              sum = span_product(team, rows, r, s, y_in, k - 1, values_kept, index_kept);
            else
              sum = span_product(team, rows, r, s, y_in, k - 1, values_in_scratch, index_in_scratch);
            Kokkos::single(Kokkos::PerThread(team), [&]() { y_out(r, k) = sum; });
          } else {
            const ordinal_t i1 = i + thread_rows;
            const bool second = i1 < nrows;
            const ordinal_t r0 = b.row_begin + i, r1 = second ? b.row_begin + i1 : r0;
            const RowSpan s0 = span_of(i);
            const RowSpan s1 = second ? span_of(i1) : RowSpan{s0.end, s0.end};
            Scalar sum0, sum1;
            if (keep)
              pair_product(rows, r0, s0, r1, s1, y_in, k - 1, values_in_scratch, index_in_scratch, sum0, sum1);
            else
              pair_product(rows, r0, s0, r1, s1, y_in, k - 1, rows.stored_values(), rows.stored_index(), sum0, sum1);
            y_out(r0, k) = sum0;
            if (second) y_out(r1, k) = sum1;
          }
        });
        team.team_barrier();
        Kokkos::single(Kokkos::PerTeam(team), [&]() { handoff.release(k, b.segment); });
      }
    }
  }
};

}  // namespace ppsparse::mpk::detail
