// spmv::column_panels: products against the FP64 reference across panel widths and chunk
// sizes, the layout it stores, padding that never meets x, its options and its traffic.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include <ppsparse/error.hpp>
#include <ppsparse/spmv/spmv.hpp>

#include "spmv_test_util.hpp"

#include "test_util.hpp"

namespace ppsparse::test {
namespace {

using spmv::SpmvAlgorithm;
using spmv::SpmvOperator;

spmv::SpmvOptions panel_options(ordinal_t panel_columns, int chunk_rows, ordinal_t row_max = 0) {
  spmv::SpmvOptions o;
  o.panels.panel_columns = panel_columns;
  o.panels.chunk_rows = chunk_rows;
  o.panels.row_max = row_max;
  return o;
}

// Rows whose columns are not sorted, so that a row's entries of one panel are not contiguous
// in CSR.
CsrMatrix<double, HostSpace> unsorted_rows(ordinal_t nrows, ordinal_t ncols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<ordinal_t>> rows(static_cast<size_t>(nrows));
  for (auto& r : rows) {
    r = random_columns(ncols, std::uniform_int_distribution<ordinal_t>(0, 14)(rng), rng);
    std::shuffle(r.begin(), r.end(), rng);
  }
  return csr_from_rows(ncols, rows, rng);
}

template <class S>
class ColumnPanelsTyped : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ColumnPanelsTyped, Scalars);

TYPED_TEST(ColumnPanelsTyped, MatchesTheReferenceAcrossPanelsAndChunks) {
  using S = TypeParam;
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto families = matrix_families(seed);
  families.push_back({"unsorted_rows_700x900", unsorted_rows(700, 900, seed + 9)});
  for (const auto& m : families) {
    const auto a = convert_values<S>(m.a);
    const auto ad = copy_to<Mem>(a);
    for (const ordinal_t panel_columns : {0, 1, 7, 64}) {
      if (panel_columns == 1 && a.ncols > 4096) continue;  // more panels than allowed
      for (const int chunk_rows : {0, 1, 5, 64})
        for (const ordinal_t row_max : {0, 3}) {  // 3: most rows go to the tail
          SpmvOperator<Exec, S> op(SpmvAlgorithm::column_panels, ad, panel_options(panel_columns, chunk_rows, row_max));
          ASSERT_NE(op.column_panel_matrix(), nullptr);
          expect_matches_reference<S>(
              op.describe() + " on " + m.name, a,
              [&](S alpha, const auto& x, S beta, const auto& y) { op.apply(alpha, x, beta, y); },
              seed + panel_columns);
        }
    }
  }
}

// Every entry stored once, in its panel, in its row's slot; slots sorted by length within a
// segment; padding only at a segment's end.
TEST(ColumnPanels, LayoutHoldsEveryEntryOnceInItsPanel) {
  const auto a = unsorted_rows(300, 250, test_seed());
  SpmvOperator<Exec, double> op(SpmvAlgorithm::column_panels, copy_to<Mem>(a), panel_options(40, 32));
  const auto& m = *op.column_panel_matrix();
  EXPECT_EQ(m.npanels, 7);
  EXPECT_EQ(m.nchunks, 10);
  EXPECT_EQ(m.nnz, a.nnz());
  EXPECT_GE(m.fill_ratio(), 1.0);
  const auto seg = Kokkos::create_mirror_view_and_copy(HostSpace(), m.segment_ptr);
  const auto slice = Kokkos::create_mirror_view_and_copy(HostSpace(), m.slice_ptr);
  const auto row = Kokkos::create_mirror_view_and_copy(HostSpace(), m.slot_row);
  const auto len = Kokkos::create_mirror_view_and_copy(HostSpace(), m.slot_len);
  const auto col = Kokkos::create_mirror_view_and_copy(HostSpace(), m.col_idx);
  const auto val = Kokkos::create_mirror_view_and_copy(HostSpace(), m.values);
  const int H = m.slice_rows;
  offset_t seen = 0;
  for (long long c = 0; c < m.nchunks; ++c)
    for (int p = 0; p < m.npanels; ++p) {
      ordinal_t previous = std::numeric_limits<ordinal_t>::max();
      for (offset_t s = seg(c * m.npanels + p); s < seg(c * m.npanels + p + 1); ++s)
        for (int lane = 0; lane < H; ++lane) {
          const offset_t slot = s * H + lane;
          ASSERT_LE(len(slot), previous) << "segment " << c << "," << p << " not sorted by length";
          previous = len(slot);
          const ordinal_t i = static_cast<ordinal_t>(c * m.chunk_rows) + row(slot);
          // The slot's entries are the row's entries of the panel, in CSR order.
          offset_t k = a.row_ptr(i);
          for (ordinal_t j = 0; j < len(slot); ++j, ++k) {
            while (k < a.row_ptr(i + 1) && a.col_idx(k) / 40 != p) ++k;
            ASSERT_LT(k, a.row_ptr(i + 1));
            EXPECT_EQ(col(slice(s) + lane + static_cast<offset_t>(j) * H), a.col_idx(k));
            EXPECT_EQ(val(slice(s) + lane + static_cast<offset_t>(j) * H), a.values(k));
          }
          seen += len(slot);
        }
    }
  EXPECT_EQ(seen, a.nnz());
}

// Rows longer than row_max go whole to the tail; the others stay whole in the panels.
TEST(ColumnPanels, LongRowsGoWholeToTheTail) {
  const auto a = unsorted_rows(400, 300, test_seed());
  for (const ordinal_t row_max : {1, 6, 14}) {
    SpmvOperator<Exec, double> op(SpmvAlgorithm::column_panels, copy_to<Mem>(a), panel_options(50, 64, row_max));
    const auto& m = *op.column_panel_matrix();
    EXPECT_EQ(m.row_max, row_max);
    std::vector<ordinal_t> long_rows;
    offset_t long_nnz = 0;
    for (ordinal_t i = 0; i < a.nrows; ++i)
      if (a.row_ptr(i + 1) - a.row_ptr(i) > row_max) {
        long_rows.push_back(i);
        long_nnz += a.row_ptr(i + 1) - a.row_ptr(i);
      }
    ASSERT_EQ(m.tail.nrows(), static_cast<ordinal_t>(long_rows.size()));
    EXPECT_EQ(m.tail.nnz(), long_nnz);
    const auto rows = Kokkos::create_mirror_view_and_copy(HostSpace(), m.tail.rows);
    for (size_t r = 0; r < long_rows.size(); ++r) EXPECT_EQ(rows(r), long_rows[r]);
    const auto len = Kokkos::create_mirror_view_and_copy(HostSpace(), m.slot_len);
    offset_t in_panels = 0;
    for (size_t k = 0; k < len.extent(0); ++k) in_panels += len(k);
    EXPECT_EQ(in_panels + long_nnz, a.nnz());
    EXPECT_NE(
        op.describe().find("row_max=" + std::to_string(row_max) + " tail_rows=" + std::to_string(long_rows.size())),
        std::string::npos)
        << op.describe();
  }
}

// Padding holds column 0; with Inf in x(0), a product that read padding would give NaN. (On
// CPUs a slice is one row: nothing is padded.)
TEST(ColumnPanels, PaddingNeverMeetsX) {
  std::mt19937_64 rng(test_seed());
  std::vector<std::vector<ordinal_t>> rows(200);
  for (auto& r : rows) {
    r = random_columns(199, std::uniform_int_distribution<ordinal_t>(1, 9)(rng), rng);
    for (auto& c : r) ++c;  // columns 1..199: none reads x(0)
  }
  const auto a = csr_from_rows(200, rows, rng);
  SpmvOperator<Exec, double> op(SpmvAlgorithm::column_panels, copy_to<Mem>(a), panel_options(50, 16));
  if (compat::is_gpu_space<Exec>()) ASSERT_GT(op.column_panel_matrix()->fill_ratio(), 1.0) << "the case needs padding";
  std::vector<double> x(200, 1.0);
  x[0] = std::numeric_limits<double>::infinity();
  const auto xd = to_device(x, "x");
  const auto yd = to_device(std::vector<double>(200, 0.0), "y");
  op.apply(1.0, spmv::ConstVector<double, Mem>(xd), 0.0, yd);
  const auto y = to_host(yd);
  for (ordinal_t i = 0; i < 200; ++i) {
    double expected = 0;
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) expected += a.values(k);
    EXPECT_NEAR(y[i], expected, 1e-12) << "row " << i;
  }
}

