// write_matrix_market then read_matrix_market gives back the same matrix, bit for bit,
// for random matrices in every field, symmetry and format, plain and gzip; and the
// writer refuses what a file with the requested options cannot describe.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <map>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/io/matrix_market.hpp>

#include "test_util.hpp"

namespace ppsparse::io {
namespace {

namespace fs = std::filesystem;

// A scratch directory for the current test, removed at its end.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("ppsparse_mm_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    fs::create_directories(dir_);
  }
  ~ScratchDir() { fs::remove_all(dir_); }
  std::string operator/(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

template <class S>
void expect_same(const CsrMatrix<S, HostSpace>& a, const CsrMatrix<S, HostSpace>& b) {
  ASSERT_EQ(a.nrows, b.nrows);
  ASSERT_EQ(a.ncols, b.ncols);
  ASSERT_EQ(a.nnz(), b.nnz());
  for (ordinal_t i = 0; i <= a.nrows; ++i) ASSERT_EQ(a.row_ptr(i), b.row_ptr(i)) << "row_ptr " << i;
  for (offset_t k = 0; k < a.nnz(); ++k) {
    ASSERT_EQ(a.col_idx(k), b.col_idx(k)) << "entry " << k;
    if (std::isnan(a.values(k))) {
      ASSERT_TRUE(std::isnan(b.values(k))) << "entry " << k;
    } else {
      ASSERT_EQ(a.values(k), b.values(k)) << "entry " << k;  // exact
    }
  }
}

// b must be the dense form of a: every position an entry, zero where a has none.
template <class S>
void expect_dense_of(const CsrMatrix<S, HostSpace>& a, const CsrMatrix<S, HostSpace>& b) {
  ASSERT_NO_THROW(validate(b));
  ASSERT_EQ(b.nrows, a.nrows);
  ASSERT_EQ(b.ncols, a.ncols);
  ASSERT_EQ(b.nnz(), static_cast<offset_t>(a.nrows) * a.ncols);
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    std::vector<S> row(static_cast<size_t>(a.ncols), S(0));
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) row[a.col_idx(k)] = a.values(k);
    for (ordinal_t j = 0; j < a.ncols; ++j)
      ASSERT_EQ(b.values(b.row_ptr(i) + j), row[j]) << "(" << i << "," << j << ")";
  }
}

// Random values that need every digit: a wide exponent range, a few explicit zeros.
template <class S>
S random_value(MmField field, std::mt19937_64& rng) {
  if (field == MmField::pattern) return S(1);
  std::uniform_int_distribution<int> pick(0, 19);
  if (pick(rng) == 0) return S(0);  // explicit zero: still an entry
  if (field == MmField::integer) {
    const int v = std::uniform_int_distribution<int>(-1000000, 1000000)(rng);
    return S(v == 0 ? 7 : v);
  }
  const double mant = std::uniform_real_distribution<double>(-1, 1)(rng);
  const int range = std::numeric_limits<S>::max_exponent - 8;
  const int e = std::uniform_int_distribution<int>(-range, range)(rng);
  const S v = static_cast<S>(std::ldexp(mant, e));
  return v == S(0) ? S(0.5) : v;
}

// A random m x n matrix with the given symmetry (square when not general); skew
// matrices get a few explicit zero diagonal entries, which are part of their pattern.
template <class S>
CsrMatrix<S, HostSpace> random_matrix(ordinal_t m, ordinal_t n, MmSymmetry sym, MmField field, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto base = test::random_csr<S>(m, n, 0, std::min<int>(n, 8), seed + 1);
  if (sym == MmSymmetry::general) {
    for (size_t k = 0; k < base.values.extent(0); ++k) base.values(k) = random_value<S>(field, rng);
    return base;
  }
  std::map<std::pair<ordinal_t, ordinal_t>, S> e;
  for (ordinal_t i = 0; i < m; ++i)
    for (offset_t k = base.row_ptr(i); k < base.row_ptr(i + 1); ++k) {
      const ordinal_t j = base.col_idx(k);
      if (j > i) continue;
      if (j == i && sym == MmSymmetry::skew_symmetric) {
        if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) e[{i, i}] = S(0);
        continue;
      }
      const S v = random_value<S>(field, rng);
      e[{i, j}] = v;
      e[{j, i}] = sym == MmSymmetry::skew_symmetric ? S(-v) : v;
    }
  CsrMatrix<S, HostSpace> a(m, n, static_cast<offset_t>(e.size()), "sym");
  offset_t p = 0;
  for (const auto& [ij, v] : e) {  // std::map iterates in (row, column) order
    a.col_idx(p) = ij.second;
    a.values(p) = v;
    ++p;
    a.row_ptr(ij.first + 1) = p;
  }
  for (ordinal_t i = 0; i < m; ++i) a.row_ptr(i + 1) = std::max(a.row_ptr(i + 1), a.row_ptr(i));
  return a;
}

