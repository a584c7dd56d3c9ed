#include <ppsparse/spmv/sell_spmv.hpp>

#include <type_traits>

#include <ppsparse/formats/convert.hpp>
#include <ppsparse/spmv/hyb.hpp>

#include "../backend/streaming_load.hpp"
#include "kernel_common.hpp"
#include "spmv_kernel.hpp"

namespace ppsparse::spmv {

template <class ExecSpace>
SellOptions sell_resolve_options(const SellOptions& in, const double mean_row_length) {
  SellOptions o = in;
  if (o.C == 0) {
    if (compat::is_gpu_space<ExecSpace>()) {
      // One lane per row (C = W) up to 64 entries per row; longer rows get t lanes, so that
      // each lane keeps 32-64 entries (kUnroll loads in flight, few loop trips) and
      // long-row matrices still give enough warps to fill the device.
      constexpr int W = compat::vector_width_for<ExecSpace>();
      const int t = std::min(W, detail::next_power_of_two(mean_row_length / 64.0));
      o.C = W / t;
    } else {
      o.C = 8;
    }
  }
  if (o.sigma == 0) o.sigma = 256;
  if (o.C < 1) throw InvalidArgument("sell options: C = " + std::to_string(o.C) + " must be >= 1");
  if (compat::is_gpu_space<ExecSpace>() && !detail::is_power_of_two(o.C))
    throw InvalidArgument("sell options: C = " + std::to_string(o.C) +
                          " must be a power of two on GPUs (C * threads per row = the vector width)");
  if (o.sigma < 1) throw InvalidArgument("sell options: sigma = " + std::to_string(o.sigma) + " must be >= 1");
  if (o.hyb_row_max < -1)
    throw InvalidArgument("sell options: hyb_row_max = " + std::to_string(o.hyb_row_max) +
                          " must be >= 1, 0 (pure SELL) or -1 (automatic)");
  if (o.index_bits != 0 && o.index_bits != 16 && o.index_bits != 32)
    throw InvalidArgument("sell options: index_bits = " + std::to_string(o.index_bits) +
                          " must be 0 (16 where the columns fit, else 32), 16 or 32");
  return o;
}

namespace detail {

// SELL columns from the 16-bit offsets (Compressed) or the plain 32-bit indices, read with
// streaming loads if Streaming.
template <bool Compressed, bool Streaming>
using SellReadOnceColumns = SellColumns<Compressed, ppsparse::backend::ReadOnceArray<ordinal_t, Streaming>,
                                        ppsparse::backend::ReadOnceArray<std::int16_t, Streaming>>;

}  // namespace detail

namespace {

// The SELL matrix as both kernels read it.
template <class Scalar, class MemSpace>
struct SellArrays {
  Kokkos::View<const offset_t*, MemSpace> chunk_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> row_len;
  Kokkos::View<const ordinal_t*, MemSpace> perm;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const std::int16_t*, MemSpace> col_offset;
  Kokkos::View<const Scalar*, MemSpace> values;
  int C;

  explicit SellArrays(const SellMatrix<Scalar, MemSpace>& a)
      : chunk_ptr(a.chunk_ptr),
        row_len(a.row_len),
        perm(a.perm),
        col_idx(a.col_idx),
        col_offset(a.col_offset),
        values(a.values),
        C(a.C) {}
};

// Compressed: columns are read as perm[p] + col_offset[k] (2 bytes per entry, not 4).
// Streaming: values and columns are read with ppsparse::backend::streaming_load (spmv/matrix_loads.hpp).
template <class ExecSpace, class Scalar, class MemSpace, bool Compressed, bool Streaming>
struct SellGpuFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  SellArrays<Scalar, MemSpace> a;
  detail::RandomAccessVector<Scalar, MemSpace> x;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;
  ordinal_t nrows;
  int chunks_per_team;
  int lanes;  // t: the vector length of the launch

