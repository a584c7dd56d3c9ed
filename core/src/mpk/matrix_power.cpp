#include <ppsparse/mpk/matrix_power.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <type_traits>

#include <ppsparse/backend/multiprocessors.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/mpk/last_level_cache.hpp>
#include <ppsparse/reorder/bfs_levels.hpp>
#include <ppsparse/spmv/sell_spmv.hpp>

#include "row_block_kernels.hpp"

#if PPSPARSE_KOKKOS_HAS_GRAPH
#include <Kokkos_Graph.hpp>
#endif

namespace ppsparse::mpk {
namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Seconds as microseconds with one decimal, for automatic_timing().
std::string format_us(double seconds) {
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

bool is_power_of_two(long long v) { return v > 0 && (v & (v - 1)) == 0; }

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

}  // namespace

// ---------------------------------------------------------------------------------------
// LevelOrderedMatrix

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
  // up to 64 entries per row). On an H100 (stencil7/27 at 2x the L2, p = 4, 8) the persistent
  // kernel ran at 0.71-0.79x back-to-back with C = 32, one lane per row, against 0.25-0.51x
  // with C = 8 and four lanes (docs/perf/mpk_h100.md).
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

// ---------------------------------------------------------------------------------------
// MatrixPowerKernel

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

template <class ExecSpace, class Scalar, class MemSpace>
MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::MatrixPowerKernel(const CsrMatrix<Scalar, HostSpace>& a,
                                                                  const MpkOptions& options, const ExecSpace& space)
    : MatrixPowerKernel(std::make_shared<Matrix>(a, options.matrix, space), options) {}

template <class ExecSpace, class Scalar, class MemSpace>
MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::~MatrixPowerKernel() = default;

template <class ExecSpace, class Scalar, class MemSpace>
MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::MatrixPowerKernel(std::shared_ptr<Matrix> matrix,
                                                                  const MpkOptions& options)
    : matrix_(std::move(matrix)), options_(options), impl_(std::make_unique<Impl>()) {
  const double t0 = seconds_now();
  constexpr bool gpu = compat::is_gpu_space<ExecSpace>();
  constexpr int W = compat::vector_width_for<ExecSpace>();
  const std::string who = "mpk";
  if (!matrix_) throw InvalidArgument(who + ": no level-ordered matrix given");
  const MpkOptions& o = options_;
  if (o.powers < 1 || o.powers > 4096)
    throw InvalidArgument(who + ": powers must be in [1, 4096] (got " + std::to_string(o.powers) + ")");
  if (!(o.cache_fraction > 0 && o.cache_fraction <= 16))
    throw InvalidArgument(who + ": cache_fraction must be in (0, 16] (got " + std::to_string(o.cache_fraction) + ")");
  live_groups(o.powers, o.skew);  // checks the skew
  if (o.align_rows < 0) throw InvalidArgument(who + ": align_rows must be >= 0");
  if (o.rows_per_block < 0) throw InvalidArgument(who + ": rows_per_block must be >= 0");
  if (o.dependency_rows < 0) throw InvalidArgument(who + ": dependency_rows must be >= 0");
  if (o.vector_length != 0 && (!is_power_of_two(o.vector_length) || o.vector_length > std::max(W, 1)))
    throw InvalidArgument(who + ": vector_length " + std::to_string(o.vector_length) +
                          " must be a power of two <= " + std::to_string(W) + " on this device");
  if (o.team_threads < 0 || (!gpu && o.team_threads > 1))
    throw InvalidArgument(who + ": team_threads must be >= 0 (and at most 1 on CPUs)");
  if (o.persistent_teams < 0) throw InvalidArgument(who + ": persistent_teams must be >= 0");
  if (o.spin_limit < 1) throw InvalidArgument(who + ": spin_limit must be >= 1");
  if (o.row_batch != 0 && o.row_batch != 1 && o.row_batch != 8 && o.row_batch != 16)
    throw InvalidArgument(who + ": row_batch must be 0 (the rule), 1, 8 or 16 (got " + std::to_string(o.row_batch) +
                          ")");
  if (o.pipelined_rows_in_flight < 0 || o.pipelined_rows_in_flight > 2)
    throw InvalidArgument(who + ": pipelined_rows_in_flight must be 0 (the rule), 1 or 2 (got " +
                          std::to_string(o.pipelined_rows_in_flight) + ")");
  if (o.pipelined_powers_per_pass < 0 || o.pipelined_powers_per_pass > o.powers)
    throw InvalidArgument(who + ": pipelined_powers_per_pass must be 0 (the rule) or 1 to p = " +
                          std::to_string(o.powers) + " (got " + std::to_string(o.pipelined_powers_per_pass) + ")");

  const Matrix& m = *matrix_;
  const ordinal_t n = m.nrows();
  const int p = o.powers;
  const bool sell = m.format() == MpkFormat::sell;

  // Cache budget and groups.
  llc_ = last_level_cache_bytes(m.space());
  cache_budget_ =
      o.cache_bytes ? o.cache_bytes : static_cast<std::size_t>(o.cache_fraction * static_cast<double>(llc_));
  std::vector<double> row_bytes(static_cast<size_t>(n));
  for (ordinal_t r = 0; r < n; ++r) row_bytes[r] = m.row_matrix_bytes(r) + 2.0 * sizeof(Scalar);
  const double group_bytes = static_cast<double>(cache_budget_) / live_groups(p, o.skew);
  const ordinal_t align = o.align_rows ? o.align_rows : std::max<ordinal_t>(32, sell ? m.sell_chunk() : 1);
  schedule_ = make_wavefront_schedule(
      merge_levels(m.host_matrix(), m.level_offsets(), row_bytes, std::max(group_bytes, 1.0), align), p, o.skew);
  check_schedule(schedule_, m.host_matrix());

  // Kernel geometry.
  if (gpu) {
    if (o.vector_length) {
      vector_length_ = o.vector_length;
    } else if (sell) {
      vector_length_ = std::max(1, W / m.sell_chunk());
    } else {  // as csr_coop's fixed rule: the smallest power of two >= sqrt(average row length)
      const double avg = n ? static_cast<double>(m.nnz()) / n : 1.0;
      vector_length_ = 1;
      while (vector_length_ < W && vector_length_ < std::sqrt(avg)) vector_length_ *= 2;
    }
    team_size_ = std::max(1, (o.team_threads ? o.team_threads : 128) / vector_length_);
  } else {
    vector_length_ = 1;
    team_size_ = 1;
  }
  // Entries a lane loads before its gathers (detail::row_dot). On an H100 (stencils and bands
  // at 2x and 8x the L2, p = 2..8) the rule took the persistent kernel from 0.51-0.89x to
  // 0.72-1.34x back-to-back (0.74-1.42x with the register bounds of
  // detail::persistent_min_teams_per_sm); 16 beats 8 on 27 entries per row and loses on 7.
  if (o.row_batch) {
    row_batch_ = o.row_batch;
  } else if (gpu) {
    const double per_lane = n ? static_cast<double>(m.nnz()) / n / vector_length_ : 0.0;
    row_batch_ = per_lane > 12 ? 16 : 8;
  } else {
    row_batch_ = 1;
  }
  // Persistent teams: the co-resident bound (see the header), or one team where it is unknown.
  long long team_bound = 1;
  if (gpu)
    team_bound = std::max<long long>(1, m.space().concurrency() / (team_size_ * vector_length_));
  else if (!is_serial_space<ExecSpace>())
    team_bound = std::max<long long>(1, m.space().concurrency());
  if (o.persistent_teams) team_bound = std::min<long long>(team_bound, o.persistent_teams);
  // Rows per block. CPUs: 1024 (a team is one thread). GPUs: the rows all persistent teams
  // hold at once should stay within a quarter of the cache budget, or the wavefront they
  // work on outgrows the cache: budget / 4 / (teams x bytes per row), as a power of two in
  // [32, 256] (whole warps of rows, multiples of C).
  if (o.rows_per_block) {
    rows_per_block_ = o.rows_per_block;
  } else if (gpu) {
    const double row_bytes_avg = n ? m.matrix_bytes() / n + 2.0 * sizeof(Scalar) : 1.0;
    const double fit = static_cast<double>(cache_budget_) / 4.0 / (static_cast<double>(team_bound) * row_bytes_avg);
    rows_per_block_ = 32;
    while (rows_per_block_ < 256 && 2.0 * rows_per_block_ <= fit) rows_per_block_ *= 2;
    if (sell) rows_per_block_ = std::max<ordinal_t>(rows_per_block_, m.sell_chunk());
    // A row for every team thread, two where a row's share of a lane fits one batch of 8:
    // on an H100 the 7-entry rows of stencil7 and band7 (2x and 8x the L2, p = 4, 8) ran at
    // 0.83-1.18x back-to-back with 256-row blocks against 0.58-0.97x with 128, while band27
    // lost with 256 (0.88-0.97x against 1.15-1.33x).
    rows_per_block_ = std::max<ordinal_t>(rows_per_block_, team_size_ * (row_batch_ == 8 ? 2 : 1));
  } else {
    rows_per_block_ = 1024;
  }
  // Rows a pipelined team thread computes at once: two where it has two and a row has one lane.
  if (o.pipelined_rows_in_flight == 2 && vector_length_ != 1)
    throw InvalidArgument(who + ": pipelined_rows_in_flight 2 needs one vector lane per row (vector_length is " +
                          std::to_string(vector_length_) + ")");
  pipelined_rows_in_flight_ = o.pipelined_rows_in_flight
                                  ? o.pipelined_rows_in_flight
                                  : (vector_length_ == 1 && rows_per_block_ >= 2 * team_size_ ? 2 : 1);

  // Row blocks: each group cut into blocks of rows_per_block rows (the same at every power),
  // and runs of blocks into dependency segments of about dependency_rows rows. The persistent
  // kernel counts finished blocks per (segment, power); a block at power k waits for the
  // segments of y_{k-1} that hold the columns its rows read, not for whole neighbouring tiles,
  // so the wavefront does not stall at every tile boundary.
  const ordinal_t G = schedule_.ngroups();
  const long long seg_rows = o.dependency_rows ? o.dependency_rows : 1024;
  const ordinal_t blocks_per_segment = static_cast<ordinal_t>(
      std::min<long long>(n + 1LL, std::max<long long>(1, (seg_rows + rows_per_block_ - 1) / rows_per_block_)));
  std::vector<ordinal_t> row_block_offsets{0}, segment_offsets{0};
  std::vector<ordinal_t> row_block_segment;
  std::vector<detail::Counter> segment_blocks;
  std::vector<ordinal_t> group_first_row_block(static_cast<size_t>(G) + 1, 0);
  for (ordinal_t g = 0; g < G; ++g) {
    group_first_row_block[g] = static_cast<ordinal_t>(row_block_offsets.size()) - 1;
    const ordinal_t end = schedule_.group_offsets[g + 1];
    ordinal_t in_segment = 0;
    for (ordinal_t r = schedule_.group_offsets[g]; r < end; r += rows_per_block_) {
      if (in_segment == blocks_per_segment) {
        segment_offsets.push_back(r);
        segment_blocks.push_back(static_cast<detail::Counter>(in_segment));
        in_segment = 0;
      }
      row_block_segment.push_back(static_cast<ordinal_t>(segment_blocks.size()));
      row_block_offsets.push_back(std::min<ordinal_t>(end, r + rows_per_block_));
      ++in_segment;
    }
    if (in_segment) {
      segment_offsets.push_back(end);
      segment_blocks.push_back(static_cast<detail::Counter>(in_segment));
    }
  }
  group_first_row_block[G] = static_cast<ordinal_t>(row_block_offsets.size()) - 1;
  const ordinal_t S = static_cast<ordinal_t>(segment_blocks.size());
  nsegments_ = S;
  // Dependencies of each row block: the segments from the one holding its smallest column to
  // the one holding its largest. check_schedule has verified that every row reads only its own
  // and the neighbouring groups, so these segments lie in tiles that come earlier in the order.
  const auto& h = m.host_matrix();
  auto segment_of = [&](ordinal_t row) {
    return static_cast<ordinal_t>(std::upper_bound(segment_offsets.begin(), segment_offsets.end(), row) -
                                  segment_offsets.begin()) -
           1;
  };
  const ordinal_t nrow_blocks = static_cast<ordinal_t>(row_block_offsets.size()) - 1;
  std::vector<ordinal_t> dep_lo(static_cast<size_t>(nrow_blocks)), dep_hi(static_cast<size_t>(nrow_blocks));
  for (ordinal_t b = 0; b < nrow_blocks; ++b) {
    ordinal_t cmin = row_block_offsets[b], cmax = row_block_offsets[b + 1] - 1;
    for (offset_t e = h.row_ptr(row_block_offsets[b]); e < h.row_ptr(row_block_offsets[b + 1]); ++e) {
      cmin = std::min(cmin, h.col_idx(e));
      cmax = std::max(cmax, h.col_idx(e));
    }
    dep_lo[b] = segment_of(cmin);
    dep_hi[b] = segment_of(cmax);
  }

  // Blocks in schedule order, and where each launch starts.
  std::vector<detail::Block> blocks;
  launch_block_offsets_.assign(1, 0);
  for (int l = 0; l < schedule_.nlaunches(); ++l) {
    for (int t = schedule_.launch_offsets[l]; t < schedule_.launch_offsets[l + 1]; ++t) {
      const Tile tile = schedule_.order[t];
      for (ordinal_t b = group_first_row_block[tile.group]; b < group_first_row_block[tile.group + 1]; ++b)
        blocks.push_back(detail::Block{row_block_offsets[b], row_block_offsets[b + 1], tile.group, tile.power,
                                       row_block_segment[b], dep_lo[b], dep_hi[b]});
    }
    launch_block_offsets_.push_back(static_cast<long long>(blocks.size()));
  }
  total_blocks_ = static_cast<long long>(blocks.size());
  impl_->blocks = Kokkos::View<detail::Block*, MemSpace>("mpk.blocks", blocks.size());
  impl_->segment_blocks = Kokkos::View<detail::Counter*, MemSpace>("mpk.segment_blocks", segment_blocks.size());
  Kokkos::deep_copy(impl_->blocks, Kokkos::View<const detail::Block*, HostSpace, Kokkos::MemoryUnmanaged>(
                                       blocks.data(), blocks.size()));
  Kokkos::deep_copy(impl_->segment_blocks, Kokkos::View<const detail::Counter*, HostSpace, Kokkos::MemoryUnmanaged>(
                                               segment_blocks.data(), segment_blocks.size()));
  impl_->done = Kokkos::View<detail::Counter*, MemSpace>("mpk.done", static_cast<size_t>(S) * p);
  impl_->ticket = Kokkos::View<detail::Counter*, MemSpace>("mpk.ticket", 1);
  impl_->stalled = Kokkos::View<long long*, MemSpace>("mpk.stalled", 1);

  persistent_teams_ = static_cast<int>(std::max<long long>(1, std::min<long long>(team_bound, total_blocks_)));

  // Pipelined kernel: the same row blocks and segments, in row order.
  {
    std::vector<detail::Block> row_blocks;
    row_blocks.reserve(static_cast<size_t>(nrow_blocks));
    for (ordinal_t g = 0; g < G; ++g)
      for (ordinal_t b = group_first_row_block[g]; b < group_first_row_block[g + 1]; ++b)
        row_blocks.push_back(detail::Block{row_block_offsets[b], row_block_offsets[b + 1], g, 0, row_block_segment[b],
                                           dep_lo[b], dep_hi[b]});
    impl_->row_blocks = Kokkos::View<detail::Block*, MemSpace>("mpk.row_blocks", row_blocks.size());
    Kokkos::deep_copy(impl_->row_blocks, Kokkos::View<const detail::Block*, HostSpace, Kokkos::MemoryUnmanaged>(
                                             row_blocks.data(), row_blocks.size()));
    // Reach: how many row blocks past its own a block's dependencies may end (the last block of
    // its last dependency segment).
    std::vector<ordinal_t> segment_last_block(static_cast<size_t>(S), 0);
    for (ordinal_t b = 0; b < nrow_blocks; ++b) segment_last_block[row_block_segment[b]] = b;
    pipelined_reach_ = 0;
    offset_t largest = 0;
    for (ordinal_t b = 0; b < nrow_blocks; ++b) {
      pipelined_reach_ = std::max<long long>(pipelined_reach_, segment_last_block[dep_hi[b]] - b);
      largest = std::max(largest, m.stored_entries(row_block_offsets[b], row_block_offsets[b + 1]));
    }
    plan_pipelined(largest, team_bound, nrow_blocks);
  }

  work_ = MultiVector("mpk.work", static_cast<size_t>(n), static_cast<size_t>(p) + 1);

  // The model's estimate.
  MpkShape shape;
  shape.spmv_bytes = m.matrix_bytes() + 2.0 * n * sizeof(Scalar);
  shape.vector_bytes = static_cast<double>(n) * sizeof(Scalar);
  shape.powers = p;
  shape.launches = schedule_.nlaunches();
  shape.tiles = static_cast<long long>(G) * p;
  shape.cache_bytes = static_cast<double>(cache_budget_);
  shape.graph_native = graph_is_native();
  shape.pipelined_native = pipelined_fallback_.empty();
  shape.pipelined_passes = static_cast<int>(std::max<size_t>(1, pipelined_passes_.size()));
  estimate_ = estimate_mpk(shape, o.model.value_or(default_device_model<ExecSpace>()));
  setup_seconds_ = seconds_now() - t0;
}

template <class ExecSpace, class Scalar, class MemSpace>
bool MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::graph_is_native() const {
  return PPSPARSE_KOKKOS_HAS_GRAPH != 0;
}

template <class ExecSpace, class Scalar, class MemSpace>
MpkTraffic MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::traffic() const {
  const double n = matrix_->nrows(), nnz = static_cast<double>(matrix_->nnz());
  const int p = powers();
  MpkTraffic t;
  t.spmv_bytes = spmv::csr_min_bytes<Scalar>(matrix_->nrows(), matrix_->nrows(), matrix_->nnz(), false);
  t.back_to_back_bytes = p * t.spmv_bytes;
  t.blocked_bytes =
      nnz * (sizeof(Scalar) + sizeof(ordinal_t)) + (n + 1) * sizeof(offset_t) + (p + 1) * n * sizeof(Scalar);
  t.flops = 2.0 * nnz * p;
  return t;
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::apply(MpkVariant variant, const ConstVector& x,
                                                           const MultiVector& y) {
  const ordinal_t n = nrows();
  if (static_cast<long long>(x.extent(0)) != n)
    throw InvalidArgument("mpk apply: x has " + std::to_string(x.extent(0)) + " entries, the matrix has " +
                          std::to_string(n) + " rows");
  if (static_cast<long long>(y.extent(0)) != n || static_cast<long long>(y.extent(1)) != powers() + 1)
    throw InvalidArgument("mpk apply: Y is " + std::to_string(y.extent(0)) + " x " + std::to_string(y.extent(1)) +
                          ", expected n x (p+1) = " + std::to_string(n) + " x " + std::to_string(powers() + 1));
  const ExecSpace& space = matrix_->space();
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>;
  Kokkos::parallel_for("ppsparse::mpk_gather_x", Range(space, 0, n),
                       detail::GatherX<Scalar, MemSpace>{work_, x, matrix_->device_new_to_old()});
  apply_internal(variant);
  Kokkos::parallel_for("ppsparse::mpk_scatter_y", Range(space, 0, n),
                       detail::ScatterY<Scalar, MemSpace>{y, work_, matrix_->device_new_to_old(), powers() + 1});
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::apply_internal(MpkVariant variant) {
  // variants.def's dispatch table: run_<id> for each variant.
  using Run = void (MatrixPowerKernel::*)();
  static constexpr Run kRun[] = {
#define PPSPARSE_MPK_VARIANT(id, summary) &MatrixPowerKernel::run_##id,
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
  };
  const auto i = static_cast<std::size_t>(resolve(variant));
  if (i >= std::size(kRun)) throw InvalidArgument("mpk: unknown variant");
  (this->*kRun[i])();
}

template <class ExecSpace, class Scalar, class MemSpace>
MpkVariant MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::resolve(MpkVariant variant) {
  if (variant == MpkVariant::pipelined && !pipelined_fallback_.empty()) return MpkVariant::persistent;
  if (variant != MpkVariant::automatic) return variant;
  if (!automatic_choice_) {
    MpkVariant choice = estimate_.best;
    automatic_timing_ = !options_.verify_automatic ? "not timed (verify_automatic off)"
                        : nrows() == 0             ? "not timed (no rows)"
                        : !estimate_.worth_timing  ? "not timed (the model's choice: back_to_back)"
                                                   : "";
    if (automatic_timing_.empty()) {
      // The model's two best blocked variants (graph only where it differs from blocked),
      // timed against back_to_back in interleaved rounds (so that drift hits all alike); a
      // blocked variant must beat back_to_back by 2% to be chosen (noise favours nobody).
      // Also where the model prefers back_to_back by less than kAutomaticTimingMargin
      // (MpkEstimate::worth_timing).
      std::vector<MpkVariant> candidates{MpkVariant::back_to_back};
      std::vector<MpkVariant> ranked;
      for (MpkVariant v : concrete_variants())
        if (v != MpkVariant::back_to_back && (v != MpkVariant::graph || graph_is_native()) &&
            (v != MpkVariant::pipelined || pipelined_fallback_.empty()))
          ranked.push_back(v);
      std::stable_sort(ranked.begin(), ranked.end(),
                       [&](MpkVariant a, MpkVariant b) { return estimate_.seconds(a) < estimate_.seconds(b); });
      for (size_t i = 0; i < ranked.size() && i < 2; ++i) candidates.push_back(ranked[i]);
      const std::vector<double> t = time_variants(candidates);
      choice = MpkVariant::back_to_back;
      double best = 0.98 * t[0];
      for (size_t i = 1; i < candidates.size(); ++i)
        if (t[i] < best) {
          best = t[i];
          choice = candidates[i];
        }
      automatic_timing_ = "timed (us):";
      for (size_t i = 0; i < candidates.size(); ++i)
        automatic_timing_ += std::string(i ? ", " : " ") + to_string(candidates[i]) + " " + format_us(t[i]);
      // The winner must win again in a second measurement: on launch-bound runs of tens of
      // microseconds one measurement can favour either side by 10-30 %.
      if (choice != MpkVariant::back_to_back) {
        const std::vector<double> again = time_variants({MpkVariant::back_to_back, choice});
        automatic_timing_ += std::string("; again: back_to_back ") + format_us(again[0]) + ", " + to_string(choice) +
                             " " + format_us(again[1]);
        if (!(again[1] < 0.98 * again[0])) choice = MpkVariant::back_to_back;
      }
      automatic_timing_ += std::string(" -> ") + to_string(choice);
    }
    automatic_choice_ = choice;
  }
  return *automatic_choice_;
}

template <class ExecSpace, class Scalar, class MemSpace>
std::vector<double> MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::time_variants(
    const std::vector<MpkVariant>& variants) {
  const ExecSpace& space = matrix_->space();
  for (MpkVariant v : variants) apply_internal(v);  // warm-up (graph capture, first launch)
  // One run of each, timed: runs of a few milliseconds or less are launch-sensitive.
  space.fence();
  const double probe_start = seconds_now();
  for (MpkVariant v : variants) apply_internal(v);
  space.fence();
  const bool short_runs = seconds_now() - probe_start < 0.01;
  std::vector<std::vector<double>> t(variants.size());
  const double start = seconds_now();
  // Short runs: rounds of 8 consecutive runs of each variant, as a solver calls it, alternating
  // so that drift hits all alike; at least 3 rounds and 30 ms. On an H100, one run of each in
  // turn chose graph for two small L2-resident matrices (qh1484, bcsstk09 at p = 8) that then
  // ran at 0.80-0.90x back-to-back; these rounds chose back-to-back there. Runs of tens of
  // microseconds are launch-bound, though, and the choice stays noisy (cage8 at p = 8 went to
  // graph, 0.68x, in one run of two), hence resolve()'s second measurement. Longer runs (CPUs,
  // large matrices): one run of each in turn, at least 5 rounds and 30 ms.
  const int runs = short_runs ? 8 : 1;
  const int min_rounds = short_runs ? 3 : 5;
  for (int round = 0; round < 50 && (round < min_rounds || seconds_now() - start < 0.03); ++round)
    for (size_t i = 0; i < variants.size(); ++i)
      for (int run = 0; run < runs; ++run) {
        space.fence();
        const double s = seconds_now();
        apply_internal(variants[i]);
        space.fence();
        t[i].push_back(seconds_now() - s);
      }
  std::vector<double> medians;
  for (auto& v : t) medians.push_back(median_of(v));
  return medians;
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_back_to_back() {
  auto& op = matrix_->baseline();
  for (int k = 1; k <= powers(); ++k) op.apply(Scalar(1), column(work_, k - 1), Scalar(0), mutable_column(work_, k));
}

namespace {

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

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_blocked() {
  const ExecSpace& space = matrix_->space();
  with_rows(*matrix_, vector_length_, row_batch_, [&](const auto& rows) {
    using Rows = std::decay_t<decltype(rows)>;
    detail::LaunchFunctor<ExecSpace, Scalar, MemSpace, Rows> f{rows, work_, work_, impl_->blocks, 0};
    for (size_t l = 0; l + 1 < launch_block_offsets_.size(); ++l) {
      f.first_block = launch_block_offsets_[l];
      const int nblocks = static_cast<int>(launch_block_offsets_[l + 1] - launch_block_offsets_[l]);
      Kokkos::parallel_for("ppsparse::mpk_blocked_launch",
                           Kokkos::TeamPolicy<ExecSpace>(space, nblocks, team_size_, vector_length_), f);
    }
  });
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_graph() {
#if PPSPARSE_KOKKOS_HAS_GRAPH
  const ExecSpace& space = matrix_->space();
  if (!impl_->graph) {
    with_rows(*matrix_, vector_length_, row_batch_, [&](const auto& rows) {
      using Rows = std::decay_t<decltype(rows)>;
      impl_->graph = Kokkos::Experimental::create_graph(space, [&](const auto& root) {
        Kokkos::Experimental::GraphNodeRef<ExecSpace> node = root;
        for (size_t l = 0; l + 1 < launch_block_offsets_.size(); ++l) {
          detail::LaunchFunctor<ExecSpace, Scalar, MemSpace, Rows> f{rows, work_, work_, impl_->blocks,
                                                                     launch_block_offsets_[l]};
          const int nblocks = static_cast<int>(launch_block_offsets_[l + 1] - launch_block_offsets_[l]);
          node = node.then_parallel_for("ppsparse::mpk_graph_launch",
                                        Kokkos::TeamPolicy<ExecSpace>(space, nblocks, team_size_, vector_length_), f);
        }
      });
    });
    impl_->graph->instantiate();
  }
  impl_->graph->submit(space);
#else
  run_blocked();  // Kokkos < 4: no graph, the same launches one by one
#endif
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_persistent() {
  if (total_blocks_ == 0) return;
  const ExecSpace& space = matrix_->space();
  // Committed with the tickets once the launch is accepted: a launch that Kokkos refuses
  // (throws) must not leave later runs waiting for counts of a run that never happened.
  const std::uint64_t epoch = epoch_ + 1;
  with_rows(*matrix_, vector_length_, row_batch_, [&](const auto& rows) {
    using Rows = std::decay_t<decltype(rows)>;
    detail::PersistentFunctor<ExecSpace, Scalar, MemSpace, Rows> f;
    f.rows = rows;
    f.y_in = work_;
    f.y_out = work_;
    f.blocks = impl_->blocks;
    impl_->set_handoff(f, nsegments_, epoch, options_.spin_limit);
    f.ngroups = schedule_.ngroups();
    f.total_blocks = total_blocks_;
    constexpr int min_teams = detail::persistent_min_teams_per_sm(Rows::batch);
    if constexpr (min_teams > 0) {
      if (team_size_ * vector_length_ == detail::kPersistentBoundThreads) {
        using Bounds = Kokkos::LaunchBounds<detail::kPersistentBoundThreads, min_teams>;
        Kokkos::parallel_for(
            "ppsparse::mpk_persistent",
            Kokkos::TeamPolicy<ExecSpace, Bounds>(space, persistent_teams_, team_size_, vector_length_), f);
        return;
      }
    }
    Kokkos::parallel_for("ppsparse::mpk_persistent",
                         Kokkos::TeamPolicy<ExecSpace>(space, persistent_teams_, team_size_, vector_length_), f);
  });
  epoch_ = epoch;
  // Every team ends with one fetch-add past the last ticket.
  impl_->tickets_issued += static_cast<detail::Counter>(total_blocks_ + persistent_teams_);
  impl_->last_single_launch = MpkVariant::persistent;
  if (options_.check_persistent) check_persistent_status();
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::plan_pipelined(const offset_t largest_block_entries,
                                                                    const long long team_bound,
                                                                    const ordinal_t nrow_blocks) {
  constexpr bool gpu = compat::is_gpu_space<ExecSpace>();
  const int p = powers();
  const std::size_t entry_bytes = sizeof(Scalar) + static_cast<std::size_t>(matrix_->column_bytes());
  pipelined_fallback_.clear();
  pipelined_passes_.clear();
  pipelined_teams_ = pipelined_guaranteed_teams_ = 0;
  pipelined_scratch_entries_ = 0;
  if (nrow_blocks == 0) return;
  // Teams whose residency is guaranteed, the teams launched, and the team scratch each may take.
  long long resident = 0, launched = 0;
  std::size_t scratch_cap = 0;
  if (gpu) {
    const backend::MultiprocessorLimits mp = backend::multiprocessor_limits(matrix_->space());
    const int threads = team_size_ * vector_length_;
    const int min_teams = detail::pipelined_min_teams_per_sm(row_batch_, threads);
    if (mp.count == 0) {
      pipelined_fallback_ = std::string("the residency of teams is unknown on ") + ExecSpace::name();
      return;
    }
    if (min_teams == 0) {
      pipelined_fallback_ = "needs teams of 32, 64 or 128 threads for its register bound (team_threads gives " +
                            std::to_string(threads) + ")";
      return;
    }
    // Shared memory of a team: the kernel's scratch plus Kokkos' own (a dynamic broadcast
    // buffer of team size + 2 doubles, and as much again in static memory on CUDA, 1040
    // bytes for 128 threads), plus what the runtime reserves per team.
    // The register bound asks for min_teams teams per multiprocessor, and Kokkos refuses a
    // launch whose teams' shared memory would not let that many fit: a team's scratch is at
    // most its share (measured: 37 KB teams of 8 per SM were refused). Kokkos' own check
    // (team_size_max) has the last word.
    const std::size_t kokkos_team = 2 * 8 * static_cast<std::size_t>(team_size_ + 2) + 64;
    const std::size_t per_team = mp.shared_bytes / static_cast<std::size_t>(min_teams);
    const std::size_t max_scratch = static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
    scratch_cap = per_team > kokkos_team + mp.reserved_per_team
                      ? std::min(per_team - kokkos_team - mp.reserved_per_team, max_scratch)
                      : 0;
    if (options_.pipelined_scratch_bytes) scratch_cap = std::min(scratch_cap, options_.pipelined_scratch_bytes);
    // The rows' spans (where the functor keeps them) come first; the entries take the rest.
    const std::size_t span_bytes = pipelined_scratch_bytes(0);
    pipelined_scratch_entries_ =
        scratch_cap > span_bytes
            ? std::min<offset_t>(largest_block_entries, static_cast<offset_t>((scratch_cap - span_bytes) / entry_bytes))
            : 0;
    while (!pipelined_launch_accepted()) {
      if (pipelined_scratch_entries_ == 0) {
        pipelined_fallback_ = "Kokkos refuses teams of " + std::to_string(threads) + " threads with its register bound";
        return;
      }
      pipelined_scratch_entries_ = pipelined_scratch_entries_ * 7 / 8;
    }
    const std::size_t team_shared = pipelined_scratch_bytes(pipelined_scratch_entries_) + kokkos_team;
    // Kokkos sets the multiprocessor's shared-memory carve-out for the teams the registers
    // allow (at least min_teams) without the runtime's reserve: count on no more than that.
    const std::size_t carveout = std::min(mp.shared_bytes, static_cast<std::size_t>(min_teams) * team_shared);
    long long per_sm = std::min<long long>(min_teams, mp.max_threads / threads);
    if (mp.max_teams > 0) per_sm = std::min<long long>(per_sm, mp.max_teams);
    // The launch may take more teams than the plan counts on: as many as the whole shared
    // memory allows. Where the runtime's carve-out is larger than the one counted on, they run
    // (ncu on an H100: 8 teams per SM, not 7, for 7-entry rows, and 6, not 5, for 27-entry
    // rows); where not, they wait for a slot, and a team that is not running holds no ticket.
    const long long launch_per_sm = std::min<long long>(
        std::min<long long>(min_teams, mp.max_threads / threads),
        std::min<long long>(mp.max_teams > 0 ? mp.max_teams : min_teams,
                            static_cast<long long>(mp.shared_bytes / (team_shared + mp.reserved_per_team))));
    per_sm = std::min<long long>(per_sm, static_cast<long long>(carveout / (team_shared + mp.reserved_per_team)));
    resident = per_sm * mp.count;
    launched = std::max<long long>(resident, launch_per_sm * mp.count);
  } else {
    // Host teams are threads, all running; one team (Serial) takes the blocks in order.
    resident = team_bound;
    launched = resident;
    pipelined_scratch_entries_ =
        options_.pipelined_scratch_bytes
            ? std::min<offset_t>(largest_block_entries,
                                 static_cast<offset_t>(options_.pipelined_scratch_bytes / entry_bytes))
            : largest_block_entries;
  }
  // Every block of the first (q-1) x reach + 1 unfinished ones must be held by a running team,
  // or the smallest unfinished block can wait forever (see "Pipelined kernel" in the header).
  // q, the powers of one pass: the option's, or p unless that does not fit or more than 60 %
  // of the teams would wait ((q-1) x reach of them; where every block has a team at once,
  // none waits for a team to come free), else the most within both, at least 2 (one power per
  // pass is back-to-back with waits). On an H100 at p = 8, passes of 4 won where 64 % waited
  // with all 8 (stencil7 at 8x the L2: 1.08 -> 1.14x back-to-back) and lost where 49 % did
  // (stencil27 at 2x: 1.20 -> 1.14x) or fewer (band27, stencil7 at 2x; docs/perf/mpk_h100.md).
  auto fits = [&](long long q) { return resident >= (q - 1) * pipelined_reach_ + 1; };
  auto few_wait = [&](long long q) {
    return resident >= nrow_blocks ||
           static_cast<double>((q - 1) * pipelined_reach_) <= 0.6 * static_cast<double>(resident);
  };
  int q = options_.pipelined_powers_per_pass;
  if (q == 0) {
    q = p;
    while (q > 2 && !(fits(q) && few_wait(q))) --q;
  }
  if (!fits(q)) {
    const long long needed = (q - 1) * pipelined_reach_ + 1;
    pipelined_fallback_ = std::to_string(needed) + " teams must run at once ((q-1) x reach " +
                          std::to_string(pipelined_reach_) + " + 1 for q = " + std::to_string(q) +
                          " powers per pass), the device guarantees " + std::to_string(resident);
    pipelined_scratch_entries_ = 0;
    return;
  }
  // ceil(p / q) passes of balanced sizes, the larger first.
  const int passes = (p + q - 1) / q;
  for (int i = 0; i < passes; ++i) pipelined_passes_.push_back(p / passes + (i < p % passes ? 1 : 0));
  pipelined_guaranteed_teams_ = static_cast<int>(std::min<long long>(resident, nrow_blocks));
  pipelined_teams_ = static_cast<int>(std::min<long long>(launched, nrow_blocks));
}

template <class ExecSpace, class Scalar, class MemSpace>
bool MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::pipelined_launch_accepted() const {
  bool accepted = false;
  with_rows(*matrix_, vector_length_, row_batch_, [&](const auto& rows) {
    using Rows = std::decay_t<decltype(rows)>;
    with_pipelined_functor<ExecSpace, Scalar, MemSpace>(rows, pipelined_rows_in_flight_, [&](const auto& functor) {
      using Functor = std::decay_t<decltype(functor)>;
      with_pipelined_policy<ExecSpace, Rows::batch>(
          matrix_->space(), 1, team_size_, vector_length_,
          Functor::scratch_bytes(pipelined_scratch_entries_, rows_per_block_), [&](const auto& policy) {
            accepted = policy.team_size_max(functor, Kokkos::ParallelForTag()) >= team_size_;
          });
    });
  });
  return accepted;
}

template <class ExecSpace, class Scalar, class MemSpace>
std::size_t MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::pipelined_scratch_bytes(const offset_t entries) const {
  std::size_t bytes = 0;
  with_rows(*matrix_, vector_length_, row_batch_, [&](const auto& rows) {
    with_pipelined_functor<ExecSpace, Scalar, MemSpace>(rows, pipelined_rows_in_flight_, [&](const auto& functor) {
      bytes = std::decay_t<decltype(functor)>::scratch_bytes(entries, rows_per_block_);
    });
  });
  return bytes;
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_pipelined() {
  if (!pipelined_fallback_.empty()) {
    run_persistent();
    return;
  }
  const ExecSpace& space = matrix_->space();
  const std::uint64_t epoch = epoch_ + 1;  // committed once the launch is accepted
  const long long nblocks = static_cast<long long>(impl_->row_blocks.extent(0));
  // One launch per pass. The passes of a run share its epoch: every power's counters still
  // count each block once per run. Each launch hands out its own tickets.
  int first_power = 0;
  for (const int pass_powers : pipelined_passes_) {
    with_rows(*matrix_, vector_length_, row_batch_, [&](const auto& rows) {
      using Rows = std::decay_t<decltype(rows)>;
      with_pipelined_functor<ExecSpace, Scalar, MemSpace>(rows, pipelined_rows_in_flight_, [&](auto f) {
        using Functor = decltype(f);
        f.rows = rows;
        f.y_in = work_;
        f.y_out = work_;
        f.blocks = impl_->row_blocks;
        impl_->set_handoff(f, nsegments_, epoch, options_.spin_limit);
        f.nblocks = nblocks;
        f.first_power = first_power;
        f.powers = pass_powers;
        f.scratch_entries = pipelined_scratch_entries_;
        f.block_rows = rows_per_block_;
        with_pipelined_policy<ExecSpace, Rows::batch>(
            space, pipelined_teams_, team_size_, vector_length_,
            Functor::scratch_bytes(pipelined_scratch_entries_, rows_per_block_),
            [&](const auto& policy) { Kokkos::parallel_for("ppsparse::mpk_pipelined", policy, f); });
      });
    });
    epoch_ = epoch;
    impl_->tickets_issued += static_cast<detail::Counter>(nblocks + pipelined_teams_);
    first_power += pass_powers;
  }
  impl_->last_single_launch = MpkVariant::pipelined;
  if (options_.check_persistent) check_persistent_status();
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::check_persistent_status() const {
  long long flag = 0;
  Kokkos::deep_copy(flag, Kokkos::subview(impl_->stalled, 0));  // fences
  if (flag == 0) return;
  const long long code = flag - 1;
  const std::string after = " polls waiting for the dependencies of ";
  const std::string invalid = "; the results of that run are invalid";
  if (impl_->last_single_launch == MpkVariant::pipelined) {
    const long long nblocks = std::max<long long>(1, static_cast<long long>(impl_->row_blocks.extent(0)));
    throw Error("mpk pipelined: a team gave up after " + std::to_string(options_.spin_limit) + after + "row block " +
                std::to_string(code % nblocks) + " at power " + std::to_string(code / nblocks + 1) + invalid);
  }
  const ordinal_t G = std::max<ordinal_t>(1, schedule_.ngroups());
  throw Error("mpk persistent: a team gave up after " + std::to_string(options_.spin_limit) + after + "tile (group " +
              std::to_string(code % G) + ", power " + std::to_string(code / G + 1) + ")" + invalid);
}

template <class ExecSpace, class Scalar, class MemSpace>
std::string MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::describe() const {
  char line[512];
  const Matrix& m = *matrix_;
  std::snprintf(
      line, sizeof line,
      "p=%d format=%s%s order=%s groups=%d launches=%d skew=%d budget=%.3gMB (LLC %.3gMB) blocks=%lld rows/block=%d "
      "segments=%d team=%dx%d row_batch=%d persistent_teams=%d graph=%s baseline=%s",
      powers(), to_string(m.format()),
      m.format() == MpkFormat::sell ? ("-" + std::to_string(m.sell_chunk())).c_str() : "", to_string(m.ordering()),
      schedule_.ngroups(), schedule_.nlaunches(), schedule_.skew, cache_budget_ / 1e6, llc_ / 1e6, total_blocks_,
      rows_per_block_, nsegments_, team_size_, vector_length_, row_batch_, persistent_teams_,
      graph_is_native() ? "kokkos" : "plain-launches", m.baseline_description().c_str());
  auto pass_list = [&] {
    std::string l;
    for (int q : pipelined_passes_) l += (l.empty() ? "" : "+") + std::to_string(q);
    return l;
  };
  std::string pipelined =
      pipelined_fallback_.empty()
          ? " pipelined: teams=" + std::to_string(pipelined_teams_) + " (" +
                std::to_string(pipelined_guaranteed_teams_) + " guaranteed) reach=" + std::to_string(pipelined_reach_) +
                " scratch=" + std::to_string(pipelined_scratch_entries_) +
                " entries rows_in_flight=" + std::to_string(pipelined_rows_in_flight_) + " passes=" + pass_list()
          : " pipelined: runs persistent (" + pipelined_fallback_ + ")";
  return line + pipelined;
}

template class LevelOrderedMatrix<DefaultExecSpace, float, DefaultMemSpace>;
template class LevelOrderedMatrix<DefaultExecSpace, double, DefaultMemSpace>;
template class MatrixPowerKernel<DefaultExecSpace, float, DefaultMemSpace>;
template class MatrixPowerKernel<DefaultExecSpace, double, DefaultMemSpace>;

}  // namespace ppsparse::mpk
