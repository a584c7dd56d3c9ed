#pragma once
/// @file
/// The coarsening of a block system for the aggregation multigrid preconditioner (Notay 2010;
/// Kim, Xu and Zikatanov 2003): aggregates of block rows formed by repeated pairwise matching
/// along the strongest couplings, and the Galerkin coarse operator of a piecewise-constant block
/// prolongation (a coarse block is the sum of the fine blocks between two aggregates; a coarse
/// diagonal block takes the aggregate's diagonal blocks and its internal couplings).
///
/// Everything runs on the device, every level's pattern staying there: the matchings (a
/// handshake per round: every unmatched row proposes to its strongest unmatched neighbour,
/// mutual proposals pair), the numbering of the aggregates, the coarse pattern with the maps
/// from fine to coarse blocks, and each coarse level's colouring and colour order. The results
/// do not depend on the backend's thread timing: scans number in row order, every list is
/// sorted, and the colouring is Kokkos Kernels' deterministic one (after Deveci et al. 2016). Every
/// numeric refresh sums the fine values through the maps, each coarse entry in a fixed order,
/// so that a refresh gives the same coarse values as a fresh setup, bit for bit. Every row lies
/// in exactly one aggregate; a row whose neighbours are all unpaired stays alone.
#include <vector>

#include <Kokkos_Core.hpp>

#include <ppsparse/mcpi/setup.hpp>
#include <ppsparse/types.hpp>

#include "../o_encode.hpp"

