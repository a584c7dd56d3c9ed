// VendorSpmv on CUDA: cuSPARSE's generic SpMV API (cusparseSpMV) on CSR, and on sliced ELL
// (cusparseCreateSlicedEll, cuSPARSE >= 12.1).
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/peers/vendor_spmv.hpp>

#include "../common/cuda_hip/vendor_spmv_common.hpp"

#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12100
#define PPSPARSE_CUSPARSE_HAS_SELL 1
#else
#define PPSPARSE_CUSPARSE_HAS_SELL 0
#endif

namespace ppsparse::spmv {
namespace {

void check(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw Error(std::string("cuSPARSE: ") + what + " failed: " + cusparseGetErrorString(status));
}

template <class Scalar>
constexpr cudaDataType data_type() {
  return std::is_same_v<Scalar, float> ? CUDA_R_32F : CUDA_R_64F;
}

template <class T>
Kokkos::View<T*, DefaultMemSpace> to_device(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*, DefaultMemSpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), v.size());
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(v.data(), v.size());
  Kokkos::deep_copy(d, h);
  return d;
}

}  // namespace

template <class Scalar>
struct VendorSpmv<Scalar>::Impl : vendor::VendorSpmvState<Scalar> {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vec_x = nullptr, vec_y = nullptr;
  cusparseSpMVAlg_t alg = CUSPARSE_SPMV_ALG_DEFAULT;
  VendorFormat format = VendorFormat::csr;
  Kokkos::View<int*, DefaultMemSpace> sell_cols;  // the SELL copy's arrays (offsets32: its slice offsets)
  Kokkos::View<Scalar*, DefaultMemSpace> sell_values;

