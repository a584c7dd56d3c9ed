#include <ppsparse/spmv/spmv.hpp>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <vector>

#include <ppsparse/backend/l2_window.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/backend/last_level_cache.hpp>
#include <ppsparse/spmv/structure_check.hpp>
#include <ppsparse/util/names.hpp>

#include "spmv_kernel.hpp"

namespace ppsparse::spmv {

namespace {
// The tables algorithms.def generates: names, summaries and setups, indexed by SpmvAlgorithm.
constexpr const char* kAlgorithmNames[] = {
#define PPSPARSE_SPMV_ALGORITHM(id, summary) #id,
#include <ppsparse/spmv/algorithms.def>
#undef PPSPARSE_SPMV_ALGORITHM
    "auto"};
constexpr const char* kAlgorithmSummaries[] = {
#define PPSPARSE_SPMV_ALGORITHM(id, summary) summary,
#include <ppsparse/spmv/algorithms.def>
#undef PPSPARSE_SPMV_ALGORITHM
    "the algorithm choose_spmv_algorithm picks for the matrix and the device"};
static_assert(std::size(kAlgorithmNames) == static_cast<std::size_t>(SpmvAlgorithm::automatic) + 1);

template <class ExecSpace, class Scalar, class MemSpace>
detail::SpmvKernelPtr<ExecSpace, Scalar, MemSpace> make_spmv_kernel(
    SpmvAlgorithm algorithm, const detail::SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& setup) {
  using Make = detail::SpmvKernelPtr<ExecSpace, Scalar, MemSpace> (*)(
      const detail::SpmvKernelSetup<ExecSpace, Scalar, MemSpace>&);
  static constexpr Make kMake[] = {
#define PPSPARSE_SPMV_ALGORITHM(id, summary) &detail::make_spmv_kernel_##id<ExecSpace, Scalar, MemSpace>,
#include <ppsparse/spmv/algorithms.def>
#undef PPSPARSE_SPMV_ALGORITHM
  };
  const auto i = static_cast<std::size_t>(algorithm);
  if (i >= std::size(kMake)) throw InvalidArgument(setup.who + ": not a concrete SpMV algorithm");
  return kMake[i](setup);
}
}  // namespace

const char* to_string(SpmvAlgorithm algorithm) { return util::name_of(algorithm, kAlgorithmNames); }

const char* summary(SpmvAlgorithm algorithm) { return util::name_of(algorithm, kAlgorithmSummaries); }

const std::vector<SpmvAlgorithm>& all_spmv_algorithms() {
  static const std::vector<SpmvAlgorithm> all = util::enumerators<SpmvAlgorithm>(std::size(kAlgorithmNames));
  return all;
}

SpmvAlgorithm parse_spmv_algorithm(const std::string& name) {
  return util::parse_name<SpmvAlgorithm>(name, kAlgorithmNames, "SpMV algorithm");
}

template <class Scalar, class MemSpace>
RowLengthStats row_length_stats(const CsrMatrix<Scalar, MemSpace>& a) {
  RowLengthStats s;
  s.nrows = a.nrows;
  s.ncols = a.ncols;
  s.nnz = a.nnz();
  if (a.nrows == 0) return s;
  {
    using Exec = typename MemSpace::execution_space;
    const auto row_ptr = a.row_ptr;
    const auto col_idx = a.col_idx;
    const double scale = static_cast<double>(a.ncols) / static_cast<double>(a.nrows);
    offset_t far = 0;
    Kokkos::parallel_reduce(
        "ppsparse::spmv_far_entries", Kokkos::RangePolicy<Exec, Kokkos::IndexType<ordinal_t>>(0, a.nrows),
        KOKKOS_LAMBDA(const ordinal_t i, offset_t& n) {
          const double diagonal = scale * static_cast<double>(i);
          for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k) {
            const double d = static_cast<double>(col_idx(k)) - diagonal;
            n += d > RowLengthStats::kNearColumns || d < -RowLengthStats::kNearColumns;
          }
        },
        far);
    s.far_entries = far;
  }
  const auto rp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_ptr);
  const offset_t cut = hyb_auto_row_max(a.nrows, a.nnz());
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    const offset_t len = rp(i + 1) - rp(i);
    s.max_len = std::max(s.max_len, len);
    s.long_rows += len > cut;
  }
  return s;
}

SpmvChoice choose_spmv_algorithm(const RowLengthStats& stats, bool gpu, const std::size_t cache_bytes,
                                 const int scalar_bytes) {
  if (!gpu) return {SpmvAlgorithm::csr_v2, false};
  const bool regular = static_cast<double>(stats.max_len) <= 4.0 * stats.mean() + 16.0;
  const bool few_long = stats.long_rows * 1000 <= stats.nrows;
  const double x_bytes = static_cast<double>(stats.ncols) * scalar_bytes;
  if ((regular || few_long) && cache_bytes > 0 && stats.far_fraction() > 0.5 &&
      x_bytes > 0.5 * static_cast<double>(cache_bytes))
    return {SpmvAlgorithm::column_panels, false};
  if (regular) return {SpmvAlgorithm::sell, false};
  if (few_long) return {SpmvAlgorithm::sell, true};
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
    const SpmvChoice choice = choose_spmv_algorithm(row_length_stats(a), compat::is_gpu_space<ExecSpace>(),
                                                    ppsparse::backend::last_level_cache_bytes(space_), sizeof(Scalar));
    algorithm_ = choice.algorithm;
    if (choice.hyb && options_.sell.hyb_row_max == 0) options_.sell.hyb_row_max = -1;
  }
  kernel_ = make_spmv_kernel<ExecSpace, Scalar, MemSpace>(algorithm_, {space_, a_, options_, who});
  space_.fence();
  setup_seconds_ = steady_seconds() - t0;
}

