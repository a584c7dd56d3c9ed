#pragma once
// Table I of Zubair et al. (2016), copied from the paper as literal numbers, for the
// geometry tests: they compare the code with the paper, not with the code's own table.

namespace ppsparse::mcpi::test {

struct PaperRow {
  int nb, nw, nbk, nrbk;  // block size, warps per block row, blocks per iteration, block rows per team
};
inline constexpr PaperRow kZubair2016TableI[16] = {{1, 1, 2, 4},  {2, 1, 8, 4},  {3, 1, 3, 4},  {4, 1, 2, 4},
                                                   {5, 1, 1, 4},  {6, 2, 1, 2},  {7, 2, 1, 2},  {8, 2, 1, 2},
                                                   {9, 4, 1, 1},  {10, 4, 1, 1}, {11, 4, 1, 1}, {12, 5, 1, 1},
                                                   {13, 6, 1, 1}, {14, 7, 1, 1}, {15, 8, 1, 1}, {16, 8, 1, 1}};

}  // namespace ppsparse::mcpi::test
