#pragma once
// csr_coop: the parametrised CSR kernel of Reguly & Giles (seed 003).
//   coop        threads cooperating on one row (a power of two <= W, the vector width:
//               32 on CUDA, 64 on HIP, 1 on CPUs); they reduce the row with shuffles;
//   repeat      rows each cooperating group processes, one after another;
//   block_size  threads of a team (a multiple of coop): block_size / coop groups.
// Rows come in chunks of block_size/coop consecutive rows; a team's groups take the rows of
// one chunk at the same time (row = chunk * groups + group), so that the team's cache lines of
// values, columns and x are shared between its threads.
//   CPUs: a team takes `repeat` consecutive chunks (a thread streams through its rows).
//   GPUs: chunks / repeat teams, team t taking chunks t, t + L, t + 2L, ... of L, while that
//     is at most one device of resident teams (or repeat = 1: one chunk per team). Beyond,
//     a device of teams claims runs of `repeat` consecutive chunks in row order from a
//     counter in device memory until none is left. A fixed assignment over several waves of
//     teams measured badly on an H100 (test/data/coop_landscape_*): 1.1-1.5 waves left SMs
//     idle in a partial last wave (14-34 % slower), and with coop 1-2 the waves' teams drifted
//     apart in the matrix, x no longer shared L2, and products took 1.8-3.7 times as long.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

struct CoopParams {
  int coop = 1;
  int repeat = 1;
  int block_size = 1;

  bool operator==(const CoopParams& o) const {
    return coop == o.coop && repeat == o.repeat && block_size == o.block_size;
  }
  bool operator!=(const CoopParams& o) const { return !(*this == o); }
  std::string to_string() const;  // "coop=4 repeat=8 block=128"
};

// The values the run-time tuner may try on an execution space.
struct CoopSearchSpace {
  int max_coop = 1;              // W of the space
  std::vector<int> block_sizes;  // increasing; a block size is usable with coop if it is a multiple of it
  int max_repeat = 64;           // repeat ranges over the powers of two up to this
  // Maps parameters to a representative of those that launch the same kernel (coop_canonical
  // for one matrix); the tuner measures each representative once. Empty: every point differs.
  std::function<CoopParams(const CoopParams&)> canonical;
};

// GPUs: block sizes 64, 96, 128, 192, 256, 384, 512 (the paper's range, coarsened to keep
// the tuner's steps few); CPUs: block size 1 (a team is one thread; CPU vector lanes are the
// compiler's business, so coop = 1). Instantiated for DefaultExecSpace.
template <class ExecSpace>
CoopSearchSpace coop_search_space(const ExecSpace& space);

// The paper's fixed rule, adapted to today's devices:
//  * coop = smallest power of two >= sqrt(average row length), capped at vector_width;
//  * block_size = 128 on GPUs (the paper's value), coop on CPUs (one thread per team);
//  * repeat = the largest power of two <= max_repeat that still leaves at least
//    16 * concurrency / block_size teams (16 waves of resident threads; the paper asked for
//    1500 blocks on a 14-SM Fermi, i.e. about 13 waves), and at least 1. Over the 14 large
//    matrices measured on an H100 (test/data/coop_landscape_h100.txt) the best repeat is
//    mostly 1-4: 16 waves start nearer the best point than 4 waves on 12 of them (farther
//    on one), and the tuner then ends within 2 % in 8 calls on 13 (4 waves: 11).
// Pure function of its arguments (vector_width >= 1 a power of two, concurrency >= 1).
CoopParams coop_fixed_rule(ordinal_t nrows, offset_t nnz, int vector_width, int concurrency, bool gpu,
                           int max_repeat = 32);

// The fixed rule for a matrix on an execution space (uses space.concurrency()).
template <class ExecSpace, class Scalar, class MemSpace>
CoopParams coop_fixed_rule(const ExecSpace& space, const CsrMatrix<Scalar, MemSpace>& a) {
  return coop_fixed_rule(a.nrows, a.nnz(), compat::vector_width_for<ExecSpace>(), space.concurrency(),
                         compat::is_gpu_space<ExecSpace>());
}

// How csr_coop launches on a space: `league` teams over `chunks` chunks; claim_chunks > 0:
// the teams claim runs of that many chunks from the workspace's counter (GPUs, repeat > 1,
// more runs than capacity / block_size resident teams; capacity = the space's concurrency).
// Pure function of its arguments.
struct CoopLaunch {
  long long chunks = 0;
  long long league = 0;
  long long claim_chunks = 0;
  bool operator==(const CoopLaunch& o) const {
    return chunks == o.chunks && league == o.league && claim_chunks == o.claim_chunks;
  }
};
CoopLaunch coop_launch(ordinal_t nrows, const CoopParams& p, int concurrency, bool gpu);

// The parameters with the smallest repeat that launch exactly as p does (same coop and block
// size, same CoopLaunch): on small matrices many repeats give the same teams (every repeat
// >= the chunks gives one), and the tuner need not measure them twice.
CoopParams coop_canonical(ordinal_t nrows, const CoopParams& p, int concurrency, bool gpu);

// Device counters for claiming chunks: two integers, zero between launches (the last team of
// a launch resets them). Reusable by launches ordered on one stream; launches that may run
// at the same time (different streams) need one workspace each.
template <class MemSpace>
struct CoopWorkspace {
  Kokkos::View<std::uint64_t*, MemSpace> counters;
};
template <class MemSpace>
CoopWorkspace<MemSpace> make_coop_workspace() {
  return {Kokkos::View<std::uint64_t*, MemSpace>("ppsparse::csr_coop_counters", 2)};
}

// Throws InvalidArgument, naming `who`, unless coop is a power of two in [1, vector_width],
// repeat >= 1, and block_size is a positive multiple of coop.
void check_coop_params(const CoopParams& p, int vector_width, const std::string& who);

// y = alpha*A*x + beta*y with the given parameters (conventions as csr_v1). Also
// InvalidArgument if check_coop_params fails, or if block_size / coop threads per team
// exceed what the space allows for this kernel. A launch that claims chunks uses `workspace`
// (its counters must be zero, as make_coop_workspace leaves them); without one it allocates
// one for the call, which costs a device allocation: callers that repeat products pass one.
// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
void csr_coop(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
              const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
              const nondeduced_t<Vector<Scalar, MemSpace>>& y, const CoopParams& params,
              const CoopWorkspace<MemSpace>& workspace = {});

}  // namespace ppsparse::spmv
