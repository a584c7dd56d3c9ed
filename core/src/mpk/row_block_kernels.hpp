#pragma once
// Device side of the blocked and persistent matrix power kernels (private to the library).
// A block is rows [row_begin, row_end) of one tile (group, power); a team computes
//   y_power(r) = sum_j a_rj y_{power-1}(j)   for its rows,
// a thread (team rank) per row and the row's entries split over the vector lanes.
#include <type_traits>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/sell.hpp>

namespace ppsparse::mpk::detail {

struct Block {
  ordinal_t row_begin;
  ordinal_t row_end;
  ordinal_t group;
  int power;  // 1..p
};

template <class T, class MemSpace>
using RandomAccessView = Kokkos::View<const T*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

// Rows of a CSR matrix.
template <class Scalar, class MemSpace>
struct CsrRows {
  RandomAccessView<offset_t, MemSpace> row_ptr;
  RandomAccessView<ordinal_t, MemSpace> col_idx;
  RandomAccessView<Scalar, MemSpace> values;

  template <class Member, class X>
  KOKKOS_INLINE_FUNCTION Scalar product(const Member& team, const ordinal_t r, const X& y, const int k_in) const {
    const offset_t begin = row_ptr(r);
    const ordinal_t len = static_cast<ordinal_t>(row_ptr(r + 1) - begin);
    Scalar sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, len),
        [&](const ordinal_t j, Scalar& s) { s += values(begin + j) * y(col_idx(begin + j), k_in); }, sum);
    return sum;
  }
};

// Rows of a SELL-C-1 matrix (sorted position = row): entry j of row r is at
// chunk_ptr[r / C] + j C + r % C, so the C rows of a chunk, each read by W/C lanes, make one
// coalesced access of W consecutive entries per step.
template <class Scalar, class MemSpace>
struct SellRows {
  RandomAccessView<offset_t, MemSpace> chunk_ptr;
  RandomAccessView<ordinal_t, MemSpace> row_len;
  RandomAccessView<ordinal_t, MemSpace> col_idx;
  RandomAccessView<Scalar, MemSpace> values;
  int C;

  template <class Member, class X>
  KOKKOS_INLINE_FUNCTION Scalar product(const Member& team, const ordinal_t r, const X& y, const int k_in) const {
    const offset_t base = chunk_ptr(r / C) + r % C;
    const ordinal_t len = row_len(r);
    const offset_t stride = C;
    Scalar sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, len),
        [&](const ordinal_t j, Scalar& s) {
          const offset_t e = base + j * stride;
          s += values(e) * y(col_idx(e), k_in);
        },
        sum);
    return sum;
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

// The single-launch kernel: see "Persistent kernel" in mpk/matrix_power.hpp.
template <class ExecSpace, class Scalar, class MemSpace, class Rows>
struct PersistentFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using counter_t = unsigned long long;
  Rows rows;
  // y_{k-1} is written by other teams during this launch: on GPUs ordinary (coherent) loads
  // only, never the non-coherent read-only path that RandomAccess selects there. On CPUs
  // caches are coherent and RandomAccess only tells the compiler that y_in and y_out do not
  // overlap (they are different columns), which it needs to keep the row loop tight.
  std::conditional_t<compat::is_gpu_space<ExecSpace>(), Kokkos::View<const Scalar**, Kokkos::LayoutLeft, MemSpace>,
                     Kokkos::View<const Scalar**, Kokkos::LayoutLeft, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>>
      y_in;
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace> y_out;
  Kokkos::View<const Block*, MemSpace> blocks;           // tickets in schedule order
  Kokkos::View<const counter_t*, MemSpace> group_blocks; // blocks of each group (the same at every power)
  Kokkos::View<counter_t*, MemSpace> done;               // (power-1) * G + group: blocks finished, all runs
  Kokkos::View<counter_t*, MemSpace> ticket;             // 1 entry: tickets handed out, all runs
  Kokkos::View<int*, MemSpace> stalled;                  // 1 entry: 0, or 1 + (power-1) * G + group of a stall
  ordinal_t ngroups;
  long long total_blocks;
  counter_t ticket_base;  // (epoch - 1) * (total_blocks + teams)
  counter_t epoch;        // runs so far, this one included
  long long spin_limit;

  // Leader only: waits until tile (h, k_in) has finished epoch * blocks; false on a stall.
  KOKKOS_INLINE_FUNCTION bool wait_for(const ordinal_t h, const int k_in) const {
    counter_t* counter = &done((k_in - 1) * static_cast<long long>(ngroups) + h);
    const counter_t target = epoch * group_blocks(h);
    long long polls = 0;
    while (compat::atomic_load_relaxed(counter) < target) {
      if (++polls > spin_limit) return false;
      if ((polls & 1023) == 0 && compat::atomic_load_relaxed(&stalled(0)) != 0) return false;  // another gave up
    }
    return true;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    while (true) {
      long long t = 0;
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](long long& mine) {
            mine = static_cast<long long>(Kokkos::atomic_fetch_add(&ticket(0), counter_t(1)) - ticket_base);
            if (mine < total_blocks) {
              const Block b = blocks(mine);
              if (b.power > 1) {
                const ordinal_t lo = b.group > 0 ? b.group - 1 : 0;
                const ordinal_t hi = b.group + 1 < ngroups ? b.group + 1 : ngroups - 1;
                for (ordinal_t h = lo; h <= hi; ++h)
                  if (!wait_for(h, b.power - 1))
                    Kokkos::atomic_compare_exchange(&stalled(0), 0,
                                                    1 + (b.power - 1) * static_cast<int>(ngroups) + b.group);
              }
              Kokkos::memory_fence();  // acquire: the dependencies' values before our reads
            }
          },
          t);
      if (t >= total_blocks) return;
      team.team_barrier();
      const Block b = blocks(t);
      compute_block(team, rows, b, y_in, y_out);
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        Kokkos::memory_fence();  // release: our values before the count
        Kokkos::atomic_fetch_add(&done((b.power - 1) * static_cast<long long>(ngroups) + b.group), counter_t(1));
      });
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
