#include <ppsparse/spmv/csr_v2.hpp>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "../backend/streaming_load.hpp"
#include "../util/to_device.hpp"
#include "kernel_common.hpp"
#include "spmv_kernel.hpp"

namespace ppsparse::spmv {

template <class ExecSpace>
CsrV2Options csr_v2_resolve_options(const CsrV2Options& in) {
  const std::string who = "csr_v2 options";
  const int W = compat::vector_width_for<ExecSpace>();
  const bool gpu = compat::is_gpu_space<ExecSpace>();
  CsrV2Options o = in;
  if (o.team_threads == 0) o.team_threads = gpu ? 4 * W : 1;
  // GPUs: 8 entries per thread, so that a stream block's products (8 KiB of doubles for 128
  // threads) leave room for 16+ resident teams per SM; rows longer than that go to whole
  // teams. Every block of rows streams (short_row_max = tile_nnz): a coalesced pass with
  // several loads in flight per thread beats a vector group per row reading its own row.
  if (o.tile_nnz == 0) o.tile_nnz = gpu ? 8 * static_cast<offset_t>(o.team_threads) : 4096;
  if (o.max_rows_per_block == 0) o.max_rows_per_block = gpu ? static_cast<ordinal_t>(o.tile_nnz) : 512;
  if (o.short_row_max == -1) o.short_row_max = gpu ? static_cast<ordinal_t>(o.tile_nnz) : 0;
  // A thread summing a row of up to 8 products from scratch beats a vector group's shuffles
  // (docs/perf/kernel_choices.md, "csr_v2 flat rows"); longer or uneven rows (power-law
  // blocks) balance better over the vector lanes.
  if (o.flat_row_max == -1) o.flat_row_max = 8;
  if (o.split_row_min == 0) o.split_row_min = 8 * o.tile_nnz;
  if (o.split_tile_nnz == 0) o.split_tile_nnz = 4 * o.tile_nnz;
  if (o.x_window == 0)
    o.x_window = gpu ? 2048 : static_cast<ordinal_t>(std::min<offset_t>(2 * o.tile_nnz, max_ordinal));
  auto fail = [&](const std::string& what, long long v, const std::string& rule) {
    throw InvalidArgument(who + ": " + what + " = " + std::to_string(v) + " " + rule);
  };
  if (o.team_threads < 1) fail("team_threads", o.team_threads, "must be >= 1");
  if (o.vector_length != 0) {
    if (!detail::is_power_of_two(o.vector_length) || o.vector_length > W)
      fail("vector_length", o.vector_length, "must be a power of two in [1, " + std::to_string(W) + "]");
    if (o.team_threads % o.vector_length != 0)
      fail("vector_length", o.vector_length, "must divide team_threads = " + std::to_string(o.team_threads));
  }
  if (o.tile_nnz < 1) fail("tile_nnz", o.tile_nnz, "must be >= 1");
  if (o.max_rows_per_block < 1) fail("max_rows_per_block", o.max_rows_per_block, "must be >= 1");
  if (o.short_row_max < 0) fail("short_row_max", o.short_row_max, "must be >= 0 (or -1 for the default)");
  if (o.flat_row_max < 0) fail("flat_row_max", o.flat_row_max, "must be >= 0 (or -1 for the default)");
  if (o.split_tile_nnz < 1) fail("split_tile_nnz", o.split_tile_nnz, "must be >= 1");
  if (o.split_row_min < o.tile_nnz)
    fail("split_row_min", o.split_row_min, "must be >= tile_nnz = " + std::to_string(o.tile_nnz));
  if (o.x_window < 1) fail("x_window", o.x_window, "must be >= 1");
  return o;
}

template <class Scalar, class MemSpace>
std::string CsrV2Plan<Scalar, MemSpace>::summary() const {
  return "blocks=" + std::to_string(num_blocks) + " (stream " + std::to_string(stream_blocks) + ", vector " +
         std::to_string(vector_blocks) + ", long " + std::to_string(long_rows) + ", tiles " +
         std::to_string(num_tiles) + " of " + std::to_string(num_split_rows) +
         " split rows) team=" + std::to_string(options.team_threads) +
         " vector=" + std::to_string(options.vector_length) + " tile_nnz=" + std::to_string(options.tile_nnz) +
         " x_windows=" + std::to_string(x_windows);
}

namespace {

template <class ExecSpace, class Scalar>
using ScratchVector =
    Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// Streaming: col_idx and values are read with ppsparse::backend::streaming_load (spmv/matrix_loads.hpp).
template <class ExecSpace, class Scalar, class MemSpace, bool Streaming>
struct CsrV2Functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  ppsparse::backend::ReadOnceArray<ordinal_t, Streaming> col_idx;
  ppsparse::backend::ReadOnceArray<Scalar, Streaming> values;
  detail::RandomAccessVector<Scalar, MemSpace> x;
  Kokkos::View<Scalar*, MemSpace> y;
  Kokkos::View<const CsrV2RowBlock*, MemSpace> blocks;
  Kokkos::View<Scalar*, MemSpace> tile_sums;
  Scalar alpha, beta;
  offset_t stream_capacity;  // scratch entries for rows_stream products (0: none)
  ordinal_t x_capacity;      // scratch entries for x windows (0: none)
  int lanes;                 // the vector length of the launch
  ordinal_t flat_row_max;    // stream blocks of mean row length <= this: one thread per row

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const CsrV2RowBlock b = blocks(member.league_rank());
    // Every thread allocates the same scratch in the same order, whatever the block kind.
    const ScratchVector<ExecSpace, Scalar> products(member.team_scratch(0), stream_capacity);
    const ScratchVector<ExecSpace, Scalar> x_window(member.team_scratch(0), x_capacity);

