#pragma once
/// @file
/// The vendor's sparse library as a peer for benchmarks and cross-checks, behind one portable
/// interface: cuSPARSE's generic SpMV on CUDA builds (backends/cuda), rocSPARSE on HIP builds
/// (backends/hip); on host-only builds available() is false and setup()/apply() refuse.
#include <memory>
#include <string>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

enum class VendorFormat {
  csr,  ///< the library's CSR SpMV (default algorithm)
  sell  // the library's sliced ELL (cuSPARSE >= 12.1: cusparseCreateSlicedEll), slice size 32,
        // rows not sorted (sigma = 1); converted from the CSR at setup
};

template <class Scalar>
class VendorSpmv {
 public:
  using memory_space = DefaultMemSpace;

  VendorSpmv();
  ~VendorSpmv();
  VendorSpmv(VendorSpmv&&) noexcept;
  VendorSpmv& operator=(VendorSpmv&&) noexcept;
  VendorSpmv(const VendorSpmv&) = delete;
  VendorSpmv& operator=(const VendorSpmv&) = delete;

  /// Whether this build has a vendor library, and whether it offers the format.
  static bool available();
  static bool supports(VendorFormat format);
  /// "cuSPARSE 12.6.3", "rocSPARSE 3.2.0" or "none".
  static std::string library();
  /// library() and the format, e.g. "cuSPARSE 12.6.3 CSR".
  std::string name() const;

  /// Builds the library's descriptors (and, for sell, its copy of the matrix; the CSR's
  /// views are shared, not copied). InvalidArgument if !available(), the format is not
  /// supported, or the matrix has more than 2^31-1 entries; Error if the library fails.
  void setup(const CsrMatrix<Scalar, memory_space>& a, VendorFormat format = VendorFormat::csr);
  /// y = alpha*A*x + beta*y on the default execution space instance's stream.
  /// InvalidArgument before setup(), or for wrong lengths / overlapping vectors.
  void apply(Scalar alpha, const ConstVector<Scalar, memory_space>& x, Scalar beta,
             const Vector<Scalar, memory_space>& y);

  double setup_seconds() const;      ///< conversion and descriptor creation, seconds
  long long stored_entries() const;  ///< entries the library streams (padding included for sell)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppsparse::spmv
