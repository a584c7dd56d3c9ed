// The committed corpus test/data/mtx: every file in bad/ is refused with its exact
// "FILE:LINE: reason", every file in good/ reads to the hand-computed matrix.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <set>
#include <tuple>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/io/matrix_market.hpp>

#include "test_util.hpp"

namespace ppsparse::io {
namespace {

namespace fs = std::filesystem;

std::string corpus(const std::string& name) { return (test::data_dir() / "mtx" / name).string(); }

struct Entry {
  ordinal_t i, j;
  double v;
};

// a must hold exactly these entries, listed in row-major order (so rows are sorted).
template <class Scalar>
void expect_entries(const CsrMatrix<Scalar, HostSpace>& a, ordinal_t m, ordinal_t n, const std::vector<Entry>& want) {
  ASSERT_NO_THROW(validate(a));
  ASSERT_EQ(a.nrows, m);
  ASSERT_EQ(a.ncols, n);
  ASSERT_EQ(a.nnz(), static_cast<offset_t>(want.size()));
  offset_t k = 0;
  for (ordinal_t i = 0; i < m; ++i)
    for (offset_t p = a.row_ptr(i); p < a.row_ptr(i + 1); ++p, ++k) {
      EXPECT_EQ(i, want[k].i) << "entry " << k;
      EXPECT_EQ(a.col_idx(p), want[k].j) << "entry " << k;
      EXPECT_EQ(static_cast<double>(a.values(p)), static_cast<double>(static_cast<Scalar>(want[k].v))) << "entry " << k;
    }
}

// The InputError that reading `path` throws; fails the test if none is thrown.
template <class Scalar = double>
InputError read_error(const std::string& path, const MmReadOptions& opt = {}) {
  try {
    read_matrix_market<Scalar>(path, opt);
  } catch (const InputError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": expected an InputError, got: " << e.what();
    return InputError(path, "wrong exception type");
  }
  ADD_FAILURE() << path << ": read without error";
  return InputError(path, "no error");
}

void expect_error(const InputError& e, const std::string& path, long long line, const std::string& reason) {
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_NE(e.reason().find(reason), std::string::npos)
      << "reason: " << e.reason() << "\nexpected to contain: " << reason;
  const std::string what = e.what();
  EXPECT_EQ(what, path + ":" + std::to_string(line) + ": " + e.reason());
  EXPECT_EQ(what.find('\n'), std::string::npos) << "message is not one line";
}

struct BadFile {
  const char* name;
  long long line;
  const char* reason;
};

const BadFile bad_files[] = {
    {"empty.mtx", 1, "empty file: missing %%MatrixMarket banner"},
    {"no_banner.mtx", 1, "missing %%MatrixMarket banner"},
    {"banner_not_first.mtx", 1, "missing %%MatrixMarket banner"},
    {"banner_short.mtx", 1, "banner has 4 of its 5 fields"},
    {"banner_extra.mtx", 1, "unexpected text 'extra' after the banner's symmetry field"},
    {"object_vector.mtx", 1, "object 'vector' is not supported"},
    {"format_unknown.mtx", 1, "unknown format 'sparse'"},
    {"field_unknown.mtx", 1, "unknown field 'double'"},
    {"field_complex.mtx", 1, "field 'complex' is not supported"},
    {"symmetry_hermitian.mtx", 1, "symmetry 'hermitian' is not supported"},
    {"symmetry_unknown.mtx", 1, "unknown symmetry 'upper'"},
    {"pattern_array.mtx", 1, "a pattern matrix needs coordinate format"},
    {"pattern_skew.mtx", 1, "a pattern matrix cannot be skew-symmetric"},
    {"size_missing.mtx", 3, "missing size line"},
    {"size_non_numeric.mtx", 2, "size line: columns 'x' is not an integer"},
    {"size_negative.mtx", 3, "size line: negative rows -3"},
    {"size_extra.mtx", 2, "unexpected text '7' after the size line"},
    {"size_short.mtx", 2, "size line has 2 of its 3 numbers"},
    {"size_rows_too_large.mtx", 2, "3000000000 rows exceed the 32-bit index limit 2147483647"},
    {"size_cols_too_large.mtx", 2, "2147483648 columns exceed the 32-bit index limit"},
    {"size_entries_overflow.mtx", 2, "size line: entries '99999999999999999999' is too large"},
    {"size_float.mtx", 2, "size line: rows '3.0' is not an integer"},
    {"size_symmetric_not_square.mtx", 2, "symmetric matrix must be square, the size line gives 3 x 4"},
    {"array_size_extra.mtx", 2, "unexpected text '4' after the size line 'rows columns'"},
    {"truncated.mtx", 6, "truncated: the file ends after 3 of the 4 entries"},
    {"too_many.mtx", 6, "more entries than the 2 the size line announces"},
    {"array_truncated.mtx", 5, "truncated: the file ends after 3 of the 4 values"},
    {"array_too_many.mtx", 6, "more entries than the 3 the size line announces"},
    {"row_out_of_range.mtx", 4, "row index 4 out of range 1..3"},
    {"col_zero.mtx", 4, "column index 0 out of range 1..3"},
    {"index_negative.mtx", 3, "row index -1 out of range 1..3"},
    {"index_non_numeric.mtx", 3, "row index 'a' is not an integer"},
    {"index_float.mtx", 3, "row index '1.5' is not an integer"},
    {"value_nan.mtx", 4, "non-finite value 'nan'"},
    {"value_inf.mtx", 4, "non-finite value '-Infinity'"},
    {"value_overflow.mtx", 3, "value '1e999' overflows double"},
    {"value_non_numeric.mtx", 3, "value 'abc' is not a number"},
    {"value_partial_number.mtx", 3, "value '1.0e' is not a number"},
    {"value_missing.mtx", 4, "missing value (expected 'row column value')"},
    {"column_missing.mtx", 3, "missing column index"},
    {"trailing_garbage.mtx", 3, "unexpected text 'junk' after the value"},
    {"pattern_with_value.mtx", 3, "unexpected text '1.0' after the column index"},
    {"integer_not_integer.mtx", 3, "value '1.5' is not an integer"},
    {"integer_too_large.mtx", 3, "integer value '99999999999999999999' does not fit in 64 bits"},
    {"array_two_values.mtx", 3, "unexpected text '2.0' after the value"},
    {"array_non_numeric.mtx", 4, "value 'x' is not a number"},
    {"skew_diagonal.mtx", 4, "nonzero diagonal entry (2, 2) = 1.5 in a skew-symmetric matrix"},
    {"nul_byte.mtx", 3, "NUL byte in line"},
    // gzip damage is found when zlib inflates the first block (the whole small file).
    {"corrupt.mtx.gz", 1, "corrupt or truncated gzip data (zlib: invalid code"},
    {"bad_crc.mtx.gz", 1, "corrupt or truncated gzip data (zlib: incorrect data check)"},
    {"truncated.mtx.gz", 42, "corrupt or truncated gzip data (zlib: unexpected end of file)"},
};

TEST(MatrixMarketCorpus, EveryBadFileGivesItsLineAndReason) {
  for (const BadFile& b : bad_files) {
    const std::string path = corpus(std::string("bad/") + b.name);
    SCOPED_TRACE(path);
    ASSERT_TRUE(fs::exists(path));
    expect_error(read_error<double>(path), path, b.line, b.reason);
    // float reads refuse the same files at the same place, except for the scalar name.
    const InputError f = read_error<float>(path);
    EXPECT_EQ(f.line(), b.line);
  }
}

TEST(MatrixMarketCorpus, TableCoversEveryBadFile) {
  std::set<std::string> listed;
  for (const BadFile& b : bad_files) listed.insert(b.name);
  int files = 0;
  for (const auto& e : fs::directory_iterator(test::data_dir() / "mtx" / "bad")) {
    ++files;
    EXPECT_TRUE(listed.count(e.path().filename().string())) << e.path() << " has no expected error in the table";
  }
  EXPECT_EQ(files, static_cast<int>(listed.size()));
}

TEST(MatrixMarketCorpus, HeaderErrorsAlsoComeFromReadHeader) {
  const std::string path = corpus("bad/size_symmetric_not_square.mtx");
  try {
    read_matrix_market_header(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    expect_error(e, path, 2, "symmetric matrix must be square");
  }
}

TEST(MatrixMarketCorpus, MissingFileAndDirectoryNameThePath) {
  const std::string missing = corpus("no_such_file.mtx");
  try {
    read_matrix_market<double>(missing);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), missing);
    EXPECT_EQ(e.line(), 0);
    EXPECT_EQ(std::string(e.what()), missing + ": cannot open file: No such file or directory");
  }
  const std::string dir = corpus("good");
  try {
    read_matrix_market_header(dir);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": is a directory, not a Matrix Market file");
  }
}

