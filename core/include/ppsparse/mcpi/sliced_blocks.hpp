#pragma once
// O's blocks in sliced ELL (SELL-C-sigma, formats/sell.hpp) colour by colour, for the
// row_per_thread kernel: one thread per block row, the C threads of a chunk reading their
// rows' k-th blocks side by side. Entry e of block slot k of lane l of chunk h is at
//   values[(chunk_ptr[h] + k*C) * nb*nb + e*C + l],
// so each of a slot's nb*nb loads is one contiguous run of C floats across the chunk; the
// block-CSR layout makes a thread-per-row kernel read nb*nb floats at a stride instead.
// Chunks never span two colours, and rows are sorted by decreasing block count only inside
// windows of sigma rows of one colour.
#include <vector>

#include <ppsparse/formats/bsr.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi {

template <class MemorySpace>
struct SlicedBlocks {
  int nb = 1;
  int C = 32;                              // chunk height: rows (threads) per chunk
  ordinal_t sigma = 1;                     // sorting scope, rows
  offset_t nnzb = 0;                       // true blocks, padding excluded
  std::vector<ordinal_t> colour_chunks;    // ncolours + 1: colour c owns chunks [colour_chunks[c], colour_chunks[c+1])
  Kokkos::View<offset_t*, MemorySpace> chunk_ptr;  // nchunks + 1, in block slots of C lanes (k*C units)
  Kokkos::View<ordinal_t*, MemorySpace> row;       // nchunks * C: block row of each lane, -1 past its colour's end
  Kokkos::View<ordinal_t*, MemorySpace> row_len;   // nchunks * C: blocks of that row (0 for -1 lanes)
  Kokkos::View<ordinal_t*, MemorySpace> cols;      // chunk_ptr[nchunks]: block columns; padding repeats a valid one
  Kokkos::View<float*, MemorySpace> values;        // chunk_ptr[nchunks] * nb * nb; padding is 0

  ordinal_t nchunks() const { return colour_chunks.empty() ? 0 : colour_chunks.back(); }
  offset_t stored_blocks() const { return static_cast<offset_t>(cols.extent(0)); }
  // Stored blocks over true blocks (>= 1): the padding's share of the bytes moved.
  double fill_ratio() const { return nnzb ? static_cast<double>(stored_blocks()) / static_cast<double>(nnzb) : 1.0; }
};

// Slices O (block rows in colour order, colour c = rows [colour_offsets[c], colour_offsets[c+1]))
// into chunks of C rows. C >= 1, sigma >= 1 (InvalidArgument otherwise, or when the colour
// offsets do not cover O's rows in order).
SlicedBlocks<HostSpace> slice_blocks(const BsrMatrix<float, HostSpace>& O, const std::vector<ordinal_t>& colour_offsets,
                                     int C, ordinal_t sigma);

template <class ToSpace, class FromSpace>
SlicedBlocks<ToSpace> copy_to(const SlicedBlocks<FromSpace>& a) {
  SlicedBlocks<ToSpace> b;
  b.nb = a.nb;
  b.C = a.C;
  b.sigma = a.sigma;
  b.nnzb = a.nnzb;
  b.colour_chunks = a.colour_chunks;
  auto cp = [](auto& dst, const auto& src) {
    using V = std::decay_t<decltype(dst)>;
    dst = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, src.label()), src.extent(0));
    Kokkos::deep_copy(dst, src);
  };
  cp(b.chunk_ptr, a.chunk_ptr);
  cp(b.row, a.row);
  cp(b.row_len, a.row_len);
  cp(b.cols, a.cols);
  cp(b.values, a.values);
  return b;
}

}  // namespace ppsparse::mcpi
