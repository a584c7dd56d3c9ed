#include <ppsparse/spmv/column_panels.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <ppsparse/backend/multiprocessors.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/backend/last_level_cache.hpp>

#include "../backend/streaming_load.hpp"
#include "../util/to_device.hpp"
#include "kernel_common.hpp"
#include "spmv_kernel.hpp"

namespace ppsparse::spmv {

namespace {
// Threads of a GPU team: eight 32-lane warps (four 64-lane wavefronts), each taking its own
// slices, so that a multiprocessor holds several teams and their chunks' rows at once.
constexpr int kGpuTeamThreads = 256;
constexpr int kDefaultGpuChunkRows = 2048;
constexpr int kPanelUnroll = 4;       // entries of a row whose loads are in flight together
constexpr int kMaxChunkRows = 65536;  // a slot's row within its chunk is 16 bits
// The setup counts entries per (row of a chunk, panel): panels beyond this many would make
// that table, and the segments, larger than the matrix of any realistic shape.
constexpr long long kMaxPanels = 4096;
}  // namespace

template <class ExecSpace, class Scalar>
ColumnPanelOptions column_panels_resolve_options(const ColumnPanelOptions& in, const ordinal_t nrows,
                                                 const ordinal_t ncols, const offset_t nnz,
                                                 const std::size_t cache_bytes, const long long resident_teams) {
  ColumnPanelOptions o = in;
  if (o.panel_columns < 0)
    throw InvalidArgument("column_panels options: panel_columns = " + std::to_string(o.panel_columns) +
                          " must be >= 1 (or 0 for the default)");
  if (o.chunk_rows < 0 || o.chunk_rows > kMaxChunkRows)
    throw InvalidArgument("column_panels options: chunk_rows = " + std::to_string(o.chunk_rows) + " must be in 1.." +
                          std::to_string(kMaxChunkRows) + " (or 0 for the default)");
  if (o.row_max < 0)
    throw InvalidArgument("column_panels options: row_max = " + std::to_string(o.row_max) +
                          " must be >= 1 (or 0 for the default)");
  const bool gpu = compat::is_gpu_space<ExecSpace>();
  if (o.panel_columns == 0) {
    // A quarter of the cache for the panel's x leaves room for the matrix streaming past and
    // for the teams that run a panel ahead or behind.
    const double columns = static_cast<double>(cache_bytes) / 4.0 / sizeof(Scalar);
    o.panel_columns = gpu ? static_cast<ordinal_t>(std::clamp(columns, 1.0, static_cast<double>(std::max(ncols, 1))))
                          : std::max<ordinal_t>(ncols, 1);
  }
  if (o.chunk_rows == 0) {
    o.chunk_rows = gpu ? kDefaultGpuChunkRows : 256;
    // Fewer rows per chunk where 2048 would leave resident teams without a chunk.
    const long long W = compat::vector_width_for<ExecSpace>();
    if (gpu && resident_teams > 0 && static_cast<long long>(nrows) < o.chunk_rows * resident_teams) {
      const long long share = (static_cast<long long>(nrows) + resident_teams - 1) / resident_teams;
      o.chunk_rows = static_cast<int>(std::max(W, (share + W - 1) / W * W));
    }
  }
  if (o.row_max == 0) o.row_max = hyb_auto_row_max(nrows, nnz);
  const long long panels = (static_cast<long long>(ncols) + o.panel_columns - 1) / o.panel_columns;
  if (panels > kMaxPanels)
    throw InvalidArgument("column_panels options: panel_columns = " + std::to_string(o.panel_columns) + " cuts the " +
                          std::to_string(ncols) + " columns into " + std::to_string(panels) + " panels; at most " +
                          std::to_string(kMaxPanels) + " are allowed");
  return o;
}

template <class ExecSpace, class Scalar, class MemSpace>
ColumnPanelMatrix<Scalar, MemSpace> make_column_panels(const ExecSpace& space, const CsrMatrix<Scalar, HostSpace>& a,
                                                       const ColumnPanelOptions& o) {
  check_csr_extents("column_panels setup", a);
  if (o.panel_columns < 1 || o.chunk_rows < 1 || o.chunk_rows > kMaxChunkRows || o.row_max < 1 ||
      (static_cast<long long>(a.ncols) + o.panel_columns - 1) / o.panel_columns > kMaxPanels)
    throw InvalidArgument("column_panels setup: options not resolved (column_panels_resolve_options)");
  ColumnPanelMatrix<Scalar, MemSpace> m;
  m.nrows = a.nrows;
  m.ncols = a.ncols;
  m.nnz = a.nnz();
  m.panel_columns = o.panel_columns;
  m.npanels = static_cast<int>(
      std::max<long long>(1, (static_cast<long long>(a.ncols) + o.panel_columns - 1) / o.panel_columns));
  m.chunk_rows = o.chunk_rows;
  m.slice_rows = compat::is_gpu_space<ExecSpace>() ? compat::vector_width_for<ExecSpace>() : 1;
  m.nchunks = (static_cast<long long>(a.nrows) + o.chunk_rows - 1) / o.chunk_rows;
  m.row_max = o.row_max;
  const int P = m.npanels, H = m.slice_rows, R = m.chunk_rows;
  const auto panel_of = [&](const ordinal_t col) { return static_cast<int>(col / o.panel_columns); };
  const auto in_tail = [&](const ordinal_t i) { return a.row_ptr(i + 1) - a.row_ptr(i) > o.row_max; };

  // The long rows, whole, to the tail.
  {
    std::vector<ordinal_t> rows;
    offset_t tail_nnz = 0;
    for (ordinal_t i = 0; i < a.nrows; ++i)
      if (in_tail(i)) {
        rows.push_back(i);
        tail_nnz += a.row_ptr(i + 1) - a.row_ptr(i);
      }
    CsrMatrix<Scalar, HostSpace> tail(static_cast<ordinal_t>(rows.size()), a.ncols, tail_nnz, "column_panels.tail");
    offset_t t = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      for (offset_t k = a.row_ptr(rows[r]); k < a.row_ptr(rows[r] + 1); ++k, ++t) {
        tail.col_idx(t) = a.col_idx(k);
        tail.values(t) = a.values(k);
      }
      tail.row_ptr(r + 1) = t;
    }
    m.tail = make_row_tail<ExecSpace, Scalar, MemSpace>(space, tail, rows);
  }

