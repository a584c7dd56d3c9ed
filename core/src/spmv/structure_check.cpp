#include <ppsparse/spmv/structure_check.hpp>

#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {
namespace {

// First row (smallest index) whose pointer decreases or leaves [0, nnz].
template <class MemSpace>
struct FirstBadPointer {
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  offset_t nnz;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, ordinal_t& first) const {
    const offset_t b = row_ptr(i), e = row_ptr(i + 1);
    if ((e < b || b < 0 || e > nnz) && i < first) first = i;
  }
};

// First row holding a column index outside [0, ncols).
template <class MemSpace>
struct FirstBadColumn {
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  ordinal_t ncols;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, ordinal_t& first) const {
    for (offset_t k = row_ptr(i); k < row_ptr(i + 1); ++k) {
      const ordinal_t c = col_idx(k);
      if ((c < 0 || c >= ncols) && i < first) first = i;
    }
  }
};

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
void check_csr_structure(const ExecSpace& space, const CsrMatrix<Scalar, MemSpace>& a, const std::string& who) {
  check_csr_extents(who, a);
  const offset_t nnz = a.nnz();
  auto ends = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                  Kokkos::subview(a.row_ptr, std::make_pair(size_t(0), size_t(1))));
  if (ends(0) != 0) throw InvalidArgument(who + ": row_ptr[0] = " + std::to_string(ends(0)) + ", expected 0");
  auto last = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(a.row_ptr, std::make_pair(size_t(a.nrows), size_t(a.nrows) + 1)));
  if (last(0) != nnz)
    throw InvalidArgument(who + ": row_ptr[nrows] = " + std::to_string(last(0)) + " but col_idx and values hold " +
                          std::to_string(nnz) + " entries");
  if (a.nrows == 0) return;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>;
  ordinal_t bad = max_ordinal;
  Kokkos::parallel_reduce("ppsparse::check_csr_row_ptr", Policy(space, 0, a.nrows),
                          FirstBadPointer<MemSpace>{a.row_ptr, nnz}, Kokkos::Min<ordinal_t>(bad));
  if (bad != max_ordinal)
    throw InvalidArgument(who + ": row_ptr decreases or leaves [0, nnz] at row " + std::to_string(bad));
  Kokkos::parallel_reduce("ppsparse::check_csr_columns", Policy(space, 0, a.nrows),
                          FirstBadColumn<MemSpace>{a.row_ptr, a.col_idx, a.ncols}, Kokkos::Min<ordinal_t>(bad));
  if (bad != max_ordinal) {
    // Name the offending column: copy that one row to the host.
    auto rp = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(a.row_ptr, std::make_pair(size_t(bad), size_t(bad) + 2)));
    auto cols = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(a.col_idx, std::make_pair(size_t(rp(0)), size_t(rp(1)))));
    long long c = -1;
    for (size_t k = 0; k < cols.extent(0); ++k)
      if (cols(k) < 0 || cols(k) >= a.ncols) {
        c = cols(k);
        break;
      }
    throw InvalidArgument(who + ": column index " + std::to_string(c) + " out of range [0, " + std::to_string(a.ncols) +
                          ") in row " + std::to_string(bad));
  }
}

#define PPSPARSE_INSTANTIATE_CHECK(S)                                      \
  template void check_csr_structure<DefaultExecSpace, S, DefaultMemSpace>( \
      const DefaultExecSpace&, const CsrMatrix<S, DefaultMemSpace>&, const std::string&);

PPSPARSE_INSTANTIATE_CHECK(float)
PPSPARSE_INSTANTIATE_CHECK(double)

}  // namespace ppsparse::spmv
