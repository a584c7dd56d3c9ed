#pragma once
/// @file
/// Public entry point of the scalar SpMV family: pick an algorithm by name, set it up once
/// for a matrix, apply it many times.
///
///   auto op = spmv::SpmvOperator<Kokkos::DefaultExecutionSpace, double>(
///       spmv::parse_spmv_algorithm("csr_v2"), A);
///   op.apply(1.0, x, 0.0, y);   // y = A x
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/sell.hpp>
#include <ppsparse/backend/device_timer.hpp>
#include <ppsparse/spmv/column_panels.hpp>
#include <ppsparse/spmv/coop_tuner.hpp>
#include <ppsparse/spmv/csr_coop.hpp>
#include <ppsparse/spmv/csr_v1.hpp>
#include <ppsparse/spmv/csr_v2.hpp>
#include <ppsparse/spmv/hyb.hpp>
#include <ppsparse/spmv/sell_spmv.hpp>
#include <ppsparse/spmv/traffic.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

namespace detail {
template <class ExecSpace, class Scalar, class MemSpace>
class SpmvKernel;
}  // namespace detail

/// The algorithms, one per line of spmv/algorithms.def, then automatic: one of the others,
/// chosen at setup from the row lengths and the device (choose_spmv_algorithm);
/// SpmvOperator::algorithm() then reports the choice.
enum class SpmvAlgorithm {
#define PPSPARSE_SPMV_ALGORITHM(id, summary) id,
#include <ppsparse/spmv/algorithms.def>
#undef PPSPARSE_SPMV_ALGORITHM
  automatic
};

/// The algorithm's name: its id in algorithms.def ("csr_v1", "csr_v2", "csr_coop", "sell",
/// "column_panels"), or "auto".
const char* to_string(SpmvAlgorithm algorithm);
/// One line on what the algorithm does (algorithms.def), for usage texts.
const char* summary(SpmvAlgorithm algorithm);
/// Every algorithm, automatic last.
const std::vector<SpmvAlgorithm>& all_spmv_algorithms();
/// Inverse of to_string. InvalidArgument on any other name:
///   "unknown SpMV algorithm 'csr_v3' (valid: csr_v1, csr_v2, csr_coop, sell, column_panels, auto)".
SpmvAlgorithm parse_spmv_algorithm(const std::string& name);

/// What the automatic choice looks at: the row lengths, and how far the columns lie from the
/// diagonal (the x entries a row gathers).
struct RowLengthStats {
  ordinal_t nrows = 0;
  offset_t nnz = 0;
  offset_t max_len = 0;
  long long long_rows = 0;  ///< rows longer than hyb_auto_row_max (HYB would cut them)
  ordinal_t ncols = 0;
  /// Entries whose column lies more than kNearColumns from the row's diagonal position
  /// (row * ncols / nrows): their x entries are scattered, not shared with nearby rows.
  offset_t far_entries = 0;
  static constexpr ordinal_t kNearColumns = 32767;
  double mean() const { return nrows > 0 ? static_cast<double>(nnz) / static_cast<double>(nrows) : 0.0; }
  double far_fraction() const { return nnz > 0 ? static_cast<double>(far_entries) / static_cast<double>(nnz) : 0.0; }
};
/// The statistics of a: its row pointers read on the host, its far entries counted on the
/// device.
template <class Scalar, class MemSpace>
RowLengthStats row_length_stats(const CsrMatrix<Scalar, MemSpace>& a);

/// The automatic choice: an algorithm, and for sell whether to add the HYB tail.
struct SpmvChoice {
  SpmvAlgorithm algorithm = SpmvAlgorithm::csr_v2;
  bool hyb = false;  ///< sell with the HYB tail (SellOptions::hyb_row_max = -1)
};

/// The automatic choice (the measurements: docs/perf/kernel_choices.md, "SpMV automatic choice"):
///  * GPUs:
///    - column_panels when most entries are far (far_fraction() > 1/2) and x (ncols *
///      scalar_bytes) exceeds half the last-level cache (cache_bytes; 0: unknown, never
///      column_panels), so that the x gathers would miss, and the rows are regular or only a
///      few are long (as for sell below; the long rows go to its tail);
///    - sell (one lane per row for short rows, 16-bit columns where they fit) when the rows are
///      regular, max_len <= 4 * mean + 16;
///    - sell with the HYB tail when only a few rows are long (long_rows <= nrows / 1000): the
///      bulk stays regular SELL, the long rows go to csr_v2's split rows;
///    - csr_v2 otherwise (power-law rows: its row blocks and split rows balance any
///      distribution);
///  * CPUs: csr_v2 (blocks of rows of equal work per team).
SpmvChoice choose_spmv_algorithm(const RowLengthStats& stats, bool gpu, std::size_t cache_bytes = 0,
                                 int scalar_bytes = 8);

/// Options of SpmvOperator, per algorithm and common.
struct SpmvOptions {
  CsrV2Options csr_v2;             ///< csr_v2 plan options
  std::optional<CoopParams> coop;  ///< csr_coop: these parameters instead of the fixed rule
  bool coop_autotune = true;       ///< csr_coop: tune over the first apply() calls
  CoopTunerOptions tuner;          ///< csr_coop: tuner options
  SellOptions sell;                ///< sell: C, sigma, the HYB tail (hyb_row_max), column bits
  ColumnPanelOptions panels;       ///< column_panels: panel width, rows per chunk, the tail's rows
  bool check_structure = true;     ///< check the matrix once at setup (check_csr_structure)
  /// Keep x in a persisting-L2 window (backend/l2_window.hpp) from the first product to the
  /// operator's end, so that the matrix streaming through the L2 does not evict x. Where the
  /// device has no such window, describe() says so and products run without it. Off by
  /// default: it gained nothing where measured (docs/perf/kernel_choices.md, "SpMV persist_x").
  bool persist_x = false;
  /// How csr_v2 and sell load the matrix (spmv/matrix_loads.hpp); text key streaming_loads=0|1.
  MatrixLoads matrix_loads = MatrixLoads::streaming;
};

