#pragma once
/// @file
/// The coarsening of a block system for the aggregation multigrid preconditioner (Notay 2010;
/// Kim, Xu and Zikatanov 2003): aggregates of block rows formed by repeated pairwise matching
/// along the strongest couplings, and the Galerkin coarse operator of a piecewise-constant block
/// prolongation (a coarse block is the sum of the fine blocks between two aggregates; a coarse
/// diagonal block takes the aggregate's diagonal blocks and its internal couplings).
///
/// The matchings run on the device (a handshake per round: every unmatched row proposes to its
/// strongest unmatched neighbour, mutual proposals pair). The coarse pattern and the maps from
/// fine to coarse blocks are built once on the host; every numeric refresh then sums the fine
/// values on the device through those maps, each coarse entry in a fixed order, so that a
/// refresh gives the same coarse values as a fresh setup, bit for bit. Every row lies in
/// exactly one aggregate; a row whose neighbours are all unpaired stays alone.
#include <vector>

#include <Kokkos_Core.hpp>

#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::multigrid {

/// One coarsening step's aggregates: fine row i lies in aggregate of_row[i], 0 <= of_row[i] <
/// count, and every aggregate holds at least one row.
struct Aggregates {
  ordinal_t fine_rows = 0;
  ordinal_t count = 0;
  std::vector<ordinal_t> of_row;
};

/// The strength of each block of a block CSR pattern (0-based, no diagonal blocks): the
/// Frobenius norm of the block's nb x nb values (block k at values[slot(k) * nb * nb], slot(k)
/// = k where `slot` is empty), on exec. NumericalError naming the first block k (counted from
/// index_base) holding a NaN or Inf.
template <class ExecSpace, class Scalar>
Kokkos::View<double*, typename ExecSpace::memory_space> block_strengths(
    const ExecSpace& exec, const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& values, offset_t nnzb,
    int nb, int index_base = 0, const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& slot = {});

/// |O - O^T|_F / |O|_F of a block pattern's O (row_ptr, col_idx: host, 0-based, no diagonal
/// blocks; block k's nb x nb values column-major at values[slot(k) * nb * nb], slot(k) = k
/// where `slot` is empty), a block without its transposed partner counting whole; 0 for O = 0.
/// On exec (synchronises).
template <class ExecSpace, class Scalar>
double block_asymmetry(const ExecSpace& exec,
                       const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& values,
                       const std::vector<offset_t>& row_ptr, const std::vector<ordinal_t>& col_idx, int nb,
                       const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& slot = {});

/// Aggregates of the n block rows of a pattern (row_ptr, col_idx: host, 0-based, no diagonal
/// blocks; strength: one per block, on exec's memory space) by `passes` pairwise matchings, the
/// second and later on the graph of the previous pass's aggregates (strengths summed): each
/// pass pairs rows, and a row left unpaired joins its strongest paired neighbour's pair, so that
/// an aggregate holds up to 3^passes rows (most 2^passes). Each matching runs at most `rounds`
/// handshake rounds on exec.
/// InvalidArgument for passes < 1, rounds < 1, or arrays of the wrong sizes.
template <class ExecSpace>
Aggregates pairwise_aggregates(const ExecSpace& exec, ordinal_t n, const std::vector<offset_t>& row_ptr,
                               const std::vector<ordinal_t>& col_idx,
                               const Kokkos::View<const double*, typename ExecSpace::memory_space>& strength,
                               int passes = 2, int rounds = 16);

/// The CSR (ptr, items) grouping the indices q of `key` by key[q] (0 <= key[q] < groups; a
/// negative key leaves q out), each group's indices in increasing order (host).
template <class Key, class Item>
void group_by(const std::vector<Key>& key, size_t groups, std::vector<offset_t>& ptr, std::vector<Item>& items) {
  ptr.assign(groups + 1, 0);
  for (const Key k : key)
    if (k >= 0) ++ptr[static_cast<size_t>(k) + 1];
  for (size_t g = 0; g < groups; ++g) ptr[g + 1] += ptr[g];
  items.resize(static_cast<size_t>(ptr[groups]));
  std::vector<offset_t> next(ptr.begin(), ptr.end() - 1);
  for (size_t q = 0; q < key.size(); ++q)
    if (key[q] >= 0) items[static_cast<size_t>(next[static_cast<size_t>(key[q])]++)] = static_cast<Item>(q);
}