  // Pass 1: per segment, its rows sorted by length (longest first, stable), in slices of H:
  // the segment and slice pointers and each slot's row and length.
  std::vector<offset_t> segment_ptr{0}, slice_ptr{0};
  std::vector<std::uint16_t> slot_row;
  std::vector<ordinal_t> slot_len;
  std::vector<ordinal_t> count(static_cast<std::size_t>(R) * P);
  std::vector<std::pair<ordinal_t, ordinal_t>> rows;  // (-length, row in the chunk)
  for (long long c = 0; c < m.nchunks; ++c) {
    const ordinal_t r0 = static_cast<ordinal_t>(c * R),
                    r1 = static_cast<ordinal_t>(std::min<long long>(a.nrows, r0 + R));
    std::fill(count.begin(), count.end(), 0);
    for (ordinal_t i = r0; i < r1; ++i)
      if (!in_tail(i))
        for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k)
          ++count[static_cast<std::size_t>(i - r0) * P + panel_of(a.col_idx(k))];
    for (int p = 0; p < P; ++p) {
      rows.clear();
      for (ordinal_t i = 0; i < r1 - r0; ++i)
        if (const ordinal_t n = count[static_cast<std::size_t>(i) * P + p]) rows.emplace_back(-n, i);
      std::stable_sort(rows.begin(), rows.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
      for (std::size_t s = 0; s < rows.size(); s += H) {
        slice_ptr.push_back(slice_ptr.back() + static_cast<offset_t>(-rows[s].first) * H);
        for (int lane = 0; lane < H; ++lane) {
          const bool real = s + lane < rows.size();
          slot_row.push_back(real ? static_cast<std::uint16_t>(rows[s + lane].second) : 0);
          slot_len.push_back(real ? -rows[s + lane].first : 0);
        }
      }
      segment_ptr.push_back(static_cast<offset_t>(slice_ptr.size()) - 1);
    }
  }

