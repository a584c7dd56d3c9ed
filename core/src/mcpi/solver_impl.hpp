#pragma once
/// @file
/// The MCPI solver's implementation behind the facade of mcpi/solver.hpp: setup of the device
/// arrays from a plan, the numeric phase, apply with its checks and stopping criteria, the
/// operator, and the colour loop with its halo. The sweeps themselves are the Sweeper's.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <ppsparse/backend/device_graph.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/backend.hpp>
#include <ppsparse/mcpi/control.hpp>
#include <ppsparse/mcpi/detail/user_array.hpp>
#include <ppsparse/mcpi/halo.hpp>
#include <ppsparse/mcpi/setup.hpp>
#include <ppsparse/reorder/permutation.hpp>

#include "block_lu.hpp"
#include "o_encode.hpp"
#include "sweeper.hpp"
#include "vector_kernels.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
class SolverImpl {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using Vector = Kokkos::View<double*, memory_space>;
  using ConstVector = Kokkos::View<const double*, memory_space>;
  using Progress = std::function<void(const std::string&)>;
  using HaloType = Halo<ExecSpace, XScalar>;

  SolverImpl(SetupPlan&& plan, std::shared_ptr<HaloType> halo, const Progress& progress) : halo_(std::move(halo)) {
    if (halo_ && (halo_->ncolors() != plan.coloring.ncolors ||
                  plan.boundary_end.size() != static_cast<size_t>(plan.coloring.ncolors)))
      throw std::logic_error("mcpi: the halo's colours do not match the plan's");
    init(std::move(plan), progress);
  }