std::string first_bytes(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(&s[0], static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

template <class S>
void round_trip_all_options(std::uint64_t seed) {
  ScratchDir dir;
  std::mt19937_64 rng(seed);
  int cases = 0;
  for (MmFormat format : {MmFormat::coordinate, MmFormat::array})
    for (MmField field : {MmField::real, MmField::integer, MmField::pattern})
      for (MmSymmetry sym : {MmSymmetry::general, MmSymmetry::symmetric, MmSymmetry::skew_symmetric}) {
        if (field == MmField::pattern && (format == MmFormat::array || sym == MmSymmetry::skew_symmetric)) continue;
        for (const char* ext : {".mtx", ".mtx.gz"}) {
          const ordinal_t m = std::uniform_int_distribution<ordinal_t>(1, 60)(rng);
          const ordinal_t n = sym == MmSymmetry::general ? std::uniform_int_distribution<ordinal_t>(1, 60)(rng) : m;
          const auto a = random_matrix<S>(m, n, sym, field, rng());
          const std::string path =
              dir / (std::string("m_") + to_string(format) + "_" + to_string(field) + "_" + to_string(sym) + ext);
          SCOPED_TRACE(path);
          MmWriteOptions opt;
          opt.format = format;
          opt.field = field;
          opt.symmetry = sym;
          ASSERT_NO_THROW(write_matrix_market(path, a, opt));
          if (std::string(ext) == ".mtx.gz") {
            EXPECT_EQ(first_bytes(path, 2), "\x1f\x8b") << "not gzip";
          } else {
            EXPECT_EQ(first_bytes(path, 14), "%%MatrixMarket");
          }

          const MmHeader h = read_matrix_market_header(path);
          EXPECT_EQ(h.format, format);
          EXPECT_EQ(h.field, field);
          EXPECT_EQ(h.symmetry, sym);
          EXPECT_EQ(h.nrows, m);
          EXPECT_EQ(h.ncols, n);

          MmReadOptions ro;
          ro.duplicates = DuplicatePolicy::error;  // the writer never writes one twice
          const auto b = read_matrix_market<S>(path, ro);
          if (format == MmFormat::array) {
            expect_dense_of(a, b);
          } else {
            expect_same(a, b);
            offset_t stored = 0;  // entries on or below the diagonal
            for (ordinal_t i = 0; i < m; ++i)
              for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) stored += a.col_idx(k) <= i;
            EXPECT_EQ(h.entries, sym == MmSymmetry::general ? a.nnz() : stored);
          }
          ++cases;
        }
      }
  EXPECT_EQ(cases, 2 * (3 + 3 + 2) + 2 * (3 + 3));
}

TEST(MatrixMarketRoundTrip, EveryFieldSymmetryAndFormatDouble) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  round_trip_all_options<double>(seed);
}

TEST(MatrixMarketRoundTrip, EveryFieldSymmetryAndFormatFloat) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  round_trip_all_options<float>(seed);
}

