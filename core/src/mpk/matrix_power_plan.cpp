// MatrixPowerKernel's planner (mpk/matrix_power.hpp): checks the options, then cuts the
// level-ordered matrix into groups, row blocks and dependency segments, lays out the tiles of
// the schedule, sizes the kernels and asks the cost model, filling MpkPlan and the device
// arrays the runners (matrix_power.cpp) read.
#include <cmath>

#include <ppsparse/error.hpp>
#include <ppsparse/backend/last_level_cache.hpp>

#include "matrix_power_internal.hpp"

namespace ppsparse::mpk {

using namespace detail;

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
  plan_.last_level_cache = ppsparse::backend::last_level_cache_bytes(m.space());
  plan_.cache_budget_bytes =
      o.cache_bytes ? o.cache_bytes
                    : static_cast<std::size_t>(o.cache_fraction * static_cast<double>(plan_.last_level_cache));
  std::vector<double> row_bytes(static_cast<size_t>(n));
  for (ordinal_t r = 0; r < n; ++r) row_bytes[r] = m.row_matrix_bytes(r) + 2.0 * sizeof(Scalar);
  const double group_bytes = static_cast<double>(plan_.cache_budget_bytes) / live_groups(p, o.skew);
  const ordinal_t align = o.align_rows ? o.align_rows : std::max<ordinal_t>(32, sell ? m.sell_chunk() : 1);
  plan_.schedule = make_wavefront_schedule(
      merge_levels(m.host_matrix(), m.level_offsets(), row_bytes, std::max(group_bytes, 1.0), align), p, o.skew);
  check_schedule(plan_.schedule, m.host_matrix());

  // Kernel geometry.
  if (gpu) {
    if (o.vector_length) {
      plan_.vector_length = o.vector_length;
    } else if (sell) {
      plan_.vector_length = std::max(1, W / m.sell_chunk());
    } else {  // as csr_coop's fixed rule: the smallest power of two >= sqrt(average row length)
      const double avg = n ? static_cast<double>(m.nnz()) / n : 1.0;
      plan_.vector_length = 1;
      while (plan_.vector_length < W && plan_.vector_length < std::sqrt(avg)) plan_.vector_length *= 2;
    }
    plan_.team_size = std::max(1, (o.team_threads ? o.team_threads : 128) / plan_.vector_length);
  } else {
    plan_.vector_length = 1;
    plan_.team_size = 1;
  }
  // Entries a lane loads before its gathers (detail::row_dot): 16 beats 8 on 27 entries per row
  // and loses on 7 (docs/perf/kernel_choices.md, "MPK row batch").
  if (o.row_batch) {
    plan_.row_batch = o.row_batch;
  } else if (gpu) {
    const double per_lane = n ? static_cast<double>(m.nnz()) / n / plan_.vector_length : 0.0;
    plan_.row_batch = per_lane > 12 ? 16 : 8;
  } else {
    plan_.row_batch = 1;
  }
  // Persistent teams: the co-resident bound (see the header), or one team where it is unknown.
  long long team_bound = 1;
  if (gpu)
    team_bound = std::max<long long>(1, m.space().concurrency() / (plan_.team_size * plan_.vector_length));
  else if (!is_serial_space<ExecSpace>())
    team_bound = std::max<long long>(1, m.space().concurrency());
  if (o.persistent_teams) team_bound = std::min<long long>(team_bound, o.persistent_teams);
  // Rows per block. CPUs: 1024 (a team is one thread). GPUs: the rows all persistent teams
  // hold at once should stay within a quarter of the cache budget, or the wavefront they
  // work on outgrows the cache: budget / 4 / (teams x bytes per row), as a power of two in
  // [32, 256] (whole warps of rows, multiples of C).
  if (o.rows_per_block) {
    plan_.rows_per_block = o.rows_per_block;
  } else if (gpu) {
    const double row_bytes_avg = n ? m.matrix_bytes() / n + 2.0 * sizeof(Scalar) : 1.0;
    const double fit =
        static_cast<double>(plan_.cache_budget_bytes) / 4.0 / (static_cast<double>(team_bound) * row_bytes_avg);
    plan_.rows_per_block = 32;
    while (plan_.rows_per_block < 256 && 2.0 * plan_.rows_per_block <= fit) plan_.rows_per_block *= 2;
    if (sell) plan_.rows_per_block = std::max<ordinal_t>(plan_.rows_per_block, m.sell_chunk());
    // A row for every team thread, two where a row's share of a lane fits one batch of 8
    // (docs/perf/kernel_choices.md, "MPK rows per block").
    plan_.rows_per_block = std::max<ordinal_t>(plan_.rows_per_block, plan_.team_size * (plan_.row_batch == 8 ? 2 : 1));
  } else {
    plan_.rows_per_block = 1024;
  }
  // Rows a pipelined team thread computes at once: two where it has two and a row has one lane.
  if (o.pipelined_rows_in_flight == 2 && plan_.vector_length != 1)
    throw InvalidArgument(who + ": pipelined_rows_in_flight 2 needs one vector lane per row (vector_length is " +
                          std::to_string(plan_.vector_length) + ")");
  plan_.pipelined_rows_in_flight =
      o.pipelined_rows_in_flight ? o.pipelined_rows_in_flight
                                 : (plan_.vector_length == 1 && plan_.rows_per_block >= 2 * plan_.team_size ? 2 : 1);