  // Team thread r works on lane r % C of chunk league * chunks_per_team + r / C; its t vector
  // lanes take the row's entries j = lane, lane + t, ...: the W lanes of a warp read C*t
  // consecutive stored entries per step, kUnroll steps in flight.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const int C = a.C;
    const int r = member.team_rank();
    const long long chunk = static_cast<long long>(member.league_rank()) * chunks_per_team + r / C;
    const long long p = chunk * C + r % C;
    if (p >= nrows) return;
    const ordinal_t len = a.row_len(p);
    const offset_t base = a.chunk_ptr(chunk) + r % C;
    const offset_t end = base + static_cast<offset_t>(len) * C;
    const ordinal_t row = a.perm(p);
    const detail::SellReadOnceColumns<Compressed, Streaming> col{{a.col_idx.data()}, {a.col_offset.data()}, row};
    const ppsparse::backend::ReadOnceArray<Scalar, Streaming> values{a.values.data()};
    Scalar sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(member, lanes),
        [&](const int lane, Scalar& s) {
          s += detail::strided_dot<Scalar>(base + static_cast<offset_t>(lane) * C, end,
                                           static_cast<offset_t>(lanes) * C, col, values, x);
        },
        sum);
    Kokkos::single(Kokkos::PerThread(member), [&]() { detail::store_row(y, row, alpha, beta, sum); });
  }
};

template <class Scalar, class MemSpace, bool Compressed>
struct SellHostFunctor {
  SellArrays<Scalar, MemSpace> a;
  Kokkos::View<const Scalar*, MemSpace> x;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t p) const {
    const offset_t base = a.chunk_ptr(p / a.C) + p % a.C;
    const ordinal_t len = a.row_len(p);
    const ordinal_t row = a.perm(p);
    const detail::SellReadOnceColumns<Compressed, false> col{{a.col_idx.data()}, {a.col_offset.data()}, row};
    const Scalar sum =
        detail::strided_dot<Scalar>(base, base + static_cast<offset_t>(len) * a.C, a.C, col, a.values, x);
    detail::store_row(y, row, alpha, beta, sum);
  }
};