    // Every hardware thread of the team takes one index of a TeamVectorRange of this size.
    const int threads = member.team_size() * lanes;
    if (b.kind == csr_v2_long_row || b.kind == csr_v2_row_tile) {
      Scalar sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(member, threads),
          [&](const int t, Scalar& s) {
            s += detail::strided_dot<Scalar>(b.entry_begin + t, b.entry_end, threads, col_idx, values, x);
          },
          sum);
      Kokkos::single(Kokkos::PerTeam(member), [&]() {
        if (b.kind == csr_v2_long_row)
          detail::store_row(y, b.row_begin, alpha, beta, sum);
        else
          tile_sums(b.slot) = sum;
      });
      return;
    }

    const bool staged = b.x_end > b.x_begin;
    if (staged) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(member, b.x_end - b.x_begin),
                           [&](const ordinal_t j) { x_window(j) = x(b.x_begin + j); });
      member.team_barrier();
    }
    auto x_at = [&](const ordinal_t c) -> Scalar { return staged ? x_window(c - b.x_begin) : x(c); };

    if (b.kind == csr_v2_rows_stream) {
      // Coalesced pass over all the block's entries (kUnroll per thread in flight) into
      // scratch, then a vector group per row sums its products from scratch.
      const offset_t n = b.entry_end - b.entry_begin;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(member, threads), [&](const int t) {
        offset_t j = t;
        for (; j + (detail::kUnroll - 1) * threads < n; j += detail::kUnroll * threads) {
          ordinal_t c[detail::kUnroll];
          Scalar v[detail::kUnroll];
          PPSPARSE_UNROLL
          for (int u = 0; u < detail::kUnroll; ++u) {
            c[u] = col_idx(b.entry_begin + j + u * threads);
            v[u] = values(b.entry_begin + j + u * threads);
          }
          PPSPARSE_UNROLL
          for (int u = 0; u < detail::kUnroll; ++u) products(j + u * threads) = v[u] * x_at(c[u]);
        }
        for (; j < n; j += threads) products(j) = values(b.entry_begin + j) * x_at(col_idx(b.entry_begin + j));
      });
      member.team_barrier();
      if (n <= static_cast<offset_t>(flat_row_max) * (b.row_end - b.row_begin)) {
        // Short rows: every thread of the team sums whole rows (no shuffles).
        Kokkos::parallel_for(Kokkos::TeamVectorRange(member, b.row_begin, b.row_end), [&](const ordinal_t i) {
          Scalar sum = 0;
          const offset_t end = row_ptr(i + 1) - b.entry_begin;
          for (offset_t j = row_ptr(i) - b.entry_begin; j < end; ++j) sum += products(j);
          detail::store_row(y, i, alpha, beta, sum);
        });
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, b.row_begin, b.row_end), [&](const ordinal_t i) {
          const offset_t begin = row_ptr(i) - b.entry_begin, end = row_ptr(i + 1) - b.entry_begin;
          Scalar sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(member, lanes),
              [&](const int lane, Scalar& s) {
                for (offset_t j = begin + lane; j < end; j += lanes) s += products(j);
              },
              sum);
          Kokkos::single(Kokkos::PerThread(member), [&]() { detail::store_row(y, i, alpha, beta, sum); });
        });
      }
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, b.row_begin, b.row_end), [&](const ordinal_t i) {
        const Scalar sum = detail::row_dot_vector<Scalar>(member, lanes, row_ptr, col_idx, values, x_at, i);
        Kokkos::single(Kokkos::PerThread(member), [&]() { detail::store_row(y, i, alpha, beta, sum); });
      });
    }
    // Scratch is reused if one hardware team runs several blocks.
    if (staged || b.kind == csr_v2_rows_stream) member.team_barrier();
  }
};

