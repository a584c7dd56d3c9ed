#pragma once
// The members of VendorSpmv<Scalar> that every implementation (cuSPARSE, rocSPARSE, the
// refusing stand-in) defines alike; included after the implementation's Impl, which has
// setup_seconds and stored.
#include <ppsparse/peers/vendor_spmv.hpp>

namespace ppsparse::spmv {

// Not defaulted: hipcc infers a defaulted constructor __host__ __device__, which then names the
// host-only destructor of unique_ptr.
template <class Scalar>
VendorSpmv<Scalar>::VendorSpmv() {}
template <class Scalar>
VendorSpmv<Scalar>::~VendorSpmv() = default;
template <class Scalar>
VendorSpmv<Scalar>::VendorSpmv(VendorSpmv&&) noexcept = default;
template <class Scalar>
VendorSpmv<Scalar>& VendorSpmv<Scalar>::operator=(VendorSpmv&&) noexcept = default;

template <class Scalar>
double VendorSpmv<Scalar>::setup_seconds() const {
  return impl_ ? impl_->setup_seconds : 0.0;
}

template <class Scalar>
long long VendorSpmv<Scalar>::stored_entries() const {
  return impl_ ? impl_->stored : 0;
}

}  // namespace ppsparse::spmv