template <class Sell>
void check_sell_extents(const Sell& a) {
  const std::string who = "sell_spmv";
  if (a.nrows < 0 || a.ncols < 0 || a.C < 1 || a.nchunks < 0)
    throw InvalidArgument(who + ": invalid SELL header (nrows, ncols, C, nchunks)");
  const long long chunks = (static_cast<long long>(a.nrows) + a.C - 1) / a.C;
  if (a.nchunks != chunks)
    throw InvalidArgument(who + ": nchunks = " + std::to_string(a.nchunks) +
                          ", expected ceil(nrows / C) = " + std::to_string(chunks));
  if (a.chunk_ptr.extent(0) != static_cast<size_t>(a.nchunks) + 1 ||
      a.row_len.extent(0) != static_cast<size_t>(a.nchunks) * a.C || a.perm.extent(0) != static_cast<size_t>(a.nrows) ||
      a.col_idx.extent(0) != a.values.extent(0) ||
      (a.col_offset.extent(0) != 0 && a.col_offset.extent(0) != a.values.extent(0)))
    throw InvalidArgument(
        who + ": SELL arrays have inconsistent extents (chunk_ptr, row_len, perm, col_idx, col_offset, values)");
}

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
void sell_spmv(const ExecSpace& space, nondeduced_t<Scalar> alpha, const SellMatrix<Scalar, MemSpace>& a,
               const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
               const nondeduced_t<Vector<Scalar, MemSpace>>& y, const MatrixLoads loads) {
  check_sell_extents(a);
  check_vectors("sell_spmv", a.nrows, a.ncols, x, y);
  if (a.nrows == 0) return;
  if (alpha == Scalar(0)) return detail::scale_vector(space, beta, y);
  if constexpr (compat::is_gpu_space<ExecSpace>()) {
    if (!detail::is_power_of_two(a.C))
      throw InvalidArgument("sell_spmv: C = " + std::to_string(a.C) + " must be a power of two on GPUs");
    constexpr int W = compat::vector_width_for<ExecSpace>();
    const int t = a.C >= W ? 1 : W / a.C;
    // Teams of 128 threads (C * chunks_per_team groups of t lanes), at least one chunk.
    const int chunks_per_team = std::max(1, 128 / (a.C * t));
    const int team_size = a.C * chunks_per_team;
    const long long league = (static_cast<long long>(a.nchunks) + chunks_per_team - 1) / chunks_per_team;
    const auto launch = [&](const auto& f) {
      // Asked on a one-thread policy: a backend may abort on a policy built too large.
      const int team_max = Kokkos::TeamPolicy<ExecSpace>(space, 1, 1, t).team_size_max(f, Kokkos::ParallelForTag());
      if (team_size > team_max)
        throw InvalidArgument("sell_spmv: C = " + std::to_string(a.C) + " needs " + std::to_string(team_size) +
                              " threads per team; this execution space allows at most " + std::to_string(team_max));
      Kokkos::parallel_for("ppsparse::sell_spmv",
                           Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(league), team_size, t), f);
    };
    const SellArrays<Scalar, MemSpace> arrays(a);
    const auto launch_loads = [&](auto compressed) {
      constexpr bool Compressed = decltype(compressed)::value;
      if (loads == MatrixLoads::streaming)
        launch(SellGpuFunctor<ExecSpace, Scalar, MemSpace, Compressed, true>{arrays, x, y, alpha, beta, a.nrows,
                                                                             chunks_per_team, t});
      else
        launch(SellGpuFunctor<ExecSpace, Scalar, MemSpace, Compressed, false>{arrays, x, y, alpha, beta, a.nrows,
                                                                              chunks_per_team, t});
    };
    if (a.compressed_columns())
      launch_loads(std::true_type{});
    else
      launch_loads(std::false_type{});
  } else {
    (void)loads;  // CPUs have no evict-first load
    const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>> policy(space, 0, a.nrows);
    const SellArrays<Scalar, MemSpace> arrays(a);
    if (a.compressed_columns())
      Kokkos::parallel_for("ppsparse::sell_spmv", policy,
                           SellHostFunctor<Scalar, MemSpace, true>{arrays, x, y, alpha, beta});
    else
      Kokkos::parallel_for("ppsparse::sell_spmv", policy,
                           SellHostFunctor<Scalar, MemSpace, false>{arrays, x, y, alpha, beta});
  }
}

#define PPSPARSE_INSTANTIATE_SELL(S)                                                                                \
  template void sell_spmv<DefaultExecSpace, S, DefaultMemSpace>(                                                    \
      const DefaultExecSpace&, S, const SellMatrix<S, DefaultMemSpace>&, const ConstVector<S, DefaultMemSpace>&, S, \
      const Vector<S, DefaultMemSpace>&, MatrixLoads);

PPSPARSE_INSTANTIATE_SELL(float)
PPSPARSE_INSTANTIATE_SELL(double)
template SellOptions sell_resolve_options<DefaultExecSpace>(const SellOptions&, double);

