#pragma once
// What the vendor SpMV peers (cuda/cusparse_spmv.cpp, hip/rocsparse_spmv.cpp) share: the state
// of a set-up product apart from the library's handles, the checks of setup() and apply(), the
// 32-bit row offsets the libraries take, and the product of a matrix without entries. Each peer
// defines VendorSpmv<Scalar>::Impl as a VendorSpmvState plus its library's handles, then
// includes vendor_spmv_members.hpp for the members that do not touch the library.
#include <chrono>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/peers/vendor_spmv.hpp>

namespace ppsparse::spmv::vendor {

inline double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// A set-up product's state apart from the library's handles.
template <class Scalar>
struct VendorSpmvState {
  const Scalar* x_ptr = nullptr;  ///< what the x and y descriptors point at
  Scalar* y_ptr = nullptr;
  ordinal_t nrows = 0, ncols = 0;
  long long stored = 0;  ///< entries the library streams
  bool trivial = false;  ///< no entries (or no rows or columns): y = beta y, without the library
  double setup_seconds = 0;
  CsrMatrix<Scalar, DefaultMemSpace> csr;                   ///< the user's matrix (its views shared)
  Kokkos::View<int*, DefaultMemSpace> offsets32;            ///< 32-bit row (or slice) offsets
  Kokkos::View<Scalar*, DefaultMemSpace> x_dummy, y_dummy;  ///< the descriptors' vectors before the first apply
  Kokkos::View<char*, DefaultMemSpace> buffer;              ///< the library's work space

  /// The state of a's product; InvalidArgument (naming `who`) for bad extents, an unsupported
  /// format (`unsupported`: why) or more entries than 32-bit offsets hold.
  void start(const std::string& who, const CsrMatrix<Scalar, DefaultMemSpace>& a, bool supported,
             const std::string& unsupported, const std::string& library) {
    check_csr_extents(who, a);
    if (!supported) throw InvalidArgument(who + ": " + unsupported);
    if (a.nnz() > static_cast<offset_t>(max_ordinal))
      throw InvalidArgument(who + ": " + std::to_string(a.nnz()) + " entries exceed the 32-bit offsets used with " +
                            library);
    nrows = a.nrows;
    ncols = a.ncols;
    csr = a;
    stored = a.nnz();
    trivial = a.nrows == 0 || a.ncols == 0 || a.nnz() == 0;
  }

  /// a's row offsets as 32-bit integers on the device (checked to fit by start()).
  void row_offsets32(const CsrMatrix<Scalar, DefaultMemSpace>& a, const std::string& label) {
    const auto host_ptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_ptr);
    Kokkos::View<int*, Kokkos::HostSpace> host(label, host_ptr.extent(0));
    for (size_t i = 0; i < host.extent(0); ++i) host(i) = static_cast<int>(host_ptr(i));
    offsets32 = Kokkos::View<int*, DefaultMemSpace>(label, host.extent(0));
    Kokkos::deep_copy(offsets32, host);
  }

  /// The vectors the descriptors point at until the first apply (the buffer queries need some).
  void dummy_vectors(const std::string& prefix) {
    x_dummy = Kokkos::View<Scalar*, DefaultMemSpace>(prefix + ".x", static_cast<size_t>(ncols));
    y_dummy = Kokkos::View<Scalar*, DefaultMemSpace>(prefix + ".y", static_cast<size_t>(nrows));
    x_ptr = x_dummy.data();
    y_ptr = y_dummy.data();
  }
};

/// apply()'s checks and the products that need no library: true when y is done (no rows, or a
/// matrix without entries: y = beta y). InvalidArgument before setup() or for bad vectors.
template <class Scalar>
bool product_without_library(const std::string& who, const VendorSpmvState<Scalar>* m,
                             const ConstVector<Scalar, DefaultMemSpace>& x, Scalar beta,
                             const Vector<Scalar, DefaultMemSpace>& y) {
  if (!m) throw InvalidArgument(who + ": apply() before setup()");
  check_vectors(who, m->nrows, m->ncols, x, y);
  if (m->nrows == 0) return true;
  if (!m->trivial) return false;
  Kokkos::parallel_for(
      "ppsparse::vendor_scale_y", Kokkos::RangePolicy<Kokkos::IndexType<ordinal_t>>(0, m->nrows),
      KOKKOS_LAMBDA(const ordinal_t i) { y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i); });
  return true;
}

}  // namespace ppsparse::spmv::vendor
