#include <ppsparse/formats/convert.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

#include <ppsparse/error.hpp>

namespace ppsparse {

template <class Scalar>
void validate(const CsrMatrix<Scalar, HostSpace>& a, const std::string& what) {
  if (a.nrows < 0 || a.ncols < 0) throw InvalidArgument(what + ": negative dimensions");
  if (a.row_ptr.extent(0) != static_cast<size_t>(a.nrows) + 1)
    throw InvalidArgument(what + ": row_ptr has " + std::to_string(a.row_ptr.extent(0)) +
                          " entries, expected nrows+1 = " + std::to_string(static_cast<long long>(a.nrows) + 1));
  if (a.row_ptr(0) != 0) throw InvalidArgument(what + ": row_ptr[0] is not 0");
  if (a.row_ptr(a.nrows) != a.nnz() || a.values.extent(0) != a.col_idx.extent(0))
    throw InvalidArgument(what + ": row_ptr[nrows], col_idx and values disagree on the entry count");
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    if (a.row_ptr(i + 1) < a.row_ptr(i))
      throw InvalidArgument(what + ": row_ptr decreases at row " + std::to_string(i));
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
      const ordinal_t c = a.col_idx(k);
      if (c < 0 || c >= a.ncols)
        throw InvalidArgument(what + ": column index " + std::to_string(c) + " out of range in row " +
                              std::to_string(i));
      if (k > a.row_ptr(i) && c <= a.col_idx(k - 1))
        throw InvalidArgument(what + ": column indices not strictly increasing in row " + std::to_string(i));
    }
  }
}

template <class Scalar>
void validate(const BsrMatrix<Scalar, HostSpace>& a, const std::string& what) {
  if (a.nb < 1) throw InvalidArgument(what + ": block size " + std::to_string(a.nb) + " is not positive");
  if (a.ia.extent(0) != static_cast<size_t>(a.nblockrows) + 1)
    throw InvalidArgument(what + ": ia has " + std::to_string(a.ia.extent(0)) + " entries, expected nblockrows+1");
  if (a.ia(0) != 0 || a.ia(a.nblockrows) != a.nnzb()) throw InvalidArgument(what + ": ia does not span [0, nnzb]");
  if (a.values.extent(0) != static_cast<size_t>(a.nnzb()) * a.block_size())
    throw InvalidArgument(what + ": values size is not nnzb*nb*nb");
  for (ordinal_t i = 0; i < a.nblockrows; ++i) {
    if (a.ia(i + 1) < a.ia(i)) throw InvalidArgument(what + ": ia decreases at block row " + std::to_string(i));
    for (offset_t k = a.ia(i); k < a.ia(i + 1); ++k) {
      const ordinal_t c = a.ja(k);
      if (c < 0 || c >= a.nblockcols)
        throw InvalidArgument(what + ": block column " + std::to_string(c) + " out of range in block row " +
                              std::to_string(i));
      if (k > a.ia(i) && c <= a.ja(k - 1))
        throw InvalidArgument(what + ": block columns not strictly increasing in block row " + std::to_string(i));
    }
  }
}

template <class Scalar>
BsrMatrix<Scalar, HostSpace> csr_to_bsr(const CsrMatrix<Scalar, HostSpace>& a, int nb) {
  if (nb < 1) throw InvalidArgument("csr_to_bsr: block size " + std::to_string(nb) + " is not positive");
  if (a.nrows % nb != 0 || a.ncols % nb != 0)
    throw InvalidArgument("csr_to_bsr: block size " + std::to_string(nb) + " does not divide the matrix size " +
                          std::to_string(a.nrows) + " x " + std::to_string(a.ncols));
  const ordinal_t nbr = a.nrows / nb, nbc = a.ncols / nb;
  // Pass 1: block pattern per block row (marker array over block columns).
  std::vector<offset_t> ia(static_cast<size_t>(nbr) + 1, 0);
  std::vector<ordinal_t> ja;
  std::vector<ordinal_t> marker(static_cast<size_t>(nbc), -1);
  std::vector<ordinal_t> row_blocks;
  for (ordinal_t bi = 0; bi < nbr; ++bi) {
    row_blocks.clear();
    for (int r = 0; r < nb; ++r) {
      const ordinal_t i = bi * nb + r;
      for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
        const ordinal_t bj = a.col_idx(k) / nb;
        if (marker[bj] != bi) {
          marker[bj] = bi;
          row_blocks.push_back(bj);
        }
      }
    }
    std::sort(row_blocks.begin(), row_blocks.end());
    ja.insert(ja.end(), row_blocks.begin(), row_blocks.end());
    ia[bi + 1] = static_cast<offset_t>(ja.size());
  }
  BsrMatrix<Scalar, HostSpace> b(nb, nbr, nbc, static_cast<offset_t>(ja.size()), "bsr");
  for (size_t i = 0; i < ia.size(); ++i) b.ia(i) = ia[i];
  for (size_t k = 0; k < ja.size(); ++k) b.ja(k) = ja[k];
  // Pass 2: scatter values (values were zero-initialised by the constructor).
  std::vector<offset_t> slot(static_cast<size_t>(nbc), -1);
  for (ordinal_t bi = 0; bi < nbr; ++bi) {
    for (offset_t k = ia[bi]; k < ia[bi + 1]; ++k) slot[ja[k]] = k;
    for (int r = 0; r < nb; ++r) {
      const ordinal_t i = bi * nb + r;
      for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
        const ordinal_t j = a.col_idx(k);
        b.values(static_cast<size_t>(slot[j / nb]) * nb * nb + block_entry(nb, r, j % nb)) = a.values(k);
      }
    }
  }
  return b;
}