TEST(MatrixMarketCorpus, CommentsBlankLinesCrlfAndCase) {
  const std::vector<Entry> want = {{0, 0, 1.5}, {0, 2, 1e-3}, {1, 1, 0.25}, {2, 3, -2}};
  expect_entries(read_matrix_market<double>(corpus("good/general_comments.mtx")), 3, 4, want);
  expect_entries(read_matrix_market<float>(corpus("good/general_comments.mtx")), 3, 4, want);
  expect_entries(read_matrix_market<double>(corpus("good/general.mtx.gz")), 3, 4, want);
  expect_entries(read_matrix_market<double>(corpus("good/crlf.mtx")), 2, 2, {{0, 0, 1}, {1, 0, -3}});
  expect_entries(read_matrix_market<double>(corpus("good/no_final_newline.mtx")), 2, 2, {{0, 0, 1}, {1, 1, 2}});
  expect_entries(read_matrix_market<double>(corpus("good/uppercase_banner.mtx")), 1, 1, {{0, 0, 7}});
}

TEST(MatrixMarketCorpus, HeaderOnly) {
  MmHeader h = read_matrix_market_header(corpus("good/general_comments.mtx"));
  EXPECT_EQ(h.format, MmFormat::coordinate);
  EXPECT_EQ(h.field, MmField::real);
  EXPECT_EQ(h.symmetry, MmSymmetry::general);
  EXPECT_EQ(std::make_tuple(h.nrows, h.ncols, h.entries), std::make_tuple(3LL, 4LL, 4LL));
  h = read_matrix_market_header(corpus("good/array_skew.mtx"));
  EXPECT_EQ(h.format, MmFormat::array);
  EXPECT_EQ(h.field, MmField::integer);
  EXPECT_EQ(h.symmetry, MmSymmetry::skew_symmetric);
  EXPECT_EQ(std::make_tuple(h.nrows, h.ncols, h.entries), std::make_tuple(3LL, 3LL, 3LL));
  h = read_matrix_market_header(corpus("good/array_symmetric.mtx"));
  EXPECT_EQ(h.entries, 6);
  h = read_matrix_market_header(corpus("good/general.mtx.gz"));
  EXPECT_EQ(h.entries, 4);
  EXPECT_STREQ(to_string(MmSymmetry::skew_symmetric), "skew-symmetric");
  EXPECT_STREQ(to_string(MmField::pattern), "pattern");
  EXPECT_STREQ(to_string(MmFormat::array), "array");
}

