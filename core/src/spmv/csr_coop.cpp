#include <ppsparse/spmv/csr_coop.hpp>

#include <algorithm>
#include <cmath>

#include "kernel_common.hpp"

namespace ppsparse::spmv {

std::string CoopParams::to_string() const {
  return "coop=" + std::to_string(coop) + " repeat=" + std::to_string(repeat) + " block=" + std::to_string(block_size);
}

CoopParams coop_fixed_rule(ordinal_t nrows, offset_t nnz, int vector_width, int concurrency, bool gpu,
                           int max_repeat) {
  CoopParams p;
  const double avg = nrows > 0 ? static_cast<double>(nnz) / static_cast<double>(nrows) : 0.0;
  p.coop = std::min(detail::next_power_of_two(std::sqrt(avg)), std::max(1, vector_width));
  p.block_size = gpu ? std::max(128, p.coop) : p.coop;
  const long long groups = p.block_size / p.coop;
  const long long min_teams = std::max<long long>(1, 16LL * std::max(1, concurrency) / p.block_size);
  p.repeat = 1;
  while (p.repeat * 2 <= max_repeat) {
    const long long rows_per_team = groups * p.repeat * 2;
    const long long teams = (static_cast<long long>(nrows) + rows_per_team - 1) / rows_per_team;
    if (teams < min_teams) break;
    p.repeat *= 2;
  }
  return p;
}

void check_coop_params(const CoopParams& p, int vector_width, const std::string& who) {
  if (!detail::is_power_of_two(p.coop) || p.coop > vector_width)
    throw InvalidArgument(who + ": coop = " + std::to_string(p.coop) + " must be a power of two in [1, " +
                          std::to_string(vector_width) + "] (the vector width of this execution space)");
  if (p.repeat < 1) throw InvalidArgument(who + ": repeat = " + std::to_string(p.repeat) + " must be >= 1");
  if (p.block_size < p.coop || p.block_size % p.coop != 0)
    throw InvalidArgument(who + ": block_size = " + std::to_string(p.block_size) +
                          " must be a positive multiple of coop = " + std::to_string(p.coop));
}

CoopLaunch coop_launch(ordinal_t nrows, const CoopParams& p, int concurrency, bool gpu) {
  CoopLaunch l;
  const long long groups = std::max(1, p.block_size / std::max(1, p.coop));
  const long long repeat = std::max(1, p.repeat);
  l.chunks = (static_cast<long long>(std::max<ordinal_t>(nrows, 0)) + groups - 1) / groups;
  const long long units = (l.chunks + repeat - 1) / repeat;
  l.league = units;
  if (gpu && repeat > 1) {
    const long long resident = std::max(1LL, static_cast<long long>(std::max(1, concurrency)) / std::max(1, p.block_size));
    l.league = std::min(units, resident);
    if (l.league < units) l.claim_chunks = repeat;
  }
  return l;
}

CoopParams coop_canonical(ordinal_t nrows, const CoopParams& p, int concurrency, bool gpu) {
  const CoopLaunch target = coop_launch(nrows, p, concurrency, gpu);
  // Without claims the kernel depends on the league only: the least repeat with this league
  // is 1 or ceil(chunks / league). With claims, repeat is the claim's size.
  const long long least = target.league > 0 ? (target.chunks + target.league - 1) / target.league : 1;
  for (const long long r : {1LL, least}) {
    if (r < 1 || r > p.repeat) continue;
    CoopParams q = p;
    q.repeat = static_cast<int>(r);
    if (coop_launch(nrows, q, concurrency, gpu) == target) return q;
  }
  return p;
}

template <class ExecSpace>
CoopSearchSpace coop_search_space(const ExecSpace&) {
  CoopSearchSpace s;
  s.max_coop = compat::vector_width_for<ExecSpace>();
  if (compat::is_gpu_space<ExecSpace>())
    s.block_sizes = {64, 96, 128, 192, 256, 384, 512};
  else
    s.block_sizes = {1};
  s.max_repeat = 64;
  return s;
}

namespace {

template <class ExecSpace, class Scalar, class MemSpace>
struct CsrCoopFunctor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr bool gpu = compat::is_gpu_space<ExecSpace>();
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const Scalar*, MemSpace> values;
  detail::RandomAccessVector<Scalar, MemSpace> x;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;
  ordinal_t nrows;
  int repeat;
  int lanes;  // coop: the vector length of the launch
  long long chunks;
  long long claim_chunks;  // > 0: teams claim runs of this many chunks from counters(0) (see CoopLaunch)
  Kokkos::View<std::uint64_t*, MemSpace> counters;

