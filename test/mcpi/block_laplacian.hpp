#pragma once
// A block "Laplacian" on a graph, shared by the FGMRES and multigrid tests: O_ij = -(I + noise),
// D_ii = (diagonal_scale * deg_i + diagonal_shift) I + noise, R uniform in [-1, 1), all from
// one counter-based stream of `seed`. Near 1 and 0 the colour Gauss-Seidel (MCPI) contracts
// slowly: the smooth error that FGMRES and multigrid are tested on.
#include <cstdint>
#include <vector>

#include <ppsparse/formats/graph.hpp>
#include <ppsparse/gen/counter_rng.hpp>

namespace ppsparse::test {

struct BlockLaplacian {
  int nb = 2;
  ordinal_t n = 0;
  std::vector<offset_t> row_ptr;
  std::vector<ordinal_t> col_idx;
  std::vector<double> O, D, R;  ///< column-major blocks, by block and by block row
};

inline BlockLaplacian block_laplacian(const Graph& g, int nb, double diagonal_scale, double diagonal_shift,
                                      std::uint64_t seed) {
  BlockLaplacian a;
  a.nb = nb;
  a.n = g.n;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  a.row_ptr.assign(g.row_ptr.begin(), g.row_ptr.end());
  a.col_idx.assign(g.adj.begin(), g.adj.end());
  const gen::CounterRng rng(seed, 1);
  std::uint64_t ctr = 0;
  auto noise = [&]() { return 0.01 * (2.0 * rng.uniform(ctr++) - 1.0); };
  for (size_t k = 0; k < a.col_idx.size(); ++k)
    for (size_t e = 0; e < nb2; ++e) a.O.push_back((e % (nb + 1) == 0 ? -1.0 : 0.0) + noise());
  for (ordinal_t i = 0; i < g.n; ++i) {
    const double deg = static_cast<double>(g.row_ptr[i + 1] - g.row_ptr[i]);
    for (size_t e = 0; e < nb2; ++e)
      a.D.push_back((e % (nb + 1) == 0 ? diagonal_scale * deg + diagonal_shift : 0.0) + noise());
    for (int e = 0; e < nb; ++e) a.R.push_back(2.0 * rng.uniform(ctr++) - 1.0);
  }
  return a;
}

}  // namespace ppsparse::test
