// VendorSpmv on CUDA: cuSPARSE's generic SpMV API (cusparseSpMV) on CSR, and on sliced ELL
// (cusparseCreateSlicedEll, cuSPARSE >= 12.1).
#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/peers/vendor_spmv.hpp>

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

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class Scalar>
struct ScaleY {
  Kokkos::View<Scalar*, DefaultMemSpace> y;
  Scalar beta;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i);
  }
};

}  // namespace

template <class Scalar>
struct VendorSpmv<Scalar>::Impl {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vec_x = nullptr, vec_y = nullptr;
  const Scalar* x_ptr = nullptr;
  Scalar* y_ptr = nullptr;
  cusparseSpMVAlg_t alg = CUSPARSE_SPMV_ALG_DEFAULT;
  VendorFormat format = VendorFormat::csr;
  ordinal_t nrows = 0, ncols = 0;
  long long stored = 0;
  bool trivial = false;  // no entries (or no rows/columns): y = beta*y, without cuSPARSE
  double setup_seconds = 0;
  // Arrays the descriptors point to (kept alive here).
  CsrMatrix<Scalar, DefaultMemSpace> csr;
  Kokkos::View<int*, DefaultMemSpace> offsets32;  // CSR row offsets or SELL slice offsets
  Kokkos::View<int*, DefaultMemSpace> sell_cols;
  Kokkos::View<Scalar*, DefaultMemSpace> sell_values;
  Kokkos::View<Scalar*, DefaultMemSpace> x_dummy, y_dummy;
  Kokkos::View<char*, DefaultMemSpace> buffer;

  ~Impl() {
    if (vec_x) cusparseDestroyDnVec(vec_x);
    if (vec_y) cusparseDestroyDnVec(vec_y);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
  }
};

template <class Scalar>
VendorSpmv<Scalar>::VendorSpmv() = default;
template <class Scalar>
VendorSpmv<Scalar>::~VendorSpmv() = default;
template <class Scalar>
VendorSpmv<Scalar>::VendorSpmv(VendorSpmv&&) noexcept = default;
template <class Scalar>
VendorSpmv<Scalar>& VendorSpmv<Scalar>::operator=(VendorSpmv&&) noexcept = default;

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
  const std::string who = "VendorSpmv (cuSPARSE)";
  check_csr_extents(who, a);
  if (!supports(format)) throw InvalidArgument(who + ": sliced ELL needs cuSPARSE 12.1 or newer");
  if (a.nnz() > static_cast<offset_t>(max_ordinal))
    throw InvalidArgument(who + ": " + std::to_string(a.nnz()) +
                          " entries exceed the 32-bit offsets used with cuSPARSE");
  const double t0 = seconds_now();
  auto impl = std::make_unique<Impl>();
  impl->format = format;
  impl->nrows = a.nrows;
  impl->ncols = a.ncols;
  impl->csr = a;
  impl->stored = a.nnz();
  impl->trivial = a.nrows == 0 || a.ncols == 0 || a.nnz() == 0;
  if (!impl->trivial) {
    check(cusparseCreate(&impl->handle), "cusparseCreate");
    const auto host_ptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_ptr);
    if (format == VendorFormat::csr) {
      std::vector<int> off(host_ptr.extent(0));
      for (size_t i = 0; i < off.size(); ++i) off[i] = static_cast<int>(host_ptr(i));
      impl->offsets32 = to_device(off, "cusparse.row_offsets");
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
        throw InvalidArgument(who + ": the padded SELL copy holds more than 2^31-1 entries");
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
    impl->x_dummy = Kokkos::View<Scalar*, DefaultMemSpace>("cusparse.x", static_cast<size_t>(a.ncols));
    impl->y_dummy = Kokkos::View<Scalar*, DefaultMemSpace>("cusparse.y", static_cast<size_t>(a.nrows));
    check(cusparseCreateDnVec(&impl->vec_x, a.ncols, impl->x_dummy.data(), data_type<Scalar>()), "cusparseCreateDnVec");
    check(cusparseCreateDnVec(&impl->vec_y, a.nrows, impl->y_dummy.data(), data_type<Scalar>()), "cusparseCreateDnVec");
    impl->x_ptr = impl->x_dummy.data();
    impl->y_ptr = impl->y_dummy.data();
    const Scalar one = 1, zero = 0;
    size_t bytes = 0;
    check(cusparseSpMV_bufferSize(impl->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, impl->mat, impl->vec_x, &zero,
                                  impl->vec_y, data_type<Scalar>(), impl->alg, &bytes),
          "cusparseSpMV_bufferSize");
    impl->buffer = Kokkos::View<char*, DefaultMemSpace>("cusparse.buffer", bytes > 0 ? bytes : 1);
  }
  Kokkos::fence();
  impl->setup_seconds = seconds_now() - t0;
  impl_ = std::move(impl);
}

template <class Scalar>
void VendorSpmv<Scalar>::apply(Scalar alpha, const ConstVector<Scalar, memory_space>& x, Scalar beta,
                               const Vector<Scalar, memory_space>& y) {
  const std::string who = "VendorSpmv (cuSPARSE)";
  if (!impl_) throw InvalidArgument(who + ": apply() before setup()");
  Impl& m = *impl_;
  check_vectors(who, m.nrows, m.ncols, x, y);
  if (m.nrows == 0) return;
  if (m.trivial) {
    Kokkos::parallel_for("ppsparse::vendor_scale_y", Kokkos::RangePolicy<Kokkos::IndexType<ordinal_t>>(0, m.nrows),
                         ScaleY<Scalar>{y, beta});
    return;
  }
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

template <class Scalar>
double VendorSpmv<Scalar>::setup_seconds() const {
  return impl_ ? impl_->setup_seconds : 0.0;
}

template <class Scalar>
long long VendorSpmv<Scalar>::stored_entries() const {
  return impl_ ? impl_->stored : 0;
}

template class VendorSpmv<float>;
template class VendorSpmv<double>;

}  // namespace ppsparse::spmv
