#include <ppsparse/spmv/sell_spmv.hpp>

#include "kernel_common.hpp"

namespace ppsparse::spmv {

template <class ExecSpace>
SellOptions sell_resolve_options(const SellOptions& in) {
  SellOptions o = in;
  if (o.C == 0) o.C = 8;
  if (o.sigma == 0) o.sigma = 256;
  if (o.C < 1) throw InvalidArgument("sell options: C = " + std::to_string(o.C) + " must be >= 1");
  if (compat::is_gpu_space<ExecSpace>() && !detail::is_power_of_two(o.C))
    throw InvalidArgument("sell options: C = " + std::to_string(o.C) +
                          " must be a power of two on GPUs (C * threads per row = the vector width)");
  if (o.sigma < 1) throw InvalidArgument("sell options: sigma = " + std::to_string(o.sigma) + " must be >= 1");
  if (o.hyb_row_max < -1)
    throw InvalidArgument("sell options: hyb_row_max = " + std::to_string(o.hyb_row_max) +
                          " must be >= 1, 0 (pure SELL) or -1 (automatic)");
  return o;
}

namespace {

template <class ExecSpace, class Scalar, class MemSpace>
struct SellGpuFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Kokkos::View<const offset_t*, MemSpace> chunk_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> row_len;
  Kokkos::View<const ordinal_t*, MemSpace> perm;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const Scalar*, MemSpace> values;
  detail::RandomAccessVector<Scalar, MemSpace> x;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;
  ordinal_t nrows;
  int C;
  int chunks_per_team;

  // Team thread r works on lane r % C of chunk league * chunks_per_team + r / C; its t vector
  // lanes take the row's entries j = lane, lane + t, ...: the W lanes of a warp read C*t
  // consecutive stored entries per step.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const int r = member.team_rank();
    const long long chunk = static_cast<long long>(member.league_rank()) * chunks_per_team + r / C;
    const long long p = chunk * C + r % C;
    if (p >= nrows) return;
    const ordinal_t len = row_len(p);
    const offset_t base = chunk_ptr(chunk) + r % C;
    Scalar sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(member, len),
        [&](const ordinal_t j, Scalar& s) {
          const offset_t k = base + static_cast<offset_t>(j) * C;
          s += values(k) * x(col_idx(k));
        },
        sum);
    Kokkos::single(Kokkos::PerThread(member), [&]() { detail::store_row(y, perm(p), alpha, beta, sum); });
  }
};

template <class Scalar, class MemSpace>
struct SellHostFunctor {
  Kokkos::View<const offset_t*, MemSpace> chunk_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> row_len;
  Kokkos::View<const ordinal_t*, MemSpace> perm;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const Scalar*, MemSpace> values;
  Kokkos::View<const Scalar*, MemSpace> x;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;
  int C;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t p) const {
    const offset_t base = chunk_ptr(p / C) + p % C;
    const ordinal_t len = row_len(p);
    Scalar sum = 0;
    for (ordinal_t j = 0; j < len; ++j) {
      const offset_t k = base + static_cast<offset_t>(j) * C;
      sum += values(k) * x(col_idx(k));
    }
    detail::store_row(y, perm(p), alpha, beta, sum);
  }
};

template <class Sell>
void check_sell_extents(const Sell& a) {
  const std::string who = "sell_spmv";
  if (a.nrows < 0 || a.ncols < 0 || a.C < 1 || a.nchunks < 0)
    throw InvalidArgument(who + ": invalid SELL header (nrows, ncols, C, nchunks)");
  const long long chunks = (static_cast<long long>(a.nrows) + a.C - 1) / a.C;
  if (a.nchunks != chunks)
    throw InvalidArgument(who + ": nchunks = " + std::to_string(a.nchunks) + ", expected ceil(nrows / C) = " +
                          std::to_string(chunks));
  if (a.chunk_ptr.extent(0) != static_cast<size_t>(a.nchunks) + 1 ||
      a.row_len.extent(0) != static_cast<size_t>(a.nchunks) * a.C || a.perm.extent(0) != static_cast<size_t>(a.nrows) ||
      a.col_idx.extent(0) != a.values.extent(0))
    throw InvalidArgument(who + ": SELL arrays have inconsistent extents (chunk_ptr, row_len, perm, col_idx, values)");
}

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
void sell_spmv(const ExecSpace& space, nondeduced_t<Scalar> alpha, const SellMatrix<Scalar, MemSpace>& a,
               const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
               const nondeduced_t<Vector<Scalar, MemSpace>>& y) {
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
    const SellGpuFunctor<ExecSpace, Scalar, MemSpace> f{
        a.chunk_ptr, a.row_len, a.perm, a.col_idx, a.values, x, y, alpha, beta, a.nrows, a.C, chunks_per_team};
    Kokkos::TeamPolicy<ExecSpace> policy(space, static_cast<int>(league), team_size, t);
    const int team_max = policy.team_size_max(f, Kokkos::ParallelForTag());
    if (team_size > team_max)
      throw InvalidArgument("sell_spmv: C = " + std::to_string(a.C) + " needs " + std::to_string(team_size) +
                            " threads per team; this execution space allows at most " + std::to_string(team_max));
    Kokkos::parallel_for("ppsparse::sell_spmv", policy, f);
  } else {
    Kokkos::parallel_for("ppsparse::sell_spmv", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, a.nrows),
                         SellHostFunctor<Scalar, MemSpace>{a.chunk_ptr, a.row_len, a.perm, a.col_idx, a.values, x, y,
                                                           alpha, beta, a.C});
  }
}

#define PPSPARSE_INSTANTIATE_SELL(S)                                                                             \
  template void sell_spmv<DefaultExecSpace, S, DefaultMemSpace>(                                                 \
      const DefaultExecSpace&, S, const SellMatrix<S, DefaultMemSpace>&, const ConstVector<S, DefaultMemSpace>&, \
      S, const Vector<S, DefaultMemSpace>&);

PPSPARSE_INSTANTIATE_SELL(float)
PPSPARSE_INSTANTIATE_SELL(double)
template SellOptions sell_resolve_options<DefaultExecSpace>(const SellOptions&);

}  // namespace ppsparse::spmv
