#pragma once
/// @file
/// Kokkos Kernels' SpMV (KokkosSparse::spmv) as a peer of the ppsparse kernels, in its two
/// flavours: "native" (Kokkos Kernels' own kernel) and "default" (what Kokkos Kernels picks:
/// the vendor library when it was built with that TPL, else native).
///
/// This header is the one place that absorbs the API difference between Kokkos Kernels 3.4
/// (Debian: spmv(KokkosKernels::Experimental::Controls, ...), where "native" and "default" are
/// the same code path because no TPL is enabled and 3.4 has no way to bypass a TPL) and
/// Kokkos Kernels >= 4 (KokkosSparse::SPMVHandle with SPMV_NATIVE / SPMV_DEFAULT).
///
/// Header-only: it instantiates Kokkos Kernels templates, so only programs that compare
/// against Kokkos Kernels (benchmarks, tests) pay for compiling them.
#include <memory>
#include <string>

#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/csr.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

enum class KkSpmvMode { native, default_algorithm };

namespace detail {
/// Copies 64-bit CSR row offsets into the 32-bit offsets Kokkos Kernels' ETI (and its
/// cuSPARSE/rocSPARSE TPL path) is built for.
template <class MemSpace>
struct NarrowOffsets {
  Kokkos::View<const offset_t*, MemSpace> from;
  Kokkos::View<int*, MemSpace> to;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { to(i) = static_cast<int>(from(i)); }
};
}  // namespace detail

template <class ExecSpace, class Scalar, class MemSpace = typename ExecSpace::memory_space>
class KokkosKernelsSpmv {
 public:
  using device_type = Kokkos::Device<ExecSpace, MemSpace>;
  using matrix_type = KokkosSparse::CrsMatrix<Scalar, int, device_type, void, int>;
  using x_type = ConstVector<Scalar, MemSpace>;
  using y_type = Vector<Scalar, MemSpace>;

  /// Shares the matrix's column indices and values; copies the row offsets to 32 bits.
  /// InvalidArgument if the matrix has more than 2^31-1 entries.
  KokkosKernelsSpmv(const CsrMatrix<Scalar, MemSpace>& a, KkSpmvMode mode, const ExecSpace& space = ExecSpace())
      : mode_(mode), space_(space) {
    check_csr_extents("Kokkos Kernels spmv", a);
    if (a.nnz() > static_cast<offset_t>(max_ordinal))
      throw InvalidArgument("Kokkos Kernels spmv: " + std::to_string(a.nnz()) +
                            " entries exceed the 32-bit row offsets it is instantiated for");
    Kokkos::View<int*, MemSpace> row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk.row_map"),
                                         a.row_ptr.extent(0));
    Kokkos::parallel_for("ppsparse::kk_narrow_offsets",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, a.nrows + 1),
                         detail::NarrowOffsets<MemSpace>{a.row_ptr, row_map});
    space.fence();
    a_ = matrix_type("kk.A", a.nrows, a.ncols, static_cast<int>(a.nnz()), a.values, row_map, a.col_idx);
#if PPSPARSE_KOKKOS_4
    handle_ = std::make_unique<handle_type>(mode == KkSpmvMode::native ? KokkosSparse::SPMV_NATIVE
                                                                       : KokkosSparse::SPMV_DEFAULT);
#else
    // Kokkos Kernels 3.4 reads "algorithm" only in its cuSPARSE path ("default" / "merge");
    // without a TPL both modes run the native kernel.
    if (mode == KkSpmvMode::native) controls_.setParameter("algorithm", "native");
#endif
  }

  void apply(Scalar alpha, const x_type& x, Scalar beta, const y_type& y) {
    check_vectors("Kokkos Kernels spmv", a_.numRows(), a_.numCols(), x, y);
#if PPSPARSE_KOKKOS_4
    KokkosSparse::spmv(space_, handle_.get(), "N", alpha, a_, x, beta, y);
#else
    KokkosSparse::spmv(controls_, "N", alpha, a_, x, beta, y);
#endif
  }

  static std::string name(KkSpmvMode mode) { return mode == KkSpmvMode::native ? "kk_native" : "kk_default"; }
  KkSpmvMode mode() const { return mode_; }

 private:
  KkSpmvMode mode_;
  ExecSpace space_;
  matrix_type a_;
#if PPSPARSE_KOKKOS_4
  using handle_type = KokkosSparse::SPMVHandle<device_type, matrix_type, x_type, y_type>;
  std::unique_ptr<handle_type> handle_;
#else
  KokkosKernels::Experimental::Controls controls_;
#endif
};

}  // namespace ppsparse::spmv
