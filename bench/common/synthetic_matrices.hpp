#pragma once
// Seeded generators for benchmark matrices that the gen module does not provide: power-law
// (R-MAT) graphs, uniformly random sparse matrices, and matrices with a few very long rows.
// Values are uniform in [-1, 1] and never zero; rows are sorted, without duplicates.
#include <cstdint>

#include <ppsparse/formats/csr.hpp>

namespace ppsparse::bench {

// R-MAT (Chakrabarti, Zhan, Faloutsos 2004): 2^scale vertices, avg_degree * 2^scale directed
// edges drawn by recursive quadrant choice with probabilities a, b, c, 1-a-b-c; duplicates
// merged, self loops kept. Vertex ids are then shuffled (as Graph500 does), so that the
// hubs are spread over the matrix instead of sitting in its first rows.
CsrMatrix<double, HostSpace> rmat_matrix(int scale, double avg_degree, double a, double b, double c,
                                         std::uint64_t seed);

// Each row gets a length uniform in [min_len, max_len] (capped at ncols) of distinct columns
// drawn uniformly from [0, ncols): no locality at all.
CsrMatrix<double, HostSpace> uniform_random_matrix(ordinal_t nrows, ordinal_t ncols, int min_len, int max_len,
                                                   std::uint64_t seed);

// `base` with `count` of its rows (spread evenly) replaced by rows of `length` distinct
// random columns (capped at ncols): the dc1-like case of Reguly & Giles section 6.1.
CsrMatrix<double, HostSpace> with_long_rows(const CsrMatrix<double, HostSpace>& base, int count, ordinal_t length,
                                            std::uint64_t seed);

}  // namespace ppsparse::bench