  // Row blocks: each group cut into blocks of rows_per_block rows (the same at every power),
  // and runs of blocks into dependency segments of about dependency_rows rows. The persistent
  // kernel counts finished blocks per (segment, power); a block at power k waits for the
  // segments of y_{k-1} that hold the columns its rows read, not for whole neighbouring tiles,
  // so the wavefront does not stall at every tile boundary.
  const ordinal_t G = plan_.schedule.ngroups();
  const long long seg_rows = o.dependency_rows ? o.dependency_rows : 1024;
  const ordinal_t blocks_per_segment = static_cast<ordinal_t>(std::min<long long>(
      n + 1LL, std::max<long long>(1, (seg_rows + plan_.rows_per_block - 1) / plan_.rows_per_block)));
  std::vector<ordinal_t> row_block_offsets{0}, segment_offsets{0};
  std::vector<ordinal_t> row_block_segment;
  std::vector<detail::Counter> segment_blocks;
  std::vector<ordinal_t> group_first_row_block(static_cast<size_t>(G) + 1, 0);
  for (ordinal_t g = 0; g < G; ++g) {
    group_first_row_block[g] = static_cast<ordinal_t>(row_block_offsets.size()) - 1;
    const ordinal_t end = plan_.schedule.group_offsets[g + 1];
    ordinal_t in_segment = 0;
    for (ordinal_t r = plan_.schedule.group_offsets[g]; r < end; r += plan_.rows_per_block) {
      if (in_segment == blocks_per_segment) {
        segment_offsets.push_back(r);
        segment_blocks.push_back(static_cast<detail::Counter>(in_segment));
        in_segment = 0;
      }
      row_block_segment.push_back(static_cast<ordinal_t>(segment_blocks.size()));
      row_block_offsets.push_back(std::min<ordinal_t>(end, r + plan_.rows_per_block));
      ++in_segment;
    }
    if (in_segment) {
      segment_offsets.push_back(end);
      segment_blocks.push_back(static_cast<detail::Counter>(in_segment));
    }
  }
  group_first_row_block[G] = static_cast<ordinal_t>(row_block_offsets.size()) - 1;
  const ordinal_t S = static_cast<ordinal_t>(segment_blocks.size());
  plan_.dependency_segments = S;
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
  plan_.launch_block_offsets.assign(1, 0);
  for (int l = 0; l < plan_.schedule.nlaunches(); ++l) {
    for (int t = plan_.schedule.launch_offsets[l]; t < plan_.schedule.launch_offsets[l + 1]; ++t) {
      const Tile tile = plan_.schedule.order[t];
      for (ordinal_t b = group_first_row_block[tile.group]; b < group_first_row_block[tile.group + 1]; ++b)
        blocks.push_back(detail::Block{row_block_offsets[b], row_block_offsets[b + 1], tile.group, tile.power,
                                       row_block_segment[b], dep_lo[b], dep_hi[b]});
    }
    plan_.launch_block_offsets.push_back(static_cast<long long>(blocks.size()));
  }
  plan_.blocks = static_cast<long long>(blocks.size());
  impl_->blocks = Kokkos::View<detail::Block*, MemSpace>("mpk.blocks", blocks.size());
  impl_->segment_blocks = Kokkos::View<detail::Counter*, MemSpace>("mpk.segment_blocks", segment_blocks.size());
  Kokkos::deep_copy(impl_->blocks, Kokkos::View<const detail::Block*, HostSpace, Kokkos::MemoryUnmanaged>(
                                       blocks.data(), blocks.size()));
  Kokkos::deep_copy(impl_->segment_blocks, Kokkos::View<const detail::Counter*, HostSpace, Kokkos::MemoryUnmanaged>(
                                               segment_blocks.data(), segment_blocks.size()));
  impl_->done = Kokkos::View<detail::Counter*, MemSpace>("mpk.done", static_cast<size_t>(S) * p);
  impl_->ticket = Kokkos::View<detail::Counter*, MemSpace>("mpk.ticket", 1);
  impl_->stalled = Kokkos::View<long long*, MemSpace>("mpk.stalled", 1);

  plan_.persistent_teams = static_cast<int>(std::max<long long>(1, std::min<long long>(team_bound, plan_.blocks)));

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
    plan_.pipelined_reach = 0;
    offset_t largest = 0;
    for (ordinal_t b = 0; b < nrow_blocks; ++b) {
      plan_.pipelined_reach = std::max<long long>(plan_.pipelined_reach, segment_last_block[dep_hi[b]] - b);
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
  shape.launches = plan_.schedule.nlaunches();
  shape.tiles = static_cast<long long>(G) * p;
  shape.cache_bytes = static_cast<double>(plan_.cache_budget_bytes);
  shape.graph_native = graph_is_native();
  shape.pipelined_native = plan_.pipelined_fallback.empty();
  shape.pipelined_passes = static_cast<int>(std::max<size_t>(1, plan_.pipelined_passes.size()));
  plan_.estimate = estimate_mpk(shape, o.model.value_or(default_device_model<ExecSpace>()));
  setup_seconds_ = seconds_now() - t0;
}

template MatrixPowerKernel<DefaultExecSpace, float, DefaultMemSpace>::MatrixPowerKernel(
    std::shared_ptr<LevelOrderedMatrix<DefaultExecSpace, float, DefaultMemSpace>>, const MpkOptions&);
template MatrixPowerKernel<DefaultExecSpace, double, DefaultMemSpace>::MatrixPowerKernel(
    std::shared_ptr<LevelOrderedMatrix<DefaultExecSpace, double, DefaultMemSpace>>, const MpkOptions&);

}  // namespace ppsparse::mpk
