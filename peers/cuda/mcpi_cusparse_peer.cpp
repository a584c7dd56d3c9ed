// mcpi::VendorPeer on CUDA: the Walden et al. (2021) baseline MCPI sweep from library calls only.
// Per colour c (rows [b, e) in colour order, m = e - b):
//   cusparseSbsrmv(COLUMN-major blocks, m x n blocks): q = O_c dQ       (cusparseSpMV on CSR for nb = 1)
//   residual kernel: r = R_c - q in FP64
//   cublasDtrsmBatched(LOWER, UNIT) then (UPPER, NON_UNIT): r = U^-1 L^-1 r, one nb x nb
//     factor and one nb x 1 right-hand side per block row, batch of m
//   store kernel: dQ_c = (float) r
// O_c is a view into the shared BSR arrays (values and column indices from the colour's first
// block on, with 32-bit row pointers rebased to 0), so the peer copies no matrix data.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/peers/mcpi_vendor_peer.hpp>

namespace ppsparse::mcpi {
namespace {

void check(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw Error(std::string("mcpi VendorPeer: ") + what + " failed: " + cusparseGetErrorString(status));
}
void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("mcpi VendorPeer: ") + what + " failed: " + cublasGetStatusString(status));
}
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw Error(std::string("mcpi VendorPeer: ") + what + " failed: " + cudaGetErrorString(status));
}

__global__ void residual_kernel(long long count, const double* __restrict__ R, const float* __restrict__ q,
                                double* __restrict__ r) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) r[i] = R[i] - static_cast<double>(q[i]);
}

__global__ void store_kernel(long long count, const double* __restrict__ r, float* __restrict__ dq) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) dq[i] = static_cast<float>(r[i]);
}

unsigned blocks_for(long long count) { return static_cast<unsigned>((count + 255) / 256); }

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class T>
Kokkos::View<T*, DefaultMemSpace> to_device(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*, DefaultMemSpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(v.data(), v.size()));
  return d;
}

}  // namespace

struct VendorPeer::Impl {
  cusparseHandle_t sparse = nullptr;
  cublasHandle_t blas = nullptr;
  cusparseMatDescr_t descr = nullptr;  // legacy API: general matrix, zero-based
  cudaStream_t stream = nullptr;
  BlockSystem<DefaultMemSpace> s;  // shared views
  std::vector<ordinal_t> offsets;
  std::vector<offset_t> first_block;                      // per colour: index of its first block
  Kokkos::View<int*, DefaultMemSpace> row_ptr32;          // colour c's m+1 rebased pointers start at offsets[c] + c
  Kokkos::View<std::uintptr_t*, DefaultMemSpace> d_ptrs;  // D block of each row (trsm A arrays)
  Kokkos::View<std::uintptr_t*, DefaultMemSpace> r_ptrs;  // r block of each row of a colour (trsm B arrays)
  Kokkos::View<float*, DefaultMemSpace> q, dq;
  Kokkos::View<double*, DefaultMemSpace> r;
  // nb = 1: generic SpMV on CSR, one matrix and one y descriptor per colour.
  std::vector<cusparseSpMatDescr_t> csr;
  std::vector<cusparseDnVecDescr_t> ys;
  cusparseDnVecDescr_t x = nullptr;
  Kokkos::View<char*, DefaultMemSpace> buffer;
  double setup_seconds = 0;

  ~Impl() {
    for (auto m : csr)
      if (m) cusparseDestroySpMat(m);
    for (auto v : ys)
      if (v) cusparseDestroyDnVec(v);
    if (x) cusparseDestroyDnVec(x);
    if (descr) cusparseDestroyMatDescr(descr);
    if (sparse) cusparseDestroy(sparse);
    if (blas) cublasDestroy(blas);
  }

  void color_spmv(size_t c) {
    const ordinal_t b = offsets[c], e = offsets[c + 1];
    const int m = e - b, nb = s.nb;
    const long long blocks = first_block[c + 1] - first_block[c];
    const float one = 1.0f, zero = 0.0f;
    if (blocks == 0) {
      check(cudaMemsetAsync(q.data(), 0, sizeof(float) * static_cast<size_t>(m) * nb, stream), "cudaMemsetAsync");
    } else if (nb == 1) {
      check(cusparseSpMV(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, csr[c], x, &zero, ys[c], CUDA_R_32F,
                         CUSPARSE_SPMV_ALG_DEFAULT, buffer.data()),
            "cusparseSpMV");
    } else {
      const size_t nb2 = static_cast<size_t>(nb) * nb;
      check(cusparseSbsrmv(sparse, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE, m, s.n,
                           static_cast<int>(blocks), &one, descr, s.O.values.data() + first_block[c] * nb2,
                           row_ptr32.data() + b + c, s.O.ja.data() + first_block[c], nb, dq.data(), &zero, q.data()),
            "cusparseSbsrmv");
    }
  }

