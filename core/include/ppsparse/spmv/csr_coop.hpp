#pragma once
// csr_coop: the parametrised CSR kernel of Reguly & Giles (seed 003).
//   coop        threads cooperating on one row (a power of two <= W, the vector width:
//               32 on CUDA, 64 on HIP, 1 on CPUs); they reduce the row with shuffles;
//   repeat      rows each cooperating group processes, one after another;
//   block_size  threads of a team (a multiple of coop): block_size / coop groups.
// Rows come in chunks of block_size/coop consecutive rows; a team's groups take the rows of
// one chunk at the same time (row = chunk * groups + group), so that the team's cache lines of
// values, columns and x are shared between its threads, and a team takes `repeat` chunks, one
// after another: on GPUs chunks t, t + L, t + 2L, ... of team t among L teams (the resident
// teams then work on neighbouring chunks and share x in L2; L is rounded to whole waves of
// resident teams, so a team takes about `repeat`: coop_league), on CPUs `repeat` consecutive
// chunks (a thread streams through its rows).
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

// Throws InvalidArgument, naming `who`, unless coop is a power of two in [1, vector_width],
// repeat >= 1, and block_size is a positive multiple of coop.
void check_coop_params(const CoopParams& p, int vector_width, const std::string& who);

// How csr_coop sizes its league on GPUs (SpmvOptions::coop_league, text key coop.whole_waves).
enum class CoopLeague {
  whole_waves,  // a whole number of waves of resident teams (coop_league); the default
  exact,        // ceil(chunks / repeat) teams of `repeat` chunks each: the paper's launch
};

struct CoopLeagueSize {
  long long teams = 0;            // the league
  long long chunks_per_team = 0;  // chunks a team takes at most (GPUs: t, t + teams, ...)
};

// The league csr_coop launches for nrows rows: chunks of block_size / coop rows, `repeat` of
// them per team, so ceil(chunks / repeat) teams (CoopLeague::exact, or resident_teams <= 0).
// With whole_waves and resident_teams > 0 (teams of this block size the device holds at once),
// that count is rounded to the nearest whole number of waves, at least one, but never more
// teams than chunks; chunks_per_team = ceil(chunks / teams), so the chunks are dealt out
// evenly. Why: on an H100 a last wave that is nearly empty runs at a fraction of the device's
// bandwidth for as long as a full one (its teams take `repeat` chunks each): over twelve
// exhaustive landscapes (docs/perf/bench_spmv_h100.md) mixedmesh took 1.33x its best at 1.09
// waves and 1.12x at 2.18, band65 1.26x at 1.26 waves and 1.06x at 5.04, while points just
// below a whole number (2.7-2.9, 5.4-5.8 waves) were the best. Those cliffs along repeat also
// stop the run-time tuner's walk short. Pure function; InvalidArgument for nrows < 0 or
// parameters check_coop_params refuses (with the vector width taken as coop).
CoopLeagueSize coop_league(ordinal_t nrows, const CoopParams& p, long long resident_teams, CoopLeague league);

// y = alpha*A*x + beta*y with the given parameters (conventions as csr_v1). Also
// InvalidArgument if check_coop_params fails, or if block_size / coop threads per team
// exceed what the space allows for this kernel.
// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
void csr_coop(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
              const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
              const nondeduced_t<Vector<Scalar, MemSpace>>& y, const CoopParams& params,
              CoopLeague league = CoopLeague::whole_waves);

}  // namespace ppsparse::spmv
