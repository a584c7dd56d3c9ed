#include "common/synthetic_matrices.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <ppsparse/error.hpp>

namespace ppsparse::bench {
namespace {

double nonzero_value(std::mt19937_64& rng) {
  const double v = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
  return v == 0.0 ? 0.5 : v;
}

// Distinct sorted columns of one row: rejection sampling while sparse, a shuffle when dense.
void random_row(ordinal_t ncols, ordinal_t len, std::mt19937_64& rng, std::vector<ordinal_t>& out) {
  out.clear();
  len = std::min(len, ncols);
  if (static_cast<long long>(len) * 4 > ncols) {
    std::vector<ordinal_t> all(static_cast<size_t>(ncols));
    std::iota(all.begin(), all.end(), 0);
    for (ordinal_t k = 0; k < len; ++k)
      std::swap(all[k], all[k + std::uniform_int_distribution<ordinal_t>(0, ncols - 1 - k)(rng)]);
    out.assign(all.begin(), all.begin() + len);
  } else {
    std::uniform_int_distribution<ordinal_t> col(0, ncols - 1);
    while (static_cast<ordinal_t>(out.size()) < len) {
      while (static_cast<ordinal_t>(out.size()) < len) out.push_back(col(rng));
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
  }
  std::sort(out.begin(), out.end());
}

}  // namespace

CsrMatrix<double, HostSpace> rmat_matrix(int scale, double avg_degree, double a, double b, double c,
                                         std::uint64_t seed) {
  if (scale < 1 || scale > 30)
    throw InvalidArgument("rmat_matrix: scale " + std::to_string(scale) + " outside [1, 30]");
  if (!(a > 0 && b >= 0 && c >= 0 && a + b + c < 1))
    throw InvalidArgument("rmat_matrix: quadrant probabilities must be positive and sum below 1");
  const ordinal_t n = static_cast<ordinal_t>(1) << scale;
  const long long m = static_cast<long long>(avg_degree * n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<ordinal_t> shuffle(static_cast<size_t>(n));
  std::iota(shuffle.begin(), shuffle.end(), 0);
  std::shuffle(shuffle.begin(), shuffle.end(), rng);
  std::vector<std::uint64_t> edges(static_cast<size_t>(m));
  for (auto& e : edges) {
    std::uint32_t r = 0, col = 0;
    for (int level = 0; level < scale; ++level) {
      const double p = u(rng);
      const std::uint32_t down = p >= a + b, right = (p >= a && p < a + b) || p >= a + b + c;
      r = (r << 1) | down;
      col = (col << 1) | right;
    }
    e = (static_cast<std::uint64_t>(shuffle[r]) << 32) | static_cast<std::uint32_t>(shuffle[col]);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  CsrMatrix<double, HostSpace> A(n, n, static_cast<offset_t>(edges.size()), "rmat");
  for (size_t k = 0; k < edges.size(); ++k) {
    const auto row = static_cast<ordinal_t>(edges[k] >> 32);
    A.col_idx(k) = static_cast<ordinal_t>(edges[k] & 0xffffffffu);
    A.values(k) = nonzero_value(rng);
    A.row_ptr(row + 1) += 1;
  }
  for (ordinal_t i = 0; i < n; ++i) A.row_ptr(i + 1) += A.row_ptr(i);
  return A;
}

CsrMatrix<double, HostSpace> uniform_random_matrix(ordinal_t nrows, ordinal_t ncols, int min_len, int max_len,
                                                   std::uint64_t seed) {
  if (nrows < 0 || ncols < 1 || min_len < 0 || max_len < min_len)
    throw InvalidArgument("uniform_random_matrix: invalid sizes");
  std::mt19937_64 rng(seed);
  std::vector<offset_t> ptr(static_cast<size_t>(nrows) + 1, 0);
  std::vector<ordinal_t> cols, row;
  cols.reserve(static_cast<size_t>(nrows) * (min_len + max_len) / 2);
  std::uniform_int_distribution<int> len(min_len, max_len);
  for (ordinal_t i = 0; i < nrows; ++i) {
    random_row(ncols, len(rng), rng, row);
    cols.insert(cols.end(), row.begin(), row.end());
    ptr[i + 1] = static_cast<offset_t>(cols.size());
  }
  CsrMatrix<double, HostSpace> A(nrows, ncols, static_cast<offset_t>(cols.size()), "uniform");
  for (size_t i = 0; i < ptr.size(); ++i) A.row_ptr(i) = ptr[i];
  for (size_t k = 0; k < cols.size(); ++k) {
    A.col_idx(k) = cols[k];
    A.values(k) = nonzero_value(rng);
  }
  return A;
}

CsrMatrix<double, HostSpace> with_long_rows(const CsrMatrix<double, HostSpace>& base, int count, ordinal_t length,
                                            std::uint64_t seed) {
  if (count < 0 || length < 0 || base.nrows < 1) throw InvalidArgument("with_long_rows: invalid arguments");
  std::mt19937_64 rng(seed);
  std::vector<std::vector<ordinal_t>> long_rows;
  std::vector<ordinal_t> which;
  for (int r = 0; r < count && r < base.nrows; ++r) {
    which.push_back(static_cast<ordinal_t>((static_cast<long long>(2 * r + 1) * base.nrows) / (2 * count)));
    long_rows.emplace_back();
    random_row(base.ncols, length, rng, long_rows.back());
  }
  offset_t nnz = base.nnz();
  for (size_t r = 0; r < which.size(); ++r)
    nnz += static_cast<offset_t>(long_rows[r].size()) - (base.row_ptr(which[r] + 1) - base.row_ptr(which[r]));
  CsrMatrix<double, HostSpace> A(base.nrows, base.ncols, nnz, "long_rows");
  offset_t pos = 0;
  size_t next = 0;
  for (ordinal_t i = 0; i < base.nrows; ++i) {
    if (next < which.size() && which[next] == i) {
      for (ordinal_t c : long_rows[next]) {
        A.col_idx(pos) = c;
        A.values(pos++) = nonzero_value(rng);
      }
      ++next;
    } else {
      for (offset_t k = base.row_ptr(i); k < base.row_ptr(i + 1); ++k) {
        A.col_idx(pos) = base.col_idx(k);
        A.values(pos++) = base.values(k);
      }
    }
    A.row_ptr(i + 1) = pos;
  }
  return A;
}

}  // namespace ppsparse::bench