  // Pass 2: each row's entries of a panel, in their CSR order, at stride H from its slot.
  Kokkos::View<ordinal_t*, HostSpace> col("column_panels.col_idx", static_cast<std::size_t>(slice_ptr.back()));
  Kokkos::View<Scalar*, HostSpace> val("column_panels.values", static_cast<std::size_t>(slice_ptr.back()));
  std::vector<offset_t> next(static_cast<std::size_t>(R) * P);
  for (long long c = 0; c < m.nchunks; ++c) {
    const ordinal_t r0 = static_cast<ordinal_t>(c * R),
                    r1 = static_cast<ordinal_t>(std::min<long long>(a.nrows, r0 + R));
    for (int p = 0; p < P; ++p) {
      const long long seg = c * P + p;
      for (offset_t s = segment_ptr[seg]; s < segment_ptr[seg + 1]; ++s)
        for (int lane = 0; lane < H; ++lane) {
          const std::size_t slot = static_cast<std::size_t>(s) * H + lane;
          if (slot_len[slot] > 0) next[static_cast<std::size_t>(slot_row[slot]) * P + p] = slice_ptr[s] + lane;
        }
    }
    for (ordinal_t i = r0; i < r1; ++i) {
      if (in_tail(i)) continue;
      for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
        offset_t& at = next[static_cast<std::size_t>(i - r0) * P + panel_of(a.col_idx(k))];
        col(at) = a.col_idx(k);
        val(at) = a.values(k);
        at += H;
      }
    }
  }

  m.segment_ptr = util::to_device<offset_t, MemSpace>(segment_ptr, "column_panels.segment_ptr");
  m.slice_ptr = util::to_device<offset_t, MemSpace>(slice_ptr, "column_panels.slice_ptr");
  m.slot_row = util::to_device<std::uint16_t, MemSpace>(slot_row, "column_panels.slot_row");
  m.slot_len = util::to_device<ordinal_t, MemSpace>(slot_len, "column_panels.slot_len");
  m.col_idx = Kokkos::create_mirror_view_and_copy(MemSpace(), col);
  m.values = Kokkos::create_mirror_view_and_copy(MemSpace(), val);
  return m;
}

namespace {

// Teams of `team` threads with `scratch` bytes each that space's device holds at once; 0 where
// the backend cannot say.
template <class ExecSpace>
long long resident_teams(const ExecSpace& space, const int team, const std::size_t scratch) {
  const ppsparse::backend::MultiprocessorLimits mp = ppsparse::backend::multiprocessor_limits(space);
  if (!compat::is_gpu_space<ExecSpace>() || mp.count <= 0 || mp.max_threads <= 0 || mp.shared_bytes == 0) return 0;
  long long per_mp = mp.max_threads / team;
  if (mp.max_teams > 0) per_mp = std::min<long long>(per_mp, mp.max_teams);
  per_mp = std::min<long long>(per_mp, static_cast<long long>(mp.shared_bytes / (scratch + mp.reserved_per_team)));
  return std::max(1LL, per_mp) * mp.count;
}

// One team per chunk at a time (league_rank, + league_size, ...): its rows' sums in team
// scratch, its slices of each panel taken by groups of slice_rows threads, one lane per row.
template <class ExecSpace, class Scalar, class MemSpace, bool Streaming>
struct ColumnPanelFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kGpuTeamThreads, 8>>::member_type;
  Kokkos::View<const offset_t*, MemSpace> segment_ptr, slice_ptr;
  Kokkos::View<const std::uint16_t*, MemSpace> slot_row;
  Kokkos::View<const ordinal_t*, MemSpace> slot_len;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const Scalar*, MemSpace> values;
  detail::RandomAccessVector<Scalar, MemSpace> x;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;
  ordinal_t nrows;
  int npanels, chunk_rows, slice_rows;
  long long nchunks;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    Scalar* sum = static_cast<Scalar*>(member.team_scratch(0).get_shmem(sizeof(Scalar) * chunk_rows));
    const int t = member.team_rank(), threads = member.team_size();
    const int lane = t % slice_rows, group = t / slice_rows, groups = threads / slice_rows;
    const ppsparse::backend::ReadOnceArray<ordinal_t, Streaming> cols{col_idx.data()};
    const ppsparse::backend::ReadOnceArray<Scalar, Streaming> vals{values.data()};
    for (long long c = member.league_rank(); c < nchunks; c += member.league_size()) {
      for (int i = t; i < chunk_rows; i += threads) sum[i] = Scalar(0);
      member.team_barrier();
      for (int p = 0; p < npanels; ++p) {
        const offset_t end = segment_ptr(c * npanels + p + 1);
        for (offset_t s = segment_ptr(c * npanels + p) + group; s < end; s += groups) {
          const offset_t slot = s * slice_rows + lane;
          const ordinal_t len = slot_len(slot);
          // The slice's longest row (its first: sorted) bounds the loop for every lane, so that
          // a lane issues kPanelUnroll loads before its gathers even on rows of 2-3 entries,
          // which is what a panel leaves of a short row; lanes past their length load nothing.
          const ordinal_t width = slot_len(s * slice_rows);
          const offset_t first = slice_ptr(s) + lane;
          Scalar row_sum = 0;
          for (ordinal_t j = 0; j < width; j += kPanelUnroll) {
            ordinal_t col[kPanelUnroll];
            Scalar value[kPanelUnroll];
            PPSPARSE_UNROLL
            for (int u = 0; u < kPanelUnroll; ++u) {
              const offset_t k = first + static_cast<offset_t>(j + u) * slice_rows;
              col[u] = j + u < len ? cols(k) : 0;
              value[u] = j + u < len ? vals(k) : Scalar(0);
            }
            PPSPARSE_UNROLL
            for (int u = 0; u < kPanelUnroll; ++u)
              if (j + u < len) row_sum += value[u] * x(col[u]);
          }
          if (len > 0) sum[slot_row(slot)] += row_sum;  // len 0: padding of the segment's last slice
        }
        member.team_barrier();  // a row's next panel may fall to another group
      }
      const long long r0 = c * chunk_rows;
      for (int i = t; i < chunk_rows && r0 + i < nrows; i += threads)
        detail::store_row(y, static_cast<ordinal_t>(r0 + i), alpha, beta, sum[i]);
      member.team_barrier();
    }
  }
};