namespace detail {
namespace {
// SELL-C-sigma, or HYB (SELL with the long rows in a CSR tail) when sell.hyb_row_max != 0: a copy of
// the matrix converted at setup.
template <class ExecSpace, class Scalar, class MemSpace>
class SellKernel final : public SpmvKernel<ExecSpace, Scalar, MemSpace> {
 public:
  explicit SellKernel(const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& s) : loads_(s.options.matrix_loads) {
    const auto& a = s.a;
    const SellOptions o = sell_resolve_options<ExecSpace>(s.options.sell, RowLengthStats{a.nrows, a.nnz()}.mean());
    const auto host = copy_to<HostSpace>(a);
    if (o.hyb_row_max != 0) {
      const ordinal_t row_max = o.hyb_row_max > 0 ? o.hyb_row_max : hyb_auto_row_max(a.nrows, a.nnz());
      hyb_ = std::make_unique<HybMatrix<Scalar, MemSpace>>(
          make_hyb<ExecSpace, Scalar, MemSpace>(s.space, host, o.C, o.sigma, row_max, o.index_bits));
    } else {
      auto sell = csr_to_sell(host, o.C, o.sigma);
      sell_apply_index_bits(sell, o.index_bits, s.who, "sell.index_bits");
      sell_ = std::make_unique<SellMatrix<Scalar, MemSpace>>(copy_to<MemSpace>(sell));
    }
  }
  void apply(const ExecSpace& space, Scalar alpha, const CsrMatrix<Scalar, MemSpace>& /*a*/,
             const ConstVector<Scalar, MemSpace>& x, Scalar beta, const Vector<Scalar, MemSpace>& y) override {
    if (hyb_)
      hyb_spmv(space, alpha, *hyb_, x, beta, y, loads_);
    else
      sell_spmv(space, alpha, *sell_, x, beta, y, loads_);
  }
  SpmvTraffic traffic(const CsrMatrix<Scalar, MemSpace>& a, bool reads_y) const override {
    return hyb_ ? hyb_traffic(*hyb_, reads_y)
                : sell_traffic<Scalar>(a.nrows, a.ncols, a.nnz(), sell_->stored(), sell_->nchunks, reads_y,
                                       sell_->column_bytes());
  }
  std::string parameters() const override {
    const SellMatrix<Scalar, MemSpace>& m = *sell_matrix();
    std::string d = "C=" + std::to_string(m.C) + " sigma=" + std::to_string(m.sigma) +
                    " fill=" + std::to_string(m.fill_ratio()) + " columns=" + std::to_string(8 * m.column_bytes()) +
                    "bit";
    if (hyb_)
      d += " hyb row_max=" + std::to_string(hyb_->row_max) + " tail_rows=" + std::to_string(hyb_->tail.nrows()) +
           " tail_nnz=" + std::to_string(hyb_->tail.nnz());
    return d;
  }
  bool uses_matrix_loads() const override { return true; }
  const SellMatrix<Scalar, MemSpace>* sell_matrix() const { return hyb_ ? &hyb_->sell : sell_.get(); }
  const void* find_state(const std::type_info& type) const override {
    if (const void* s = state_if(type, sell_matrix())) return s;
    return state_if(type, hyb_.get());
  }

 private:
  MatrixLoads loads_;
  std::unique_ptr<SellMatrix<Scalar, MemSpace>> sell_;
  std::unique_ptr<HybMatrix<Scalar, MemSpace>> hyb_;
};
}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
SpmvKernelPtr<ExecSpace, Scalar, MemSpace> make_spmv_kernel_sell(
    const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>& s) {
  return std::make_unique<SellKernel<ExecSpace, Scalar, MemSpace>>(s);
}
PPSPARSE_INSTANTIATE_SPMV_KERNEL(sell)

const std::vector<SpmvOptionKey>& option_keys_sell() {
  static const std::vector<SpmvOptionKey> keys{
      {"sell.C", [](SpmvOptions& o, long long v) { o.sell.C = static_cast<int>(v); }},
      {"sell.sigma", [](SpmvOptions& o, long long v) { o.sell.sigma = static_cast<ordinal_t>(v); }},
      {"sell.hyb_row_max", [](SpmvOptions& o, long long v) { o.sell.hyb_row_max = static_cast<ordinal_t>(v); }},
      {"sell.index_bits", [](SpmvOptions& o, long long v) { o.sell.index_bits = static_cast<int>(v); }},
  };
  return keys;
}
}  // namespace detail

}  // namespace ppsparse::spmv
