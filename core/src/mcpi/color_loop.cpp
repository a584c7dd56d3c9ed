// The MCPI solver's colour loop (color_loop.hpp), compiled once per precision on the default
// execution space.
#include "color_loop.hpp"

#include <cmath>
#include <stdexcept>

#include <Kokkos_Timer.hpp>

#include "precisions.hpp"
#include "vector_kernels.hpp"

namespace ppsparse::mcpi::detail {

template <class E, class OS, class DS, class XS>
ColorLoop<E, OS, DS, XS>::ColorLoop(Arrays& arrays, std::shared_ptr<HaloType> halo)
    : a_(arrays), halo_(std::move(halo)) {
  if (halo_ && (halo_->ncolors() != a_.coloring().ncolors ||
                a_.boundary_end().size() != static_cast<size_t>(a_.coloring().ncolors)))
    throw std::logic_error("mcpi: the halo's colours do not match the plan's");
}

template <class E, class OS, class DS, class XS>
const ResolvedSweep& ColorLoop<E, OS, DS, XS>::resolved(const E& exec, const Variant& v, bool backend_kernels,
                                                        const KernelTuning& tuning) {
  if (!resolved_valid_ || !(asked_variant_ == v) || asked_backend_ != backend_kernels || !(asked_tuning_ == tuning)) {
    resolved_ = a_.sweeper().resolve(exec, v, backend_kernels, tuning);
    asked_variant_ = v;
    asked_backend_ = backend_kernels;
    asked_tuning_ = tuning;
    resolved_valid_ = true;
  }
  return resolved_;
}

/// Runs rows(instance, b, e) over every colour's rows in order. With a halo: the boundary rows
/// on exec, then their exchange, the interior rows meanwhile (on the halo's interior instance
/// when `overlap`), and the ghosts written before the next colour.
template <class E, class OS, class DS, class XS>
template <class Rows>
void ColorLoop<E, OS, DS, XS>::for_each_color(const E& exec, bool overlap, Rows&& rows) {
  const Coloring& coloring = a_.coloring();
  auto& dq = a_.sweeper().dq;
  for (ordinal_t c = 0; c < coloring.ncolors; ++c) {
    const ordinal_t b = coloring.color_offsets[c], e = coloring.color_offsets[c + 1];
    if (!halo_ || !halo_->active(c)) {
      if (b < e) rows(exec, b, e);
      continue;
    }
    const ordinal_t m = a_.boundary_end()[c];
    if (b < m) rows(exec, b, m);
    halo_->start(exec, c, dq);
    if (m < e) rows(overlap ? halo_->interior() : exec, m, e);
    halo_->finish(exec, c, dq);
  }
}

template <class E, class OS, class DS, class XS>
void ColorLoop<E, OS, DS, XS>::sweep(const E& exec, const ResolvedSweep& rs) {
  const auto& s = a_.sweeper();
  for_each_color(exec, rs.may_overlap, [&](const E& on, ordinal_t b, ordinal_t e) { s.run(on, rs, b, e); });
}

template <class E, class OS, class DS, class XS>
bool ColorLoop<E, OS, DS, XS>::run_sweeps(const E& exec, const ResolvedSweep& rs, int count, bool graph) {
  if (count <= 0) return false;
  const RecordedSweeps* r = graph ? recorded_sweeps(exec, rs, count) : nullptr;
  if (!r) {
    for (int k = 0; k < count; ++k) sweep(exec, rs);
    return false;
  }
  ppsparse::backend::replay_graph(exec, r->graph);
  if (halo_) halo_->count_replay(r->exchanges);
  ++graph_stats_.replays;
  return true;
}

/// The recorded graph of `count` sweeps of rs on the current arrays, recorded now if there is
/// none; null where none can be (graph_stats_.why_not says why). Every rank of a distributed
/// solver reaches the same answer: the conditions are the same on each, and a failed recording
/// is agreed.
template <class E, class OS, class DS, class XS>
auto ColorLoop<E, OS, DS, XS>::recorded_sweeps(const E& exec, const ResolvedSweep& rs, int count)
    -> const RecordedSweeps* {
  const std::string why_not = graph_obstacle(exec, rs);
  graph_stats_.why_not = why_not;
  if (!why_not.empty()) return nullptr;
  const std::vector<const void*> arrays = sweep_arrays();
  for (const RecordedSweeps& r : recorded_)
    if (r.count == count && r.variant == rs.variant && r.tuning == rs.tuning && r.arrays == arrays) return &r;

  Kokkos::Timer timer;
  RecordedSweeps r;
  r.count = count;
  r.variant = rs.variant;
  r.tuning = rs.tuning;
  r.arrays = arrays;
  std::string message;
  if (halo_) halo_->begin_recording(exec, a_.sweeper().dq);
  ErrorKind kind = capture_error(
      [&] {
        r.graph = ppsparse::backend::record_graph(exec, [&] {
          for (int k = 0; k < count; ++k) sweep(exec, rs);
        });
      },
      message);
  if (halo_) {
    r.exchanges = halo_->end_recording();
    kind = halo_->agree(kind, message);
  }
  if (kind != ErrorKind::none) {  // from now on colour by colour, with the reason
    graph_failure_ = "recording the sweeps failed: " + message;
    graph_stats_.why_not = graph_failure_;
    return nullptr;
  }
  ++graph_stats_.recordings;
  graph_stats_.record_seconds += timer.seconds();
  if (recorded_.size() >= kMaxRecordedSweeps) recorded_.erase(recorded_.begin());
  recorded_.push_back(std::move(r));
  return &recorded_.back();
}

template <class E, class OS, class DS, class XS>
std::string ColorLoop<E, OS, DS, XS>::graph_obstacle(const E& exec, const ResolvedSweep& rs) const {
  std::string why_not;
  if (!graph_failure_.empty()) {
    why_not = graph_failure_;
  } else if (!ppsparse::backend::can_record_graph(exec, why_not)) {
    // why_not is the backend's
  } else if (!rs.specialised) {
    why_not = "the portable kernels are launched colour by colour";
  } else if (rs.variant.l2_window) {
    why_not = "the L2 window is a setting of the stream, not recorded";
  } else if (a_.sweeper().stage_diagonal) {
    why_not = "stage_diagonal is a benchmark setting of the portable kernels";
  } else if (halo_ && !halo_->recordable()) {
    why_not = "the exchanges pass through the host (" + halo_->transport() + ")";
  }
  return why_not;
}

/// The addresses a recorded sweep reads and writes: a graph recorded on other arrays (a new
/// FP32 staging, another right-hand side) is recorded again.
template <class E, class OS, class DS, class XS>
std::vector<const void*> ColorLoop<E, OS, DS, XS>::sweep_arrays() const {
  const auto& s = a_.sweeper();
  return {s.ia.data(), s.ja.data(),     s.O.data(),   s.o_coded.data(), s.o_scale.data(),
          s.D.data(),  s.d_lu32.data(), s.rhs.data(), s.dq.data(),      s.r_tmp.data()};
}

template <class E, class OS, class DS, class XS>
double ColorLoop<E, OS, DS, XS>::checked_sweep(const E& exec, const ResolvedSweep& rs) {
  const auto& s = a_.sweeper();
  Kokkos::deep_copy(exec, s.residual_sq, 0.0);
  for_each_color(exec, true, [&](const E& on, ordinal_t b, ordinal_t e) { s.run_checked(on, rs, b, e); });
  return read_residual(exec);
}

template <class E, class OS, class DS, class XS>
double ColorLoop<E, OS, DS, XS>::true_residual(const E& exec) const {
  const auto& s = a_.sweeper();
  Kokkos::deep_copy(exec, s.residual_sq, 0.0);
  if (a_.n() > 0) s.residual_only(exec, 0, a_.n(), a_.operator_full());
  return read_residual(exec);
}

template <class E, class OS, class DS, class XS>
double ColorLoop<E, OS, DS, XS>::read_residual(const E& exec) const {
  return std::sqrt(global_sum(impl::sum(exec, a_.sweeper().residual_sq)));
}

template <class E, class OS, class DS, class XS>
void ColorLoop<E, OS, DS, XS>::exchange_all(const E& exec) {
  if (halo_) halo_->exchange_all(exec, a_.sweeper().dq);
}

#define PPSPARSE_MCPI_INSTANTIATE_COLOR_LOOP(unused, OS, DS, XS) template class ColorLoop<DefaultExecSpace, OS, DS, XS>;
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_COLOR_LOOP, _)
#undef PPSPARSE_MCPI_INSTANTIATE_COLOR_LOOP

}  // namespace ppsparse::mcpi::detail