template <class Scalar>
CsrMatrix<Scalar, HostSpace> bsr_to_csr(const BsrMatrix<Scalar, HostSpace>& a) {
  const int nb = a.nb;
  const offset_t nnz = a.nnzb() * nb * nb;
  CsrMatrix<Scalar, HostSpace> c(a.nblockrows * nb, a.nblockcols * nb, nnz, "csr");
  offset_t pos = 0;
  for (ordinal_t bi = 0; bi < a.nblockrows; ++bi) {
    for (int r = 0; r < nb; ++r) {
      for (offset_t k = a.ia(bi); k < a.ia(bi + 1); ++k) {
        for (int j = 0; j < nb; ++j) {
          c.col_idx(pos) = a.ja(k) * nb + j;
          c.values(pos) = a.values(static_cast<size_t>(k) * nb * nb + block_entry(nb, r, j));
          ++pos;
        }
      }
      c.row_ptr(bi * nb + r + 1) = pos;
    }
  }
  return c;
}

template <class Scalar>
SellMatrix<Scalar, HostSpace> csr_to_sell(const CsrMatrix<Scalar, HostSpace>& a, int C, ordinal_t sigma) {
  if (C < 1) throw InvalidArgument("csr_to_sell: chunk size C = " + std::to_string(C) + " must be >= 1");
  if (sigma < 1) throw InvalidArgument("csr_to_sell: sorting scope sigma = " + std::to_string(sigma) + " must be >= 1");
  SellMatrix<Scalar, HostSpace> s;
  s.nrows = a.nrows;
  s.ncols = a.ncols;
  s.C = C;
  s.sigma = sigma;
  s.nnz = a.nnz();
  s.nchunks = static_cast<ordinal_t>((static_cast<long long>(a.nrows) + C - 1) / C);
  const size_t padded_rows = static_cast<size_t>(s.nchunks) * C;

  // Sort rows by decreasing length inside each window of sigma rows (stable, so ties keep order).
  std::vector<ordinal_t> perm(static_cast<size_t>(a.nrows));
  std::iota(perm.begin(), perm.end(), 0);
  auto len = [&](ordinal_t i) { return static_cast<ordinal_t>(a.row_ptr(i + 1) - a.row_ptr(i)); };
  if (sigma > 1) {
    for (ordinal_t w = 0; w < a.nrows; w += sigma) {
      const ordinal_t e = static_cast<ordinal_t>(std::min<long long>(static_cast<long long>(w) + sigma, a.nrows));
      std::stable_sort(perm.begin() + w, perm.begin() + e, [&](ordinal_t x, ordinal_t y) { return len(x) > len(y); });
    }
  }
  s.perm = Kokkos::View<ordinal_t*, HostSpace>("sell.perm", perm.size());
  for (size_t i = 0; i < perm.size(); ++i) s.perm(i) = perm[i];
  s.row_len = Kokkos::View<ordinal_t*, HostSpace>("sell.row_len", padded_rows);
  for (size_t p = 0; p < perm.size(); ++p) s.row_len(p) = len(perm[p]);

  s.chunk_ptr = Kokkos::View<offset_t*, HostSpace>("sell.chunk_ptr", static_cast<size_t>(s.nchunks) + 1);
  s.chunk_len = Kokkos::View<ordinal_t*, HostSpace>("sell.chunk_len", static_cast<size_t>(s.nchunks));
  for (ordinal_t k = 0; k < s.nchunks; ++k) {
    ordinal_t w = 0;
    for (int l = 0; l < C; ++l) w = std::max(w, s.row_len(static_cast<size_t>(k) * C + l));
    s.chunk_len(k) = w;
    s.chunk_ptr(k + 1) = s.chunk_ptr(k) + static_cast<offset_t>(w) * C;
  }
  const size_t stored = static_cast<size_t>(s.chunk_ptr(s.nchunks));
  s.col_idx = Kokkos::View<ordinal_t*, HostSpace>("sell.col_idx", stored);
  s.values = Kokkos::View<Scalar*, HostSpace>("sell.values", stored);
  for (ordinal_t k = 0; k < s.nchunks; ++k) {
    for (int l = 0; l < C; ++l) {
      const size_t p = static_cast<size_t>(k) * C + l;
      const bool real_row = p < perm.size();
      const offset_t start = real_row ? a.row_ptr(perm[p]) : 0;
      const ordinal_t rl = s.row_len(p);
      // Padding repeats the row's last column (a cache hit) with value 0.
      const ordinal_t pad_col = rl > 0 ? a.col_idx(start + rl - 1) : 0;
      for (ordinal_t j = 0; j < s.chunk_len(k); ++j) {
        const size_t at = static_cast<size_t>(s.chunk_ptr(k)) + static_cast<size_t>(j) * C + l;
        if (j < rl) {
          s.col_idx(at) = a.col_idx(start + j);
          s.values(at) = a.values(start + j);
        } else {
          s.col_idx(at) = pad_col;
          s.values(at) = Scalar(0);
        }
      }
    }
  }
  return s;
}

