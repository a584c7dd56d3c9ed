#pragma once
// Public entry point of the scalar SpMV family: pick an algorithm by name, set it up once
// for a matrix, apply it many times.
//
//   auto op = spmv::SpmvOperator<Kokkos::DefaultExecutionSpace, double>(
//       spmv::parse_spmv_algorithm("csr_v2"), A);
//   op.apply(1.0, x, 0.0, y);   // y = A x
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/sell.hpp>
#include <ppsparse/spmv/coop_tuner.hpp>
#include <ppsparse/spmv/csr_coop.hpp>
#include <ppsparse/spmv/csr_v1.hpp>
#include <ppsparse/spmv/csr_v2.hpp>
#include <ppsparse/spmv/hyb.hpp>
#include <ppsparse/spmv/sell_spmv.hpp>
#include <ppsparse/spmv/traffic.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

enum class SpmvAlgorithm { csr_v1, csr_v2, csr_coop, sell };

// "csr_v1", "csr_v2", "csr_coop", "sell".
const char* to_string(SpmvAlgorithm algorithm);
const std::vector<SpmvAlgorithm>& all_spmv_algorithms();
// Inverse of to_string. InvalidArgument on any other name:
//   "unknown SpMV algorithm 'csr_v3' (valid: csr_v1, csr_v2, csr_coop, sell)".
SpmvAlgorithm parse_spmv_algorithm(const std::string& name);

struct SpmvOptions {
  CsrV2Options csr_v2;                // csr_v2 plan options
  std::optional<CoopParams> coop;     // csr_coop: these parameters instead of the fixed rule
  bool coop_autotune = true;          // csr_coop: tune over the first apply() calls
  CoopTunerOptions tuner;             // csr_coop: tuner options
  SellOptions sell;                   // sell: C, sigma, and the HYB tail (hyb_row_max)
  bool check_structure = true;        // check the matrix once at setup (check_csr_structure)
};

// Owns everything an algorithm needs between products: the csr_v2 plan, the SELL copy of
// the matrix, the csr_coop parameters and tuner. The matrix's views are shared (not copied):
// change its values and the next apply() uses them (except for sell, which converted them
// at setup). Not thread-safe: one apply() at a time.
// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace = typename ExecSpace::memory_space>
class SpmvOperator {
 public:
  using clock_type = std::function<double()>;  // seconds, monotone

  // InvalidArgument (naming the algorithm) for bad options, inconsistent extents, or, with
  // check_structure, a malformed matrix.
  SpmvOperator(SpmvAlgorithm algorithm, const CsrMatrix<Scalar, MemSpace>& a, const SpmvOptions& options = {},
               const ExecSpace& space = ExecSpace());

  // y = alpha*A*x + beta*y (conventions as csr_v1). With csr_coop and autotuning, the calls
  // while the tuner searches are fenced and timed (candidate parameters, correct results).
  void apply(nondeduced_t<Scalar> alpha, const nondeduced_t<ConstVector<Scalar, MemSpace>>& x,
             nondeduced_t<Scalar> beta, const nondeduced_t<Vector<Scalar, MemSpace>>& y);

  SpmvAlgorithm algorithm() const { return algorithm_; }
  ordinal_t nrows() const { return a_.nrows; }
  ordinal_t ncols() const { return a_.ncols; }
  offset_t nnz() const { return a_.nnz(); }
  // Wall time of the setup (plan building, SELL conversion and copy; the structure check
  // excluded), in seconds: what an algorithm costs before its first product.
  double setup_seconds() const { return setup_seconds_; }
  SpmvTraffic traffic(bool reads_y) const;
  // Parameters csr_coop uses for the next product (the tuner's candidate or best).
  CoopParams coop_params() const;
  const CoopTuner* tuner() const { return tuner_.get(); }
  const CsrV2Plan<Scalar, MemSpace>* csr_v2_plan() const { return v2_plan_.get(); }
  // The SELL part (of the HYB split when sell.hyb_row_max != 0); null for other algorithms.
  const SellMatrix<Scalar, MemSpace>* sell_matrix() const { return hyb_ ? &hyb_->sell : sell_.get(); }
  const HybMatrix<Scalar, MemSpace>* hyb_matrix() const { return hyb_.get(); }
  // One line: algorithm and its parameters, e.g. "csr_coop coop=4 repeat=8 block=128 (tuned)".
  std::string describe() const;
  // Replace the tuner's time source (tests inject a synthetic clock).
  void set_clock(clock_type clock) { clock_ = std::move(clock); }

 private:
  SpmvAlgorithm algorithm_;
  ExecSpace space_;
  CsrMatrix<Scalar, MemSpace> a_;
  SpmvOptions options_;
  double setup_seconds_ = 0;
  std::shared_ptr<CsrV2Plan<Scalar, MemSpace>> v2_plan_;
  std::shared_ptr<SellMatrix<Scalar, MemSpace>> sell_;
  std::shared_ptr<HybMatrix<Scalar, MemSpace>> hyb_;
  CoopParams coop_;
  std::shared_ptr<CoopTuner> tuner_;
  clock_type clock_;
};

}  // namespace ppsparse::spmv
