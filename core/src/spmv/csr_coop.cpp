#include <ppsparse/spmv/csr_coop.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include <ppsparse/backend/device_timer.hpp>
#include <ppsparse/spmv/coop_tuner.hpp>

#include "kernel_common.hpp"
#include "spmv_kernel.hpp"

namespace ppsparse::spmv {

std::string CoopParams::to_string() const {
  return "coop=" + std::to_string(coop) + " repeat=" + std::to_string(repeat) + " block=" + std::to_string(block_size);
}

CoopParams coop_fixed_rule(ordinal_t nrows, offset_t nnz, int vector_width, int concurrency, bool gpu, int max_repeat) {
  CoopParams p;
  const double avg = nrows > 0 ? static_cast<double>(nnz) / static_cast<double>(nrows) : 0.0;
  p.coop = std::min(detail::next_power_of_two(std::sqrt(avg)), std::max(1, vector_width));
  p.block_size = gpu ? std::max(128, p.coop) : p.coop;
  const long long groups = p.block_size / p.coop;
  const long long min_teams = std::max<long long>(1, 16LL * std::max(1, concurrency) / p.block_size);
  p.repeat = 1;
  while (p.repeat * 2 <= max_repeat) {
    const long long rows_per_team = groups * p.repeat * 2;
    const long long teams = (static_cast<long long>(nrows) + rows_per_team - 1) / rows_per_team;
    if (teams < min_teams) break;
    p.repeat *= 2;
  }
  return p;
}

void check_coop_params(const CoopParams& p, int vector_width, const std::string& who) {
  if (!detail::is_power_of_two(p.coop) || p.coop > vector_width)
    throw InvalidArgument(who + ": coop = " + std::to_string(p.coop) + " must be a power of two in [1, " +
                          std::to_string(vector_width) + "] (the vector width of this execution space)");
  if (p.repeat < 1) throw InvalidArgument(who + ": repeat = " + std::to_string(p.repeat) + " must be >= 1");
  if (p.block_size < p.coop || p.block_size % p.coop != 0)
    throw InvalidArgument(who + ": block_size = " + std::to_string(p.block_size) +
                          " must be a positive multiple of coop = " + std::to_string(p.coop));
}

template <class ExecSpace>
CoopSearchSpace coop_search_space(const ExecSpace&) {
  CoopSearchSpace s;
  s.max_coop = compat::vector_width_for<ExecSpace>();
  if (compat::is_gpu_space<ExecSpace>())
    s.block_sizes = {64, 96, 128, 192, 256, 384, 512};
  else
    s.block_sizes = {1};
  s.max_repeat = 64;
  return s;
}

namespace {

template <class ExecSpace, class Scalar, class MemSpace>
struct CsrCoopFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr bool interleave_teams = compat::is_gpu_space<ExecSpace>();
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const Scalar*, MemSpace> values;
  detail::RandomAccessVector<Scalar, MemSpace> x;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;
  ordinal_t nrows;
  int repeat;
  int lanes;  // coop: the vector length of the launch

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const long long groups = member.team_size();
    // Chunks of `groups` consecutive rows; team t takes `repeat` of them. GPUs: chunks t,
    // t + league, t + 2 league, ..., so that the teams resident at one time work on
    // neighbouring chunks and share x's cache lines in L2. Taking `repeat` consecutive chunks
    // instead spreads the resident teams over repeat times more rows, and x no longer stays in
    // L2 between a team's chunks (docs/perf/kernel_choices.md, "csr_coop chunk order"). CPUs (one thread
    // per team, teams handed out to threads in contiguous ranges): consecutive chunks, so a
    // thread streams through its rows.
    const long long team = member.league_rank();
    const long long chunk_stride = interleave_teams ? member.league_size() : 1;
    const long long first_chunk = interleave_teams ? team : team * repeat;
    for (int r = 0; r < repeat; ++r) {
      const long long row = (first_chunk + r * chunk_stride) * groups + member.team_rank();
      if (row >= nrows) return;  // rows only grow with r; no team barrier follows
      const ordinal_t i = static_cast<ordinal_t>(row);
      const Scalar sum = detail::row_dot_vector<Scalar>(
          member, lanes, row_ptr, col_idx, values, [&](const ordinal_t c) { return x(c); }, i);
      Kokkos::single(Kokkos::PerThread(member), [&]() { detail::store_row(y, i, alpha, beta, sum); });
    }
  }
};

}  // namespace

