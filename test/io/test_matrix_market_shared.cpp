// Every real matrix in ../shared/matrices reads to a valid CSR whose entry count matches
// its header after symmetric expansion; the largest reads fast and survives a round trip.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/io/matrix_market.hpp>

#include "test_util.hpp"

namespace ppsparse::io {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> shared_matrices() {
  std::vector<fs::path> files;
  const fs::path dir = test::shared_dir();
  if (dir.empty() || !fs::is_directory(dir / "matrices")) return files;
  for (const auto& e : fs::directory_iterator(dir / "matrices")) {
    const std::string name = e.path().filename().string();
    if (name.size() > 4 && (name.substr(name.size() - 4) == ".mtx" || name.find(".mtx.gz") != std::string::npos))
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

template <class S>
offset_t diagonal_entries(const CsrMatrix<S, HostSpace>& a) {
  offset_t d = 0;
  for (ordinal_t i = 0; i < a.nrows; ++i)
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) d += a.col_idx(k) == i;
  return d;
}

// Value of (i, j) in a sorted CSR; `found` says whether it is an entry.
template <class S>
S entry(const CsrMatrix<S, HostSpace>& a, ordinal_t i, ordinal_t j, bool& found) {
  const ordinal_t* b = a.col_idx.data() + a.row_ptr(i);
  const ordinal_t* e = a.col_idx.data() + a.row_ptr(i + 1);
  const ordinal_t* p = std::lower_bound(b, e, j);
  found = p != e && *p == j;
  return found ? a.values(static_cast<size_t>(p - a.col_idx.data())) : S(0);
}

TEST(MatrixMarketShared, EveryMatrixReadsConsistentlyWithItsHeader) {
  const auto files = shared_matrices();
  if (files.empty()) GTEST_SKIP() << "no ../shared/matrices (set PPSPARSE_SHARED_DIR)";
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    const MmHeader h = read_matrix_market_header(path.string());
    // SuiteSparse files hold no duplicates, so the error policy must accept them and the
    // entry count is exact.
    MmReadOptions opt;
    opt.duplicates = DuplicatePolicy::error;
    const auto a = read_matrix_market<double>(path.string(), opt);
    ASSERT_NO_THROW(validate(a));
    EXPECT_EQ(a.nrows, h.nrows);
    EXPECT_EQ(a.ncols, h.ncols);
    ASSERT_EQ(h.format, MmFormat::coordinate);
    if (h.symmetry == MmSymmetry::general) {
      EXPECT_EQ(a.nnz(), h.entries);
    } else {
      EXPECT_EQ(a.nnz(), 2 * h.entries - diagonal_entries(a));
      const double sign = h.symmetry == MmSymmetry::skew_symmetric ? -1.0 : 1.0;
      for (ordinal_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
          bool found = false;
          const double w = entry(a, a.col_idx(k), i, found);
          ASSERT_TRUE(found) << "mirror of (" << i << "," << a.col_idx(k) << ") missing";
          ASSERT_EQ(w, sign * a.values(k));
        }
    }
    if (h.field == MmField::pattern) {
      for (offset_t k = 0; k < a.nnz(); ++k) ASSERT_EQ(a.values(k), 1.0);
    }
    bool any_nonzero = false;
    for (offset_t k = 0; k < a.nnz() && !any_nonzero; ++k) any_nonzero = a.values(k) != 0.0;
    EXPECT_TRUE(any_nonzero || a.nnz() == 0);

    // A float read has the same pattern.
    const auto f = read_matrix_market<float>(path.string());
    ASSERT_EQ(f.nnz(), a.nnz());
    for (offset_t k = 0; k < a.nnz(); ++k) ASSERT_EQ(f.col_idx(k), a.col_idx(k));
  }
}

TEST(MatrixMarketShared, LargestMatrixRoundTrips) {
  const fs::path dir = test::shared_dir();
  const fs::path path = dir.empty() ? fs::path() : dir / "matrices" / "bcsstk33.mtx";
  if (path.empty() || !fs::exists(path)) GTEST_SKIP() << "no ../shared/matrices/bcsstk33.mtx";
  const auto t0 = std::chrono::steady_clock::now();
  const auto a = read_matrix_market<double>(path.string());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("bcsstk33_read_seconds", std::to_string(seconds));

  const MmHeader h = read_matrix_market_header(path.string());
  MmWriteOptions opt;
  opt.symmetry = h.symmetry;
  opt.field = h.field;
  const fs::path out = fs::temp_directory_path() / ("ppsparse_mm_" + std::to_string(::getpid()) + "_bcsstk33.mtx.gz");
  write_matrix_market(out.string(), a, opt);
  const auto b = read_matrix_market<double>(out.string());
  fs::remove(out);
  ASSERT_EQ(b.nnz(), a.nnz());
  for (ordinal_t i = 0; i <= a.nrows; ++i) ASSERT_EQ(b.row_ptr(i), a.row_ptr(i));
  for (offset_t k = 0; k < a.nnz(); ++k) {
    ASSERT_EQ(b.col_idx(k), a.col_idx(k));
    ASSERT_EQ(b.values(k), a.values(k));
  }
}

}  // namespace
}  // namespace ppsparse::io