template <class Matrix>
void check_column_panel_extents(const Matrix& a) {
  const std::string who = "column_panels_spmv";
  if (a.nrows < 0 || a.ncols < 0 || a.npanels < 1 || a.chunk_rows < 1 || a.chunk_rows > kMaxChunkRows ||
      a.slice_rows < 1 || a.nchunks != (static_cast<long long>(a.nrows) + a.chunk_rows - 1) / a.chunk_rows)
    throw InvalidArgument(who + ": invalid header (nrows, ncols, npanels, chunk_rows, slice_rows, nchunks)");
  if (a.segment_ptr.extent(0) != static_cast<std::size_t>(a.nchunks * a.npanels + 1) || a.slice_ptr.extent(0) < 1 ||
      a.slot_row.extent(0) != static_cast<std::size_t>(a.nslices() * a.slice_rows) ||
      a.slot_len.extent(0) != a.slot_row.extent(0) || a.col_idx.extent(0) != a.values.extent(0))
    throw InvalidArgument(who +
                          ": arrays have inconsistent extents (segment_ptr, slice_ptr, slot_row, slot_len, "
                          "col_idx, values)");
}

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
void column_panels_spmv(const ExecSpace& space, nondeduced_t<Scalar> alpha,
                        const ColumnPanelMatrix<Scalar, MemSpace>& a,
                        const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
                        const nondeduced_t<Vector<Scalar, MemSpace>>& y, const MatrixLoads loads) {
  check_column_panel_extents(a);
  check_vectors("column_panels_spmv", a.nrows, a.ncols, x, y);
  if (a.nrows == 0) return;
  if (alpha == Scalar(0)) return detail::scale_vector(space, beta, y);
  const bool gpu = compat::is_gpu_space<ExecSpace>();
  const int team = gpu ? kGpuTeamThreads : 1;
  const std::size_t scratch = sizeof(Scalar) * static_cast<std::size_t>(a.chunk_rows);
  // As many teams as the device holds at once, so that they walk the panels together; where
  // the backend cannot say, one team per chunk.
  const long long resident = resident_teams(space, team, scratch);
  const long long league = resident > 0 ? std::min(a.nchunks, resident) : a.nchunks;
  const auto launch = [&](const auto& f) {
    // Eight teams per multiprocessor (2048 threads, 32 registers each), the residency that
    // resident_teams counts on: more registers would leave teams waiting for a later wave.
    Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kGpuTeamThreads, 8>> policy(space, static_cast<int>(league),
                                                                                   team, 1);
    policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
    if (scratch > static_cast<std::size_t>(policy.scratch_size_max(0)))
      throw InvalidArgument("column_panels_spmv: chunk_rows = " + std::to_string(a.chunk_rows) + " needs " +
                            std::to_string(scratch) + " bytes of team scratch; this execution space allows " +
                            std::to_string(policy.scratch_size_max(0)));
    Kokkos::parallel_for("ppsparse::column_panels_spmv", policy, f);
  };
  const auto launch_loads = [&](auto streaming) {
    constexpr bool Streaming = decltype(streaming)::value;
    launch(ColumnPanelFunctor<ExecSpace, Scalar, MemSpace, Streaming>{
        a.segment_ptr, a.slice_ptr, a.slot_row, a.slot_len, a.col_idx, a.values, x, y, alpha, beta, a.nrows, a.npanels,
        a.chunk_rows, a.slice_rows, a.nchunks});
  };
  if (gpu && loads == MatrixLoads::streaming)
    launch_loads(std::true_type{});
  else
    launch_loads(std::false_type{});
  add_row_tail(space, alpha, a.tail, x, y, loads);
}