TEST(ColumnPanels, RejectsBadOptions) {
  const auto a = copy_to<Mem>(random_csr<double>(100, 5000, 0, 9, test_seed()));
  const auto error = [&](const spmv::SpmvOptions& o) {
    return message_of<InvalidArgument>([&] { SpmvOperator<Exec, double> op(SpmvAlgorithm::column_panels, a, o); });
  };
  EXPECT_EQ(error(panel_options(-1, 0)),
            "column_panels options: panel_columns = -1 must be >= 1 (or 0 for the default)");
  EXPECT_EQ(error(panel_options(0, 70000)),
            "column_panels options: chunk_rows = 70000 must be in 1..65536 (or 0 for the default)");
  spmv::SpmvOptions negative_row_max;
  negative_row_max.panels.row_max = -3;
  EXPECT_EQ(error(negative_row_max), "column_panels options: row_max = -3 must be >= 1 (or 0 for the default)");
  EXPECT_EQ(error(panel_options(1, 0)),
            "column_panels options: panel_columns = 1 cuts the 5000 columns into 5000 panels; at most 4096 are "
            "allowed");
  const auto parsed = spmv::parse_spmv_options("panels.panel_columns=12,panels.chunk_rows=64,panels.row_max=9");
  EXPECT_EQ(parsed.panels.panel_columns, 12);
  EXPECT_EQ(parsed.panels.chunk_rows, 64);
  EXPECT_EQ(parsed.panels.row_max, 9);
}

TEST(ColumnPanels, TrafficCountsTheStoredLayout) {
  const auto a = random_csr<double>(500, 800, 0, 12, test_seed());
  SpmvOperator<Exec, double> op(SpmvAlgorithm::column_panels, copy_to<Mem>(a), panel_options(100, 64));
  const auto t = op.traffic(false);
  EXPECT_DOUBLE_EQ(t.model_bytes, spmv::csr_min_bytes<double>(500, 800, a.nnz(), false));
  const auto& m = *op.column_panel_matrix();
  const double slots = static_cast<double>(m.slot_row.extent(0));
  EXPECT_DOUBLE_EQ(t.kernel_bytes, static_cast<double>(m.stored()) * 12.0 + slots * 6.0 +
                                       static_cast<double>(m.slice_ptr.extent(0) + m.segment_ptr.extent(0)) * 8.0 +
                                       800 * 8.0 + 500 * 8.0 + m.tail.bytes());
  EXPECT_DOUBLE_EQ(t.flops, 2.0 * static_cast<double>(a.nnz()));
  EXPECT_NE(op.describe().find("panels=8 panel_columns=100 chunk_rows=64"), std::string::npos) << op.describe();
}

}  // namespace
}  // namespace ppsparse::test