  // The team's rows of one chunk (threads past the last row do nothing).
  KOKKOS_INLINE_FUNCTION void chunk_rows(const member_type& member, const long long chunk) const {
    const long long row = chunk * member.team_size() + member.team_rank();
    if (row >= nrows) return;
    const ordinal_t i = static_cast<ordinal_t>(row);
    const Scalar sum = detail::row_dot_vector<Scalar>(
        member, lanes, row_ptr, col_idx, values, [&](const ordinal_t c) { return x(c); }, i);
    Kokkos::single(Kokkos::PerThread(member), [&]() { detail::store_row(y, i, alpha, beta, sum); });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const long long team = member.league_rank(), league = member.league_size();
    if (claim_chunks == 0) {
      // GPUs: chunks t, t + L, t + 2L, ... (at most one wave of teams here, or one chunk
      // each: the resident teams work on neighbouring chunks and share x in L2). CPUs:
      // `repeat` consecutive chunks (a thread streams through its rows).
      const long long first = gpu ? team : team * repeat, stride = gpu ? league : 1;
      for (long long r = 0, c = first; r < repeat && c < chunks; ++r, c += stride) chunk_rows(member, c);
      return;
    }
    // Runs of claim_chunks consecutive chunks: team t starts on run t, and claim k of the
    // counter is run league + k. The leader asks for the next run before working on this
    // one, so that the atomic's latency overlaps the rows; the broadcast's barriers keep the
    // team together (the loop's condition is uniform across the team).
    const bool leader = member.team_rank() == 0;
    const long long runs = (chunks + claim_chunks - 1) / claim_chunks;
    long long run = team;
    while (run < runs) {
      long long next = 0;
      Kokkos::single(Kokkos::PerThread(member), [&]() {
        if (leader) next = league + static_cast<long long>(Kokkos::atomic_fetch_add(&counters(0), std::uint64_t{1}));
      });
      for (long long c = run * claim_chunks; c < (run + 1) * claim_chunks && c < chunks; ++c) chunk_rows(member, c);
      member.team_broadcast(next, 0);
      run = next;
    }
    // The last team to finish zeroes the counters for the next launch; every team's last
    // claim is ordered before its count by the fence.
    Kokkos::single(Kokkos::PerThread(member), [&]() {
      if (!leader) return;
      Kokkos::memory_fence();
      if (Kokkos::atomic_fetch_add(&counters(1), std::uint64_t{1}) == static_cast<std::uint64_t>(league - 1)) {
        Kokkos::atomic_exchange(&counters(0), std::uint64_t{0});
        Kokkos::atomic_exchange(&counters(1), std::uint64_t{0});
      }
    });
  }
};

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
void csr_coop(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
              const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
              const nondeduced_t<Vector<Scalar, MemSpace>>& y, const CoopParams& params,
              const CoopWorkspace<MemSpace>& workspace) {
  check_csr_extents("csr_coop", a);
  check_vectors("csr_coop", a.nrows, a.ncols, x, y);
  check_coop_params(params, compat::vector_width_for<ExecSpace>(), "csr_coop");
  using Functor = CsrCoopFunctor<ExecSpace, Scalar, MemSpace>;
  const CoopLaunch launch =
      coop_launch(a.nrows, params, space.concurrency(), compat::is_gpu_space<ExecSpace>());
  Functor f{a.row_ptr, a.col_idx, a.values, x,      y, alpha, beta, a.nrows, params.repeat, params.coop,
            launch.chunks, launch.claim_chunks, workspace.counters};
  const int team_size = params.block_size / params.coop;
  const int team_max = Kokkos::TeamPolicy<ExecSpace>(space, 1, 1, params.coop).team_size_max(f, Kokkos::ParallelForTag());
  if (team_size > team_max)
    throw InvalidArgument("csr_coop: block_size = " + std::to_string(params.block_size) + " with coop = " +
                          std::to_string(params.coop) + " asks for " + std::to_string(team_size) +
                          " threads per team; this execution space allows at most " + std::to_string(team_max));
  if (a.nrows == 0) return;
  if (alpha == Scalar(0)) return detail::scale_vector(space, beta, y);
  const bool own_workspace = launch.claim_chunks > 0 && f.counters.extent(0) < 2;
  if (own_workspace) f.counters = make_coop_workspace<MemSpace>().counters;
  Kokkos::parallel_for("ppsparse::csr_coop",
                       Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(launch.league), team_size, params.coop), f);
  if (own_workspace) space.fence();  // the call's counters must outlive its kernel
}

#define PPSPARSE_INSTANTIATE_CSR_COOP(S)                                                                        \
  template void csr_coop<DefaultExecSpace, S, DefaultMemSpace>(                                                 \
      const DefaultExecSpace&, S, const CsrMatrix<S, DefaultMemSpace>&, const ConstVector<S, DefaultMemSpace>&, \
      S, const Vector<S, DefaultMemSpace>&, const CoopParams&, const CoopWorkspace<DefaultMemSpace>&);

PPSPARSE_INSTANTIATE_CSR_COOP(float)
PPSPARSE_INSTANTIATE_CSR_COOP(double)
template CoopSearchSpace coop_search_space<DefaultExecSpace>(const DefaultExecSpace&);

}  // namespace ppsparse::spmv
