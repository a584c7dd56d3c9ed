// VendorSpmv on HIP: rocSPARSE's generic SpMV (rocsparse_spmv with stages, ROCm >= 6.0) on
// CSR. rocSPARSE has no sliced ELL with the SELL-C layout, so supports(sell) is false.
#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

#include <rocsparse/rocsparse.h>

#include <ppsparse/error.hpp>
#include <ppsparse/peers/vendor_spmv.hpp>

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
  rocsparse_handle handle = nullptr;
  rocsparse_spmat_descr mat = nullptr;
  rocsparse_dnvec_descr vec_x = nullptr, vec_y = nullptr;
  const Scalar* x_ptr = nullptr;
  Scalar* y_ptr = nullptr;
  ordinal_t nrows = 0, ncols = 0;
  long long stored = 0;
  bool trivial = false;
  double setup_seconds = 0;
  CsrMatrix<Scalar, DefaultMemSpace> csr;
  Kokkos::View<int*, DefaultMemSpace> offsets32;
  Kokkos::View<Scalar*, DefaultMemSpace> x_dummy, y_dummy;
  Kokkos::View<char*, DefaultMemSpace> buffer;

  ~Impl() {
    if (vec_x) rocsparse_destroy_dnvec_descr(vec_x);
    if (vec_y) rocsparse_destroy_dnvec_descr(vec_y);
    if (mat) rocsparse_destroy_spmat_descr(mat);
    if (handle) rocsparse_destroy_handle(handle);
  }
};

template <class Scalar>
VendorSpmv<Scalar>::VendorSpmv() {}
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
  const std::string who = "VendorSpmv (rocSPARSE)";
  check_csr_extents(who, a);
  if (!supports(format)) throw InvalidArgument(who + ": only CSR is supported");
  if (a.nnz() > static_cast<offset_t>(max_ordinal))
    throw InvalidArgument(who + ": " + std::to_string(a.nnz()) +
                          " entries exceed the 32-bit offsets used with rocSPARSE");
  const double t0 = seconds_now();
  auto impl = std::make_unique<Impl>();
  impl->nrows = a.nrows;
  impl->ncols = a.ncols;
  impl->csr = a;
  impl->stored = a.nnz();
  impl->trivial = a.nrows == 0 || a.ncols == 0 || a.nnz() == 0;
  if (!impl->trivial) {
    check(rocsparse_create_handle(&impl->handle), "rocsparse_create_handle");
    const auto host_ptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_ptr);
    auto off_host = Kokkos::View<int*, Kokkos::HostSpace>("rocsparse.row_offsets", host_ptr.extent(0));
    for (size_t i = 0; i < off_host.extent(0); ++i) off_host(i) = static_cast<int>(host_ptr(i));
    impl->offsets32 = Kokkos::View<int*, DefaultMemSpace>("rocsparse.row_offsets", off_host.extent(0));
    Kokkos::deep_copy(impl->offsets32, off_host);
    check(rocsparse_create_csr_descr(&impl->mat, a.nrows, a.ncols, a.nnz(), impl->offsets32.data(), a.col_idx.data(),
                                     a.values.data(), rocsparse_indextype_i32, rocsparse_indextype_i32,
                                     rocsparse_index_base_zero, data_type<Scalar>()),
          "rocsparse_create_csr_descr");
    impl->x_dummy = Kokkos::View<Scalar*, DefaultMemSpace>("rocsparse.x", static_cast<size_t>(a.ncols));
    impl->y_dummy = Kokkos::View<Scalar*, DefaultMemSpace>("rocsparse.y", static_cast<size_t>(a.nrows));
    check(rocsparse_create_dnvec_descr(&impl->vec_x, a.ncols, impl->x_dummy.data(), data_type<Scalar>()),
          "rocsparse_create_dnvec_descr");
    check(rocsparse_create_dnvec_descr(&impl->vec_y, a.nrows, impl->y_dummy.data(), data_type<Scalar>()),
          "rocsparse_create_dnvec_descr");
    impl->x_ptr = impl->x_dummy.data();
    impl->y_ptr = impl->y_dummy.data();
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
  impl->setup_seconds = seconds_now() - t0;
  impl_ = std::move(impl);
}

template <class Scalar>
void VendorSpmv<Scalar>::apply(Scalar alpha, const ConstVector<Scalar, memory_space>& x, Scalar beta,
                               const Vector<Scalar, memory_space>& y) {
  const std::string who = "VendorSpmv (rocSPARSE)";
  if (!impl_) throw InvalidArgument(who + ": apply() before setup()");
  Impl& m = *impl_;
  check_vectors(who, m.nrows, m.ncols, x, y);
  if (m.nrows == 0) return;
  if (m.trivial) {
    Kokkos::parallel_for("ppsparse::vendor_scale_y", Kokkos::RangePolicy<Kokkos::IndexType<ordinal_t>>(0, m.nrows),
                         ScaleY<Scalar>{y, beta});
    return;
  }
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