template <class Scalar>
CsrMatrix<Scalar, HostSpace> sell_to_csr(const SellMatrix<Scalar, HostSpace>& s) {
  CsrMatrix<Scalar, HostSpace> c(s.nrows, s.ncols, s.nnz, "csr");
  // Row lengths in original numbering, then offsets.
  for (ordinal_t p = 0; p < s.nrows; ++p) c.row_ptr(s.perm(p) + 1) = s.row_len(p);
  for (ordinal_t i = 0; i < s.nrows; ++i) c.row_ptr(i + 1) += c.row_ptr(i);
  if (c.row_ptr(s.nrows) != s.nnz) throw InvalidArgument("sell_to_csr: row lengths do not add up to nnz");
  for (ordinal_t p = 0; p < s.nrows; ++p) {
    const ordinal_t k = p / s.C, l = p % s.C;
    const offset_t dst = c.row_ptr(s.perm(p));
    for (ordinal_t j = 0; j < s.row_len(p); ++j) {
      const size_t at = static_cast<size_t>(s.chunk_ptr(k)) + static_cast<size_t>(j) * s.C + l;
      c.col_idx(dst + j) = s.col_idx(at);
      c.values(dst + j) = s.values(at);
    }
  }
  return c;
}

CsrMatrix<double, HostSpace> block_system_to_csr(const BlockSystem<HostSpace>& s) {
  if (s.d_factored) throw InvalidArgument("block_system_to_csr: D is LU-factored in place; convert before factoring");
  const int nb = s.nb;
  const size_t bs = static_cast<size_t>(nb) * nb;
  // Merge O's blocks with the diagonal block in column order, per block row.
  const offset_t nnzb = s.O.nnzb() + s.n;
  BsrMatrix<double, HostSpace> full(nb, s.n, s.n, nnzb, "A");
  offset_t pos = 0;
  for (ordinal_t bi = 0; bi < s.n; ++bi) {
    bool diag_done = false;
    auto put = [&](ordinal_t bj, auto&& value_of) {
      full.ja(pos) = bj;
      for (size_t e = 0; e < bs; ++e) full.values(static_cast<size_t>(pos) * bs + e) = value_of(e);
      ++pos;
    };
    for (offset_t k = s.O.ia(bi); k < s.O.ia(bi + 1); ++k) {
      const ordinal_t bj = s.O.ja(k);
      if (bj == bi)
        throw InvalidArgument("block_system_to_csr: O contains a diagonal block in block row " + std::to_string(bi));
      if (!diag_done && bj > bi) {
        put(bi, [&](size_t e) { return s.D(static_cast<size_t>(bi) * bs + e); });
        diag_done = true;
      }
      put(bj, [&](size_t e) { return static_cast<double>(s.O.values(static_cast<size_t>(k) * bs + e)); });
    }
    if (!diag_done) put(bi, [&](size_t e) { return s.D(static_cast<size_t>(bi) * bs + e); });
    full.ia(bi + 1) = pos;
  }
  return bsr_to_csr(full);
}

