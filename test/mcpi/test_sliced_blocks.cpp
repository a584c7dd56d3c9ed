#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/mcpi/sliced_blocks.hpp>

#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

// A random BSR with rows of 0..max_len blocks (some empty, one long) and random values.
BsrMatrix<float, HostSpace> random_bsr(ordinal_t n, int nb, int max_len, std::uint64_t seed) {
  auto pattern = test::random_csr<double>(n, n, 0, max_len, seed);
  // One row far longer than the rest, so that a chunk pads to it.
  std::vector<offset_t> ia(static_cast<size_t>(n) + 1, 0);
  for (ordinal_t i = 0; i < n; ++i) ia[i + 1] = ia[i] + (i == n / 2 ? n : pattern.row_ptr(i + 1) - pattern.row_ptr(i));
  BsrMatrix<float, HostSpace> O(nb, n, n, ia.back(), "O");
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<float> val(-1.0f, 1.0f);
  for (ordinal_t i = 0; i < n; ++i) {
    O.ia(i + 1) = ia[i + 1];
    for (offset_t k = ia[i]; k < ia[i + 1]; ++k)
      O.ja(k) = i == n / 2 ? static_cast<ordinal_t>(k - ia[i]) : pattern.col_idx(pattern.row_ptr(i) + (k - ia[i]));
  }
  for (size_t e = 0; e < O.values.extent(0); ++e) O.values(e) = val(rng);
  return O;
}

// Every true block of O appears exactly once, at its row's lane and slot, with its values;
// padding lanes and slots are zero; no chunk spans two colours.
void expect_exact_slicing(const BsrMatrix<float, HostSpace>& O, const std::vector<ordinal_t>& offsets, int C,
                          ordinal_t sigma) {
  SCOPED_TRACE("C=" + std::to_string(C) + " sigma=" + std::to_string(sigma));
  const auto s = slice_blocks(O, offsets, C, sigma);
  const int nb = O.nb;
  const size_t nb2 = O.block_size();
  ASSERT_EQ(s.colour_chunks.size(), offsets.size());
  EXPECT_EQ(s.nnzb, O.nnzb());
  std::vector<int> seen(static_cast<size_t>(O.nblockrows), 0);
  for (size_t c = 0; c + 1 < offsets.size(); ++c) {
    const ordinal_t rows = offsets[c + 1] - offsets[c];
    EXPECT_EQ(s.colour_chunks[c + 1] - s.colour_chunks[c], (rows + C - 1) / C) << "colour " << c;
    for (ordinal_t h = s.colour_chunks[c]; h < s.colour_chunks[c + 1]; ++h) {
      const offset_t width = s.chunk_ptr(h + 1) - s.chunk_ptr(h);
      ordinal_t widest = 0;
      for (int l = 0; l < C; ++l) {
        const size_t lane = static_cast<size_t>(h) * C + l;
        const ordinal_t r = s.row(lane);
        if (r < 0) {
          EXPECT_EQ(s.row_len(lane), 0);
          continue;
        }
        ASSERT_GE(r, offsets[c]);
        ASSERT_LT(r, offsets[c + 1]);  // the chunk stays inside its colour
        ++seen[r];
        // Sorting only inside windows of sigma rows of the colour.
        const ordinal_t pos = static_cast<ordinal_t>(lane - static_cast<size_t>(s.colour_chunks[c]) * C);
        EXPECT_EQ((r - offsets[c]) / sigma, pos / sigma) << "row " << r;
        ASSERT_EQ(s.row_len(lane), O.ia(r + 1) - O.ia(r));
        widest = std::max(widest, s.row_len(lane));
        for (offset_t k = 0; k < width; ++k) {
          const size_t slot = static_cast<size_t>(s.chunk_ptr(h) + k);
          for (size_t e = 0; e < nb2; ++e) {
            const float got = s.values(slot * C * nb2 + e * C + l);
            if (k < s.row_len(lane)) {
              EXPECT_EQ(s.cols(slot * C + l), O.ja(O.ia(r) + k));
              EXPECT_EQ(got, O.values(static_cast<size_t>(O.ia(r) + k) * nb2 + e));
            } else {
              EXPECT_EQ(got, 0.0f);
            }
          }
        }
      }
      EXPECT_EQ(width, widest);  // padded to the chunk's longest row, no further
    }
  }
  for (ordinal_t r = 0; r < O.nblockrows; ++r) EXPECT_EQ(seen[r], 1) << "block row " << r;
  EXPECT_GE(s.fill_ratio(), 1.0);
  (void)nb;
}

TEST(McpiSlicedBlocks, EveryBlockOnceAtItsLaneAndSlot) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int nb : {1, 2, 3, 5}) {
    const auto O = random_bsr(301, nb, 9, seed + nb);
    // Colours of uneven sizes, one of them empty, one shorter than a chunk.
    const std::vector<ordinal_t> offsets{0, 100, 100, 117, 250, 301};
    for (int C : {1, 4, 32}) {
      for (ordinal_t sigma : {1, 32, 256}) expect_exact_slicing(O, offsets, C, sigma);
    }
  }
}

TEST(McpiSlicedBlocks, SortingRemovesPadding) {
  const auto O = random_bsr(4096, 1, 30, test::fresh_seed());
  const std::vector<ordinal_t> offsets{0, 4096};
  EXPECT_LT(slice_blocks(O, offsets, 32, 256).fill_ratio(), slice_blocks(O, offsets, 32, 1).fill_ratio());
}

TEST(McpiSlicedBlocks, EmptyMatrixAndBadArguments) {
  BsrMatrix<float, HostSpace> empty(3, 0, 0, 0, "O");
  const auto s = slice_blocks(empty, {0}, 32, 256);
  EXPECT_EQ(s.nchunks(), 0);
  EXPECT_EQ(s.stored_blocks(), 0);
  const auto O = random_bsr(10, 2, 3, 5);
  EXPECT_THROW(slice_blocks(O, {0, 10}, 0, 1), InvalidArgument);
  EXPECT_THROW(slice_blocks(O, {0, 10}, 32, 0), InvalidArgument);
  EXPECT_THROW(slice_blocks(O, {0, 9}, 32, 1), InvalidArgument);   // does not cover the rows
  EXPECT_THROW(slice_blocks(O, {0, 6, 4, 10}, 32, 1), InvalidArgument);  // a colour ends before it begins
}

}  // namespace
}  // namespace ppsparse::mcpi