namespace {

// Rows with entries (nonempty) or, of those, with columns near the diagonal (local): see
// coop_matrix_shape.
template <class MemSpace>
struct CountRowsFunctor {
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  double columns_per_row;  // ncols / nrows: where the diagonal runs
  double near;             // ncols / 64
  bool local_only;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, long long& count) const {
    const offset_t begin = row_ptr(i), end = row_ptr(i + 1);
    if (begin == end) return;
    if (!local_only) {
      ++count;
      return;
    }
    const double diagonal = static_cast<double>(i) * columns_per_row;
    double distance = 0.0;
    for (offset_t k = begin; k < end; ++k) {
      const double d = static_cast<double>(col_idx(k)) - diagonal;
      distance += d < 0.0 ? -d : d;
    }
    if (distance <= near * static_cast<double>(end - begin)) ++count;
  }
};

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
CoopMatrixShape coop_matrix_shape(const ExecSpace& space, const CsrMatrix<Scalar, MemSpace>& a) {
  check_csr_extents("coop_matrix_shape", a);
  CoopMatrixShape shape;
  if (a.nrows == 0 || a.ncols == 0) return shape;
  CountRowsFunctor<MemSpace> f{a.row_ptr, a.col_idx, static_cast<double>(a.ncols) / static_cast<double>(a.nrows),
                               static_cast<double>(a.ncols) / 64.0, false};
  const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>> rows(space, 0, a.nrows);
  long long nonempty = 0, local = 0;
  Kokkos::parallel_reduce("ppsparse::coop_matrix_shape", rows, f, nonempty);
  f.local_only = true;
  Kokkos::parallel_reduce("ppsparse::coop_matrix_shape", rows, f, local);
  shape.local_columns = nonempty > 0 && 2 * local >= nonempty;
  return shape;
}

template <class ExecSpace, class Scalar, class MemSpace>
void csr_coop(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
              const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
              const nondeduced_t<Vector<Scalar, MemSpace>>& y, const CoopParams& params) {
  check_csr_extents("csr_coop", a);
  check_vectors("csr_coop", a.nrows, a.ncols, x, y);
  check_coop_params(params, compat::vector_width_for<ExecSpace>(), "csr_coop");
  using Functor = CsrCoopFunctor<ExecSpace, Scalar, MemSpace>;
  const Functor f{a.row_ptr, a.col_idx, a.values, x, y, alpha, beta, a.nrows, params.repeat, params.coop};
  const int team_size = params.block_size / params.coop;
  const int team_max =
      Kokkos::TeamPolicy<ExecSpace>(space, 1, 1, params.coop).team_size_max(f, Kokkos::ParallelForTag());
  if (team_size > team_max)
    throw InvalidArgument("csr_coop: block_size = " + std::to_string(params.block_size) +
                          " with coop = " + std::to_string(params.coop) + " asks for " + std::to_string(team_size) +
                          " threads per team; this execution space allows at most " + std::to_string(team_max));
  if (a.nrows == 0) return;
  if (alpha == Scalar(0)) return detail::scale_vector(space, beta, y);
  const long long rows_per_team = static_cast<long long>(team_size) * params.repeat;
  const long long league = (static_cast<long long>(a.nrows) + rows_per_team - 1) / rows_per_team;
  Kokkos::parallel_for("ppsparse::csr_coop",
                       Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(league), team_size, params.coop), f);
}

#define PPSPARSE_INSTANTIATE_CSR_COOP(S)                                                                           \
  template void csr_coop<DefaultExecSpace, S, DefaultMemSpace>(                                                    \
      const DefaultExecSpace&, S, const CsrMatrix<S, DefaultMemSpace>&, const ConstVector<S, DefaultMemSpace>&, S, \
      const Vector<S, DefaultMemSpace>&, const CoopParams&);

#define PPSPARSE_INSTANTIATE_COOP_MATRIX_SHAPE(S)                                   \
  template CoopMatrixShape coop_matrix_shape<DefaultExecSpace, S, DefaultMemSpace>( \
      const DefaultExecSpace&, const CsrMatrix<S, DefaultMemSpace>&);

