// LevelOrderedMatrix (mpk/matrix_power.hpp): the matrix in level order, its format and its
// back-to-back baseline.
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/reorder/bfs_levels.hpp>
#include <ppsparse/spmv/sell_spmv.hpp>

#include "matrix_power_internal.hpp"

namespace ppsparse::mpk {

using namespace detail;

template <class ExecSpace, class Scalar, class MemSpace>
LevelOrderedMatrix<ExecSpace, Scalar, MemSpace>::LevelOrderedMatrix(const CsrMatrix<Scalar, HostSpace>& a,
                                                                    const LevelMatrixOptions& options,
                                                                    const ExecSpace& space)
    : space_(space) {
  const double t0 = seconds_now();
  constexpr bool gpu = compat::is_gpu_space<ExecSpace>();
  if (a.nrows != a.ncols)
    throw InvalidArgument("mpk: the matrix is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) +
                          "; matrix powers need a square matrix");
  validate(a, "mpk matrix");
  if (options.sell_chunk < 0 || (gpu && options.sell_chunk > 0 && !is_power_of_two(options.sell_chunk)))
    throw InvalidArgument("mpk: sell_chunk " + std::to_string(options.sell_chunk) + " must be >= 1" +
                          (gpu ? " and a power of two on GPUs" : "") + ", or 0 (SELL SpMV's rule)");
  if (options.index_bits != 0 && options.index_bits != 16 && options.index_bits != 32)
    throw InvalidArgument("mpk: index_bits " + std::to_string(options.index_bits) + " must be 0, 16 or 32");
  format_ = options.format == MpkFormat::automatic ? (gpu ? MpkFormat::sell : MpkFormat::csr) : options.format;
  // 0: the chunk SELL SpMV would choose (spmv::sell_resolve_options: one lane per row on GPUs
  // up to 64 entries per row), faster than C = 8 with four lanes (docs/perf/kernel_choices.md,
  // "MPK SELL chunk").
  const double mean_row = a.nrows ? static_cast<double>(a.nnz()) / a.nrows : 1.0;
  chunk_ = options.sell_chunk ? options.sell_chunk : spmv::sell_resolve_options<ExecSpace>({}, mean_row).C;

  // The levels: BFS, or the input's own numbering where its adjacent levels are narrower (see
  // MpkOrdering): a block's dependencies then end sooner after it.
  BfsLevels levels;
  {
    const Graph graph = graph_of(a);
    ordering_ = options.ordering == MpkOrdering::input ? MpkOrdering::input : MpkOrdering::bfs;
    levels = ordering_ == MpkOrdering::input ? input_order_levels(graph) : bfs_levels(graph);
    if (options.ordering == MpkOrdering::automatic) {
      BfsLevels input = input_order_levels(graph);
      if (widest_adjacent_levels(input) < widest_adjacent_levels(levels)) {
        levels = std::move(input);
        ordering_ = MpkOrdering::input;
      }
    }
  }
  perm_ = levels.perm;
  level_offsets_ = levels.level_offsets;
  host_ = permute(a, perm_);
  device_ = copy_to<MemSpace>(host_);
  if (format_ == MpkFormat::sell) {
    auto sell_host = csr_to_sell(host_, chunk_, 1);
    // 16-bit column offsets (10 bytes per FP64 entry, not 12), as SELL SpMV uses them: the
    // level order keeps a stencil's or a mesh's columns near their rows.
    sell_apply_index_bits(sell_host, options.index_bits, "mpk (level order)", "index_bits");
    host_chunk_len_.assign(sell_host.chunk_len.data(), sell_host.chunk_len.data() + sell_host.nchunks);
    sell_ = std::make_shared<SellMatrix<Scalar, MemSpace>>(copy_to<MemSpace>(sell_host));
  }
  new_to_old_ = Kokkos::View<ordinal_t*, MemSpace>("mpk.new_to_old", static_cast<size_t>(a.nrows));
  {
    Kokkos::View<const ordinal_t*, HostSpace, Kokkos::MemoryUnmanaged> h(perm_.new_to_old.data(),
                                                                         perm_.new_to_old.size());
    Kokkos::deep_copy(new_to_old_, h);
  }

  // The baseline: the named SpMV kernel, or the fastest on this matrix (median of 3 timed products).
  using Op = spmv::SpmvOperator<ExecSpace, Scalar, MemSpace>;
  auto make = [&](spmv::SpmvAlgorithm alg) {
    spmv::SpmvOptions o;
    o.check_structure = false;  // validated above
    o.coop_autotune = gpu;      // on CPUs csr_coop has one candidate
    return std::make_shared<Op>(alg, device_, o, space_);
  };
  if (options.baseline || a.nrows == 0) {
    baseline_ = make(options.baseline.value_or(spmv::SpmvAlgorithm::csr_v1));
  } else {
    Kokkos::View<Scalar*, MemSpace> x("mpk.baseline_x", static_cast<size_t>(a.nrows));
    Kokkos::View<Scalar*, MemSpace> y("mpk.baseline_y", static_cast<size_t>(a.nrows));
    Kokkos::deep_copy(x, Scalar(1));
    double best = 0;
    for (spmv::SpmvAlgorithm alg : spmv::all_spmv_algorithms()) {
      auto op = make(alg);
      for (int i = 0; i < 400 && op->tuner() && !op->tuner()->done(); ++i) op->apply(1, x, 0, y);
      op->apply(1, x, 0, y);  // warm-up
      std::vector<double> t;
      for (int r = 0; r < 3; ++r) {
        space_.fence();
        const double s = seconds_now();
        op->apply(1, x, 0, y);
        space_.fence();
        t.push_back(seconds_now() - s);
      }
      const double m = median_of(t);
      if (!baseline_ || m < best) {
        best = m;
        baseline_ = op;
      }
    }
  }
  space_.fence();
  setup_seconds_ = seconds_now() - t0;
}

template <class ExecSpace, class Scalar, class MemSpace>
offset_t LevelOrderedMatrix<ExecSpace, Scalar, MemSpace>::stored_entries(ordinal_t row_begin, ordinal_t row_end) const {
  if (format_ == MpkFormat::sell) {  // whole chunks
    offset_t e = 0;
    for (ordinal_t c = row_begin / chunk_; c < (row_end + chunk_ - 1) / chunk_; ++c)
      e += static_cast<offset_t>(host_chunk_len_[c]) * chunk_;
    return e;
  }
  return host_.row_ptr(row_end) - host_.row_ptr(row_begin);
}

template <class ExecSpace, class Scalar, class MemSpace>
double LevelOrderedMatrix<ExecSpace, Scalar, MemSpace>::row_matrix_bytes(ordinal_t r) const {
  const double entry = static_cast<double>(sizeof(Scalar)) + column_bytes();
  if (format_ == MpkFormat::sell)
    return host_chunk_len_[r / chunk_] * entry + sizeof(ordinal_t) + static_cast<double>(sizeof(offset_t)) / chunk_;
  return static_cast<double>(host_.row_ptr(r + 1) - host_.row_ptr(r)) * entry + sizeof(offset_t);
}

template <class ExecSpace, class Scalar, class MemSpace>
double LevelOrderedMatrix<ExecSpace, Scalar, MemSpace>::matrix_bytes() const {
  const double entry = static_cast<double>(sizeof(Scalar)) + column_bytes();
  if (format_ == MpkFormat::sell)
    return static_cast<double>(sell_->stored()) * entry + static_cast<double>(sell_->nchunks + 1) * sizeof(offset_t) +
           static_cast<double>(sell_->row_len.extent(0)) * sizeof(ordinal_t);
  return static_cast<double>(host_.nnz()) * entry + static_cast<double>(host_.nrows + 1) * sizeof(offset_t);
}

template class LevelOrderedMatrix<DefaultExecSpace, float, DefaultMemSpace>;
template class LevelOrderedMatrix<DefaultExecSpace, double, DefaultMemSpace>;

}  // namespace ppsparse::mpk
