// The peers the benchmark compares against: Kokkos Kernels (through the one compat header)
// and the vendor library interface (absent on host-only builds).
#include <gtest/gtest.h>

#include <ppsparse/error.hpp>
#include <ppsparse/peers/kokkos_kernels_spmv.hpp>
#include <ppsparse/peers/vendor_spmv.hpp>

#include "spmv/spmv_test_util.hpp"

namespace ppsparse::test {
namespace {

template <class S>
class SpmvPeers : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpmvPeers, Scalars);

TYPED_TEST(SpmvPeers, KokkosKernelsNativeAndDefaultMatchTheReference) {
  using S = TypeParam;
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : matrix_families(seed)) {
    const auto a = convert_values<S>(m.a);
    const auto ad = copy_to<Mem>(a);
    for (auto mode : {spmv::KkSpmvMode::native, spmv::KkSpmvMode::default_algorithm}) {
      spmv::KokkosKernelsSpmv<Exec, S> kk(ad, mode);
      expect_matches_reference<S>(
          kk.name(mode) + " on " + m.name, a,
          [&](S alpha, const auto& x, S beta, const auto& y) { kk.apply(alpha, x, beta, y); }, seed + 3);
    }
  }
}

TEST(SpmvPeers, KokkosKernelsRejectsWrongVectors) {
  const auto a = copy_to<Mem>(random_csr<double>(5, 4, 1, 3, 1));
  spmv::KokkosKernelsSpmv<Exec, double> kk(a, spmv::KkSpmvMode::native);
  Kokkos::View<double*, Mem> x("x", 3), y("y", 5);
  try {
    kk.apply(1.0, x, 0.0, y);
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "Kokkos Kernels spmv: x has 3 entries, the matrix has 4 columns");
  }
}

TEST(SpmvPeers, VendorLibraryMatchesTheReferenceOrIsAbsent) {
  const auto seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  using V = spmv::VendorSpmv<double>;
  const auto host = random_csr<double>(300, 200, 0, 12, seed);
  const auto a = copy_to<Mem>(host);
  if (!V::available()) {
    EXPECT_EQ(V::library(), "none");
    EXPECT_FALSE(V::supports(spmv::VendorFormat::csr));
    V v;
    try {
      v.setup(a);
      FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("VendorSpmv: no vendor sparse library on this backend (") +
                                           compat::default_backend_name() + ")");
    }
    return;
  }
  for (auto format : {spmv::VendorFormat::csr, spmv::VendorFormat::sell}) {
    if (!V::supports(format)) continue;
    V v;
    v.setup(a, format);
    expect_matches_reference<double>(
        v.name(), host, [&](double alpha, const auto& x, double beta, const auto& y) { v.apply(alpha, x, beta, y); },
        seed + 1);
  }
}

}  // namespace
}  // namespace ppsparse::test