PPSPARSE_INSTANTIATE_COOP_MATRIX_SHAPE(float)
PPSPARSE_INSTANTIATE_COOP_MATRIX_SHAPE(double)
PPSPARSE_INSTANTIATE_CSR_COOP(float)
PPSPARSE_INSTANTIATE_CSR_COOP(double)
template CoopSearchSpace coop_search_space<DefaultExecSpace>(const DefaultExecSpace&);

namespace detail {
namespace {
// csr_coop with its parameters from SpmvOptions::coop or the fixed rule, then (coop_autotune)
// tuned over the first products: each call while the tuner searches runs a candidate and is timed.
template <class ExecSpace, class Scalar, class MemSpace>
class CsrCoopKernel final : public SpmvKernel<ExecSpace, Scalar, MemSpace> {
 public:
  explicit CsrCoopKernel(const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& s) {
    const auto& space = s.space;
    const auto& a = s.a;
    const SpmvOptions& options = s.options;
    coop_ = options.coop ? *options.coop : coop_fixed_rule(space, a);
    check_coop_params(coop_, compat::vector_width_for<ExecSpace>(), s.who);
    if (!options.coop_autotune || a.nrows == 0) return;
    CoopSearchSpace search = coop_search_space(space);
    // A user's block size outside the default grid is still a valid start.
    if (std::find(search.block_sizes.begin(), search.block_sizes.end(), coop_.block_size) == search.block_sizes.end()) {
      search.block_sizes.push_back(coop_.block_size);
      std::sort(search.block_sizes.begin(), search.block_sizes.end());
    }
    const CoopMatrixShape shape =
        options.tuner.repeat_direction_from_shape ? coop_matrix_shape(space, a) : CoopMatrixShape{};
    tuner_ = std::make_unique<CoopTuner>(coop_, search, options.tuner, shape);
    timer_ = std::make_unique<ppsparse::backend::DeviceTimer<ExecSpace>>(space);
    // One untimed product with the start point on scratch vectors, so that module loading and
    // first-touch costs do not inflate the tuner's first measurement (the start's), which would
    // make any next candidate look better. Its output stays as the scratch output of the tuning
    // calls' extra runs, where they have any.
    const Vector<Scalar, MemSpace> wx("ppsparse::spmv_tuner_warmup_x", static_cast<size_t>(a.ncols));
    const Vector<Scalar, MemSpace> wy("ppsparse::spmv_tuner_scratch_y", static_cast<size_t>(a.nrows));
    csr_coop(space, Scalar(1), a, wx, Scalar(0), wy, coop_);
    space.fence();
    if (options.tuner.runs_per_call > 1 || options.tuner.paired || options.tuner.start_runs > 0) scratch_y_ = wy;
  }

  void apply(const ExecSpace& space, Scalar alpha, const CsrMatrix<Scalar, MemSpace>& a,
             const ConstVector<Scalar, MemSpace>& x, Scalar beta, const Vector<Scalar, MemSpace>& y) override {
    // alpha == 0 only scales y: not a measurement of the candidate.
    if (tuner_ && !tuner_->done() && alpha != Scalar(0))
      tuning_apply(space, alpha, a, x, beta, y);
    else
      csr_coop(space, alpha, a, x, beta, y, coop_params());
  }
  std::string parameters() const override {
    std::string d = coop_params().to_string();
    if (tuner_) d += tuner_->done() ? " (tuned in " + std::to_string(tuner_->calls()) + " calls)" : " (tuning)";
    return d;
  }
  CoopParams coop_params() const { return tuner_ ? tuner_->candidate() : coop_; }
  const void* find_state(const std::type_info& type) const override {
    if (const void* t = state_if(type, tuner_.get())) return t;
    return tuner_ ? nullptr : state_if(type, &coop_);  // while tuning, the tuner's candidate
  }
  void set_clock(std::function<double()> clock) override { clock_ = std::move(clock); }

 private:
  CoopParams coop_;
  std::unique_ptr<CoopTuner> tuner_;
  std::function<double()> clock_;                                     // set_clock's; empty: timer_
  std::unique_ptr<ppsparse::backend::DeviceTimer<ExecSpace>> timer_;  // the tuner's, on the operator's instance
  Vector<Scalar, MemSpace> scratch_y_;  // output of a tuning call's extra runs (if any); freed when tuned