TEST(MatrixMarketCorpus, PatternIsOneAndSymmetricMirrors) {
  expect_entries(read_matrix_market<double>(corpus("good/pattern_symmetric.mtx")), 3, 3,
                 {{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 1, 1}});
  // Upper-triangle entries of a symmetric file are accepted and mirrored as well.
  expect_entries(read_matrix_market<double>(corpus("good/symmetric_upper.mtx")), 3, 3,
                 {{0, 1, 5}, {0, 2, 6}, {1, 0, 5}, {2, 0, 6}, {2, 2, 7}});
}

TEST(MatrixMarketCorpus, SkewMirrorsWithNegationAndKeepsZeroDiagonal) {
  expect_entries(read_matrix_market<double>(corpus("good/skew.mtx")), 3, 3,
                 {{0, 1, -4}, {0, 2, 2}, {1, 0, 4}, {2, 0, -2}, {2, 2, 0}});
}

TEST(MatrixMarketCorpus, IntegerField) {
  // 2^53 is exact in double and in float; +12 has an explicit sign.
  const std::vector<Entry> want = {{0, 0, -4}, {0, 1, 12}, {1, 2, 9007199254740992.0}};
  expect_entries(read_matrix_market<double>(corpus("good/integer_general.mtx")), 2, 3, want);
  expect_entries(read_matrix_market<float>(corpus("good/integer_general.mtx")), 2, 3, want);
}