template <class Scalar, class MemSpace>
struct CsrV2FinishSplitRows {
  Kokkos::View<const ordinal_t*, MemSpace> split_rows;
  Kokkos::View<const int*, MemSpace> split_tile_ptr;
  Kokkos::View<const Scalar*, MemSpace> tile_sums;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t s) const {
    Scalar sum = 0;
    for (int t = split_tile_ptr(s); t < split_tile_ptr(s + 1); ++t) sum += tile_sums(t);
    detail::store_row(y, split_rows(s), alpha, beta, sum);
  }
};

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
CsrV2Plan<Scalar, MemSpace> make_csr_v2_plan(const ExecSpace& space, const CsrMatrix<Scalar, MemSpace>& a,
                                             const CsrV2Options& options) {
  const std::string who = "csr_v2 setup";
  check_csr_extents(who, a);
  CsrV2Plan<Scalar, MemSpace> plan;
  plan.options = csr_v2_resolve_options<ExecSpace>(options);
  CsrV2Options& o = plan.options;
  plan.nrows = a.nrows;
  plan.ncols = a.ncols;
  plan.nnz = a.nnz();

  const auto rp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_ptr);
  if (rp(0) != 0) throw InvalidArgument(who + ": row_ptr[0] = " + std::to_string(rp(0)) + ", expected 0");
  for (ordinal_t i = 0; i < a.nrows; ++i)
    if (rp(i + 1) < rp(i)) throw InvalidArgument(who + ": row_ptr decreases at row " + std::to_string(i));
  if (rp(a.nrows) != a.nnz())
    throw InvalidArgument(who + ": row_ptr[nrows] = " + std::to_string(rp(a.nrows)) + " but the matrix has " +
                          std::to_string(a.nnz()) + " entries");

  std::vector<CsrV2RowBlock> blocks;
  std::vector<ordinal_t> split_rows;
  std::vector<int> tile_ptr{0};
  long long block_rows = 0;  // rows and entries of the row blocks (not long or split rows)
  offset_t block_entries = 0;
  for (ordinal_t r = 0; r < a.nrows;) {
    const offset_t len = rp(r + 1) - rp(r);
    if (len > o.split_row_min) {
      for (offset_t k = rp(r); k < rp(r + 1); k += o.split_tile_nnz) {
        CsrV2RowBlock b;
        b.kind = csr_v2_row_tile;
        b.row_begin = r;
        b.row_end = r + 1;
        b.entry_begin = k;
        b.entry_end = std::min(k + o.split_tile_nnz, rp(r + 1));
        b.slot = static_cast<int>(plan.num_tiles++);
        blocks.push_back(b);
      }
      split_rows.push_back(r);
      tile_ptr.push_back(static_cast<int>(plan.num_tiles));
      ++r;
      continue;
    }
    if (len > o.tile_nnz) {
      CsrV2RowBlock b;
      b.kind = csr_v2_long_row;
      b.row_begin = r;
      b.row_end = r + 1;
      b.entry_begin = rp(r);
      b.entry_end = rp(r + 1);
      blocks.push_back(b);
      ++plan.long_rows;
      ++r;
      continue;
    }
    // A run of consecutive rows within the entry and row budgets (at least this one row).
    const ordinal_t r0 = r;
    while (r < a.nrows && r - r0 < o.max_rows_per_block && rp(r + 1) - rp(r0) <= o.tile_nnz) ++r;
    CsrV2RowBlock b;
    b.row_begin = r0;
    b.row_end = r;
    b.entry_begin = rp(r0);
    b.entry_end = rp(r);
    const double mean = static_cast<double>(b.entry_end - b.entry_begin) / static_cast<double>(r - r0);
    if (o.short_row_max > 0 && mean <= static_cast<double>(o.short_row_max)) {
      b.kind = csr_v2_rows_stream;
      ++plan.stream_blocks;
    } else {
      b.kind = csr_v2_rows_vector;
      ++plan.vector_blocks;
    }
    block_rows += r - r0;
    block_entries += b.entry_end - b.entry_begin;
    blocks.push_back(b);
  }
  plan.num_blocks = static_cast<long long>(blocks.size());
  plan.num_split_rows = static_cast<long long>(split_rows.size());

  if (o.vector_length == 0) {
    // Reguly & Giles' rule for the lanes per row (of a vector block, or summing a stream
    // block's row from scratch): the power of two >= sqrt(mean length of the row blocks),
    // capped by W and by the largest power of two dividing team_threads.
    const double mean = block_rows ? static_cast<double>(block_entries) / static_cast<double>(block_rows) : 0.0;
    int v = std::min(detail::next_power_of_two(std::sqrt(mean)), compat::vector_width_for<ExecSpace>());
    while (o.team_threads % v != 0) v /= 2;
    o.vector_length = v;
  }

  if (o.x_in_scratch) {
    const auto col = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.col_idx);
    for (auto& b : blocks) {
      if (b.kind != csr_v2_rows_vector && b.kind != csr_v2_rows_stream) continue;
      if (b.entry_end == b.entry_begin) continue;
      ordinal_t lo = max_ordinal, hi = 0;
      for (offset_t k = b.entry_begin; k < b.entry_end; ++k) {
        lo = std::min(lo, col(k));
        hi = std::max(hi, col(k));
      }
      if (hi < lo || lo < 0 || hi >= a.ncols)
        throw InvalidArgument(who + ": column index out of range [0, " + std::to_string(a.ncols) + ") in rows " +
                              std::to_string(b.row_begin) + ".." + std::to_string(b.row_end - 1));
      if (static_cast<long long>(hi) - lo + 1 <= o.x_window) {
        b.x_begin = lo;
        b.x_end = hi + 1;
        ++plan.x_windows;
      }
    }
  }

  using Scratch = ScratchVector<ExecSpace, Scalar>;
  // A stream block holds at most max_rows_per_block rows of mean length <= short_row_max.
  const size_t stream_entries = plan.stream_blocks > 0
                                    ? static_cast<size_t>(std::min<offset_t>(
                                          o.tile_nnz, static_cast<offset_t>(o.max_rows_per_block) * o.short_row_max))
                                    : 0;
  const size_t window_entries = plan.x_windows > 0 ? static_cast<size_t>(o.x_window) : 0;
  plan.stream_capacity = static_cast<offset_t>(stream_entries);
  plan.window_capacity = static_cast<ordinal_t>(window_entries);
  plan.scratch_bytes = Scratch::shmem_size(stream_entries) + Scratch::shmem_size(window_entries);
  const size_t scratch_max = static_cast<size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  if (plan.scratch_bytes > scratch_max)
    throw InvalidArgument(who + ": team scratch of " + std::to_string(plan.scratch_bytes) +
                          " bytes (tile_nnz and x_window entries) exceeds the " + std::to_string(scratch_max) +
                          " bytes this execution space offers; lower tile_nnz or x_window");

  plan.blocks = util::to_device<CsrV2RowBlock, MemSpace>(blocks, "csr_v2.blocks");
  plan.split_rows = util::to_device<ordinal_t, MemSpace>(split_rows, "csr_v2.split_rows");
  plan.split_tile_ptr = util::to_device<int, MemSpace>(tile_ptr, "csr_v2.split_tile_ptr");
  plan.tile_sums = Kokkos::View<Scalar*, MemSpace>("csr_v2.tile_sums", static_cast<size_t>(plan.num_tiles));
  space.fence();
  return plan;
}

