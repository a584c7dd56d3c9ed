#pragma once
// Device side of the blocked and persistent matrix power kernels (private to the library).
// A block is rows [row_begin, row_end) of one tile (group, power); a team computes
//   y_power(r) = sum_j a_rj y_{power-1}(j)   for its rows,
// a thread (team rank) per row and the row's entries split over the vector lanes.
#include <cstdint>
#include <type_traits>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/sell.hpp>

#include "../backend/team_copy.hpp"
#include "../backend/team_handoff.hpp"
#include "../spmv/kernel_common.hpp"

namespace ppsparse::mpk::detail {

struct Block {
  ordinal_t row_begin;
  ordinal_t row_end;
  ordinal_t group;
  int power;          // 1..p
  ordinal_t segment;  // the dependency segment holding the rows (persistent kernel)
  ordinal_t dep_lo;   // segments [dep_lo, dep_hi] hold every row of y_{power-1} the rows read
  ordinal_t dep_hi;
};

// A thread's share of a row: sum over k = first, first + stride, ... < end of
// values(k) * x_at(cols(k)). Batch 0 is spmv's strided_dot (8 entries at a time, then a
// scalar tail). Batch U > 0 loads U entries before any of their gathers, then gathers all U,
// so a row of up to U entries has all its loads in flight at once (strided_dot takes a row
// shorter than 8 through its scalar tail). Past the row's end an entry is 0 at safe_col, the
// row itself, whose y_{k-1} is computed before the row's block runs (a block's dependencies
// include its own rows); on an H100 that was faster than skipping those gathers under a
// predicate. The blocked and persistent kernels finish every row of a block before the next
// block, so their time per block is this latency; one SpMV over the whole matrix hides it
// behind other warps' loads.
template <int Batch, class Scalar, class Cols, class Vals, class XAt>
KOKKOS_FORCEINLINE_FUNCTION Scalar row_dot(offset_t k, const offset_t end, const offset_t stride, const Cols& cols,
                                           const Vals& values, const XAt& x_at, const ordinal_t safe_col) {
  if constexpr (Batch == 0) {
    return spmv::detail::strided_dot<Scalar>(k, end, stride, cols, values, x_at);
  } else {
    Scalar sum = 0;
    for (; k < end; k += Batch * stride) {
      ordinal_t c[Batch];
      Scalar v[Batch];
      PPSPARSE_UNROLL
      for (int u = 0; u < Batch; ++u) {
        const offset_t e = k + u * stride;
        c[u] = e < end ? cols(e) : safe_col;
        v[u] = e < end ? values(e) : Scalar(0);
      }
      PPSPARSE_UNROLL
      for (int u = 0; u < Batch; ++u) sum += v[u] * x_at(c[u]);
    }
    return sum;
  }
}

// Two rows at once (the pipelined kernel's rows in flight): row_dot of rows 0 and 1, Batch
// entries of each at a time, all 2 Batch gathers issued before any product, so that one
// thread has both rows' gathers in flight together instead of one row's after the other's.
// The columns are read first and the values only at their products: the gathered 2 Batch
// values, not the stored ones as well, hold registers while the gathers are in flight (the
// kernel's register bound leaves 64 per thread). Batch 0: two strided_dots.
template <int Batch, class Scalar, class Cols0, class Cols1, class Vals, class XAt>
KOKKOS_FORCEINLINE_FUNCTION void row_dot_pair(offset_t k0, const offset_t end0, offset_t k1, const offset_t end1,
                                              const offset_t stride, const Cols0& cols0, const Cols1& cols1,
                                              const Vals& values, const XAt& x_at, const ordinal_t safe0,
                                              const ordinal_t safe1, Scalar& sum0, Scalar& sum1) {
  if constexpr (Batch == 0) {
    sum0 = spmv::detail::strided_dot<Scalar>(k0, end0, stride, cols0, values, x_at);
    sum1 = spmv::detail::strided_dot<Scalar>(k1, end1, stride, cols1, values, x_at);
  } else {
    sum0 = 0;
    sum1 = 0;
    for (; k0 < end0 || k1 < end1; k0 += Batch * stride, k1 += Batch * stride) {
      Scalar g[2 * Batch];
      PPSPARSE_UNROLL
      for (int u = 0; u < Batch; ++u) {
        const offset_t e0 = k0 + u * stride, e1 = k1 + u * stride;
        g[u] = x_at(e0 < end0 ? cols0(e0) : safe0);
        g[Batch + u] = x_at(e1 < end1 ? cols1(e1) : safe1);
      }
      PPSPARSE_UNROLL
      for (int u = 0; u < Batch; ++u) {
        const offset_t e0 = k0 + u * stride, e1 = k1 + u * stride;
        if (e0 < end0) sum0 += values(e0) * g[u];
        if (e1 < end1) sum1 += values(e1) * g[Batch + u];
      }
    }
  }
}

// A row's stored entries: begin, begin + step, ... < end, where step is the format's
// (Rows::entry_step: 1 for CSR, C for SELL-C).
struct RowSpan {
  offset_t begin;
  offset_t end;
};

template <class T, class MemSpace>
using RandomAccessView = Kokkos::View<const T*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

// Where the pipelined kernel reads a block's stored entries (row_dot's cols and values) once
// they are in team scratch: entry e of the block is at scratch[e - base]. They get there by
// backend::team_copy_start before the first power (row pairs), or by KeepInScratch at it.
template <class T>
struct ScratchEntries {
  T* data;
  offset_t base;
  KOKKOS_FORCEINLINE_FUNCTION T operator()(const offset_t e) const { return data[e - base]; }
};

// The first power of a block with one row per thread: entry e read from memory (source) and
// kept at scratch[e - base] as read. The lane that writes an entry is the one that reads it
// later (a row's thread and lanes are the same at every power), so no barrier orders the two.
template <class Source, class T>
struct KeepInScratch {
  Source source;
  T* data;
  offset_t base;
  KOKKOS_FORCEINLINE_FUNCTION T operator()(const offset_t e) const {
    const T v = source(e);
    data[e - base] = v;
    return v;
  }
};

// y_{k_in} row r of `rows` (CsrRows or SellRows), its stored entries at `s` read through
// `vals` and `index` (entry -> stored value): the row's entries split over the rows' vector
// lanes, each lane taking Batch at a time (row_dot), and reduced over the lanes.
template <class Member, class Rows, class X, class Vals, class Index>
KOKKOS_INLINE_FUNCTION auto span_product(const Member& team, const Rows& rows, const ordinal_t r, const RowSpan s,
                                         const X& y, const int k_in, const Vals& vals, const Index& index) {
  using Scalar = typename Rows::scalar_type;
  const offset_t step = rows.entry_step();
  const auto cols = rows.columns(index, r);
  Scalar sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(team, rows.lanes),
      [&](const int lane, Scalar& part) {
        part += row_dot<Rows::batch, Scalar>(
            s.begin + static_cast<offset_t>(lane) * step, s.end, static_cast<offset_t>(rows.lanes) * step, cols, vals,
            [&](const ordinal_t c) { return y(c, k_in); }, r);
      },
      sum);
  return sum;
}