/// The Galerkin coarse operator's structure and the maps that sum the fine values into it.
template <class MemSpace>
struct GalerkinMap {
  ordinal_t coarse_rows = 0;
  std::vector<offset_t> row_ptr{0};  ///< the coarse O pattern, 0-based, sorted rows, no diagonal
  std::vector<ordinal_t> col_idx;
  // Coarse off-diagonal block s = sum of the fine O blocks off_src[off_ptr[s] .. off_ptr[s + 1]).
  Kokkos::View<offset_t*, MemSpace> off_ptr, off_src;
  // Coarse diagonal block I = sum of the fine D blocks diag_d_src[diag_d_ptr[I] ..) and of the
  // fine O blocks inside the aggregate, diag_o_src[diag_o_ptr[I] ..).
  Kokkos::View<offset_t*, MemSpace> diag_d_ptr, diag_d_src, diag_o_ptr, diag_o_src;
  // Where the sums go: coarse block s at o_dst(s) and coarse diagonal block I at d_dst(I)
  // (empty: at s and I); the coarse level's own slot maps, shared.
  Kokkos::View<const offset_t*, MemSpace> o_dst;
  Kokkos::View<const ordinal_t*, MemSpace> d_dst;
  offset_t nnzb() const { return static_cast<offset_t>(col_idx.size()); }
};

/// The coarse pattern and maps of the fine pattern (host, 0-based, no diagonal blocks) under
/// `aggregates`. The contributions to each coarse block are listed in fine order.
template <class MemSpace>
GalerkinMap<MemSpace> galerkin_map(ordinal_t n, const std::vector<offset_t>& row_ptr,
                                   const std::vector<ordinal_t>& col_idx, const Aggregates& aggregates);

/// Points the map at the value storage of two MCPI levels (mcpi::Solver::Storage) in place of
/// the user's order: fine O block k read at slot fine_o_slot(k), fine row i's D at
/// fine_d_slot(i), coarse block s written at coarse_o_slot(s), coarse row I's at
/// coarse_d_slot(I) (the map keeps these two views). On exec; once, after galerkin_map.
template <class ExecSpace>
void place_in_storage(const ExecSpace& exec, GalerkinMap<typename ExecSpace::memory_space>& map,
                      const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& fine_o_slot,
                      const Kokkos::View<const ordinal_t*, typename ExecSpace::memory_space>& fine_d_slot,
                      const Kokkos::View<const offset_t*, typename ExecSpace::memory_space>& coarse_o_slot,
                      const Kokkos::View<const ordinal_t*, typename ExecSpace::memory_space>& coarse_d_slot);

/// The coarse values on exec: coarse_O (nnzb * nb * nb) and coarse_D (coarse_rows * nb * nb),
/// each entry summed in FP64 from the fine O (nnzb_fine blocks, the fine pattern's order) and D
/// (fine rows), every block in the same layout as the fine ones (column- or row-major alike);
/// blocks read and written where the map says (place_in_storage).
template <class ExecSpace, class OScalar, class DScalar, class OCoarse, class DCoarse>
void galerkin_values(const ExecSpace& exec, const GalerkinMap<typename ExecSpace::memory_space>& map, int nb,
                     const Kokkos::View<const OScalar*, typename ExecSpace::memory_space>& fine_O,
                     const Kokkos::View<const DScalar*, typename ExecSpace::memory_space>& fine_D,
                     const Kokkos::View<OCoarse*, typename ExecSpace::memory_space>& coarse_O,
                     const Kokkos::View<DCoarse*, typename ExecSpace::memory_space>& coarse_D);

}  // namespace ppsparse::mcpi::multigrid
