#include <ppsparse/mcpi/sliced_blocks.hpp>

#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>

namespace ppsparse::mcpi {

SlicedBlocks<HostSpace> slice_blocks(const BsrMatrix<float, HostSpace>& O, const std::vector<ordinal_t>& colour_offsets,
                                     int C, ordinal_t sigma) {
  if (C < 1) throw InvalidArgument("slice_blocks: chunk height C = " + std::to_string(C) + " must be >= 1");
  if (sigma < 1) throw InvalidArgument("slice_blocks: sorting scope sigma = " + std::to_string(sigma) + " must be >= 1");
  if (colour_offsets.empty() || colour_offsets.front() != 0 || colour_offsets.back() != O.nblockrows)
    throw InvalidArgument("slice_blocks: the colour offsets do not span O's " + std::to_string(O.nblockrows) +
                          " block rows");
  const int nb = O.nb;
  const size_t nb2 = O.block_size();
  const ordinal_t ncolours = static_cast<ordinal_t>(colour_offsets.size()) - 1;

  // Each colour is its own SELL-C-sigma matrix over the block pattern, built by csr_to_sell
  // on a CSR whose "values" are the blocks' indices in O (exact in double below 2^53).
  std::vector<SellMatrix<double, HostSpace>> parts;
  SlicedBlocks<HostSpace> s;
  s.nb = nb;
  s.C = C;
  s.sigma = sigma;
  s.nnzb = O.nnzb();
  s.colour_chunks.assign(1, 0);
  offset_t slots = 0;
  for (ordinal_t c = 0; c < ncolours; ++c) {
    const ordinal_t b = colour_offsets[c], e = colour_offsets[c + 1];
    if (e < b) throw InvalidArgument("slice_blocks: colour " + std::to_string(c) + " ends before it begins");
    const offset_t k0 = O.ia(b);
    CsrMatrix<double, HostSpace> pattern(e - b, O.nblockcols, O.ia(e) - k0, "slice_blocks.colour");
    for (ordinal_t i = b; i <= e; ++i) pattern.row_ptr(i - b) = O.ia(i) - k0;
    for (offset_t k = k0; k < O.ia(e); ++k) {
      pattern.col_idx(k - k0) = O.ja(k);
      pattern.values(k - k0) = static_cast<double>(k);
    }
    parts.push_back(csr_to_sell(pattern, C, sigma));
    s.colour_chunks.push_back(s.colour_chunks.back() + parts.back().nchunks);
    slots += parts.back().chunk_ptr(parts.back().nchunks) / C;
  }

  const size_t nchunks = static_cast<size_t>(s.colour_chunks.back());
  s.chunk_ptr = Kokkos::View<offset_t*, HostSpace>("mcpi.sliced.chunk_ptr", nchunks + 1);
  s.row = Kokkos::View<ordinal_t*, HostSpace>("mcpi.sliced.row", nchunks * C);
  s.row_len = Kokkos::View<ordinal_t*, HostSpace>("mcpi.sliced.row_len", nchunks * C);
  s.cols = Kokkos::View<ordinal_t*, HostSpace>("mcpi.sliced.cols", static_cast<size_t>(slots) * C);
  s.values = Kokkos::View<float*, HostSpace>("mcpi.sliced.values", static_cast<size_t>(slots) * C * nb2);
  size_t h = 0;  // global chunk
  for (ordinal_t c = 0; c < ncolours; ++c) {
    const auto& p = parts[c];
    const ordinal_t b = colour_offsets[c];
    for (ordinal_t k = 0; k < p.nchunks; ++k, ++h) {
      const offset_t base = s.chunk_ptr(h);  // slots before this chunk
      s.chunk_ptr(h + 1) = base + p.chunk_len(k);
      for (int l = 0; l < C; ++l) {
        const size_t lp = static_cast<size_t>(k) * C + l;  // sorted position in the colour
        const bool real = lp < static_cast<size_t>(p.nrows);
        const size_t lane = h * C + l;
        s.row(lane) = real ? b + p.perm(lp) : -1;
        s.row_len(lane) = real ? p.row_len(lp) : 0;
        for (ordinal_t j = 0; j < p.chunk_len(k); ++j) {
          const size_t from = static_cast<size_t>(p.chunk_ptr(k)) + static_cast<size_t>(j) * C + l;
          const size_t slot = static_cast<size_t>(base + j);
          s.cols(slot * C + l) = p.col_idx(from);
          const bool block = j < s.row_len(lane);
          const size_t blk = block ? static_cast<size_t>(p.values(from)) : 0;
          for (size_t e = 0; e < nb2; ++e)
            s.values(slot * C * nb2 + e * C + l) = block ? O.values(blk * nb2 + e) : 0.0f;
        }
      }
    }
  }
  return s;
}

}  // namespace ppsparse::mcpi