  // Times this call for the tuner. The device timer's events bracket the product on the stream;
  // an injected clock needs fences to keep other work out of the measurement. The caller's
  // product comes first; the extra runs (up to runs_per_call - 1, none when the first decides the
  // step), and in paired calls the best point's run before each candidate run, write the scratch
  // output with the same alpha and beta, so they move the same bytes.
  void tuning_apply(const ExecSpace& space, Scalar alpha, const CsrMatrix<Scalar, MemSpace>& a,
                    const ConstVector<Scalar, MemSpace>& x, Scalar beta, const Vector<Scalar, MemSpace>& y) {
    check_vectors("csr_coop", a.nrows, a.ncols, x, y);
    auto timed = [&](const CoopParams& params, const Vector<Scalar, MemSpace>& out) {
      if (clock_) {
        space.fence();
        const double t0 = clock_();
        csr_coop(space, alpha, a, x, beta, out, params);
        space.fence();
        return clock_() - t0;
      }
      timer_->start();
      csr_coop(space, alpha, a, x, beta, out, params);
      return timer_->stop();
    };
    // The first call times the start on scratch first (start_runs); its own product is then
    // already the first step.
    if (tuner_->wants_start_runs()) {
      std::vector<double> start_seconds;
      for (int run = 0; run < tuner_->options().start_runs; ++run)
        start_seconds.push_back(timed(tuner_->start(), scratch_y_));
      tuner_->record_start(start_seconds);
      if (tuner_->done()) {  // nothing to search (max_steps = 1)
        scratch_y_ = Vector<Scalar, MemSpace>();
        csr_coop(space, alpha, a, x, beta, y, coop_params());
        return;
      }
    }
    const CoopParams p = tuner_->candidate();
    const bool paired = tuner_->wants_pair();
    const CoopParams best = tuner_->best();
    std::vector<double> seconds;
    for (int run = 0; run < tuner_->options().runs_per_call; ++run) {
      if (run == 1 && tuner_->first_run_decides(seconds[0])) break;
      const double best_seconds = paired ? timed(best, scratch_y_) : 0.0;
      const double candidate_seconds = timed(p, run == 0 ? y : scratch_y_);
      seconds.push_back(paired ? tuner_->normalised(candidate_seconds, best_seconds) : candidate_seconds);
    }
    tuner_->record_call(seconds);
    if (tuner_->done()) scratch_y_ = Vector<Scalar, MemSpace>();  // not needed after tuning
  }
};
}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
SpmvKernelPtr<ExecSpace, Scalar, MemSpace> make_spmv_kernel_csr_coop(
    const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& s) {
  return std::make_unique<CsrCoopKernel<ExecSpace, Scalar, MemSpace>>(s);
}
PPSPARSE_INSTANTIATE_SPMV_KERNEL(csr_coop)

namespace {
// The fixed parameters, set up with the rule's defaults for the first key given.
CoopParams& fixed_coop(SpmvOptions& o) {
  if (!o.coop) o.coop = CoopParams{1, 1, compat::vector_width_for<DefaultExecSpace>()};
  return *o.coop;
}
}  // namespace

const std::vector<SpmvOptionKey>& option_keys_csr_coop() {
  static const std::vector<SpmvOptionKey> keys{
      {"coop.coop", [](SpmvOptions& o, long long v) { fixed_coop(o).coop = static_cast<int>(v); }},
      {"coop.repeat", [](SpmvOptions& o, long long v) { fixed_coop(o).repeat = static_cast<int>(v); }},
      {"coop.block_size", [](SpmvOptions& o, long long v) { fixed_coop(o).block_size = static_cast<int>(v); }},
      {"coop.autotune", [](SpmvOptions& o, long long v) { o.coop_autotune = v != 0; }},
      {"coop.tuner_runs_per_call", [](SpmvOptions& o, long long v) { o.tuner.runs_per_call = static_cast<int>(v); }},
      {"coop.tuner_paired", [](SpmvOptions& o, long long v) { o.tuner.paired = v != 0; }},
      {"coop.tuner_start_runs", [](SpmvOptions& o, long long v) { o.tuner.start_runs = static_cast<int>(v); }},
      {"coop.tuner_shape", [](SpmvOptions& o, long long v) { o.tuner.repeat_direction_from_shape = v != 0; }},
  };
  return keys;
}
}  // namespace detail

}  // namespace ppsparse::spmv