#define PPSPARSE_INSTANTIATE_COLUMN_PANELS(S)                                                              \
  template ColumnPanelOptions column_panels_resolve_options<DefaultExecSpace, S>(                          \
      const ColumnPanelOptions&, ordinal_t, ordinal_t, offset_t, std::size_t, long long);                  \
  template ColumnPanelMatrix<S, DefaultMemSpace> make_column_panels<DefaultExecSpace, S, DefaultMemSpace>( \
      const DefaultExecSpace&, const CsrMatrix<S, HostSpace>&, const ColumnPanelOptions&);                 \
  template void column_panels_spmv<DefaultExecSpace, S, DefaultMemSpace>(                                  \
      const DefaultExecSpace&, S, const ColumnPanelMatrix<S, DefaultMemSpace>&,                            \
      const ConstVector<S, DefaultMemSpace>&, S, const Vector<S, DefaultMemSpace>&, MatrixLoads);

PPSPARSE_INSTANTIATE_COLUMN_PANELS(float)
PPSPARSE_INSTANTIATE_COLUMN_PANELS(double)

namespace detail {
namespace {
// The matrix converted at setup into column panels sized to the device's last-level cache.
template <class ExecSpace, class Scalar, class MemSpace>
class ColumnPanelKernel final : public SpmvKernel<ExecSpace, Scalar, MemSpace> {
 public:
  explicit ColumnPanelKernel(const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& s)
      : loads_(s.options.matrix_loads),
        m_(make_column_panels<ExecSpace, Scalar, MemSpace>(
            s.space, copy_to<HostSpace>(s.a),
            column_panels_resolve_options<ExecSpace, Scalar>(
                s.options.panels, s.a.nrows, s.a.ncols, s.a.nnz(), ppsparse::backend::last_level_cache_bytes(s.space),
                resident_teams(s.space, kGpuTeamThreads, sizeof(Scalar) * kDefaultGpuChunkRows)))) {}
  void apply(const ExecSpace& space, Scalar alpha, const CsrMatrix<Scalar, MemSpace>& /*a*/,
             const ConstVector<Scalar, MemSpace>& x, Scalar beta, const Vector<Scalar, MemSpace>& y) override {
    column_panels_spmv(space, alpha, m_, x, beta, y, loads_);
  }
  SpmvTraffic traffic(const CsrMatrix<Scalar, MemSpace>& /*a*/, bool reads_y) const override {
    return column_panels_traffic(m_, reads_y);
  }
  std::string parameters() const override {
    return "panels=" + std::to_string(m_.npanels) + " panel_columns=" + std::to_string(m_.panel_columns) +
           " chunk_rows=" + std::to_string(m_.chunk_rows) + " fill=" + std::to_string(m_.fill_ratio()) +
           " row_max=" + std::to_string(m_.row_max) + " tail_rows=" + std::to_string(m_.tail.nrows()) +
           " tail_nnz=" + std::to_string(m_.tail.nnz());
  }
  bool uses_matrix_loads() const override { return true; }
  const void* find_state(const std::type_info& type) const override { return state_if(type, &m_); }

 private:
  MatrixLoads loads_;
  ColumnPanelMatrix<Scalar, MemSpace> m_;
};
}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
SpmvKernelPtr<ExecSpace, Scalar, MemSpace> make_spmv_kernel_column_panels(
    const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& s) {
  return std::make_unique<ColumnPanelKernel<ExecSpace, Scalar, MemSpace>>(s);
}
PPSPARSE_INSTANTIATE_SPMV_KERNEL(column_panels)

const std::vector<SpmvOptionKey>& option_keys_column_panels() {
  static const std::vector<SpmvOptionKey> keys{
      {"panels.panel_columns", [](SpmvOptions& o, long long v) { o.panels.panel_columns = static_cast<ordinal_t>(v); }},
      {"panels.chunk_rows", [](SpmvOptions& o, long long v) { o.panels.chunk_rows = static_cast<int>(v); }},
      {"panels.row_max", [](SpmvOptions& o, long long v) { o.panels.row_max = static_cast<ordinal_t>(v); }},
  };
  return keys;
}
}  // namespace detail

}  // namespace ppsparse::spmv