// Rows r0 and r1 of `rows` at once (row_dot_pair), for launches of one vector lane per row.
template <class Rows, class X, class Vals, class Index, class Scalar>
KOKKOS_INLINE_FUNCTION void pair_product(const Rows& rows, const ordinal_t r0, const RowSpan s0, const ordinal_t r1,
                                         const RowSpan s1, const X& y, const int k_in, const Vals& vals,
                                         const Index& index, Scalar& sum0, Scalar& sum1) {
  row_dot_pair<Rows::batch, Scalar>(
      s0.begin, s0.end, s1.begin, s1.end, rows.entry_step(), rows.columns(index, r0), rows.columns(index, r1), vals,
      [&](const ordinal_t c) { return y(c, k_in); }, r0, r1, sum0, sum1);
}

// Rows of a CSR matrix: the `lanes` vector lanes of a team thread take entries lane,
// lane + lanes, ... of the row, Batch at a time (row_dot; Batch 0 is spmv's strided_dot,
// shared with the SpMV kernels).
template <class Scalar, class MemSpace, int Batch>
struct CsrRows {
  using scalar_type = Scalar;
  static constexpr int batch = Batch;
  RandomAccessView<offset_t, MemSpace> row_ptr;
  RandomAccessView<ordinal_t, MemSpace> col_idx;
  RandomAccessView<Scalar, MemSpace> values;
  int lanes;  // the vector length of the launch

  using StoredIndex = ordinal_t;  // what the matrix stores per entry besides its value
  KOKKOS_INLINE_FUNCTION const auto& stored_values() const { return values; }
  KOKKOS_INLINE_FUNCTION const auto& stored_index() const { return col_idx; }
  // The stored entries of rows [row_begin, row_end): [first, last).
  KOKKOS_INLINE_FUNCTION void entry_range(const ordinal_t row_begin, const ordinal_t row_end, offset_t& first,
                                          offset_t& last) const {
    first = row_ptr(row_begin);
    last = row_ptr(row_end);
  }

