#include <ppsparse/spmv/spmv.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

#include <ppsparse/backend/l2_window.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/spmv/structure_check.hpp>

namespace ppsparse::spmv {

const char* to_string(SpmvAlgorithm algorithm) {
  switch (algorithm) {
    case SpmvAlgorithm::csr_v1:
      return "csr_v1";
    case SpmvAlgorithm::csr_v2:
      return "csr_v2";
    case SpmvAlgorithm::csr_coop:
      return "csr_coop";
    case SpmvAlgorithm::sell:
      return "sell";
    case SpmvAlgorithm::automatic:
      return "auto";
  }
  return "?";
}

const std::vector<SpmvAlgorithm>& all_spmv_algorithms() {
  static const std::vector<SpmvAlgorithm> all{SpmvAlgorithm::csr_v1, SpmvAlgorithm::csr_v2, SpmvAlgorithm::csr_coop,
                                              SpmvAlgorithm::sell, SpmvAlgorithm::automatic};
  return all;
}

SpmvAlgorithm parse_spmv_algorithm(const std::string& name) {
  std::string valid;
  for (SpmvAlgorithm a : all_spmv_algorithms()) {
    if (name == to_string(a)) return a;
    valid += (valid.empty() ? "" : ", ") + std::string(to_string(a));
  }
  throw InvalidArgument("unknown SpMV algorithm '" + name + "' (valid: " + valid + ")");
}

template <class Scalar, class MemSpace>
RowLengthStats row_length_stats(const CsrMatrix<Scalar, MemSpace>& a) {
  RowLengthStats s;
  s.nrows = a.nrows;
  s.nnz = a.nnz();
  if (a.nrows == 0) return s;
  const auto rp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_ptr);
  const offset_t cut = hyb_auto_row_max(a.nrows, a.nnz());
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    const offset_t len = rp(i + 1) - rp(i);
    s.max_len = std::max(s.max_len, len);
    s.long_rows += len > cut;
  }
  return s;
}

SpmvChoice choose_spmv_algorithm(const RowLengthStats& stats, bool gpu) {
  if (!gpu) return {SpmvAlgorithm::csr_v2, false};
  if (static_cast<double>(stats.max_len) <= 4.0 * stats.mean() + 16.0) return {SpmvAlgorithm::sell, false};
  if (stats.long_rows * 1000 <= stats.nrows) return {SpmvAlgorithm::sell, true};
  return {SpmvAlgorithm::csr_v2, false};
}