  void sweep() {
    const int nb = s.nb;
    const double one = 1.0;
    for (size_t c = 0; c + 1 < offsets.size(); ++c) {
      const ordinal_t b = offsets[c], e = offsets[c + 1];
      const int m = e - b;
      if (m == 0) continue;
      const long long count = static_cast<long long>(m) * nb;
      color_spmv(c);
      residual_kernel<<<blocks_for(count), 256, 0, stream>>>(count, s.R.data() + static_cast<size_t>(b) * nb, q.data(),
                                                             r.data());
      check(cudaGetLastError(), "residual kernel launch");
      const auto* A = reinterpret_cast<const double* const*>(d_ptrs.data() + b);
      auto* const* B = reinterpret_cast<double* const*>(r_ptrs.data());
      check(cublasDtrsmBatched(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, nb, 1,
                               &one, A, nb, B, nb, m),
            "cublasDtrsmBatched (unit lower)");
      check(cublasDtrsmBatched(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nb, 1,
                               &one, A, nb, B, nb, m),
            "cublasDtrsmBatched (upper)");
      store_kernel<<<blocks_for(count), 256, 0, stream>>>(count, r.data(), dq.data() + static_cast<size_t>(b) * nb);
      check(cudaGetLastError(), "store kernel launch");
    }
  }
};

VendorPeer::VendorPeer() = default;
VendorPeer::~VendorPeer() = default;
VendorPeer::VendorPeer(VendorPeer&&) noexcept = default;
VendorPeer& VendorPeer::operator=(VendorPeer&&) noexcept = default;

bool VendorPeer::available() { return true; }

std::string VendorPeer::library() {
  return "cuSPARSE " + std::to_string(CUSPARSE_VER_MAJOR) + "." + std::to_string(CUSPARSE_VER_MINOR) + "." +
         std::to_string(CUSPARSE_VER_PATCH) + " + cuBLAS " + std::to_string(CUBLAS_VER_MAJOR) + "." +
         std::to_string(CUBLAS_VER_MINOR) + "." + std::to_string(CUBLAS_VER_PATCH);
}