TEST(MatrixMarketRoundTrip, ExtremeValuesAreExact) {
  ScratchDir dir;
  const std::vector<double> values = {0.1,
                                      1.0 / 3.0,
                                      -2.0 / 3.0,
                                      1e-300,
                                      -1.7976931348623157e308,
                                      std::numeric_limits<double>::denorm_min(),
                                      4.9e-320,
                                      123456789.123456789,
                                      -0.0};
  CsrMatrix<double, HostSpace> a(1, static_cast<ordinal_t>(values.size()), static_cast<offset_t>(values.size()));
  for (size_t k = 0; k < values.size(); ++k) {
    a.col_idx(k) = static_cast<ordinal_t>(k);
    a.values(k) = values[k];
  }
  a.row_ptr(1) = a.nnz();
  write_matrix_market(dir / "x.mtx", a);
  const auto b = read_matrix_market<double>(dir / "x.mtx");
  expect_same(a, b);
  EXPECT_TRUE(std::signbit(b.values(values.size() - 1))) << "-0 lost its sign";
  auto af = convert_values<float>(a);
  af.values(3) = std::numeric_limits<float>::denorm_min();  // 1e-300 underflows in float
  af.values(4) = -std::numeric_limits<float>::max();
  write_matrix_market(dir / "f.mtx.gz", af);
  expect_same(af, read_matrix_market<float>(dir / "f.mtx.gz"));
}

TEST(MatrixMarketRoundTrip, NonfiniteValuesNeedTheOption) {
  ScratchDir dir;
  auto a = test::random_csr<double>(4, 4, 1, 3, 5);
  a.values(0) = std::nan("");
  a.values(a.nnz() - 1) = -std::numeric_limits<double>::infinity();
  write_matrix_market(dir / "nan.mtx", a);
  PPSPARSE_EXPECT_THROW_MESSAGE(
      read_matrix_market<double>(dir / "nan.mtx"), InputError,
      "nan.mtx:4: non-finite value 'nan' (refused unless the reader is told to allow non-finite values)");
  MmReadOptions opt;
  opt.allow_nonfinite = true;
  expect_same(a, read_matrix_market<double>(dir / "nan.mtx", opt));
}

TEST(MatrixMarketRoundTrip, EmptyMatrices) {
  ScratchDir dir;
  for (auto [m, n] : {std::pair<ordinal_t, ordinal_t>{0, 0}, {3, 0}, {0, 4}, {5, 5}}) {
    CsrMatrix<double, HostSpace> a(m, n, 0);
    for (MmFormat format : {MmFormat::coordinate, MmFormat::array}) {
      MmWriteOptions opt;
      opt.format = format;
      const std::string path = dir / "empty.mtx";
      write_matrix_market(path, a, opt);
      const auto b = read_matrix_market<double>(path);
      if (format == MmFormat::coordinate)
        expect_same(a, b);
      else
        expect_dense_of(a, b);
    }
  }
}

// The InvalidArgument message of writing a with opt; the file must not be created.
template <class S>
std::string write_refusal(const std::string& path, const CsrMatrix<S, HostSpace>& a, const MmWriteOptions& opt) {
  try {
    write_matrix_market(path, a, opt);
  } catch (const InvalidArgument& e) {
    EXPECT_FALSE(fs::exists(path)) << "a refused write touched the file";
    return e.what();
  }
  ADD_FAILURE() << "write was not refused";
  return "";
}