namespace {
double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
SpmvOperator<ExecSpace, Scalar, MemSpace>::SpmvOperator(SpmvAlgorithm algorithm, const CsrMatrix<Scalar, MemSpace>& a,
                                                        const SpmvOptions& options, const ExecSpace& space)
    : algorithm_(algorithm), space_(space), a_(a), options_(options) {
  const std::string who = std::string(to_string(algorithm)) + " setup";
  check_csr_extents(who, a);
  if (options.check_structure) check_csr_structure(space, a, who);
  const double t0 = steady_seconds();
  // The setup reads options_ only: the automatic choice may adjust it (the HYB tail).
  if (algorithm == SpmvAlgorithm::automatic) {
    automatic_ = true;
    const SpmvChoice choice = choose_spmv_algorithm(row_length_stats(a), compat::is_gpu_space<ExecSpace>());
    algorithm_ = choice.algorithm;
    if (choice.hyb && options_.sell.hyb_row_max == 0) options_.sell.hyb_row_max = -1;
  }
  switch (algorithm_) {
    case SpmvAlgorithm::csr_v1:
      break;
    case SpmvAlgorithm::csr_v2:
      v2_plan_ = std::make_shared<CsrV2Plan<Scalar, MemSpace>>(make_csr_v2_plan(space, a, options_.csr_v2));
      break;
    case SpmvAlgorithm::csr_coop: {
      coop_ = options_.coop ? *options_.coop : coop_fixed_rule(space, a);
      check_coop_params(coop_, compat::vector_width_for<ExecSpace>(), who);
      if (options_.coop_autotune && a.nrows > 0) {
        CoopSearchSpace s = coop_search_space(space);
        // A user's block size outside the default grid is still a valid start.
        if (std::find(s.block_sizes.begin(), s.block_sizes.end(), coop_.block_size) == s.block_sizes.end()) {
          s.block_sizes.push_back(coop_.block_size);
          std::sort(s.block_sizes.begin(), s.block_sizes.end());
        }
        const CoopMatrixShape shape =
            options_.tuner.repeat_direction_from_shape ? coop_matrix_shape(space, a) : CoopMatrixShape{};
        tuner_ = std::make_shared<CoopTuner>(coop_, s, options_.tuner, shape);
        timer_ = std::make_shared<backend::DeviceTimer>(space);
        // One untimed product with the start point on scratch vectors, so that module loading
        // and first-touch costs do not inflate the tuner's first measurement (the start's),
        // which would make any next candidate look better.
        // Its output stays as the scratch output of the tuning calls' extra runs, where they have any.
        const Vector<Scalar, MemSpace> wx("ppsparse::spmv_tuner_warmup_x", static_cast<size_t>(a.ncols));
        const Vector<Scalar, MemSpace> wy("ppsparse::spmv_tuner_scratch_y", static_cast<size_t>(a.nrows));
        csr_coop(space, Scalar(1), a, wx, Scalar(0), wy, coop_);
        space.fence();
        if (options_.tuner.runs_per_call > 1 || options_.tuner.paired || options_.tuner.start_runs > 0)
          tuner_scratch_y_ = wy;
      }
      break;
    }
    case SpmvAlgorithm::sell: {
      const SellOptions o = sell_resolve_options<ExecSpace>(options_.sell, RowLengthStats{a.nrows, a.nnz()}.mean());
      const auto host = copy_to<HostSpace>(a);
      if (o.hyb_row_max != 0) {
        const ordinal_t row_max = o.hyb_row_max > 0 ? o.hyb_row_max : hyb_auto_row_max(a.nrows, a.nnz());
        hyb_ = std::make_shared<HybMatrix<Scalar, MemSpace>>(
            make_hyb<ExecSpace, Scalar, MemSpace>(space, host, o.C, o.sigma, row_max, o.index_bits));
      } else {
        auto sell = csr_to_sell(host, o.C, o.sigma);
        sell_apply_index_bits(sell, o.index_bits, who, "sell.index_bits");
        sell_ = std::make_shared<SellMatrix<Scalar, MemSpace>>(copy_to<MemSpace>(sell));
      }
      break;
    }
    default:
      throw InvalidArgument("SpmvOperator: unknown algorithm");
  }
  space_.fence();
  setup_seconds_ = steady_seconds() - t0;
}

template <class ExecSpace, class Scalar, class MemSpace>
struct SpmvOperator<ExecSpace, Scalar, MemSpace>::XWindow {
  backend::L2Window window;
  const void* base = nullptr;
  XWindow() = default;
  XWindow(const XWindow&) = delete;
  XWindow& operator=(const XWindow&) = delete;
  ~XWindow() {
    try {
      backend::l2_window_end(window);
    } catch (...) {
      // A destructor must not throw; the device state is the caller's to inspect.
    }
  }
};

template <class ExecSpace, class Scalar, class MemSpace>
void SpmvOperator<ExecSpace, Scalar, MemSpace>::keep_x_in_l2(const ConstVector<Scalar, MemSpace>& x) {
  const std::size_t bytes = x.span() * sizeof(Scalar);
  if (!x_window_) {
    x_window_ = std::make_shared<XWindow>();
    x_window_->window = backend::l2_window_begin(x.data(), bytes);
  } else if (x_window_->base != x.data()) {
    backend::l2_window_move(x_window_->window, x.data(), bytes);
  }
  x_window_->base = x.data();
}

template <class ExecSpace, class Scalar, class MemSpace>
void SpmvOperator<ExecSpace, Scalar, MemSpace>::apply(nondeduced_t<Scalar> alpha,
                                                      const nondeduced_t<ConstVector<Scalar, MemSpace>>& x,
                                                      nondeduced_t<Scalar> beta,
                                                      const nondeduced_t<Vector<Scalar, MemSpace>>& y) {
  if (options_.persist_x && alpha != Scalar(0) && x.extent(0) > 0) keep_x_in_l2(x);
  switch (algorithm_) {
    case SpmvAlgorithm::automatic:
      break;  // resolved at setup
    case SpmvAlgorithm::csr_v1:
      csr_v1(space_, alpha, a_, x, beta, y);
      return;
    case SpmvAlgorithm::csr_v2:
      csr_v2(space_, alpha, a_, *v2_plan_, x, beta, y, options_.matrix_loads);
      return;
    case SpmvAlgorithm::sell:
      if (hyb_)
        hyb_spmv(space_, alpha, *hyb_, x, beta, y, options_.matrix_loads);
      else
        sell_spmv(space_, alpha, *sell_, x, beta, y, options_.matrix_loads);
      return;
    case SpmvAlgorithm::csr_coop:
      if (tuner_ && !tuner_->done() && alpha != Scalar(0)) {
        // Time this call for the tuner (alpha == 0 only scales y: not a measurement of the
        // candidate). The device timer's events bracket the product on the stream; an injected
        // clock needs fences to keep other work out of the measurement. The caller's product
        // comes first; the extra runs (up to runs_per_call - 1, none when the first decides the
        // step), and in paired calls the best point's run before each candidate run, write the
        // scratch output with the same alpha and beta, so they move the same bytes.
        check_vectors("csr_coop", a_.nrows, a_.ncols, x, y);
        auto timed = [&](const CoopParams& params, const Vector<Scalar, MemSpace>& out) {
          if (clock_) {
            space_.fence();
            const double t0 = clock_();
            csr_coop(space_, alpha, a_, x, beta, out, params);
            space_.fence();
            return clock_() - t0;
          }
          timer_->start();
          csr_coop(space_, alpha, a_, x, beta, out, params);
          return timer_->stop();
        };
        // The first call times the start on scratch first (start_runs); its own product is then
        // already the first step.
        if (tuner_->wants_start_runs()) {
          std::vector<double> start_seconds;
          for (int run = 0; run < tuner_->options().start_runs; ++run)
            start_seconds.push_back(timed(tuner_->start(), tuner_scratch_y_));
          tuner_->record_start(start_seconds);
          if (tuner_->done()) {  // nothing to search (max_steps = 1)
            tuner_scratch_y_ = Vector<Scalar, MemSpace>();
            csr_coop(space_, alpha, a_, x, beta, y, coop_params());
            return;
          }
        }
        const CoopParams p = tuner_->candidate();
        const bool paired = tuner_->wants_pair();
        const CoopParams best = tuner_->best();
        std::vector<double> seconds;
        for (int run = 0; run < tuner_->options().runs_per_call; ++run) {
          if (run == 1 && tuner_->first_run_decides(seconds[0])) break;
          const double best_seconds = paired ? timed(best, tuner_scratch_y_) : 0.0;
          const double candidate_seconds = timed(p, run == 0 ? y : tuner_scratch_y_);
          seconds.push_back(paired ? tuner_->normalised(candidate_seconds, best_seconds) : candidate_seconds);
        }
        tuner_->record_call(seconds);
        if (tuner_->done()) tuner_scratch_y_ = Vector<Scalar, MemSpace>();  // not needed after tuning
        return;
      }
      csr_coop(space_, alpha, a_, x, beta, y, coop_params());
      return;
  }
}

template <class ExecSpace, class Scalar, class MemSpace>
CoopParams SpmvOperator<ExecSpace, Scalar, MemSpace>::coop_params() const {
  return tuner_ ? tuner_->candidate() : coop_;
}

template <class ExecSpace, class Scalar, class MemSpace>
SpmvTraffic SpmvOperator<ExecSpace, Scalar, MemSpace>::traffic(bool reads_y) const {
  if (algorithm_ == SpmvAlgorithm::sell)
    return hyb_ ? hyb_traffic(*hyb_, reads_y)
                : sell_traffic<Scalar>(a_.nrows, a_.ncols, a_.nnz(), sell_->stored(), sell_->nchunks, reads_y,
                                       sell_->column_bytes());
  return csr_traffic<Scalar>(a_.nrows, a_.ncols, a_.nnz(), reads_y);
}

template <class ExecSpace, class Scalar, class MemSpace>
std::string SpmvOperator<ExecSpace, Scalar, MemSpace>::describe() const {
  std::string d = std::string(automatic_ ? "auto: " : "") + to_string(algorithm_);
  switch (algorithm_) {
    case SpmvAlgorithm::automatic:
      break;  // resolved at setup
    case SpmvAlgorithm::csr_v1:
      break;
    case SpmvAlgorithm::csr_v2:
      d += " " + v2_plan_->summary();
      break;
    case SpmvAlgorithm::csr_coop:
      d += " " + coop_params().to_string();
      if (tuner_) d += tuner_->done() ? " (tuned in " + std::to_string(tuner_->calls()) + " calls)" : " (tuning)";
      break;
    case SpmvAlgorithm::sell: {
      const SellMatrix<Scalar, MemSpace>& s = *sell_matrix();
      d += " C=" + std::to_string(s.C) + " sigma=" + std::to_string(s.sigma) +
           " fill=" + std::to_string(s.fill_ratio()) + " columns=" + std::to_string(8 * s.column_bytes()) + "bit";
      if (hyb_)
        d += " hyb row_max=" + std::to_string(hyb_->row_max) + " tail_rows=" + std::to_string(hyb_->tail.nrows) +
             " tail_nnz=" + std::to_string(hyb_->tail.nnz());
      break;
    }
  }
  if (options_.matrix_loads == MatrixLoads::cached &&
      (algorithm_ == SpmvAlgorithm::csr_v2 || algorithm_ == SpmvAlgorithm::sell))
    d += " loads=cached";
  if (x_window_) d += " [" + x_window_->window.note + "]";
  return d;
}

template RowLengthStats row_length_stats(const CsrMatrix<float, DefaultMemSpace>&);
template RowLengthStats row_length_stats(const CsrMatrix<double, DefaultMemSpace>&);
template class SpmvOperator<DefaultExecSpace, float, DefaultMemSpace>;
template class SpmvOperator<DefaultExecSpace, double, DefaultMemSpace>;

}  // namespace ppsparse::spmv