  ~Impl() {
    if (vec_x) cusparseDestroyDnVec(vec_x);
    if (vec_y) cusparseDestroyDnVec(vec_y);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
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
  return format == VendorFormat::csr || (format == VendorFormat::sell && PPSPARSE_CUSPARSE_HAS_SELL);
}

template <class Scalar>
std::string VendorSpmv<Scalar>::library() {
  int major = 0, minor = 0, patch = 0;
  cusparseGetProperty(MAJOR_VERSION, &major);
  cusparseGetProperty(MINOR_VERSION, &minor);
  cusparseGetProperty(PATCH_LEVEL, &patch);
  return "cuSPARSE " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

template <class Scalar>
std::string VendorSpmv<Scalar>::name() const {
  const bool sell = impl_ && impl_->format == VendorFormat::sell;
  return library() + (sell ? " SELL" : " CSR");
}

template <class Scalar>
void VendorSpmv<Scalar>::setup(const CsrMatrix<Scalar, memory_space>& a, VendorFormat format) {
  const double t0 = vendor::seconds_now();
  auto impl = std::make_unique<Impl>();
  impl->start("VendorSpmv (cuSPARSE)", a, supports(format), "sliced ELL needs cuSPARSE 12.1 or newer", "cuSPARSE");
  impl->format = format;
  if (!impl->trivial) {
    check(cusparseCreate(&impl->handle), "cusparseCreate");
    if (format == VendorFormat::csr) {
      impl->row_offsets32(a, "cusparse.row_offsets");
      check(cusparseCreateCsr(&impl->mat, a.nrows, a.ncols, a.nnz(), impl->offsets32.data(), a.col_idx.data(),
                              a.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                              data_type<Scalar>()),
            "cusparseCreateCsr");
      impl->alg = CUSPARSE_SPMV_ALG_DEFAULT;
    } else {
#if PPSPARSE_CUSPARSE_HAS_SELL
      // Slices of 32 rows (a warp), rows in their order (cuSPARSE has no sorting scope);
      // cuSPARSE marks padding with column -1.
      constexpr int slice = 32;
      const auto host = copy_to<Kokkos::HostSpace>(a);
      const auto s = csr_to_sell(host, slice, 1);
      if (s.stored() > static_cast<offset_t>(max_ordinal))
        throw InvalidArgument("VendorSpmv (cuSPARSE): the padded SELL copy holds more than 2^31-1 entries");
      std::vector<int> off(static_cast<size_t>(s.nchunks) + 1), cols(static_cast<size_t>(s.stored()));
      std::vector<Scalar> vals(static_cast<size_t>(s.stored()));
      for (size_t k = 0; k < off.size(); ++k) off[k] = static_cast<int>(s.chunk_ptr(k));
      for (ordinal_t k = 0; k < s.nchunks; ++k)
        for (int l = 0; l < slice; ++l)
          for (ordinal_t j = 0; j < s.chunk_len(k); ++j) {
            const size_t at = static_cast<size_t>(s.chunk_ptr(k)) + static_cast<size_t>(j) * slice + l;
            const bool real = j < s.row_len(static_cast<size_t>(k) * slice + l);
            cols[at] = real ? s.col_idx(at) : -1;
            vals[at] = real ? s.values(at) : Scalar(0);
          }
      impl->offsets32 = to_device(off, "cusparse.slice_offsets");
      impl->sell_cols = to_device(cols, "cusparse.sell_cols");
      impl->sell_values = to_device(vals, "cusparse.sell_values");
      impl->stored = s.stored();
      check(cusparseCreateSlicedEll(&impl->mat, a.nrows, a.ncols, a.nnz(), s.stored(), slice, impl->offsets32.data(),
                                    impl->sell_cols.data(), impl->sell_values.data(), CUSPARSE_INDEX_32I,
                                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, data_type<Scalar>()),
            "cusparseCreateSlicedEll");
      impl->alg = CUSPARSE_SPMV_SELL_ALG1;
#endif
    }
    // Descriptors of scratch vectors for the buffer query; apply() points them at x and y.
    impl->dummy_vectors("cusparse");
    check(cusparseCreateDnVec(&impl->vec_x, a.ncols, impl->x_dummy.data(), data_type<Scalar>()), "cusparseCreateDnVec");
    check(cusparseCreateDnVec(&impl->vec_y, a.nrows, impl->y_dummy.data(), data_type<Scalar>()), "cusparseCreateDnVec");
    const Scalar one = 1, zero = 0;
    size_t bytes = 0;
    check(cusparseSpMV_bufferSize(impl->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, impl->mat, impl->vec_x, &zero,
                                  impl->vec_y, data_type<Scalar>(), impl->alg, &bytes),
          "cusparseSpMV_bufferSize");
    impl->buffer = Kokkos::View<char*, DefaultMemSpace>("cusparse.buffer", bytes > 0 ? bytes : 1);
  }
  Kokkos::fence();
  impl->setup_seconds = vendor::seconds_now() - t0;
  impl_ = std::move(impl);
}

template <class Scalar>
void VendorSpmv<Scalar>::apply(Scalar alpha, const ConstVector<Scalar, memory_space>& x, Scalar beta,
                               const Vector<Scalar, memory_space>& y) {
  if (vendor::product_without_library<Scalar>("VendorSpmv (cuSPARSE)", impl_.get(), x, beta, y)) return;
  Impl& m = *impl_;
  check(cusparseSetStream(m.handle, Kokkos::DefaultExecutionSpace().cuda_stream()), "cusparseSetStream");
  if (x.data() != m.x_ptr) {
    check(cusparseDnVecSetValues(m.vec_x, const_cast<Scalar*>(x.data())), "cusparseDnVecSetValues");
    m.x_ptr = x.data();
  }
  if (y.data() != m.y_ptr) {
    check(cusparseDnVecSetValues(m.vec_y, y.data()), "cusparseDnVecSetValues");
    m.y_ptr = y.data();
  }
  check(cusparseSpMV(m.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, m.mat, m.vec_x, &beta, m.vec_y,
                     data_type<Scalar>(), m.alg, m.buffer.data()),
        "cusparseSpMV");
}

template class VendorSpmv<float>;
template class VendorSpmv<double>;

}  // namespace ppsparse::spmv
