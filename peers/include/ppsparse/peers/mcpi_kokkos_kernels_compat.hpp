#pragma once
/// @file
/// The Kokkos Kernels API differences the MCPI peer (mcpi_kokkos_kernels.hpp) meets:
///  * BSR SpMV: Kokkos Kernels >= 4 has KokkosSparse::Experimental::BsrMatrix with spmv through
///    an SPMVHandle (SPMV_NATIVE: Kokkos Kernels' own kernel, never a TPL). Debian's Kokkos
///    Kernels 3.4 ships no BsrMatrix header, so there PPSPARSE_KK_HAS_BSR_SPMV is 0 and the peer
///    falls back to a CrsMatrix on the point expansion of the blocks.
///  * SpMV call: SPMVHandle (>= 4) versus KokkosKernels::Experimental::Controls (3.4, where the
///    "native" setting is what runs anyway: no TPL is enabled there).
#include <memory>

#include <KokkosKernels_config.h>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
#define PPSPARSE_KK_HAS_BSR_SPMV 1
#include <KokkosSparse_BsrMatrix.hpp>
#else
#define PPSPARSE_KK_HAS_BSR_SPMV 0
#endif

namespace ppsparse::kk_compat {

/// y = A x with Kokkos Kernels' native kernel for matrix type Matrix (CrsMatrix, or BsrMatrix
/// where PPSPARSE_KK_HAS_BSR_SPMV), reusable across calls on the same matrix.
template <class ExecSpace, class Matrix, class XView, class YView>
class NativeSpmv {
 public:
  using scalar_type = typename Matrix::non_const_value_type;
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
  NativeSpmv() : handle_(std::make_unique<handle_type>(KokkosSparse::SPMV_NATIVE)) {}
  void apply(const ExecSpace& space, const Matrix& a, const XView& x, const YView& y) {
    KokkosSparse::spmv(space, handle_.get(), "N", scalar_type(1), a, x, scalar_type(0), y);
  }

 private:
  using handle_type = KokkosSparse::SPMVHandle<typename Matrix::device_type, Matrix, XView, YView>;
  std::unique_ptr<handle_type> handle_;
#else
  NativeSpmv() { controls_.setParameter("algorithm", "native"); }
  void apply(const ExecSpace&, const Matrix& a, const XView& x, const YView& y) {
    KokkosSparse::spmv(controls_, "N", scalar_type(1), a, x, scalar_type(0), y);
  }

 private:
  KokkosKernels::Experimental::Controls controls_;
#endif
};

}  // namespace ppsparse::kk_compat