  KOKKOS_INLINE_FUNCTION RowSpan span(const ordinal_t r) const { return {row_ptr(r), row_ptr(r + 1)}; }
  KOKKOS_INLINE_FUNCTION offset_t entry_step() const { return 1; }
  // Entry -> column of row r, from the stored index (CSR stores the columns themselves).
  template <class Index>
  KOKKOS_INLINE_FUNCTION const Index& columns(const Index& index, ordinal_t) const {
    return index;
  }

  template <class Member, class X>
  KOKKOS_INLINE_FUNCTION Scalar product(const Member& team, const ordinal_t r, const X& y, const int k_in) const {
    return span_product(team, *this, r, span(r), y, k_in, values, col_idx);
  }
};

// Rows of a SELL-C-1 matrix (sorted position = row): entry j of row r is at
// chunk_ptr[r / C] + j C + r % C, so the C rows of a chunk, each read by W/C lanes, make one
// coalesced access of W consecutive entries per step. Compressed: the column of entry k is
// r + col_offset[k] (2 bytes per entry instead of 4; col_idx is not read).
template <class Scalar, class MemSpace, bool Compressed, int Batch>
struct SellRows {
  using scalar_type = Scalar;
  static constexpr int batch = Batch;
  RandomAccessView<offset_t, MemSpace> chunk_ptr;
  RandomAccessView<ordinal_t, MemSpace> row_len;
  RandomAccessView<ordinal_t, MemSpace> col_idx;
  RandomAccessView<std::int16_t, MemSpace> col_offset;
  RandomAccessView<Scalar, MemSpace> values;
  int C;
  int lanes;  // the vector length of the launch

  using StoredIndex = std::conditional_t<Compressed, std::int16_t, ordinal_t>;
  KOKKOS_INLINE_FUNCTION const auto& stored_values() const { return values; }
  KOKKOS_INLINE_FUNCTION const auto& stored_index() const {
    if constexpr (Compressed)
      return col_offset;
    else
      return col_idx;
  }
  // The stored entries of rows [row_begin, row_end), whole chunks: [first, last).
  KOKKOS_INLINE_FUNCTION void entry_range(const ordinal_t row_begin, const ordinal_t row_end, offset_t& first,
                                          offset_t& last) const {
    first = chunk_ptr(row_begin / C);
    last = chunk_ptr((row_end + C - 1) / C);
  }

  KOKKOS_INLINE_FUNCTION RowSpan span(const ordinal_t r) const {
    const offset_t base = chunk_ptr(r / C) + r % C;
    return {base, base + static_cast<offset_t>(row_len(r)) * C};
  }
  KOKKOS_INLINE_FUNCTION offset_t entry_step() const { return C; }
  // Entry -> column of row r, from the stored index (16-bit offsets from the row, or columns).
  template <class Index>
  KOKKOS_INLINE_FUNCTION auto columns(const Index& index, const ordinal_t r) const {
    return spmv::detail::SellColumns<Compressed, Index, Index>{index, index, r};
  }

  template <class Member, class X>
  KOKKOS_INLINE_FUNCTION Scalar product(const Member& team, const ordinal_t r, const X& y, const int k_in) const {
    return span_product(team, *this, r, span(r), y, k_in, values, stored_index());
  }
};

template <class Member, class Rows, class YIn, class YOut>
KOKKOS_INLINE_FUNCTION void compute_block(const Member& team, const Rows& rows, const Block& b, const YIn& y_in,
                                          const YOut& y_out) {
  const int k = b.power;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b.row_begin, b.row_end), [&](const ordinal_t r) {
    const auto s = rows.product(team, r, y_in, k - 1);
    Kokkos::single(Kokkos::PerThread(team), [&]() { y_out(r, k) = s; });
  });
}

// One launch of the blocked schedule: team i computes block first_block + i.
template <class ExecSpace, class Scalar, class MemSpace, class Rows>
struct LaunchFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Rows rows;
  // Between launches the values are final, so y_{k-1} may use the read-only path.
  Kokkos::View<const Scalar**, Kokkos::LayoutLeft, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>> y_in;
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> y_out;
  Kokkos::View<const Block*, MemSpace> blocks;
  long long first_block;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const Block b = blocks(first_block + team.league_rank());
    compute_block(team, rows, b, y_in, y_out);
  }
};