template <class ExecSpace, class Scalar, class MemSpace>
void csr_v2(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
            const CsrV2Plan<Scalar, MemSpace>& plan, const nondeduced_t<ConstVector<Scalar, MemSpace>>& x,
            nondeduced_t<Scalar> beta, const nondeduced_t<Vector<Scalar, MemSpace>>& y, const MatrixLoads loads) {
  check_csr_extents("csr_v2", a);
  check_vectors("csr_v2", a.nrows, a.ncols, x, y);
  if (plan.nrows != a.nrows || plan.ncols != a.ncols || plan.nnz != a.nnz())
    throw InvalidArgument("csr_v2: the plan was built for a " + std::to_string(plan.nrows) + " x " +
                          std::to_string(plan.ncols) + " matrix with " + std::to_string(plan.nnz) +
                          " entries, not this " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) +
                          " matrix with " + std::to_string(a.nnz()) + " entries");
  if (a.nrows == 0) return;
  if (alpha == Scalar(0)) return detail::scale_vector(space, beta, y);

  const CsrV2Options& o = plan.options;
  const int v = o.vector_length;
  const int team_size = o.team_threads / v;
  const auto launch = [&](const auto& f) {
    // Asked on a one-thread policy: some backends abort when a policy is built with a team
    // larger than they allow, before it could be asked.
    Kokkos::TeamPolicy<ExecSpace> probe(space, 1, 1, v);
    if (plan.scratch_bytes > 0) probe.set_scratch_size(0, Kokkos::PerTeam(plan.scratch_bytes));
    const int team_max = probe.team_size_max(f, Kokkos::ParallelForTag());
    if (team_size > team_max)
      throw InvalidArgument("csr_v2: team_threads = " + std::to_string(o.team_threads) +
                            " with vector_length = " + std::to_string(v) + " asks for " + std::to_string(team_size) +
                            " threads per team; this execution space allows at most " + std::to_string(team_max));
    Kokkos::TeamPolicy<ExecSpace> policy(space, static_cast<int>(plan.num_blocks), team_size, v);
    if (plan.scratch_bytes > 0) policy.set_scratch_size(0, Kokkos::PerTeam(plan.scratch_bytes));
    Kokkos::parallel_for("ppsparse::csr_v2", policy, f);
  };
  const auto functor = [&](auto streaming) {
    constexpr bool S = decltype(streaming)::value;
    return CsrV2Functor<ExecSpace, Scalar, MemSpace, S>{a.row_ptr,
                                                        {a.col_idx.data()},
                                                        {a.values.data()},
                                                        x,
                                                        y,
                                                        plan.blocks,
                                                        plan.tile_sums,
                                                        alpha,
                                                        beta,
                                                        plan.stream_capacity,
                                                        plan.window_capacity,
                                                        v,
                                                        o.flat_row_max};
  };
  if (loads == MatrixLoads::streaming)
    launch(functor(std::true_type{}));
  else
    launch(functor(std::false_type{}));
  if (plan.num_split_rows > 0)
    Kokkos::parallel_for(
        "ppsparse::csr_v2_split_rows",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0,
                                                                     static_cast<ordinal_t>(plan.num_split_rows)),
        CsrV2FinishSplitRows<Scalar, MemSpace>{plan.split_rows, plan.split_tile_ptr, plan.tile_sums, y, alpha, beta});
}