  int nb() const { return s_.nb; }
  OStorage o_storage() const { return o_storage_; }
  size_t device_bytes() const {
    auto bytes = [](const auto& v) { return v.span() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
    return bytes(s_.ia) + bytes(s_.ja) + bytes(s_.O) + bytes(s_.O16) + bytes(s_.O8) + bytes(s_.o_scale) + bytes(s_.D) +
           bytes(s_.dq) + bytes(s_.r_tmp) + bytes(s_.residual_sq) + bytes(r_) + bytes(new_to_old_) +
           bytes(old_to_new_) + bytes(o_slot_) + bytes(slot_to_user_) + bytes(work_) + bytes(first_bad_block_);
  }
  ordinal_t n() const { return n_; }
  offset_t nnzb() const { return nnzb_; }
  ordinal_t n_ghost() const { return n_ghost_; }
  const Coloring& coloring() const { return coloring_; }
  HaloType* halo() const { return halo_.get(); }

  // ---- numeric phase ----

  void update(const ExecSpace& exec, const UserArray& O, const UserArray& D, BlockOrder order) {
    collectively([&] { load_values(exec, O, D, order, true); });
  }

  /// O, D (factored unless `factor` is false) and R of a host system.
  void load_system(const ExecSpace& exec, const UserArray& O, const UserArray& D, bool factor, const UserArray& R) {
    load_values(exec, O, D, BlockOrder::column_major, factor);
    to_internal(exec, ConstVector(device_vector(exec, R, vec_in_)), r_);
    exec.fence();
  }

  void storage(Kokkos::View<OScalar*, memory_space>& O, Kokkos::View<DScalar*, memory_space>& D,
               Kokkos::View<const offset_t*, memory_space>& o_slot,
               Kokkos::View<const ordinal_t*, memory_space>& d_slot) {
    has_values_ = false;
    if (reduced() && s_.O.extent(0) == 0)  // the FP32 staging of an assembly in place
      s_.O = Kokkos::View<OScalar*, memory_space>("mcpi.O_fp32_staging", static_cast<size_t>(nnzb_) * s_.nb * s_.nb);
    O = s_.O;
    D = s_.D;
    o_slot = o_slot_;
    d_slot = old_to_new_;
  }

  void factor(const ExecSpace& exec) {
    collectively([&] {
      has_values_ = false;
      if (reduced() && s_.O.extent(0) > 0) encode_fp32_copy(exec);  // O written in place: convert it
      check_factored(factor_diagonal_blocks(exec, s_.D, s_.nb, n_));
      has_values_ = true;
    });
  }

  // ---- solve ----

  Status apply(const ExecSpace& exec, const UserArray& R, const UserArray& dQ, const Control& control) {
    const bool given = control.initial_guess == InitialGuess::given;
    Vector x;
    collectively([&] {
      check_control(control);
      require_values("apply");
      check_vector_size("apply: R", R.size);
      check_vector_size("apply: dQ", dQ.size);
      const auto r = device_vector(exec, R, vec_in_);
      to_internal(exec, ConstVector(r), r_);
      s_.rhs = r_;
      x = device_vector(exec, dQ, vec_out_, given);
      Kokkos::deep_copy(exec, s_.dq, XScalar(0));
      if (given) impl::to_internal(exec, new_to_old_, s_.nb, ConstVector(x), dq_owned());
    });
    if (given && halo_) halo_->exchange_all(exec, s_.dq);

    const ResolvedSweep& rs = resolved(exec, control.variant, true, KernelTuning{});
    Status st;
    st.kernel = rs.name;
    const bool tolerance = control.rtol > 0 || control.atol > 0;
    const bool sync = control.final_residual || tolerance || control.check_interval > 0;
    double tol = 0.0;
    st.initial_residual = st.final_residual = std::numeric_limits<double>::quiet_NaN();
    if (sync) {
      const double rn = norm(exec, ConstVector(r_));
      if (!std::isfinite(rn)) throw_not_finite(exec, ConstVector(r_), "R");
      st.initial_residual = rn;
      if (given) {
        st.initial_residual = true_residual(exec);
        if (!std::isfinite(st.initial_residual)) throw_not_finite(exec, dq_owned(), "the initial dQ");
      }
      tol = std::max(control.atol, control.rtol * st.initial_residual);
    }
    backend::L2Window window;
    if (rs.variant.l2_window && rs.specialised) window = keep_iterate_in_l2(exec);
    bool have_final = false;
    int s = 0;
    while (s < control.max_sweeps) {
      const int ci = control.check_interval;
      const bool check = ci > 0 && (s + 1) % ci == 0;
      have_final = false;  // a sweep changes dQ
      if (!check) {        // the sweeps up to the next check, or to the end
        const int run = ci > 0 ? std::min(control.max_sweeps, (s / ci + 1) * ci - 1) - s : control.max_sweeps - s;
        run_sweeps(exec, rs, run, control.sweep_graphs);
        s += run;
        continue;
      }
      const double est = checked_sweep(exec, rs);
      st.history.push_back({s, est});  // the iterate after s sweeps, as sweep s + 1 met it
      ++s;
      if (!std::isfinite(est)) {
        st.reason = StopReason::not_finite;
        break;
      }
      if (tolerance && est <= tol) {
        st.final_residual = true_residual(exec);
        have_final = true;
        if (st.final_residual <= tol) {
          st.reason = StopReason::converged;
          break;
        }
      }
      if (est > control.divergence_factor * st.initial_residual) {
        st.reason = StopReason::diverged;
        break;
      }
    }
    if (window.active) backend::l2_window_end(exec, window);
    st.sweeps = s;
    if (control.final_residual && !have_final) {
      st.final_residual = true_residual(exec);
      have_final = true;
    }
    if (have_final && !std::isfinite(st.final_residual)) {
      st.reason = StopReason::not_finite;
    } else if (have_final && tolerance && st.reason == StopReason::max_sweeps && st.final_residual <= tol) {
      st.reason = StopReason::converged;
    }
    impl::to_user(exec, new_to_old_, s_.nb, dq_owned(), x);
    write_back(exec, x, dQ);
    return st;
  }

  void multiply(const ExecSpace& exec, const UserArray& x, const UserArray& y) {
    require_single_rank("multiply");
    require_values("multiply");
    check_vector_size("multiply: x", x.size);
    check_vector_size("multiply: y", y.size);
    const auto xd = device_vector(exec, x, vec_in_);
    const auto yd = device_vector(exec, y, vec_out_, false);
    operator_apply(exec, ConstVector(xd), yd, true);
    write_back(exec, yd, y);
  }

  void to_internal(const ExecSpace& exec, const ConstVector& x, const Vector& xi) const {
    impl::to_internal(exec, new_to_old_, s_.nb, x, xi);
  }
  void to_user(const ExecSpace& exec, const ConstVector& xi, const Vector& x) const {
    impl::to_user(exec, new_to_old_, s_.nb, xi, x);
  }
  void multiply_internal(const ExecSpace& exec, const ConstVector& x, const Vector& y) const {
    require_single_rank("multiply_internal");
    operator_apply(exec, x, y, false);
  }
  void precondition(const ExecSpace& exec, const ConstVector& v, const Vector& z, int sweeps, const Variant& variant) {
    require_values("precondition");
    s_.rhs = Vector(const_cast<double*>(v.data()), v.extent(0));
    Kokkos::deep_copy(exec, s_.dq, XScalar(0));
    const ResolvedSweep& rs = resolved(exec, variant, true, KernelTuning{});
    for (int s = 0; s < sweeps; ++s) sweep(exec, rs);
    impl::convert(exec, dq_owned(), z);
    s_.rhs = r_;
  }
  double norm(const ExecSpace& exec, const ConstVector& x) const {
    return std::sqrt(global_sum(impl::sum_squares(exec, x)));
  }

  /// v resolved here, cached for the last (variant, backend_kernels, tuning) asked.
  const ResolvedSweep& resolved(const ExecSpace& exec, const Variant& v, bool backend_kernels,
                                const KernelTuning& tuning) {
    if (!resolved_valid_ || !(asked_variant_ == v) || asked_backend_ != backend_kernels || !(asked_tuning_ == tuning)) {
      resolved_ = s_.resolve(exec, v, backend_kernels, tuning);
      asked_variant_ = v;
      asked_backend_ = backend_kernels;
      asked_tuning_ = tuning;
      resolved_valid_ = true;
    }
    return resolved_;
  }
  ResolvedSweep resolve(const ExecSpace& exec, const Variant& v, bool backend_kernels) const {
    return s_.resolve(exec, v, backend_kernels, KernelTuning{});
  }

  // ---- sweep by sweep ----

  void reset() {
    s_.rhs = r_;
    Kokkos::deep_copy(s_.dq, XScalar(0));
  }
  void sweep(const ExecSpace& exec, const Variant& variant, bool stage_diagonal, bool backend_kernels,
             const KernelTuning& tuning) {
    require_values("sweep");
    s_.stage_diagonal = stage_diagonal;
    sweep(exec, resolved(exec, variant, backend_kernels, tuning));
    s_.stage_diagonal = false;
  }
  double residual_norm() { return true_residual(ExecSpace()); }
  std::vector<double> dq_user() const {
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), dq_owned());
    std::vector<double> x(h.extent(0));
    for (size_t i = 0; i < x.size(); ++i) x[i] = h(i);
    return to_old(x, coloring_.perm, s_.nb);
  }
  bool sweep_graph(const ExecSpace& exec, int count, const Variant& variant, const KernelTuning& tuning) {
    require_values("sweep_graph");
    if (count < 0) throw InvalidArgument("mcpi sweep_graph: count must be >= 0, got " + std::to_string(count));
    check_tuning(tuning);
    return run_sweeps(exec, resolved(exec, variant, true, tuning), count, true);
  }
  GraphStats graph_stats() const { return graph_stats_; }

  backend::L2Window keep_iterate_in_l2(const ExecSpace& exec) {
    return backend::l2_window_begin(exec, s_.dq.data(), s_.dq.span() * sizeof(XScalar));
  }

 private:
  void init(SetupPlan&& plan, const Progress& progress) {
    s_.nb = plan.nb;
    const int nb = plan.nb;
    n_ = plan.n;
    n_ghost_ = plan.n_ghost;
    base_ = plan.index_base;
    nnzb_ = static_cast<offset_t>(plan.ja.size());
    coloring_ = std::move(plan.coloring);
    boundary_end_ = std::move(plan.boundary_end);
    if (progress)
      progress("allocating " + std::to_string(n_) + " block rows in " + std::to_string(coloring_.ncolors) +
               " colours on " + std::string(ExecSpace::name()));
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    s_.ia = Kokkos::View<offset_t*, memory_space>("mcpi.ia", static_cast<size_t>(n_) + 1);
    s_.ja = Kokkos::View<ordinal_t*, memory_space>("mcpi.ja", static_cast<size_t>(nnzb_));
    allocate_o(plan, nb2);
    s_.D = Kokkos::View<DScalar*, memory_space>("mcpi.D", static_cast<size_t>(n_) * nb2);
    r_ = Vector("mcpi.R", static_cast<size_t>(n_) * nb);
    o_slot_ = Kokkos::View<offset_t*, memory_space>("mcpi.o_slot", static_cast<size_t>(nnzb_));
    new_to_old_ = Kokkos::View<ordinal_t*, memory_space>("mcpi.new_to_old", static_cast<size_t>(n_));
    old_to_new_ = Kokkos::View<ordinal_t*, memory_space>("mcpi.old_to_new", static_cast<size_t>(n_));
    copy_in(s_.ia, plan.ia);
    copy_in(s_.ja, plan.ja);
    copy_in(o_slot_, plan.o_slot);
    if (reduced()) {
      std::vector<offset_t> slot_to_user(plan.o_slot.size());
      for (size_t k = 0; k < plan.o_slot.size(); ++k)
        slot_to_user[static_cast<size_t>(plan.o_slot[k])] = static_cast<offset_t>(k);
      slot_to_user_ = Kokkos::View<offset_t*, memory_space>("mcpi.slot_to_user", slot_to_user.size());
      copy_in(slot_to_user_, slot_to_user);
    }
    copy_in(new_to_old_, coloring_.perm.new_to_old);
    copy_in(old_to_new_, coloring_.perm.old_to_new);
    ia_host_ = std::move(plan.ia);
    s_.rhs = r_;
    s_.dq = Kokkos::View<XScalar*, memory_space>("mcpi.dq", (static_cast<size_t>(n_) + n_ghost_) * nb);
    work_ = Vector("mcpi.work", static_cast<size_t>(n_) * nb);
    s_.residual_sq = Vector("mcpi.residual_sq", kResidualSlots);
    first_bad_block_ = Kokkos::View<long long, memory_space>("mcpi.first_bad_block");
    ordinal_t max_color_rows = 0;
    for (ordinal_t c = 0; c < coloring_.ncolors; ++c)
      max_color_rows = std::max(max_color_rows, coloring_.color_offsets[c + 1] - coloring_.color_offsets[c]);
    s_.r_tmp = Vector("mcpi.r_tmp", static_cast<size_t>(max_color_rows) * nb);
    // Poisoned, so that an entry the split kernel reads before writing shows up as NaN.
    Kokkos::deep_copy(s_.r_tmp, std::numeric_limits<double>::quiet_NaN());
  }

  bool reduced() const { return o_storage_.format != OFormat::fp32; }
  /// The operator and the true residuals read the FP32 O: fp32, or a reduced format's kept copy.
  bool operator_full() const { return !reduced() || o_storage_.keep_fp32; }

  /// O's storage in the plan's format (mcpi/o_format.hpp).
  void allocate_o(const SetupPlan& plan, size_t nb2) {
    o_storage_ = plan.o_storage;
    s_.o_format = o_storage_.format;
    const size_t entries = static_cast<size_t>(nnzb_) * nb2;
    if (reduced() && !Sweeper<ExecSpace, OScalar, DScalar, XScalar>::default_precision)
      throw InvalidArgument(std::string("mcpi setup: O in ") + name(o_storage_.format) +
                            " needs the default precisions (FP32 O and dQ, FP64 D)");
    if (operator_full()) s_.O = Kokkos::View<OScalar*, memory_space>("mcpi.O", entries);
    // Padded by 16 bytes: the CUDA kernels read a column as the aligned words covering it.
    switch (o_storage_.format) {
      case OFormat::bf16:
        s_.O16 = Kokkos::View<std::uint16_t*, memory_space>("mcpi.O_bf16", entries + 8);
        break;
      case OFormat::fp16:
        s_.O16 = Kokkos::View<std::uint16_t*, memory_space>("mcpi.O_fp16", entries + 8);
        s_.o_scale = Kokkos::View<std::int8_t*, memory_space>("mcpi.O_scale", static_cast<size_t>(plan.n) + 16);
        break;
      case OFormat::int8:
        s_.O8 = Kokkos::View<std::int8_t*, memory_space>("mcpi.O_int8", entries + 16);
        s_.o_scale =
            Kokkos::View<std::int8_t*, memory_space>("mcpi.O_scale", static_cast<size_t>(nnzb_) * plan.nb + 16);
        break;
      case OFormat::fp32:
        break;
    }
  }

  /// Converts O from `source` (o_encode.hpp) into the reduced format, the first slot holding a
  /// NaN or Inf into first_bad_block_ (set by the caller).
  template <class Source>
  void encode_o(const ExecSpace& exec, const Source& source) {
    impl::encode_o(exec, o_storage_.format, source, s_.ia, n_, s_.nb, s_.O16, s_.O8, s_.o_scale, first_bad_block_);
  }

  /// Converts the FP32 O (the kept copy or the staging of an assembly in place) into the
  /// reduced format; NumericalError naming the user's block of a NaN or Inf (synchronises).
  void encode_fp32_copy(const ExecSpace& exec) {
    Kokkos::deep_copy(exec, first_bad_block_, LLONG_MAX);
    encode_o(exec, impl::SlotValues<decltype(s_.O)>{s_.O, s_.nb * s_.nb});
    check_encoded(exec);
  }

  /// first_bad_block_ on the host (LLONG_MAX: none); synchronises.
  long long first_bad(const ExecSpace& exec) const {
    long long bad = LLONG_MAX;
    Kokkos::deep_copy(exec, Kokkos::View<long long, HostSpace>(&bad), first_bad_block_);
    exec.fence();
    return bad;
  }

  /// After encode_o: NumericalError naming the user's block of the first bad slot (synchronises).
  void check_encoded(const ExecSpace& exec) const {
    const long long bad = first_bad(exec);
    if (bad == LLONG_MAX) return;
    offset_t k = 0;
    Kokkos::deep_copy(Kokkos::View<offset_t, HostSpace>(&k), Kokkos::subview(slot_to_user_, static_cast<size_t>(bad)));
    throw_not_finite_block(k, o_storage_.format != OFormat::fp32);
  }

  template <class T>
  static void copy_in(const Kokkos::View<T*, memory_space>& dst, const std::vector<T>& src) {
    Kokkos::deep_copy(dst, Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(src.data(), src.size()));
  }

  /// The owned rows of dQ (the ghosts follow them).
  Kokkos::View<XScalar*, memory_space> dq_owned() const {
    return Kokkos::subview(s_.dq, std::make_pair(size_t(0), static_cast<size_t>(n_) * s_.nb));
  }

  /// One sweep over all colours (asynchronous on exec).
  void sweep(const ExecSpace& exec, const ResolvedSweep& rs) {
    for_each_color(exec, rs.may_overlap, [&](const ExecSpace& on, ordinal_t b, ordinal_t e) { s_.run(on, rs, b, e); });
  }

  /// A recorded graph of `count` sweeps of a variant on the arrays it was recorded on.
  struct RecordedSweeps {
    ppsparse::backend::DeviceGraph graph;
    int count = 0;
    Variant variant;
    KernelTuning tuning;
    std::vector<const void*> arrays;
    HaloStats exchanges;  ///< what one replay exchanges
  };

  /// `count` sweeps (asynchronous on exec): with `graph`, one replay of their recorded graph,
  /// recorded first where none matches (the same count, kernel and arrays); else, or where no
  /// graph can be recorded, the colours one by one. Returns whether a graph ran.
  bool run_sweeps(const ExecSpace& exec, const ResolvedSweep& rs, int count, bool graph) {
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
  /// solver reaches the same answer: the conditions are the same on each, and a failed
  /// recording is agreed.
  const RecordedSweeps* recorded_sweeps(const ExecSpace& exec, const ResolvedSweep& rs, int count) {
    std::string why_not;
    if (!graph_failure_.empty()) {
      why_not = graph_failure_;
    } else if (!ppsparse::backend::can_record_graph(exec, why_not)) {
      // why_not is the backend's
    } else if (!rs.specialised) {
      why_not = "the portable kernels are launched colour by colour";
    } else if (rs.variant.l2_window) {
      why_not = "the L2 window is a setting of the stream, not recorded";
    } else if (s_.stage_diagonal) {
      why_not = "stage_diagonal is a benchmark setting of the portable kernels";
    } else if (halo_ && !halo_->recordable()) {
      why_not = "the exchanges pass through the host (" + halo_->transport() + ")";
    }
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
    if (halo_) halo_->begin_recording(exec, s_.dq);
    ErrorKind kind = capture_error(
        [&] {
          ppsparse::backend::begin_graph(exec);
          try {
            for (int k = 0; k < count; ++k) sweep(exec, rs);
          } catch (...) {
            try {
              ppsparse::backend::end_graph(exec);  // ends the recording; its error is the sweep's
            } catch (...) {
            }
            throw;
          }
          r.graph = ppsparse::backend::end_graph(exec);
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

  /// The addresses a recorded sweep reads and writes: a graph recorded on other arrays (a new
  /// FP32 staging, another right-hand side) is recorded again.
  std::vector<const void*> sweep_arrays() const {
    return {s_.ia.data(),      s_.ja.data(), s_.O.data(),   s_.O16.data(), s_.O8.data(),
            s_.o_scale.data(), s_.D.data(),  s_.rhs.data(), s_.dq.data(),  s_.r_tmp.data()};
  }

  /// One sweep that also forms the residual: each colour's ||R_c - A_c dQ||^2 just before its
  /// update, summed over colours. Returns its square root (the device is synchronised).
  double checked_sweep(const ExecSpace& exec, const ResolvedSweep& rs) {
    Kokkos::deep_copy(exec, s_.residual_sq, 0.0);
    for_each_color(exec, true, [&](const ExecSpace& on, ordinal_t b, ordinal_t e) { s_.run_checked(on, rs, b, e); });
    return read_residual(exec);
  }

  /// The true ||rhs - A dQ||_2 of the current dQ in FP64 (dQ unchanged), on exec; synchronises.
  double true_residual(const ExecSpace& exec) const {
    Kokkos::deep_copy(exec, s_.residual_sq, 0.0);
    if (n_ > 0) s_.residual_only(exec, 0, n_, operator_full());
    return read_residual(exec);
  }

  double read_residual(const ExecSpace& exec) const { return std::sqrt(global_sum(impl::sum(exec, s_.residual_sq))); }

  /// Runs rows(instance, b, e) over every colour's rows in order. With a halo: the boundary
  /// rows on exec, then their exchange, the interior rows meanwhile (on the halo's interior
  /// instance when `overlap`), and the ghosts written before the next colour.
  template <class Rows>
  void for_each_color(const ExecSpace& exec, bool overlap, Rows&& rows) {
    for (ordinal_t c = 0; c < coloring_.ncolors; ++c) {
      const ordinal_t b = coloring_.color_offsets[c], e = coloring_.color_offsets[c + 1];
      if (!halo_ || !halo_->active(c)) {
        if (b < e) rows(exec, b, e);
        continue;
      }
      const ordinal_t m = boundary_end_[c];
      if (b < m) rows(exec, b, m);
      halo_->start(exec, c, s_.dq);
      if (m < e) rows(overlap ? halo_->interior() : exec, m, e);
      halo_->finish(exec, c, s_.dq);
    }
  }

  double global_sum(double local) const { return halo_ ? halo_->sum(local) : local; }

  /// Runs `local` (which may throw ppsparse errors); on a distributed solver every rank then
  /// throws the first failing rank's error, so that no rank is left waiting in a collective.
  template <class F>
  void collectively(F&& local) const {
    if (!halo_) {
      local();
      return;
    }
    std::string message;
    const ErrorKind agreed = halo_->agree(capture_error(local, message), message);
    if (agreed != ErrorKind::none) throw_error(agreed, message);
  }

 public:
  void require_values(const char* what) const {
    if (!has_values_)
      throw InvalidArgument(std::string("mcpi ") + what +
                            ": the solver holds no factored values (call update(), or factor() after writing into "
                            "storage())");
  }

 private:
  void require_single_rank(const char* what) const {
    if (halo_)
      throw InvalidArgument(std::string("mcpi ") + what +
                            ": not available on a distributed solver (apply, precondition and solve are)");
  }

  void check_vector_size(const char* what, size_t size) const {
    const size_t want = static_cast<size_t>(n_) * s_.nb;
    if (size != want)
      throw InvalidArgument(std::string("mcpi ") + what + " has " + std::to_string(size) +
                            " entries, expected n * nb = " + std::to_string(want));
  }

  /// NumericalError naming the user's block row for a failure code of factor_diagonal_blocks.
  void check_factored(long long failure) const {
    if (failure >= 0) throw_pivot_failure(failure, s_.nb, coloring_.perm.new_to_old[failed_block(failure)], base_);
  }

  template <class T>
  using DeviceInput = Kokkos::View<const T*, memory_space, Kokkos::MemoryUnmanaged>;

  /// A device view of the user's input: itself when exec can read it, otherwise a copy in the
  /// device staging buffer at byte_offset (reserved by the caller).
  template <class T>
  DeviceInput<T> device_input(const ExecSpace& exec, const UserArray& a, size_t byte_offset) {
    if (a.exec_accessible) return DeviceInput<T>(static_cast<const T*>(a.data), a.size);
    const size_t need = byte_offset + a.size * sizeof(T);
    if (stage_.extent(0) < need) throw std::logic_error("mcpi: staging buffer not reserved");
    Kokkos::View<T*, memory_space, Kokkos::MemoryUnmanaged> dst(reinterpret_cast<T*>(stage_.data() + byte_offset),
                                                                a.size);
    Kokkos::deep_copy(
        exec, dst, Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<const T*>(a.data), a.size));
    return DeviceInput<T>(dst.data(), dst.extent(0));
  }

  /// Grows the staging buffer of host inputs to `bytes` (first update() with host views).
  void reserve_stage(size_t bytes) {
    if (stage_.extent(0) < bytes)
      stage_ = Kokkos::View<unsigned char*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mcpi.stage"),
                                                          bytes);
  }

  /// A device vector for a user vector: itself when exec can reach it, otherwise `stage`
  /// (allocated on first use), filled from v when `fill`.
  Vector device_vector(const ExecSpace& exec, const UserArray& v, Vector& stage, bool fill = true) {
    if (v.exec_accessible) return Vector(static_cast<double*>(v.data), v.size);
    if (stage.extent(0) != v.size)
      stage = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mcpi.vector_stage"), v.size);
    if (fill)
      Kokkos::deep_copy(
          exec, stage,
          Kokkos::View<const double*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<const double*>(v.data), v.size));
    return stage;
  }

  /// Copies a staged result back to the user's host vector (and fences).
  void write_back(const ExecSpace& exec, const Vector& result, const UserArray& user) const {
    if (result.data() == user.data) return;
    Kokkos::deep_copy(
        exec, Kokkos::View<double*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<double*>(user.data), user.size),
        result);
    exec.fence();
  }

  /// The user's O and D on exec: O's blocks scattered into their slots, and D factored as it is
  /// read (`factor`) or copied as given (already factored). Synchronises; NumericalError naming
  /// the user's block for a NaN or Inf in O (checked first) or a failed pivot.
  void load_values(const ExecSpace& exec, const UserArray& O, const UserArray& D, BlockOrder order, bool factor) {
    has_values_ = false;
    const size_t nb2 = static_cast<size_t>(s_.nb) * s_.nb;
    if (O.size != static_cast<size_t>(nnzb_) * nb2)
      throw InvalidArgument("mcpi update: O has " + std::to_string(O.size) +
                            " values, expected nnzb * nb * nb = " + std::to_string(static_cast<size_t>(nnzb_) * nb2));
    if (D.size != static_cast<size_t>(n_) * nb2)
      throw InvalidArgument("mcpi update: D has " + std::to_string(D.size) +
                            " values, expected n * nb * nb = " + std::to_string(static_cast<size_t>(n_) * nb2));
    // Host inputs share one staging buffer, sized for both before either is staged.
    const size_t o_bytes = (O.size * (O.is_double ? sizeof(double) : sizeof(float)) + 63) / 64 * 64;
    if (!O.exec_accessible || !D.exec_accessible)
      reserve_stage(o_bytes + D.size * (D.is_double ? sizeof(double) : sizeof(float)));
    if (O.is_double)
      load_typed<double>(exec, O, D, order, factor, o_bytes);
    else
      load_typed<float>(exec, O, D, order, factor, o_bytes);
  }

  template <class OT>
  void load_typed(const ExecSpace& exec, const UserArray& O, const UserArray& D, BlockOrder order, bool factor,
                  size_t o_bytes) {
    if (D.is_double)
      load_typed<OT, double>(exec, O, D, order, factor, o_bytes);
    else
      load_typed<OT, float>(exec, O, D, order, factor, o_bytes);
  }

  template <class OT, class DT>
  void load_typed(const ExecSpace& exec, const UserArray& O, const UserArray& D, BlockOrder order, bool factor,
                  size_t o_bytes) {
    const auto o = device_input<OT>(exec, O, 0);
    const auto d = device_input<DT>(exec, D, o_bytes);
    const bool row_major = order == BlockOrder::row_major;
    Kokkos::deep_copy(exec, first_bad_block_, LLONG_MAX);
    if (!reduced() || o_storage_.keep_fp32) impl::scatter_o(exec, o, o_slot_, s_.nb, row_major, s_.O, first_bad_block_);
    const bool encode_user = reduced() && !o_storage_.keep_fp32;
    if (encode_user)
      encode_o(exec, impl::UserValues<decltype(o), decltype(slot_to_user_)>{o, slot_to_user_, s_.nb, row_major});
    const impl::UserDiagonalBlocks<decltype(d), decltype(new_to_old_)> source{d, new_to_old_, s_.nb, row_major};
    long long failure = -1;
    if (factor)
      failure = factor_diagonal_blocks_from(exec, source, s_.D, s_.nb, n_);
    else
      impl::copy_diagonal_blocks(exec, source, s_.nb, s_.D);
    if (encode_user) {
      check_encoded(exec);
    } else {
      const long long bad = first_bad(exec);
      if (bad != LLONG_MAX) throw_not_finite_block(bad);
      if (reduced()) encode_fp32_copy(exec);  // from the FP32 copy just written
    }
    check_factored(failure);
    has_values_ = true;
  }

  /// NumericalError naming user block k of O (its user row and column); `rounded`: the value
  /// is finite but does not fit the reduced format.
  [[noreturn]] void throw_not_finite_block(long long k, bool rounded = false) const {
    offset_t slot = 0;
    Kokkos::deep_copy(Kokkos::View<offset_t, HostSpace>(&slot), Kokkos::subview(o_slot_, static_cast<size_t>(k)));
    const auto row = std::upper_bound(ia_host_.begin(), ia_host_.end(), slot) - ia_host_.begin() - 1;
    ordinal_t col = 0;
    Kokkos::deep_copy(Kokkos::View<ordinal_t, HostSpace>(&col), Kokkos::subview(s_.ja, static_cast<size_t>(slot)));
    const std::string column =
        col < n_ ? std::to_string(coloring_.perm.new_to_old[col] + base_) : "ghost " + std::to_string(col - n_ + base_);
    throw NumericalError(
        "mcpi: O block " + std::to_string(k + base_) + " (" + std::to_string(coloring_.perm.new_to_old[row] + base_) +
        ", " + column + ")" + (base_ ? ", numbered from 1," : "") + " holds a NaN or Inf" +
        (rounded ? std::string(" (or a value beyond FP32's range, as stored in ") + name(o_storage_.format) + ")"
                 : std::string()));
  }

  /// NumericalError naming the first user block row of x (colour order) holding a NaN or Inf
  /// (on a distributed solver, of the first rank holding one), or saying that x's norm
  /// overflows when no entry is a NaN or Inf.
  template <class X>
  [[noreturn]] void throw_not_finite(const ExecSpace& exec, const X& x, const char* what) const {
    collectively([&] {
      const long long first = impl::first_not_finite_row(exec, x, s_.nb);
      if (first >= 0)
        throw NumericalError(std::string("mcpi: ") + what + " holds a NaN or Inf in block row " +
                             std::to_string(coloring_.perm.new_to_old[first] + base_) +
                             (base_ ? " (numbered from 1)" : ""));
    });
    throw NumericalError(std::string("mcpi: the norm of ") + what + " overflows");
  }

  /// y = (D + O) x, x and y in the user's numbering (`user`) or in colour order, on exec; D
  /// through its LU factors (U x into work_ first).
  void operator_apply(const ExecSpace& exec, const ConstVector& x, const Vector& y, bool user) const {
    s_.visit_o(operator_full(), [&](const auto& oa) {
      impl::OperatorRow<memory_space, ConstVector, std::decay_t<decltype(oa)>, DScalar> op{
          new_to_old_, s_.D, work_, s_.ia, s_.ja, oa, x, s_.nb, user};
      impl::operator_upper(exec, op, work_);
      impl::operator_apply(exec, op, y);
    });
  }

  static constexpr int kResidualSlots = 1024;

  Sweeper<ExecSpace, OScalar, DScalar, XScalar> s_;
  std::shared_ptr<HaloType> halo_;                 ///< distributed: the exchanges; null on one rank
  static constexpr size_t kMaxRecordedSweeps = 4;  // runs of sweeps of a few lengths
  std::vector<RecordedSweeps> recorded_;
  GraphStats graph_stats_;
  std::string graph_failure_;  ///< set when a recording failed: no graphs after it
  ordinal_t n_ = 0;
  ordinal_t n_ghost_ = 0;
  int base_ = 0;                         ///< the user's index base: errors name blocks and rows from it
  std::vector<ordinal_t> boundary_end_;  ///< per colour, with a halo
  offset_t nnzb_ = 0;
  Coloring coloring_;
  std::vector<offset_t> ia_host_;  ///< colour-ordered row pointers (error messages)
  Vector r_;                       ///< R in colour order
  Kokkos::View<ordinal_t*, memory_space> new_to_old_, old_to_new_;
  Kokkos::View<offset_t*, memory_space> o_slot_;
  OStorage o_storage_;
  Kokkos::View<offset_t*, memory_space> slot_to_user_;     ///< a reduced format's errors and conversion
  Vector work_;                                            ///< U x of the operator, n * nb
  Kokkos::View<unsigned char*, memory_space> stage_;       ///< host inputs of update(), on first use
  Kokkos::View<long long, memory_space> first_bad_block_;  ///< update(): the first user block of O with a NaN or Inf
  Vector vec_in_, vec_out_;                                ///< host vectors of apply() and multiply()
  bool has_values_ = false;
  // The last variant asked, and what it resolved to.
  ResolvedSweep resolved_;
  Variant asked_variant_;
  bool asked_backend_ = true;
  KernelTuning asked_tuning_;
  bool resolved_valid_ = false;
};

}  // namespace ppsparse::mcpi::detail