// Tickets and completion counts of the single-launch kernel. std::uint64_t, not unsigned
// long long: Kokkos 4.6's CUDA atomics (desul) have native atom.add overloads for the
// <cstdint> types only, and an unsigned long long fetch-add falls back to a compare-and-swap
// loop, which under thousands of teams handing out tickets ran the persistent MPK one block
// at a time (155 ms instead of microseconds on an H100).
using Counter = std::uint64_t;

// Register bounds of the single-launch kernel on GPUs (Kokkos::LaunchBounds): at least this
// many teams of kPersistentBoundThreads threads per multiprocessor, for rows loaded in batches
// of `batch` (0: no bound). On an H100 (stencils and bands at 2x and 8x the L2, p = 4, 8), with
// batches of 16 the kernel took 96 registers (5 teams per SM); a bound of 6 teams (80
// registers, no spills) took band27 from 1.15-1.34x to 1.21-1.42x back-to-back and stencil27_x2
// from 1.01x to 1.04-1.05x, while 8 teams (64 registers) spilled and lost. With batches of 8,
// a bound of 8 teams took stencil7 from 0.82-0.96x to 0.85-1.06x and band7 from 1.07-1.20x
// to 1.13-1.27x.
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
        if (backend::handoff_load_relaxed(&done(base + s)) < epoch * segment_blocks(s)) {
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
    backend::handoff_acquire_fence();  // the dependencies' values before our reads
  }

  // Leader only, after a team barrier: our values (all of them, by the barrier) before the count.
  KOKKOS_INLINE_FUNCTION void release(const int power, const ordinal_t segment) const {
    backend::handoff_add_release(&done((power - 1) * static_cast<long long>(nsegments) + segment), Counter(1));
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
// barrier, release) whose latency, not bandwidth, bounds the kernel (docs/perf/mpk_h100.md);
// the pair halves the loads' share of that chain where a thread has two rows.
template <class ExecSpace, class Scalar, class MemSpace, class Rows, int RowsInFlight>
struct PipelinedFunctor {
  static_assert(RowsInFlight == 1 || RowsInFlight == 2, "a team thread computes one row or two at a time");
  // Row pairs copy the block to scratch before its first power; one row per thread reads its
  // entries at the first power and keeps them as read (KeepInScratch), which was 2-5 % faster
  // for 27-entry rows on an H100, whose power-1 loads were already batched 16 deep
  // (docs/perf/mpk_h100.md).
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
    // Tickets, not fixed blocks (team i: i, i + R, ...), which were 1-6 % faster on an H100:
    // a fixed block waits for its team to start, and a team that is not resident (the
    // residency estimate is one team per multiprocessor too high, say) then never starts
    // while the others wait for its blocks. A ticket goes only to a running team.
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
        backend::team_copy_start(team, rows.stored_values().data() + first, last - first, kept_values.data());
        backend::team_copy_start(team, rows.stored_index().data() + first, last - first, kept_index.data());
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, nrows), [&](const ordinal_t i) {
          const RowSpan s = rows.span(b.row_begin + i);
          kept_spans(2 * i) = static_cast<std::int32_t>(s.begin - first);
          kept_spans(2 * i + 1) = static_cast<std::int32_t>(s.end - first);
        });
        backend::team_copy_finish();
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
              ready);  // the broadcast is the team barrier after the leader's acquire: a single() without a
                       // value and a team_barrier() ran 3-7 % slower on an H100 (stencil7, band27 at p = 4, 8)
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

// work(i, 0) = x(new_to_old(i)).
template <class Scalar, class MemSpace>
struct GatherX {
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> work;
  Kokkos::View<const Scalar*, MemSpace> x;
  Kokkos::View<const ordinal_t*, MemSpace> new_to_old;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { work(i, 0) = x(new_to_old(i)); }
};

// y(new_to_old(i), k) = work(i, k) for every column.
template <class Scalar, class MemSpace>
struct ScatterY {
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> y;
  Kokkos::View<const Scalar**, Kokkos::LayoutLeft, MemSpace> work;
  Kokkos::View<const ordinal_t*, MemSpace> new_to_old;
  int columns;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    const ordinal_t o = new_to_old(i);
    for (int k = 0; k < columns; ++k) y(o, k) = work(i, k);
  }
};

}  // namespace ppsparse::mpk::detail
