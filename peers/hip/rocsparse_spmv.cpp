// VendorSpmv on HIP: rocSPARSE's generic SpMV (rocsparse_spmv with stages, ROCm >= 6.0) on
// CSR. rocSPARSE has no sliced ELL with the SELL-C layout, so supports(sell) is false.
#include <string>
#include <type_traits>
#include <vector>

#include <rocsparse/rocsparse.h>

#include <ppsparse/error.hpp>
#include <ppsparse/peers/vendor_spmv.hpp>

#include "../common/cuda_hip/vendor_spmv_common.hpp"

// rocSPARSE 3 (ROCm 6.0) added the stage argument of rocsparse_spmv; rocSPARSE 2 sizes the
// buffer when it is null and computes otherwise (its preprocess call is then a plain SpMV).
#if ROCSPARSE_VERSION_MAJOR >= 3
#define PPS_STAGE(s) s,
#else
#define PPS_STAGE(s)
#endif
namespace ppsparse::spmv {
namespace {

void check(rocsparse_status status, const char* what) {
  if (status != rocsparse_status_success)
    throw Error(std::string("rocSPARSE: ") + what + " failed with status " + std::to_string(static_cast<int>(status)));
}

template <class Scalar>
constexpr rocsparse_datatype data_type() {
  return std::is_same_v<Scalar, float> ? rocsparse_datatype_f32_r : rocsparse_datatype_f64_r;
}

}  // namespace

template <class Scalar>
struct VendorSpmv<Scalar>::Impl : vendor::VendorSpmvState<Scalar> {
  rocsparse_handle handle = nullptr;
  rocsparse_spmat_descr mat = nullptr;
  rocsparse_dnvec_descr vec_x = nullptr, vec_y = nullptr;

  ~Impl() {
    if (vec_x) rocsparse_destroy_dnvec_descr(vec_x);
    if (vec_y) rocsparse_destroy_dnvec_descr(vec_y);
    if (mat) rocsparse_destroy_spmat_descr(mat);
    if (handle) rocsparse_destroy_handle(handle);
  }
};

}  // namespace ppsparse::spmv

#include "../common/vendor_spmv_members.hpp"

namespace ppsparse::spmv {

template <class Scalar>
bool VendorSpmv<Scalar>::available() {
  return true;
}

template <class Scalar>
bool VendorSpmv<Scalar>::supports(VendorFormat format) {
  return format == VendorFormat::csr;
}

template <class Scalar>
std::string VendorSpmv<Scalar>::library() {
  return "rocSPARSE " + std::to_string(ROCSPARSE_VERSION_MAJOR) + "." + std::to_string(ROCSPARSE_VERSION_MINOR) + "." +
         std::to_string(ROCSPARSE_VERSION_PATCH);
}

template <class Scalar>
std::string VendorSpmv<Scalar>::name() const {
  return library() + " CSR";
}

template <class Scalar>
void VendorSpmv<Scalar>::setup(const CsrMatrix<Scalar, memory_space>& a, VendorFormat format) {
  const double t0 = vendor::seconds_now();
  auto impl = std::make_unique<Impl>();
  impl->start("VendorSpmv (rocSPARSE)", a, supports(format), "only CSR is supported", "rocSPARSE");
  if (!impl->trivial) {
    check(rocsparse_create_handle(&impl->handle), "rocsparse_create_handle");
    impl->row_offsets32(a, "rocsparse.row_offsets");
    check(rocsparse_create_csr_descr(&impl->mat, a.nrows, a.ncols, a.nnz(), impl->offsets32.data(), a.col_idx.data(),
                                     a.values.data(), rocsparse_indextype_i32, rocsparse_indextype_i32,
                                     rocsparse_index_base_zero, data_type<Scalar>()),
          "rocsparse_create_csr_descr");
    impl->dummy_vectors("rocsparse");
    check(rocsparse_create_dnvec_descr(&impl->vec_x, a.ncols, impl->x_dummy.data(), data_type<Scalar>()),
          "rocsparse_create_dnvec_descr");
    check(rocsparse_create_dnvec_descr(&impl->vec_y, a.nrows, impl->y_dummy.data(), data_type<Scalar>()),
          "rocsparse_create_dnvec_descr");
    const Scalar one = 1, zero = 0;
    size_t bytes = 0;
    check(rocsparse_spmv(impl->handle, rocsparse_operation_none, &one, impl->mat, impl->vec_x, &zero, impl->vec_y,
                         data_type<Scalar>(), rocsparse_spmv_alg_default,
                         PPS_STAGE(rocsparse_spmv_stage_buffer_size) & bytes, nullptr),
          "rocsparse_spmv (buffer size)");
    impl->buffer = Kokkos::View<char*, DefaultMemSpace>("rocsparse.buffer", bytes > 0 ? bytes : 1);
    check(rocsparse_spmv(impl->handle, rocsparse_operation_none, &one, impl->mat, impl->vec_x, &zero, impl->vec_y,
                         data_type<Scalar>(), rocsparse_spmv_alg_default,
                         PPS_STAGE(rocsparse_spmv_stage_preprocess) & bytes, impl->buffer.data()),
          "rocsparse_spmv (preprocess)");
  }
  Kokkos::fence();
  impl->setup_seconds = vendor::seconds_now() - t0;
  impl_ = std::move(impl);
}

template <class Scalar>
void VendorSpmv<Scalar>::apply(Scalar alpha, const ConstVector<Scalar, memory_space>& x, Scalar beta,
                               const Vector<Scalar, memory_space>& y) {
  if (vendor::product_without_library<Scalar>("VendorSpmv (rocSPARSE)", impl_.get(), x, beta, y)) return;
  Impl& m = *impl_;
  check(rocsparse_set_stream(m.handle, Kokkos::DefaultExecutionSpace().hip_stream()), "rocsparse_set_stream");
  if (x.data() != m.x_ptr) {
    check(rocsparse_dnvec_set_values(m.vec_x, const_cast<Scalar*>(x.data())), "rocsparse_dnvec_set_values");
    m.x_ptr = x.data();
  }
  if (y.data() != m.y_ptr) {
    check(rocsparse_dnvec_set_values(m.vec_y, y.data()), "rocsparse_dnvec_set_values");
    m.y_ptr = y.data();
  }
  size_t bytes = m.buffer.extent(0);
  check(rocsparse_spmv(m.handle, rocsparse_operation_none, &alpha, m.mat, m.vec_x, &beta, m.vec_y, data_type<Scalar>(),
                       rocsparse_spmv_alg_default, PPS_STAGE(rocsparse_spmv_stage_compute) & bytes, m.buffer.data()),
        "rocsparse_spmv");
}

template class VendorSpmv<float>;
template class VendorSpmv<double>;

}  // namespace ppsparse::spmv