namespace ppsparse::mcpi::multigrid {

/// A level's block pattern on a memory space: n block rows, 0-based, no diagonal blocks.
template <class MemSpace>
struct LevelPattern {
  ordinal_t n = 0;
  Kokkos::View<offset_t*, MemSpace> row_ptr;  ///< n + 1 entries
  Kokkos::View<ordinal_t*, MemSpace> col_idx;
  offset_t nnzb() const { return static_cast<offset_t>(col_idx.extent(0)); }
};

/// A host pattern's copy on MemSpace. InvalidArgument where the arrays do not fit n rows.
template <class MemSpace>
LevelPattern<MemSpace> level_pattern(ordinal_t n, const std::vector<offset_t>& row_ptr,
                                     const std::vector<ordinal_t>& col_idx);

/// One coarsening step's aggregates: fine row i lies in aggregate of_row(i), 0 <= of_row(i) <
/// count, and every aggregate holds at least one row.
template <class MemSpace>
struct Aggregates {
  ordinal_t fine_rows = 0;
  ordinal_t count = 0;
  Kokkos::View<ordinal_t*, MemSpace> of_row;
};

/// Each block's transposed partner: for block k = (i, j), the block (j, i), or -1 where there
/// is none. On exec.
template <class ExecSpace>
Kokkos::View<offset_t*, typename ExecSpace::memory_space> transposed_blocks(
    const ExecSpace& exec, const LevelPattern<typename ExecSpace::memory_space>& pattern);

/// The strength of each block of a block CSR pattern (0-based, no diagonal blocks): the
/// Frobenius norm of the block's nb x nb values (block k at values[slot(k) * nb * nb], slot(k)
/// = k where `slot` is empty), on exec. NumericalError naming the first block k (counted from
/// index_base) holding a NaN or Inf.
template <class ExecSpace, class Scalar>
Kokkos::View<double*, typename ExecSpace::memory_space> block_strengths(
    const ExecSpace& exec, const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& values, offset_t nnzb,
    int nb, int index_base = 0, const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& slot = {});

/// block_strengths from O read through `values` (o_encode.hpp's sources: entry e of the block
/// in slot p as FP32, from FP32 storage or a coded format's), block k's at slot(k) (k where
/// `slot` is empty): how a coarse level whose O is coded is coarsened further.
template <class ExecSpace, class Source>
Kokkos::View<double*, typename ExecSpace::memory_space> block_strengths_from(
    const ExecSpace& exec, const Source& values, offset_t nnzb, int nb, int index_base = 0,
    const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& slot = {});

/// |O - O^T|_F / |O|_F of a level's O (block k's nb x nb values column-major at values[slot(k)
/// * nb * nb], slot(k) = k where `slot` is empty), a block without its transposed partner
/// counting whole; 0 for O = 0. On exec (synchronises).
template <class ExecSpace, class Scalar>
double block_asymmetry(const ExecSpace& exec,
                       const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& values,
                       const LevelPattern<typename ExecSpace::memory_space>& pattern, int nb,
                       const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& slot = {});

/// Aggregates of a level's block rows (strength: one per block) by `passes` pairwise
/// matchings, the second and later on the graph of the previous pass's aggregates (strengths
/// summed): each pass pairs rows, and a row left unpaired joins its strongest paired
/// neighbour's pair, so that an aggregate holds up to 3^passes rows (most 2^passes). Each
/// matching runs at most `rounds` handshake rounds. On exec.
/// InvalidArgument for passes < 1, rounds < 1, arrays of the wrong sizes or a column outside
/// the rows (naming the block and its row).
template <class ExecSpace>
Aggregates<typename ExecSpace::memory_space> pairwise_aggregates(
    const ExecSpace& exec, const LevelPattern<typename ExecSpace::memory_space>& pattern,
    const Kokkos::View<const double*, typename ExecSpace::memory_space>& strength, int passes = 2, int rounds = 16);

/// The CSR (ptr, items) grouping the indices q of `key` by key(q) (0 <= key(q) < groups), each
/// group's indices increasing, on exec. Meant for the small groups of aggregates (each group is
/// sorted by one thread).
template <class ExecSpace, class Item>
void group_by(const ExecSpace& exec, const Kokkos::View<const ordinal_t*, typename ExecSpace::memory_space>& key,
              ordinal_t groups, Kokkos::View<offset_t*, typename ExecSpace::memory_space>& ptr,
              Kokkos::View<Item*, typename ExecSpace::memory_space>& items);

/// The Galerkin coarse operator's structure and the maps that sum the fine values into it.
template <class MemSpace>
struct GalerkinMap {
  /// The coarse O pattern: the aggregates' rows, columns sorted, no diagonal.
  LevelPattern<MemSpace> coarse;
  // Coarse off-diagonal block s = sum of the fine O blocks off_src[off_ptr[s] .. off_ptr[s + 1]);
  // s is the block's place in `coarse` until place_in_storage, then its slot in the coarse
  // level's storage.
  Kokkos::View<offset_t*, MemSpace> off_ptr, off_src;
  // Coarse diagonal block I = sum of the fine D blocks diag_d_src[diag_d_ptr[I] ..) and of the
  // fine O blocks inside the aggregate, diag_o_src[diag_o_ptr[I] ..).
  Kokkos::View<offset_t*, MemSpace> diag_d_ptr, diag_d_src, diag_o_ptr, diag_o_src;
  // Where coarse diagonal block I goes: d_dst(I) (empty: I); the coarse level's own colour
  // order, shared.
  Kokkos::View<const ordinal_t*, MemSpace> d_dst;
  ordinal_t coarse_rows() const { return coarse.n; }
  offset_t nnzb() const { return coarse.nnzb(); }
};

/// The coarse pattern and maps of a level's pattern under `aggregates`, on exec. The
/// contributions to each coarse block are listed in fine order.
template <class ExecSpace>
GalerkinMap<typename ExecSpace::memory_space> galerkin_map(
    const ExecSpace& exec, const LevelPattern<typename ExecSpace::memory_space>& pattern,
    const Aggregates<typename ExecSpace::memory_space>& aggregates);

/// The transfers between two levels' colour orders (row i of the level above at
/// above_order(i), aggregate I at here_order(I)): to_coarse(above_order(i)) =
/// here_order(of_row(i)), and the rows above grouped by their coarse row (from_ptr, from_rows),
/// in colour order both. On exec.
template <class ExecSpace>
void transfers(const ExecSpace& exec, const Aggregates<typename ExecSpace::memory_space>& aggregates,
               const Kokkos::View<const ordinal_t*, typename ExecSpace::memory_space>& above_order,
               const Kokkos::View<const ordinal_t*, typename ExecSpace::memory_space>& here_order,
               Kokkos::View<ordinal_t*, typename ExecSpace::memory_space>& to_coarse,
               Kokkos::View<offset_t*, typename ExecSpace::memory_space>& from_ptr,
               Kokkos::View<ordinal_t*, typename ExecSpace::memory_space>& from_rows);

/// A coarse level's setup plan from its pattern (sorted rows, as galerkin_map makes them), on
/// exec: a distance-1 colouring of the pattern made symmetric (Kokkos Kernels' deterministic
/// vertex-based colouring), the colour order and each block's slot, as make_setup_plan builds
/// them on the host for a user's pattern. NumericalError if the colouring came back invalid.
template <class ExecSpace>
detail::SetupPlan coarse_level_plan(const ExecSpace& exec, int nb,
                                    const LevelPattern<typename ExecSpace::memory_space>& pattern);

/// Points the map at the value storage of two MCPI levels (mcpi::Solver::Storage) in place of
/// the user's order: fine O block k read at slot fine_o_slot(k), fine row i's D at
/// fine_d_slot(i), coarse block s written at coarse_o_slot(s) (the off-diagonal sums reordered
/// by their slots), coarse row I's at coarse_d_slot(I) (the map keeps this view). On exec;
/// once, after galerkin_map.
template <class ExecSpace>
void place_in_storage(const ExecSpace& exec, GalerkinMap<typename ExecSpace::memory_space>& map,
                      const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& fine_o_slot,
                      const Kokkos::View<const ordinal_t*, typename ExecSpace::memory_space>& fine_d_slot,
                      const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& coarse_o_slot,
                      const Kokkos::View<const ordinal_t*, typename ExecSpace::memory_space>& coarse_d_slot);

/// The Galerkin sums of the coarse off-diagonal blocks as an encode source (o_encode.hpp):
/// entry e (j * nb + i) of coarse block s (its slot once placed) is the FP64 sum of entry e of
/// its fine blocks, in fine order, read through `fine` (a source: entry e of the fine block in
/// slot p as FP32). A coarse level in a coded format is encoded from it with no FP32 copy.
template <class MemSpace, class FineO>
struct GalerkinOffSum {
  Kokkos::View<const offset_t*, MemSpace> ptr, src;
  FineO fine;
  KOKKOS_INLINE_FUNCTION double sum(const offset_t s, const int e) const {
    double total = 0;
    for (offset_t t = ptr(s); t < ptr(s + 1); ++t) total += static_cast<double>(fine(src(t), e));
    return total;
  }
  KOKKOS_INLINE_FUNCTION float operator()(const offset_t s, const int e) const { return static_cast<float>(sum(s, e)); }
};

template <class MemSpace, class FineO>
GalerkinOffSum<MemSpace, FineO> galerkin_off_sum(const GalerkinMap<MemSpace>& map, const FineO& fine) {
  return {map.off_ptr, map.off_src, fine};
}

/// The coarse off-diagonal blocks' values on exec into coarse_O (nnzb * nb * nb, block s at s),
/// each entry summed in FP64 from the fine O read through `fine_O` (a source, as for
/// GalerkinOffSum), every block in the layout of the fine ones (column- or row-major alike).
template <class ExecSpace, class FineO, class OCoarse>
void galerkin_off_values(const ExecSpace& exec, const GalerkinMap<typename ExecSpace::memory_space>& map, int nb,
                         const FineO& fine_O, const Kokkos::View<OCoarse*, typename ExecSpace::memory_space>& coarse_O);

/// The coarse diagonal blocks' values on exec into coarse_D (coarse_rows * nb * nb, where the
/// map says): each entry the FP64 sum of the aggregate's fine D blocks and of the fine O blocks
/// inside it (O read through the source `fine_O`).
template <class ExecSpace, class FineO, class DScalar, class DCoarse>
void galerkin_diagonal_values(const ExecSpace& exec, const GalerkinMap<typename ExecSpace::memory_space>& map, int nb,
                              const FineO& fine_O,
                              const Kokkos::View<const DScalar*, typename ExecSpace::memory_space>& fine_D,
                              const Kokkos::View<DCoarse*, typename ExecSpace::memory_space>& coarse_D);

/// Both of the above for a fine O in FP32 storage: coarse_O (nnzb * nb * nb) and coarse_D
/// (coarse_rows * nb * nb) from the fine O (nnzb_fine blocks, the fine pattern's order or, once
/// placed, its slots) and D (fine rows).
template <class ExecSpace, class OScalar, class DScalar, class OCoarse, class DCoarse>
void galerkin_values(const ExecSpace& exec, const GalerkinMap<typename ExecSpace::memory_space>& map, int nb,
                     const Kokkos::View<const OScalar*, typename ExecSpace::memory_space>& fine_O,
                     const Kokkos::View<const DScalar*, typename ExecSpace::memory_space>& fine_D,
                     const Kokkos::View<OCoarse*, typename ExecSpace::memory_space>& coarse_O,
                     const Kokkos::View<DCoarse*, typename ExecSpace::memory_space>& coarse_D);

}  // namespace ppsparse::mcpi::multigrid
