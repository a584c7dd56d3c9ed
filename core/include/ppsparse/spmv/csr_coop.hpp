#pragma once
/// @file
/// csr_coop: the parametrised CSR kernel of Reguly & Giles (2012).
///   coop        threads cooperating on one row (a power of two <= W, the vector width:
///               32 on CUDA, 64 on HIP, 1 on CPUs); they reduce the row with shuffles;
///   repeat      rows each cooperating group processes, one after another;
///   block_size  threads of a team (a multiple of coop): block_size / coop groups.
/// Rows come in chunks of block_size/coop consecutive rows; a team's groups take the rows of
/// one chunk at the same time (row = chunk * groups + group), so that the team's cache lines of
/// values, columns and x are shared between its threads, and a team takes `repeat` chunks, one
/// after another: on GPUs chunks t, t + L, t + 2L, ... of team t among L teams (the resident
/// teams then work on neighbouring chunks and share x in L2), on CPUs `repeat` consecutive
/// chunks (a thread streams through its rows).
#include <string>
#include <vector>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

/// csr_coop's parameters: lanes per row (coop), rows per lane group (repeat) and block size.
struct CoopParams {
  int coop = 1;        ///< vector lanes that share one row
  int repeat = 1;      ///< rows a lane group handles one after another
  int block_size = 1;  ///< threads of a team (block)

  bool operator==(const CoopParams& o) const {
    return coop == o.coop && repeat == o.repeat && block_size == o.block_size;
  }
  bool operator!=(const CoopParams& o) const { return !(*this == o); }
  std::string to_string() const;  ///< "coop=4 repeat=8 block=128"
};

/// The values the run-time tuner may try on an execution space.
struct CoopSearchSpace {
  int max_coop = 1;              ///< W of the space
  std::vector<int> block_sizes;  ///< increasing; a block size is usable with coop if it is a multiple of it
  int max_repeat = 64;           ///< repeat ranges over the powers of two up to this
};

/// GPUs: block sizes 64, 96, 128, 192, 256, 384, 512 (the paper's range, coarsened to keep
/// the tuner's steps few); CPUs: block size 1 (a team is one thread; CPU vector lanes are the
/// compiler's business, so coop = 1). Instantiated for DefaultExecSpace.
template <class ExecSpace>
CoopSearchSpace coop_search_space(const ExecSpace& space);

/// The paper's fixed rule, adapted to today's devices:
///  * coop = smallest power of two >= sqrt(average row length), capped at vector_width;
///  * block_size = 128 on GPUs (the paper's value), coop on CPUs (one thread per team);
///  * repeat = the largest power of two <= max_repeat that still leaves at least
///    16 * concurrency / block_size teams (16 waves of resident threads; the paper asked for
///    1500 blocks on a 14-SM Fermi, i.e. about 13 waves), and at least 1: 16 waves start
///    nearer the best point than 4 (docs/perf/kernel_choices.md, "csr_coop fixed rule").
/// Pure function of its arguments (vector_width >= 1 a power of two, concurrency >= 1).
CoopParams coop_fixed_rule(ordinal_t nrows, offset_t nnz, int vector_width, int concurrency, bool gpu,
                           int max_repeat = 32);

/// The fixed rule for a matrix on an execution space (uses space.concurrency()).
template <class ExecSpace, class Scalar, class MemSpace>
CoopParams coop_fixed_rule(const ExecSpace& space, const CsrMatrix<Scalar, MemSpace>& a) {
  return coop_fixed_rule(a.nrows, a.nnz(), compat::vector_width_for<ExecSpace>(), space.concurrency(),
                         compat::is_gpu_space<ExecSpace>());
}

/// What the tuner knows of the matrix besides its size (coop_matrix_shape).
struct CoopMatrixShape {
  /// Most rows' columns lie near the diagonal (stencils, bands, meshes in a local numbering).
  /// The repeat axis is then walked towards fewer, longer-lived teams first: on those matrices
  /// the best repeat lay above the fixed rule's (docs/perf/kernel_choices.md, "csr_coop local
  /// columns"), while random columns (power-law graphs, random matrices) prefer
  /// repeat 1, as the paper's first step (halving repeat) assumes.
  bool local_columns = false;
};

/// The matrix's shape for the tuner: local_columns when at least half of the nonempty rows have a
/// mean distance |column - row * ncols / nrows| of at most ncols / 64 (a stencil of 180^3 rows:
/// 0.002 ncols; random columns: about ncols / 3). One pass over the column indices on `space`.
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
CoopMatrixShape coop_matrix_shape(const ExecSpace& space, const CsrMatrix<Scalar, MemSpace>& a);

/// Throws InvalidArgument, naming `who`, unless coop is a power of two in [1, vector_width],
/// repeat >= 1, and block_size is a positive multiple of coop.
void check_coop_params(const CoopParams& p, int vector_width, const std::string& who);

/// y = alpha*A*x + beta*y with the given parameters (conventions as csr_v1). Also
/// InvalidArgument if check_coop_params fails, or if block_size / coop threads per team
/// exceed what the space allows for this kernel.
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
void csr_coop(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
              const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
              const nondeduced_t<Vector<Scalar, MemSpace>>& y, const CoopParams& params);

}  // namespace ppsparse::spmv