TEST(MatrixMarketCorpus, ExplicitZerosAreEntriesAndRowsGetSorted) {
  expect_entries(read_matrix_market<double>(corpus("good/explicit_zero.mtx")), 2, 2, {{0, 0, 0}, {1, 0, 0}, {1, 1, 3}});
  expect_entries(read_matrix_market<double>(corpus("good/unsorted.mtx")), 3, 3,
                 {{0, 0, 1}, {0, 2, 2}, {1, 1, 3}, {2, 0, 4}, {2, 2, 5}});
}

TEST(MatrixMarketCorpus, EmptyMatrices) {
  expect_entries(read_matrix_market<double>(corpus("good/empty_0x0.mtx")), 0, 0, {});
  expect_entries(read_matrix_market<double>(corpus("good/empty_3x2.mtx")), 3, 2, {});
}

TEST(MatrixMarketCorpus, ArrayIsColumnMajorAndDense) {
  // The stored zero of a general array is an entry like every other position.
  expect_entries(read_matrix_market<double>(corpus("good/array_general.mtx")), 2, 3,
                 {{0, 0, 1}, {0, 1, 3}, {0, 2, 5}, {1, 0, 2}, {1, 1, 4}, {1, 2, 0}});
  expect_entries(read_matrix_market<double>(corpus("good/array_symmetric.mtx")), 3, 3,
                 {{0, 0, 1}, {0, 1, 2}, {0, 2, 3}, {1, 0, 2}, {1, 1, 4}, {1, 2, 5}, {2, 0, 3}, {2, 1, 5}, {2, 2, 6}});
  expect_entries(
      read_matrix_market<float>(corpus("good/array_skew.mtx")), 3, 3,
      {{0, 0, 0}, {0, 1, -1}, {0, 2, -2}, {1, 0, 1}, {1, 1, 0}, {1, 2, -3}, {2, 0, 2}, {2, 1, 3}, {2, 2, 0}});
}

TEST(MatrixMarketCorpus, NonfiniteOnlyWhenAllowed) {
  const std::string path = corpus("good/value_nan.mtx");
  expect_error(read_error(path), path, 3,
               "non-finite value 'nan' (refused unless the reader is told to allow non-finite values)");
  MmReadOptions opt;
  opt.allow_nonfinite = true;
  const auto a = read_matrix_market<double>(path, opt);
  ASSERT_EQ(a.nnz(), 2);
  EXPECT_TRUE(std::isnan(a.values(0)));
  EXPECT_EQ(a.values(1), std::numeric_limits<double>::infinity());
}

