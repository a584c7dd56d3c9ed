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