#define PPSPARSE_INSTANTIATE_CSR_V2(S)                                                                        \
  template struct CsrV2Plan<S, DefaultMemSpace>;                                                              \
  template CsrV2Plan<S, DefaultMemSpace> make_csr_v2_plan<DefaultExecSpace, S, DefaultMemSpace>(              \
      const DefaultExecSpace&, const CsrMatrix<S, DefaultMemSpace>&, const CsrV2Options&);                    \
  template void csr_v2<DefaultExecSpace, S, DefaultMemSpace>(                                                 \
      const DefaultExecSpace&, S, const CsrMatrix<S, DefaultMemSpace>&, const CsrV2Plan<S, DefaultMemSpace>&, \
      const ConstVector<S, DefaultMemSpace>&, S, const Vector<S, DefaultMemSpace>&, MatrixLoads);

PPSPARSE_INSTANTIATE_CSR_V2(float)
PPSPARSE_INSTANTIATE_CSR_V2(double)
template CsrV2Options csr_v2_resolve_options<DefaultExecSpace>(const CsrV2Options&);

namespace detail {
namespace {
template <class ExecSpace, class Scalar, class MemSpace>
class CsrV2Kernel final : public SpmvKernel<ExecSpace, Scalar, MemSpace> {
 public:
  explicit CsrV2Kernel(const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& s)
      : plan_(make_csr_v2_plan(s.space, s.a, s.options.csr_v2)), loads_(s.options.matrix_loads) {}
  void apply(const ExecSpace& space, Scalar alpha, const CsrMatrix<Scalar, MemSpace>& a,
             const ConstVector<Scalar, MemSpace>& x, Scalar beta, const Vector<Scalar, MemSpace>& y) override {
    csr_v2(space, alpha, a, plan_, x, beta, y, loads_);
  }
  std::string parameters() const override { return plan_.summary(); }
  bool uses_matrix_loads() const override { return true; }
  const void* find_state(const std::type_info& type) const override { return state_if(type, &plan_); }