/// Options from text, for command lines and benchmark variants: comma-separated key=value
/// pairs over the fields above, e.g. "v2.tile_nnz=2048,v2.vector_length=4" or
/// "sell.C=32,sell.sigma=1" or "coop.coop=8,coop.repeat=4,coop.block_size=256,coop.autotune=0".
/// Keys: v2.{team_threads, vector_length, tile_nnz, max_rows_per_block, short_row_max,
/// flat_row_max, split_row_min, split_tile_nnz, x_in_scratch, x_window}, coop.{coop, repeat, block_size,
/// autotune, tuner_runs_per_call, tuner_paired, tuner_start_runs, tuner_shape}, sell.{C, sigma, hyb_row_max,
/// index_bits}, panels.{panel_columns, chunk_rows, row_max}, check_structure, persist_x, streaming_loads. Values are
/// integers (0/1 for the flags); ranges are checked where the options are used. InvalidArgument, naming the pair, for
/// an unknown key, a missing '=' or a value that is not an integer:
///   "spmv options: 'v2.tile=8': unknown key (valid: v2.team_threads, ...)".
/// A given coop.* key starts from coop=1 repeat=1 block_size=W for the others.
SpmvOptions parse_spmv_options(const std::string& text, const SpmvOptions& base = {});

/// Owns everything an algorithm needs between products: the csr_v2 plan, the SELL or
/// column-panel copy of the matrix, the csr_coop parameters and tuner. The matrix's views are
/// shared (not copied): change its values and the next apply() uses them (except for sell and
/// column_panels, which converted them at setup). Not thread-safe: one apply() at a time.
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace = typename ExecSpace::memory_space>
class SpmvOperator {
 public:
  using clock_type = std::function<double()>;  ///< seconds, monotone

  /// InvalidArgument (naming the algorithm) for bad options, inconsistent extents, or, with
  /// check_structure, a malformed matrix.
  SpmvOperator(SpmvAlgorithm algorithm, const CsrMatrix<Scalar, MemSpace>& a, const SpmvOptions& options = {},
               const ExecSpace& space = ExecSpace());

  /// y = alpha*A*x + beta*y (conventions as csr_v1). With csr_coop and autotuning, the calls
  /// while the tuner searches are timed (candidate parameters, correct results; with
  /// tuner.runs_per_call > 1 or tuner.paired a call also runs the candidate again, or the best
  /// point beside it, on a scratch output, and y still changes once): by
  /// backend::DeviceTimer on the operator's instance (device events where the backend has them,
  /// else fences around a steady clock), or by the clock of set_clock().
  void apply(nondeduced_t<Scalar> alpha, const nondeduced_t<ConstVector<Scalar, MemSpace>>& x,
             nondeduced_t<Scalar> beta, const nondeduced_t<Vector<Scalar, MemSpace>>& y);

  /// The algorithm that runs (the choice, when constructed with automatic).
  SpmvAlgorithm algorithm() const { return algorithm_; }
  bool automatic() const { return automatic_; }
  ordinal_t nrows() const { return a_.nrows; }
  ordinal_t ncols() const { return a_.ncols; }
  offset_t nnz() const { return a_.nnz(); }
  /// Wall time of the setup (plan building, SELL conversion and copy; the structure check
  /// excluded), in seconds: what an algorithm costs before its first product.
  double setup_seconds() const { return setup_seconds_; }
  SpmvTraffic traffic(bool reads_y) const;
  /// Parameters csr_coop uses for the next product (the tuner's candidate or best); CoopParams{}
  /// for other algorithms.
  CoopParams coop_params() const;
  /// csr_coop's tuner (null without autotuning and for other algorithms).
  const CoopTuner* tuner() const;
  /// csr_v2's plan (null for other algorithms).
  const CsrV2Plan<Scalar, MemSpace>* csr_v2_plan() const;
  /// The SELL part (of the HYB split when sell.hyb_row_max != 0); null for other algorithms.
  const SellMatrix<Scalar, MemSpace>* sell_matrix() const;
  const HybMatrix<Scalar, MemSpace>* hyb_matrix() const;
  /// The column-panel copy of the matrix; null for other algorithms.
  const ColumnPanelMatrix<Scalar, MemSpace>* column_panel_matrix() const;
  /// One line: algorithm and its parameters, e.g. "csr_coop coop=4 repeat=8 block=128 (tuned)".
  std::string describe() const;
  /// Replace the tuner's time source (tests inject a synthetic clock), read after a fence
  /// before and after each timed product.
  void set_clock(clock_type clock);

 private:
  SpmvAlgorithm algorithm_;
  bool automatic_ = false;
  ExecSpace space_;
  CsrMatrix<Scalar, MemSpace> a_;
  SpmvOptions options_;
  double setup_seconds_ = 0;
  /// The algorithm's state (algorithms.def's dispatch table made it); shared by copies.
  std::shared_ptr<detail::SpmvKernel<ExecSpace, Scalar, MemSpace>> kernel_;
  struct XWindow;  ///< persist_x: the window, restored when the last copy goes
  std::shared_ptr<XWindow> x_window_;
  void keep_x_in_l2(const ConstVector<Scalar, MemSpace>& x);
};

}  // namespace ppsparse::spmv