template <class ExecSpace, class Scalar, class MemSpace>
struct SpmvOperator<ExecSpace, Scalar, MemSpace>::XWindow {
  ExecSpace space;  // the instance whose stream carries the window
  ppsparse::backend::L2Window window;
  const void* base = nullptr;
  explicit XWindow(const ExecSpace& s) : space(s) {}
  XWindow(const XWindow&) = delete;
  XWindow& operator=(const XWindow&) = delete;
  ~XWindow() {
    try {
      ppsparse::backend::l2_window_end(space, window);
    } catch (...) {
      // A destructor must not throw; the device state is the caller's to inspect.
    }
  }
};

template <class ExecSpace, class Scalar, class MemSpace>
void SpmvOperator<ExecSpace, Scalar, MemSpace>::keep_x_in_l2(const ConstVector<Scalar, MemSpace>& x) {
  const std::size_t bytes = x.span() * sizeof(Scalar);
  if (!x_window_) {
    x_window_ = std::make_shared<XWindow>(space_);
    x_window_->window = ppsparse::backend::l2_window_begin(space_, x.data(), bytes);
  } else if (x_window_->base != x.data()) {
    ppsparse::backend::l2_window_move(space_, x_window_->window, x.data(), bytes);
  }
  x_window_->base = x.data();
}

template <class ExecSpace, class Scalar, class MemSpace>
void SpmvOperator<ExecSpace, Scalar, MemSpace>::apply(nondeduced_t<Scalar> alpha,
                                                      const nondeduced_t<ConstVector<Scalar, MemSpace>>& x,
                                                      nondeduced_t<Scalar> beta,
                                                      const nondeduced_t<Vector<Scalar, MemSpace>>& y) {
  if (options_.persist_x && alpha != Scalar(0) && x.extent(0) > 0) keep_x_in_l2(x);
  kernel_->apply(space_, alpha, a_, x, beta, y);
}

template <class ExecSpace, class Scalar, class MemSpace>
CoopParams SpmvOperator<ExecSpace, Scalar, MemSpace>::coop_params() const {
  if (const CoopTuner* t = tuner()) return t->candidate();
  const CoopParams* p = kernel_->template state<CoopParams>();
  return p ? *p : CoopParams{};
}

template <class ExecSpace, class Scalar, class MemSpace>
const CoopTuner* SpmvOperator<ExecSpace, Scalar, MemSpace>::tuner() const {
  return kernel_->template state<CoopTuner>();
}

template <class ExecSpace, class Scalar, class MemSpace>
const CsrV2Plan<Scalar, MemSpace>* SpmvOperator<ExecSpace, Scalar, MemSpace>::csr_v2_plan() const {
  return kernel_->template state<CsrV2Plan<Scalar, MemSpace>>();
}

template <class ExecSpace, class Scalar, class MemSpace>
const SellMatrix<Scalar, MemSpace>* SpmvOperator<ExecSpace, Scalar, MemSpace>::sell_matrix() const {
  return kernel_->template state<SellMatrix<Scalar, MemSpace>>();
}

template <class ExecSpace, class Scalar, class MemSpace>
const HybMatrix<Scalar, MemSpace>* SpmvOperator<ExecSpace, Scalar, MemSpace>::hyb_matrix() const {
  return kernel_->template state<HybMatrix<Scalar, MemSpace>>();
}

template <class ExecSpace, class Scalar, class MemSpace>
const ColumnPanelMatrix<Scalar, MemSpace>* SpmvOperator<ExecSpace, Scalar, MemSpace>::column_panel_matrix() const {
  return kernel_->template state<ColumnPanelMatrix<Scalar, MemSpace>>();
}

template <class ExecSpace, class Scalar, class MemSpace>
void SpmvOperator<ExecSpace, Scalar, MemSpace>::set_clock(clock_type clock) {
  kernel_->set_clock(std::move(clock));
}

template <class ExecSpace, class Scalar, class MemSpace>
SpmvTraffic SpmvOperator<ExecSpace, Scalar, MemSpace>::traffic(bool reads_y) const {
  return kernel_->traffic(a_, reads_y);
}

template <class ExecSpace, class Scalar, class MemSpace>
std::string SpmvOperator<ExecSpace, Scalar, MemSpace>::describe() const {
  std::string d = std::string(automatic_ ? "auto: " : "") + to_string(algorithm_);
  const std::string parameters = kernel_->parameters();
  if (!parameters.empty()) d += " " + parameters;
  if (options_.matrix_loads == MatrixLoads::cached && kernel_->uses_matrix_loads()) d += " loads=cached";
  if (x_window_) d += " [" + x_window_->window.note + "]";
  return d;
}

template RowLengthStats row_length_stats(const CsrMatrix<float, DefaultMemSpace>&);
template RowLengthStats row_length_stats(const CsrMatrix<double, DefaultMemSpace>&);
template class SpmvOperator<DefaultExecSpace, float, DefaultMemSpace>;
template class SpmvOperator<DefaultExecSpace, double, DefaultMemSpace>;

}  // namespace ppsparse::spmv