 private:
  CsrV2Plan<Scalar, MemSpace> plan_;
  MatrixLoads loads_;
};
}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
SpmvKernelPtr<ExecSpace, Scalar, MemSpace> make_spmv_kernel_csr_v2(
    const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& s) {
  return std::make_unique<CsrV2Kernel<ExecSpace, Scalar, MemSpace>>(s);
}
PPSPARSE_INSTANTIATE_SPMV_KERNEL(csr_v2)

const std::vector<SpmvOptionKey>& option_keys_csr_v2() {
  static const std::vector<SpmvOptionKey> keys{
      {"v2.team_threads", [](SpmvOptions& o, long long v) { o.csr_v2.team_threads = static_cast<int>(v); }},
      {"v2.vector_length", [](SpmvOptions& o, long long v) { o.csr_v2.vector_length = static_cast<int>(v); }},
      {"v2.tile_nnz", [](SpmvOptions& o, long long v) { o.csr_v2.tile_nnz = v; }},
      {"v2.max_rows_per_block",
       [](SpmvOptions& o, long long v) { o.csr_v2.max_rows_per_block = static_cast<ordinal_t>(v); }},
      {"v2.short_row_max", [](SpmvOptions& o, long long v) { o.csr_v2.short_row_max = static_cast<ordinal_t>(v); }},
      {"v2.flat_row_max", [](SpmvOptions& o, long long v) { o.csr_v2.flat_row_max = static_cast<ordinal_t>(v); }},
      {"v2.split_row_min", [](SpmvOptions& o, long long v) { o.csr_v2.split_row_min = v; }},
      {"v2.split_tile_nnz", [](SpmvOptions& o, long long v) { o.csr_v2.split_tile_nnz = v; }},
      {"v2.x_in_scratch", [](SpmvOptions& o, long long v) { o.csr_v2.x_in_scratch = v != 0; }},
      {"v2.x_window", [](SpmvOptions& o, long long v) { o.csr_v2.x_window = static_cast<ordinal_t>(v); }},
  };
  return keys;
}
}  // namespace detail

}  // namespace ppsparse::spmv
