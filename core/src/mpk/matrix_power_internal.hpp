#pragma once
// What the matrix power kernel's files share (private to core/src/mpk): clocks, small checks,
// the column views of the work array, and MatrixPowerKernel's device state (Impl).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <ppsparse/mpk/matrix_power.hpp>

#include "row_block_kernels.hpp"

#if PPSPARSE_KOKKOS_HAS_GRAPH
#include <Kokkos_Graph.hpp>
#endif

namespace ppsparse::mpk {
namespace detail {

inline double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Seconds as microseconds with one decimal, for automatic_timing().
inline std::string format_us(double seconds) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f", seconds * 1e6);
  return s;
}

template <class ExecSpace>
constexpr bool is_serial_space() {
#if defined(KOKKOS_ENABLE_SERIAL)
  return std::is_same_v<ExecSpace, Kokkos::Serial>;
#else
  return false;
#endif
}

inline bool is_power_of_two(long long v) { return v > 0 && (v & (v - 1)) == 0; }

template <class Scalar, class MemSpace>
Kokkos::View<const Scalar*, MemSpace> column(const Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace>& y, int k) {
  // A LayoutLeft column is contiguous; an unmanaged view of it converts to the SpMV vector type.
  return Kokkos::View<const Scalar*, MemSpace, Kokkos::MemoryUnmanaged>(
      y.data() + static_cast<size_t>(k) * y.stride_1(), y.extent(0));
}
template <class Scalar, class MemSpace>
Kokkos::View<Scalar*, MemSpace> mutable_column(const Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace>& y, int k) {
  return Kokkos::View<Scalar*, MemSpace, Kokkos::MemoryUnmanaged>(y.data() + static_cast<size_t>(k) * y.stride_1(),
                                                                  y.extent(0));
}

// ---- what several variants share ----

template <int Batch, class Matrix, class F>
void with_rows_of_batch(const Matrix& m, const int lanes, F&& f) {
  using Scalar = typename std::decay_t<decltype(m.device_matrix())>::scalar_type;
  using MemSpace = typename std::decay_t<decltype(m.device_matrix())>::memory_space;
  if (m.format() == MpkFormat::sell) {
    const auto& s = *m.sell_matrix();
    if (s.compressed_columns())
      f(detail::SellRows<Scalar, MemSpace, true, Batch>{s.chunk_ptr, s.row_len, s.col_idx, s.col_offset, s.values, s.C,
                                                        lanes});
    else
      f(detail::SellRows<Scalar, MemSpace, false, Batch>{s.chunk_ptr, s.row_len, s.col_idx, s.col_offset, s.values, s.C,
                                                         lanes});
  } else {
    const auto& a = m.device_matrix();
    f(detail::CsrRows<Scalar, MemSpace, Batch>{a.row_ptr, a.col_idx, a.values, lanes});
  }
}

// Calls f(rows) with the device row source of the matrix's format, for launches of `lanes`
// vector lanes, loading `batch` entries of a row at a time (detail::row_dot; 1: strided_dot).
template <class Matrix, class F>
void with_rows(const Matrix& m, const int lanes, const int batch, F&& f) {
  if (batch == 8)
    with_rows_of_batch<8>(m, lanes, f);
  else if (batch == 16)
    with_rows_of_batch<16>(m, lanes, f);
  else
    with_rows_of_batch<0>(m, lanes, f);
}

// Calls f(policy) with the pipelined kernel's launch policy (`teams` teams, `scratch_bytes`
// of team scratch), on GPUs with the register bound for its team size (32, 64 or 128
// threads; plan_pipelined falls back for any other) and rows loaded in batches of Batch.
template <class ExecSpace, int Batch, class F>
void with_pipelined_policy(const ExecSpace& space, const int teams, const int team_size, const int vector_length,
                           const std::size_t scratch_bytes, F&& f) {
  const auto scratch = Kokkos::PerTeam(static_cast<int>(scratch_bytes));
  auto bounded = [&](auto threads) {
    constexpr int T = decltype(threads)::value;
    using Bounds = Kokkos::LaunchBounds<T, detail::pipelined_min_teams_per_sm(Batch, T)>;
    f(Kokkos::TeamPolicy<ExecSpace, Bounds>(space, teams, team_size, vector_length).set_scratch_size(0, scratch));
  };
  const int threads = team_size * vector_length;
  if (!compat::is_gpu_space<ExecSpace>())
    f(Kokkos::TeamPolicy<ExecSpace>(space, teams, team_size, vector_length).set_scratch_size(0, scratch));
  else if (threads == 32)
    bounded(std::integral_constant<int, 32>());
  else if (threads == 64)
    bounded(std::integral_constant<int, 64>());
  else
    bounded(std::integral_constant<int, 128>());
}

// Calls f(functor) with a default-constructed pipelined functor for `rows` and rows_in_flight
// (1 or 2) rows computed at once per team thread.
template <class ExecSpace, class Scalar, class MemSpace, class Rows, class F>
void with_pipelined_functor(const Rows&, const int rows_in_flight, F&& f) {
  if (rows_in_flight == 2)
    f(detail::PipelinedFunctor<ExecSpace, Scalar, MemSpace, Rows, 2>());
  else
    f(detail::PipelinedFunctor<ExecSpace, Scalar, MemSpace, Rows, 1>());
}

// run_<id> of each variant for MatrixPowerKernel's instantiations; written once in the variant's file.
#define PPSPARSE_MPK_INSTANTIATE_VARIANT(id)                         \
  template void run_##id<DefaultExecSpace, float, DefaultMemSpace>(  \
      MatrixPowerKernel<DefaultExecSpace, float, DefaultMemSpace>&); \
  template void run_##id<DefaultExecSpace, double, DefaultMemSpace>( \
      MatrixPowerKernel<DefaultExecSpace, double, DefaultMemSpace>&);

}  // namespace detail

template <class ExecSpace, class Scalar, class MemSpace>
struct MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::Impl {
  Kokkos::View<detail::Block*, MemSpace> blocks;      // schedule order (blocked, graph, persistent)
  Kokkos::View<detail::Block*, MemSpace> row_blocks;  // row order (pipelined)
  Kokkos::View<detail::Counter*, MemSpace> segment_blocks;
  Kokkos::View<detail::Counter*, MemSpace> done;
  Kokkos::View<detail::Counter*, MemSpace> ticket;
  Kokkos::View<long long*, MemSpace> stalled;
  detail::Counter tickets_issued = 0;  // by all single-launch runs so far
  MpkVariant last_single_launch = MpkVariant::persistent;

  template <class Functor>
  void set_handoff(Functor& f, const ordinal_t nsegments, const detail::Counter epoch,
                   const long long spin_limit) const {
    f.handoff.segment_blocks = segment_blocks;
    f.handoff.done = done;
    f.handoff.ticket = ticket;
    f.handoff.stalled = stalled;
    f.handoff.nsegments = nsegments;
    f.handoff.ticket_base = tickets_issued;
    f.handoff.epoch = epoch;
    f.handoff.spin_limit = spin_limit;
  }
#if PPSPARSE_KOKKOS_HAS_GRAPH
  std::optional<Kokkos::Experimental::Graph<ExecSpace>> graph;
#endif
};

}  // namespace ppsparse::mpk