TEST(MatrixMarketCorpus, DuplicatesAreSummedByDefault) {
  expect_entries(read_matrix_market<double>(corpus("good/dup_general.mtx")), 2, 2, {{0, 1, 4.0}, {1, 1, 1}});
  // (2,1) and (1,2) in a symmetric file are one entry given twice.
  expect_entries(read_matrix_market<double>(corpus("good/dup_mirror.mtx")), 3, 3, {{0, 1, 11}, {1, 0, 11}, {2, 2, 2}});
  // Skew: (1,2) = 10 stands for (2,1) = -10, summed with (2,1) = 1.
  expect_entries(read_matrix_market<double>(corpus("good/dup_skew_mirror.mtx")), 2, 2, {{0, 1, 9}, {1, 0, -9}});
}

TEST(MatrixMarketCorpus, DuplicatesRefusedUnderErrorPolicy) {
  MmReadOptions opt;
  opt.duplicates = DuplicatePolicy::error;
  std::string path = corpus("good/dup_general.mtx");
  expect_error(read_error(path, opt), path, 5,
               "duplicate entry (1, 2): line 3 already gave (1, 2) (DuplicatePolicy::error)");
  path = corpus("good/dup_mirror.mtx");
  expect_error(read_error(path, opt), path, 5,
               "duplicate entry (2, 1): line 3 already gave (2, 1) or its mirror (1, 2)");
  path = corpus("good/dup_skew_mirror.mtx");
  expect_error(read_error<float>(path, opt), path, 4, "or its mirror (1, 2)");
  // Files without duplicates read the same under both policies.
  expect_entries(read_matrix_market<double>(corpus("good/unsorted.mtx"), opt), 3, 3,
                 {{0, 0, 1}, {0, 2, 2}, {1, 1, 3}, {2, 0, 4}, {2, 2, 5}});
}

// A scratch file, removed at the end of the test.
class ScratchFile {
 public:
  ScratchFile(const std::string& text, const std::string& suffix = ".mtx") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = (fs::temp_directory_path() / ("ppsparse_mm_" + std::to_string(::getpid()) + "_" + info->name() + "_" +
                                          std::to_string(count_++) + suffix))
                .string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~ScratchFile() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  static inline int count_ = 0;
  std::string path_;
};

TEST(MatrixMarketCorpus, ErrorPolicyNamesTheFirstDuplicateInTheFile) {
  // Row 3's duplicate (line 4) precedes row 1's (line 6) in the file.
  ScratchFile f("%%MatrixMarket matrix coordinate real general\n3 3 4\n3 3 1\n3 3 2\n1 1 1\n1 1 2\n");
  MmReadOptions opt;
  opt.duplicates = DuplicatePolicy::error;
  expect_error(read_error(f.path(), opt), f.path(), 4, "duplicate entry (3, 3): line 3 already gave (3, 3)");
}

TEST(MatrixMarketCorpus, ValuesThatDoNotFitTheScalar) {
  ScratchFile big("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e39\n");
  expect_error(read_error<float>(big.path()), big.path(), 3, "value '1e39' overflows float");
  EXPECT_EQ(read_matrix_market<double>(big.path()).values(0), 1e39);
  ScratchFile odd("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 16777217\n");
  expect_error(read_error<float>(odd.path()), odd.path(), 3,
               "integer value 16777217 is not exactly representable as float");
  EXPECT_EQ(read_matrix_market<double>(odd.path()).values(0), 16777217.0);
  // Subnormal values are values, not overflow.
  ScratchFile tiny("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 4.9406564584124654e-324\n");
  EXPECT_EQ(read_matrix_market<double>(tiny.path()).values(0), std::numeric_limits<double>::denorm_min());
}

TEST(MatrixMarketCorpus, OverlongLineIsRefused) {
  ScratchFile f("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + std::string(3u << 20, '7') + "\n");
  expect_error(read_error(f.path()), f.path(), 3, "line longer than 1048576 characters");
}

}  // namespace
}  // namespace ppsparse::io