TEST(MatrixMarketWrite, RefusesWhatTheOptionsCannotDescribe) {
  ScratchDir dir;
  const std::string path = dir / "refused.mtx";
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  MmWriteOptions sym;
  sym.symmetry = MmSymmetry::symmetric;
  MmWriteOptions skew;
  skew.symmetry = MmSymmetry::skew_symmetric;

  auto s = random_matrix<double>(12, 12, MmSymmetry::symmetric, MmField::real, seed);
  // Break symmetry in one value: the message names both positions (1-based).
  offset_t off = -1;
  ordinal_t oi = 0;
  for (ordinal_t i = 0; i < s.nrows && off < 0; ++i)
    for (offset_t k = s.row_ptr(i); k < s.row_ptr(i + 1); ++k)
      if (s.col_idx(k) < i) {
        off = k;
        oi = i;
        break;
      }
  ASSERT_GE(off, 0);
  s.values(off) = s.values(off) == 1.0 ? 2.0 : 1.0;
  const std::string pos = "a(" + std::to_string(oi + 1) + "," + std::to_string(s.col_idx(off) + 1) + ")";
  std::string msg = write_refusal(path, s, sym);
  EXPECT_NE(msg.find("write_matrix_market(" + path + "): matrix is not symmetric"), std::string::npos) << msg;
  EXPECT_NE(msg.find(pos), std::string::npos) << msg;

  // A one-sided entry: (1,2) without (2,1).
  CsrMatrix<double, HostSpace> u(2, 2, 1);
  u.row_ptr(1) = 1;
  u.row_ptr(2) = 1;
  u.col_idx(0) = 1;
  u.values(0) = 2.0;
  msg = write_refusal(path, u, sym);
  EXPECT_NE(msg.find("a(1,2) is an entry but a(2,1) is not"), std::string::npos) << msg;

  // A symmetric matrix is not skew-symmetric; a nonzero diagonal never is.
  auto k2 = random_matrix<double>(10, 10, MmSymmetry::skew_symmetric, MmField::real, seed + 7);
  EXPECT_NO_THROW(write_matrix_market(dir / "skew_ok.mtx", k2, skew));
  CsrMatrix<double, HostSpace> d(2, 2, 1);
  d.row_ptr(1) = 1;
  d.row_ptr(2) = 1;
  d.col_idx(0) = 0;
  d.values(0) = 3.0;
  msg = write_refusal(path, d, skew);
  EXPECT_NE(msg.find("matrix is not skew-symmetric: diagonal entry a(1,1) = 3 is nonzero"), std::string::npos) << msg;

  auto rect = test::random_csr<double>(3, 4, 1, 2, seed);
  msg = write_refusal(path, rect, sym);
  EXPECT_NE(msg.find("a symmetric matrix must be square, this one is 3 x 4"), std::string::npos) << msg;

  MmWriteOptions integer;
  integer.field = MmField::integer;
  auto frac = test::random_csr<double>(3, 3, 1, 2, seed);
  frac.values(0) = 2.5;
  msg = write_refusal(path, frac, integer);
  EXPECT_NE(msg.find("value 2.5 (entry 0) is not an integer"), std::string::npos) << msg;

  MmWriteOptions pattern_array;
  pattern_array.field = MmField::pattern;
  pattern_array.format = MmFormat::array;
  msg = write_refusal(path, rect, pattern_array);
  EXPECT_NE(msg.find("a pattern matrix needs coordinate format"), std::string::npos) << msg;
  MmWriteOptions pattern_skew = skew;
  pattern_skew.field = MmField::pattern;
  msg = write_refusal(path, k2, pattern_skew);
  EXPECT_NE(msg.find("a pattern matrix cannot be skew-symmetric"), std::string::npos) << msg;

  auto broken = test::random_csr<double>(4, 4, 2, 2, seed);
  std::swap(broken.col_idx(0), broken.col_idx(1));
  msg = write_refusal(path, broken, MmWriteOptions{});
  EXPECT_NE(msg.find("column indices not strictly increasing"), std::string::npos) << msg;
}

TEST(MatrixMarketWrite, UnwritablePathIsAnInputErrorNamingIt) {
  ScratchDir dir;
  const std::string path = dir / "no_such_dir/out.mtx";
  const auto a = test::random_csr<double>(3, 3, 1, 2, 1);
  try {
    write_matrix_market(path, a);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open for writing: No such file or directory");
  }
}

TEST(MatrixMarketWrite, LargeGzipRoundTrip) {
  // Several output buffer flushes and a real gzip stream.
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  ScratchDir dir;
  const auto a = random_matrix<double>(20000, 20000, MmSymmetry::general, MmField::real, seed);
  write_matrix_market(dir / "big.mtx.gz", a);
  write_matrix_market(dir / "big.mtx", a);
  expect_same(a, read_matrix_market<double>(dir / "big.mtx.gz"));
  expect_same(a, read_matrix_market<double>(dir / "big.mtx"));
  EXPECT_LT(fs::file_size(dir / "big.mtx.gz"), fs::file_size(dir / "big.mtx") / 2) << "not compressed";
}

}  // namespace
}  // namespace ppsparse::io