BlockSystem<HostSpace> block_system_from_csr(const CsrMatrix<double, HostSpace>& a, int nb,
                                             const std::vector<double>& R) {
  if (a.nrows != a.ncols)
    throw InvalidArgument("block_system_from_csr: matrix is " + std::to_string(a.nrows) + " x " +
                          std::to_string(a.ncols) + ", not square");
  if (R.size() != static_cast<size_t>(a.nrows))
    throw InvalidArgument("block_system_from_csr: R has " + std::to_string(R.size()) + " entries, expected " +
                          std::to_string(a.nrows));
  const auto full = csr_to_bsr(a, nb);  // checks that nb divides the size
  const size_t bs = full.block_size();
  BlockSystem<HostSpace> s;
  s.nb = nb;
  s.n = full.nblockrows;
  offset_t off = 0;
  for (ordinal_t i = 0; i < s.n; ++i)
    for (offset_t k = full.ia(i); k < full.ia(i + 1); ++k) off += full.ja(k) != i;
  s.O = BsrMatrix<float, HostSpace>(nb, s.n, s.n, off, "O");
  s.D = Kokkos::View<double*, HostSpace>("D", static_cast<size_t>(s.n) * bs);
  s.R = Kokkos::View<double*, HostSpace>("R", R.size());
  for (size_t i = 0; i < R.size(); ++i) s.R(i) = R[i];
  offset_t pos = 0;
  for (ordinal_t i = 0; i < s.n; ++i) {
    for (offset_t k = full.ia(i); k < full.ia(i + 1); ++k) {
      const size_t src = static_cast<size_t>(k) * bs;
      if (full.ja(k) == i) {
        for (size_t e = 0; e < bs; ++e) s.D(static_cast<size_t>(i) * bs + e) = full.values(src + e);
      } else {
        s.O.ja(pos) = full.ja(k);
        for (size_t e = 0; e < bs; ++e)
          s.O.values(static_cast<size_t>(pos) * bs + e) = static_cast<float>(full.values(src + e));
        ++pos;
      }
    }
    s.O.ia(i + 1) = pos;
  }
  return s;
}

template <class Scalar>
bool sell_compress_columns(SellMatrix<Scalar, HostSpace>& s) {
  Kokkos::View<std::int16_t*, HostSpace> off(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sell.col_offset"),
                                             static_cast<size_t>(s.stored()));
  for (ordinal_t k = 0; k < s.nchunks; ++k) {
    for (int l = 0; l < s.C; ++l) {
      const size_t p = static_cast<size_t>(k) * s.C + l;
      const long long row = p < static_cast<size_t>(s.nrows) ? s.perm(p) : 0;
      const ordinal_t rl = s.row_len(p);
      for (ordinal_t j = 0; j < s.chunk_len(k); ++j) {
        const size_t at = static_cast<size_t>(s.chunk_ptr(k)) + static_cast<size_t>(j) * s.C + l;
        if (j >= rl) {
          off(at) = 0;
          continue;
        }
        const long long d = static_cast<long long>(s.col_idx(at)) - row;
        if (d < -32767 || d > 32767) return false;
        off(at) = static_cast<std::int16_t>(d);
      }
    }
  }
  s.col_offset = off;
  return true;
}

template <class Scalar>
void sell_apply_index_bits(SellMatrix<Scalar, HostSpace>& s, const int index_bits, const std::string& who,
                           const std::string& option) {
  if (index_bits != 32 && !sell_compress_columns(s) && index_bits == 16)
    throw InvalidArgument(who + ": " + option + " = 16, but a column lies more than 32767 columns from its row");
}

#define PPSPARSE_INSTANTIATE_CONVERT(S)                                                             \
  template void validate<S>(const CsrMatrix<S, HostSpace>&, const std::string&);                    \
  template void validate<S>(const BsrMatrix<S, HostSpace>&, const std::string&);                    \
  template BsrMatrix<S, HostSpace> csr_to_bsr<S>(const CsrMatrix<S, HostSpace>&, int);              \
  template CsrMatrix<S, HostSpace> bsr_to_csr<S>(const BsrMatrix<S, HostSpace>&);                   \
  template SellMatrix<S, HostSpace> csr_to_sell<S>(const CsrMatrix<S, HostSpace>&, int, ordinal_t); \
  template CsrMatrix<S, HostSpace> sell_to_csr<S>(const SellMatrix<S, HostSpace>&);                 \
  template bool sell_compress_columns<S>(SellMatrix<S, HostSpace>&);                                \
  template void sell_apply_index_bits<S>(SellMatrix<S, HostSpace>&, int, const std::string&, const std::string&);

PPSPARSE_INSTANTIATE_CONVERT(float)
PPSPARSE_INSTANTIATE_CONVERT(double)

}  // namespace ppsparse
