// VendorSpmv on builds without a vendor sparse library (host-only Kokkos): available() is
// false and setup()/apply() refuse. peers/cuda (cuSPARSE) and peers/hip (rocSPARSE)
// define PPSPARSE_PEERS_VENDOR_SPMV and provide the real implementation.
#if !defined(PPSPARSE_PEERS_VENDOR_SPMV)

#include <ppsparse/error.hpp>
#include <ppsparse/peers/vendor_spmv.hpp>

namespace ppsparse::spmv {

template <class Scalar>
struct VendorSpmv<Scalar>::Impl {
  double setup_seconds = 0;
  long long stored = 0;
};

}  // namespace ppsparse::spmv

#include "../common/vendor_spmv_members.hpp"

namespace ppsparse::spmv {

template <class Scalar>
bool VendorSpmv<Scalar>::available() {
  return false;
}
template <class Scalar>
bool VendorSpmv<Scalar>::supports(VendorFormat) {
  return false;
}
template <class Scalar>
std::string VendorSpmv<Scalar>::library() {
  return "none";
}
template <class Scalar>
std::string VendorSpmv<Scalar>::name() const {
  return "none";
}
template <class Scalar>
void VendorSpmv<Scalar>::setup(const CsrMatrix<Scalar, memory_space>&, VendorFormat) {
  throw InvalidArgument("VendorSpmv: no vendor sparse library on this backend (" +
                        std::string(compat::default_backend_name()) + ")");
}
template <class Scalar>
void VendorSpmv<Scalar>::apply(Scalar, const ConstVector<Scalar, memory_space>&, Scalar,
                               const Vector<Scalar, memory_space>&) {
  throw InvalidArgument("VendorSpmv: no vendor sparse library on this backend (" +
                        std::string(compat::default_backend_name()) + ")");
}

template class VendorSpmv<float>;
template class VendorSpmv<double>;

}  // namespace ppsparse::spmv

#endif