void VendorPeer::setup(const BlockSystem<memory_space>& system, const std::vector<ordinal_t>& color_offsets) {
  const std::string who = "mcpi VendorPeer";
  check_color_ordered_system(who, system, color_offsets);
  if (system.O.nnzb() > static_cast<offset_t>(INT_MAX))
    throw InvalidArgument(who + ": " + std::to_string(system.O.nnzb()) +
                          " blocks exceed the 32-bit indices of cusparseSbsrmv");
  if (static_cast<long long>(system.n) * system.nb > INT_MAX)
    throw InvalidArgument(who + ": n * nb = " + std::to_string(static_cast<long long>(system.n) * system.nb) +
                          " exceeds the 32-bit sizes of cuSPARSE and cuBLAS");
  const double t0 = now_seconds();
  auto p = std::make_unique<Impl>();
  Impl& m = *p;
  m.s = system;
  m.offsets = color_offsets;
  m.stream = Kokkos::DefaultExecutionSpace().cuda_stream();
  check(cusparseCreate(&m.sparse), "cusparseCreate");
  check(cusparseSetStream(m.sparse, m.stream), "cusparseSetStream");
  check(cusparseCreateMatDescr(&m.descr), "cusparseCreateMatDescr");
  check(cusparseSetMatType(m.descr, CUSPARSE_MATRIX_TYPE_GENERAL), "cusparseSetMatType");
  check(cusparseSetMatIndexBase(m.descr, CUSPARSE_INDEX_BASE_ZERO), "cusparseSetMatIndexBase");
  check(cublasCreate(&m.blas), "cublasCreate");
  check(cublasSetStream(m.blas, m.stream), "cublasSetStream");

  const int nb = system.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  const size_t ncolors = color_offsets.size() - 1;
  const auto ia = Kokkos::create_mirror_view_and_copy(HostSpace(), system.O.ia);
  // Per-colour 32-bit row pointers rebased to the colour's first block.
  std::vector<int> ptr32(static_cast<size_t>(system.n) + ncolors);
  m.first_block.resize(ncolors + 1);
  ordinal_t max_rows = 0;
  for (size_t c = 0; c < ncolors; ++c) {
    const ordinal_t b = color_offsets[c], e = color_offsets[c + 1];
    m.first_block[c] = ia(b);
    for (ordinal_t i = b; i <= e; ++i) ptr32[static_cast<size_t>(i) + c] = static_cast<int>(ia(i) - ia(b));
    max_rows = std::max(max_rows, e - b);
  }
  m.first_block[ncolors] = ia(system.n);
  m.row_ptr32 = to_device(ptr32, "mcpi.vendor.row_ptr32");

  std::vector<std::uintptr_t> dp(static_cast<size_t>(system.n)), rp(static_cast<size_t>(max_rows));
  m.q = Kokkos::View<float*, DefaultMemSpace>("mcpi.vendor.q", static_cast<size_t>(max_rows) * nb);
  m.r = Kokkos::View<double*, DefaultMemSpace>("mcpi.vendor.r", static_cast<size_t>(max_rows) * nb);
  m.dq = Kokkos::View<float*, DefaultMemSpace>("mcpi.vendor.dq", static_cast<size_t>(system.n) * nb);
  for (size_t i = 0; i < dp.size(); ++i) dp[i] = reinterpret_cast<std::uintptr_t>(system.D.data() + i * nb2);
  for (size_t i = 0; i < rp.size(); ++i) rp[i] = reinterpret_cast<std::uintptr_t>(m.r.data() + i * nb);
  m.d_ptrs = to_device(dp, "mcpi.vendor.d_ptrs");
  m.r_ptrs = to_device(rp, "mcpi.vendor.r_ptrs");

  if (nb == 1) {
    const float one = 1.0f, zero = 0.0f;
    check(cusparseCreateDnVec(&m.x, system.n, m.dq.data(), CUDA_R_32F), "cusparseCreateDnVec");
    m.csr.assign(ncolors, nullptr);
    m.ys.assign(ncolors, nullptr);
    size_t buffer_bytes = 0;
    for (size_t c = 0; c < ncolors; ++c) {
      const ordinal_t b = color_offsets[c], e = color_offsets[c + 1];
      const long long blocks = m.first_block[c + 1] - m.first_block[c];
      if (e == b || blocks == 0) continue;
      check(cusparseCreateCsr(&m.csr[c], e - b, system.n, blocks, m.row_ptr32.data() + b + c,
                              system.O.ja.data() + m.first_block[c], system.O.values.data() + m.first_block[c],
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
            "cusparseCreateCsr");
      check(cusparseCreateDnVec(&m.ys[c], e - b, m.q.data(), CUDA_R_32F), "cusparseCreateDnVec");
      size_t bytes = 0;
      check(cusparseSpMV_bufferSize(m.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.csr[c], m.x, &zero, m.ys[c],
                                    CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
            "cusparseSpMV_bufferSize");
      buffer_bytes = std::max(buffer_bytes, bytes);
    }
    m.buffer = Kokkos::View<char*, DefaultMemSpace>("mcpi.vendor.buffer", std::max<size_t>(buffer_bytes, 1));
  }
  Kokkos::fence();
  m.setup_seconds = now_seconds() - t0;
  impl_ = std::move(p);
}

void VendorPeer::reset() {
  if (!impl_) throw InvalidArgument("mcpi VendorPeer: reset() before setup()");
  Kokkos::deep_copy(impl_->dq, 0.0f);
}

void VendorPeer::sweep() {
  if (!impl_) throw InvalidArgument("mcpi VendorPeer: sweep() before setup()");
  impl_->sweep();
}

Kokkos::View<const float*, VendorPeer::memory_space> VendorPeer::dq() const {
  if (!impl_) throw InvalidArgument("mcpi VendorPeer: dq() before setup()");
  return impl_->dq;
}

std::string VendorPeer::describe() const {
  const bool csr = impl_ && impl_->s.nb == 1;
  return library() + (csr ? ": cusparseSpMV (CSR, nb = 1)" : ": cusparseSbsrmv (column-major blocks)") +
         " + residual kernel (FP64) + 2 x cublasDtrsmBatched (unit lower, upper) + store kernel, per colour";
}

double VendorPeer::setup_seconds() const { return impl_ ? impl_->setup_seconds : 0.0; }

}  // namespace ppsparse::mcpi
