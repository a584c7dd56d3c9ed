// O stored in BF16, scaled FP16 or scaled int8 (mcpi/o_format.hpp): the rounding of the codec,
// the stored values against the host reference bit for bit (through the operator), the sweeps
// of every kernel against the FP64 reference on the rounded system, the FP32 copy for the
// operator and the checks, assembly in place, and bad input. D's LU factors in FP32
// (OStorage::lu_fp32): the sweeps against the reference on the rounded factors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/mcpi/detail/o_codec.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/mcpi/reference.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include <ppsparse/reorder/coloring.hpp>

#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

using Exec = DefaultExecSpace;
using Mem = Exec::memory_space;
using detail::decode_bf16;
using detail::decode_half;
using detail::decode_int8;
using detail::encode_bf16;
using detail::encode_half;
using detail::encode_int8;

using test::device_view;
template <class V>
std::vector<double> to_vector(const V& v) {
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

// ---- the codec ----

TEST(McpiOFormat, NamesParseAndBytes) {
  for (const OFormat f : all_o_formats()) EXPECT_EQ(parse_o_format(name(f)), f);
  const std::string m = test::message_of<InvalidArgument>([] { parse_o_format("fp8"); });
  EXPECT_NE(m.find("'fp8'"), std::string::npos) << m;
  EXPECT_NE(m.find("fp32, bf16, fp16, int8"), std::string::npos) << m;
  // int8: 25 bytes and 5 scales per 5 x 5 block instead of 100.
  EXPECT_EQ(o_format_bytes(OFormat::int8, 1, 1, 5), 30.0);
  EXPECT_EQ(o_format_bytes(OFormat::fp32, 1, 1, 5), 100.0);
  EXPECT_EQ(o_format_bytes(OFormat::bf16, 1, 1, 5), 50.0);
  EXPECT_EQ(o_format_bytes(OFormat::fp16, 3, 10, 2), 83.0);
}

TEST(McpiOCodec, EveryFiniteHalfRoundTrips) {
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7c00u) == 0x7c00u) continue;  // Inf and NaN are never stored
    const float x = decode_half(static_cast<std::uint16_t>(h));
    ASSERT_EQ(encode_half(x), h) << "half 0x" << std::hex << h << " = " << x;
  }
  EXPECT_EQ(decode_half(0x3c00), 1.0f);
  EXPECT_EQ(decode_half(0x7bff), 65504.0f);
  EXPECT_EQ(decode_half(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(decode_half(0xc000), -2.0f);
}

TEST(McpiOCodec, HalfRoundsToNearestEven) {
  EXPECT_EQ(encode_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);         // tie: to the even 1.0
  EXPECT_EQ(encode_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);     // tie: to the even mantissa 2
  EXPECT_EQ(encode_half(1.0f + 1.1f * std::ldexp(1.0f, -11)), 0x3c01);  // above the tie
  EXPECT_EQ(encode_half(std::ldexp(1.0f, -25)), 0x0000);                // tie with 0: to 0
  EXPECT_EQ(encode_half(1.5f * std::ldexp(1.0f, -25)), 0x0001);
  EXPECT_EQ(encode_half(3 * std::ldexp(1.0f, -25)), 0x0002);  // tie between 1 and 2 ulps
  EXPECT_EQ(encode_half(-std::ldexp(1.0f, -14)), 0x8400);     // smallest normal
  EXPECT_EQ(encode_half(65504.0f), 0x7bff);
}

TEST(McpiOCodec, Bf16RoundsToNearestEven) {
  EXPECT_EQ(encode_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(encode_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(decode_bf16(0x3f80), 1.0f);
  std::mt19937 rng(test::test_seed());
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> ex(-120, 120);
  for (int t = 0; t < 10000; ++t) {
    const float x = std::ldexp(mant(rng), ex(rng)) * (t % 2 ? -1.0f : 1.0f);
    ASSERT_LE(std::fabs(decode_bf16(encode_bf16(x)) - x), std::ldexp(std::fabs(x), -8)) << x;
  }
}

TEST(McpiOCodec, Int8ScaleAndRounding) {
  EXPECT_EQ(detail::int8_scale_exp(127.0f), 0);
  EXPECT_EQ(detail::int8_scale_exp(127.5f), 1);
  EXPECT_EQ(detail::int8_scale_exp(1.0f), -6);  // 1 / 2^-6 = 64 <= 127 < 128
  EXPECT_EQ(detail::int8_scale_exp(0.0f), 0);
  EXPECT_EQ(detail::int8_scale_exp(3e38f), 121);
  EXPECT_EQ(encode_int8(0.5f, 0), 0);  // ties to even
  EXPECT_EQ(encode_int8(1.5f, 0), 2);
  EXPECT_EQ(encode_int8(-2.5f, 0), -2);
  EXPECT_EQ(encode_int8(127.0f, 0), 127);
  EXPECT_EQ(encode_int8(-100.0f * std::ldexp(1.0f, -126), -126), -100);
  std::mt19937 rng(test::test_seed());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-100, 100);
  for (int t = 0; t < 2000; ++t) {
    const float s = std::ldexp(1.0f, ex(rng));
    float row[7], m = 0;
    for (float& x : row) {
      x = u(rng) * s;
      m = std::max(m, std::fabs(x));
    }
    const int e = detail::int8_scale_exp(m);
    ASSERT_LE(m, 127.0f * std::ldexp(1.0f, e));
    ASSERT_GT(m, 127.0f * std::ldexp(1.0f, e - 1));
    for (float x : row) ASSERT_LE(std::fabs(decode_int8(encode_int8(x, e), e) - x), std::ldexp(1.0f, e - 1)) << x;
  }
}

TEST(McpiOCodec, Int8ScalesEachColumnOfABlock) {
  // One 2 x 2 block, column-major: column 0 = (100, 0.75), column 1 = (0.75, 0.5). Column 0's
  // scale is 2^0 (for its 100), so its 0.75 rounds to 1; column 1's is 2^-7 and holds both its
  // entries exactly. Scaled by rows instead, row 0 = (100, 0.75) would round the 0.75 of
  // column 1 and keep that of column 0.
  BsrMatrix<float, HostSpace> o(2, 1, 1, 1);
  o.ia(0) = 0;
  o.ia(1) = 1;
  o.ja(0) = 0;
  const float values[4] = {100.0f, 0.75f, 0.75f, 0.5f};
  for (int e = 0; e < 4; ++e) o.values(e) = values[e];
  const std::vector<double> rounded = reference_round_o(OFormat::int8, o);
  EXPECT_EQ(rounded, (std::vector<double>{100.0, 1.0, 0.75, 0.5}));
}

TEST(McpiOCodec, Fp16ScaleKeepsEveryRowInRange) {
  std::mt19937 rng(test::test_seed());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-120, 120);
  for (int t = 0; t < 2000; ++t) {
    const float s = std::ldexp(1.0f, ex(rng));
    float row[9], m = 0;
    for (float& x : row) {
      x = u(rng) * s;
      m = std::max(m, std::fabs(x));
    }
    const int e = detail::fp16_scale_exp(m);
    for (float x : row) {
      const float y = decode_half(encode_half(x * detail::exp2_int(-e))) * detail::exp2_int(e);
      // Normal halves: 2^-11 relative; below the normal range an absolute 2^-25 scaled.
      ASSERT_LE(std::fabs(y - x), std::max(std::ldexp(std::fabs(x), -11), std::ldexp(1.0f, e - 25))) << x;
    }
  }
}

// ---- the solver ----

/// A system whose block rows span 48 decades (row r scaled by 10^(8 (r % 7) - 24), D and R
/// with it, which leaves the MCPI iterates unchanged): unscaled FP16 would overflow and flush.
struct Problem {
  Graph graph = gen::tet_mesh_graph(4, 4, 3);
  Coloring coloring = color_distance1(graph);
  BlockSystem<HostSpace> system;
  std::vector<offset_t> row_ptr;
  std::vector<ordinal_t> col_idx;
  std::vector<double> O, D, R;
  explicit Problem(int nb) : system(gen::make_block_system(graph, nb, test::test_seed(), {2.0})) {
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    for (ordinal_t r = 0; r < system.n; ++r) {
      const double s = std::pow(10.0, 8 * (r % 7) - 24);
      for (offset_t k = system.O.ia(r); k < system.O.ia(r + 1); ++k)
        for (size_t e = 0; e < nb2; ++e)
          system.O.values(k * nb2 + e) = static_cast<float>(system.O.values(k * nb2 + e) * s);
      for (size_t e = 0; e < nb2; ++e) system.D(r * nb2 + e) *= s;
      for (int i = 0; i < nb; ++i) system.R(static_cast<size_t>(r) * nb + i) *= s;
    }
    row_ptr.assign(system.O.ia.data(), system.O.ia.data() + system.O.ia.extent(0));
    col_idx.assign(system.O.ja.data(), system.O.ja.data() + system.O.ja.extent(0));
    O.assign(system.O.values.data(), system.O.values.data() + system.O.values.extent(0));
    D.assign(system.D.data(), system.D.data() + system.D.extent(0));
    R.assign(system.R.data(), system.R.data() + system.R.extent(0));
  }
  /// The system with O rounded as `f` stores it.
  BlockSystem<HostSpace> rounded(OFormat f) const { return reference_rounded_system(f, system); }
  Solver<> solver(OStorage storage) const {
    SetupOptions so;
    so.colors = coloring.color;
    so.o_storage = storage;
    BlockPattern<HostSpace> p{system.nb, system.n,
                              Kokkos::View<const offset_t*, HostSpace>(row_ptr.data(), row_ptr.size()),
                              Kokkos::View<const ordinal_t*, HostSpace>(col_idx.data(), col_idx.size()), 0};
    return Solver<>(p, so);
  }
};

/// y = (D + O) x in FP64 on the host, D unfactored, block CSR in the user's numbering.
std::vector<double> host_multiply(const BlockSystem<HostSpace>& s, const std::vector<double>& x) {
  const int nb = s.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  std::vector<double> y(x.size(), 0.0);
  for (ordinal_t r = 0; r < s.n; ++r)
    for (int i = 0; i < nb; ++i) {
      double acc = 0;
      for (int j = 0; j < nb; ++j) acc += s.D(r * nb2 + j * nb + i) * x[static_cast<size_t>(r) * nb + j];
      for (offset_t k = s.O.ia(r); k < s.O.ia(r + 1); ++k)
        for (int j = 0; j < nb; ++j)
          acc += static_cast<double>(s.O.values(k * nb2 + j * nb + i)) * x[static_cast<size_t>(s.O.ja(k)) * nb + j];
      y[static_cast<size_t>(r) * nb + i] = acc;
    }
  return y;
}

double max_relative(const std::vector<double>& a, const std::vector<double>& b, int nb) {
  return max_block_row_error(a, b, nb);
}

TEST(McpiOFormatSolver, StoredValuesAreTheReferenceRounding) {
  for (int nb : {1, 2, 5, 7, 17}) {
    Problem p(nb);
    const std::vector<double> x = test::random_vector(p.R.size());
    for (const OFormat f : all_o_formats()) {
      SCOPED_TRACE("nb=" + std::to_string(nb) + " " + name(f));
      Solver<> s = p.solver({f, false});
      Exec exec;
      s.update(exec, device_view(p.O), device_view(p.D));
      Kokkos::View<double*, Mem> y("y", x.size());
      Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());
      s.multiply(exec, device_view(x), y);
      // The operator applies D through its LU factors: equal to about 1e-13, not bit for bit.
      EXPECT_LT(max_relative(to_vector(y), host_multiply(p.rounded(f), x), nb), 1e-12);
      if (f != OFormat::fp32) {  // and it is a rounding: away from the unrounded product
        const double err = max_relative(to_vector(y), host_multiply(p.system, x), nb);
        EXPECT_GT(err, 1e-9);
        EXPECT_LT(err, f == OFormat::int8 ? 0.05 : 0.01);
      }
    }
  }
}

TEST(McpiOFormatSolver, EveryKernelSweepsTheRoundedSystem) {
  // Odd and even nb: the CUDA kernels read an even nb's column as aligned words (2, 4, 8), an odd
  // nb's through the words that cover it; 17 runs the wide kernel.
  for (int nb : {1, 2, 3, 4, 5, 7, 8, 17}) {
    Problem p(nb);
    for (const OFormat f : all_o_formats()) {
      const auto ref = reference_sweeps(p.rounded(f), p.coloring, 6);
      Solver<> s = p.solver({f, false});
      Exec exec;
      s.update(exec, device_view(p.O), device_view(p.D));
      for (const Kernel k : all_kernels()) {
        SCOPED_TRACE("nb=" + std::to_string(nb) + " " + name(f) + " " + name(k));
        Control c;
        c.max_sweeps = 6;
        c.check_interval = 3;  // a checked sweep among them
        c.variant = k;
        Kokkos::View<double*, Mem> dq("dq", p.R.size());
        Kokkos::deep_copy(dq, std::numeric_limits<double>::quiet_NaN());
        const Status st = s.apply(exec, device_view(p.R), dq, c);
        EXPECT_EQ(st.sweeps, 6);
        EXPECT_LT(max_block_row_error(to_vector(dq), ref, nb), kBlockRowTolerance);
        // Without an FP32 copy the final residual is the rounded system's (near FP32's floor
        // after 6 sweeps, so compared, as test_solver_api does, to the initial residual).
        const double want = reference_residual_norm(p.rounded(f), to_vector(dq));
        EXPECT_NEAR(st.final_residual, want, 1e-9 * st.initial_residual);
      }
    }
  }
}

TEST(McpiOFormatSolver, TheFp32CopyServesTheOperatorAndTheResiduals) {
  const int nb = 5;
  Problem p(nb);
  const std::vector<double> x = test::random_vector(p.R.size());
  Exec exec;
  Solver<> plain = p.solver({});
  plain.update(exec, device_view(p.O), device_view(p.D));
  Kokkos::View<double*, Mem> y0("y0", x.size()), y1("y1", x.size()), dq0("dq0", x.size()), dq1("dq1", x.size());
  plain.multiply(exec, device_view(x), y0);
  for (const OFormat f : {OFormat::bf16, OFormat::fp16, OFormat::int8}) {
    SCOPED_TRACE(name(f));
    Solver<> kept = p.solver({f, true});
    Solver<> lean = p.solver({f, false});
    kept.update(exec, device_view(p.O), device_view(p.D));
    lean.update(exec, device_view(p.O), device_view(p.D));
    kept.multiply(exec, device_view(x), y1);
    EXPECT_EQ(to_vector(y1), to_vector(y0));  // the FP32 operator, bit for bit
    Control c;
    c.max_sweeps = 5;
    c.check_interval = 0;
    const Status sk = kept.apply(exec, device_view(p.R), dq0, c);
    lean.apply(exec, device_view(p.R), dq1, c);
    EXPECT_EQ(to_vector(dq0), to_vector(dq1));                              // the sweeps read the reduced O either way
    const double want = reference_residual_norm(p.system, to_vector(dq0));  // the unrounded A
    EXPECT_NEAR(sk.final_residual, want, 1e-9 * sk.initial_residual);
    const double rounded = reference_residual_norm(p.rounded(f), to_vector(dq0));
    EXPECT_GT(std::fabs(rounded - want), 1e-6 * sk.initial_residual);  // which the test tells apart
  }
}

/// p's O and D written into s.storage() at their slots, then s.factor(): an assembly in place.
void assemble_in_place(const Exec& exec, const Problem& p, Solver<>& s) {
  const size_t nb2 = static_cast<size_t>(p.system.nb) * p.system.nb;
  auto st = s.storage();
  auto O = Kokkos::create_mirror_view(st.O);
  auto D = Kokkos::create_mirror_view(st.D);
  auto o_slot = Kokkos::create_mirror_view_and_copy(HostSpace(), st.o_slot);
  auto d_slot = Kokkos::create_mirror_view_and_copy(HostSpace(), st.d_slot);
  for (size_t k = 0; k < o_slot.extent(0); ++k)
    for (size_t e = 0; e < nb2; ++e) O(o_slot(k) * nb2 + e) = static_cast<float>(p.O[k * nb2 + e]);
  for (size_t r = 0; r < d_slot.extent(0); ++r)
    for (size_t e = 0; e < nb2; ++e) D(d_slot(r) * nb2 + e) = p.D[r * nb2 + e];
  Kokkos::deep_copy(st.O, O);
  Kokkos::deep_copy(st.D, D);
  s.factor(exec);
}

TEST(McpiOFormatSolver, AssemblyInPlaceConvertsAsUpdateDoes) {
  for (int nb : {2, 5}) {
    Problem p(nb);
    const std::vector<double> x = test::random_vector(p.R.size());
    for (const OFormat f : {OFormat::bf16, OFormat::fp16, OFormat::int8}) {
      for (const bool keep : {false, true}) {
        SCOPED_TRACE("nb=" + std::to_string(nb) + " " + name(f) + (keep ? " keep_fp32" : ""));
        Exec exec;
        Solver<> a = p.solver({f, keep});
        a.update(exec, device_view(p.O), device_view(p.D));
        Solver<> b = p.solver({f, keep});
        assemble_in_place(exec, p, b);
        Kokkos::View<double*, Mem> ya("ya", x.size()), yb("yb", x.size()), da("da", x.size()), db("db", x.size());
        a.multiply(exec, device_view(x), ya);
        b.multiply(exec, device_view(x), yb);
        EXPECT_EQ(to_vector(ya), to_vector(yb));
        Control c;
        c.max_sweeps = 4;
        c.check_interval = 0;
        a.apply(exec, device_view(p.R), da, c);
        b.apply(exec, device_view(p.R), db, c);
        EXPECT_EQ(to_vector(da), to_vector(db));
      }
    }
  }
}

TEST(McpiOFormatSolver, BadValuesNameTheUsersBlock) {
  const int nb = 3;
  Problem p(nb);
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  const size_t bad = 7;
  for (const OFormat f : {OFormat::bf16, OFormat::fp16, OFormat::int8}) {
    for (const bool keep : {false, true}) {
      SCOPED_TRACE(std::string(name(f)) + (keep ? " keep_fp32" : ""));
      std::vector<double> O = p.O;
      O[bad * nb2 + 4] = std::numeric_limits<double>::quiet_NaN();
      Solver<> s = p.solver({f, keep});
      Exec exec;
      const std::string m = test::message_of<NumericalError>([&] { s.update(exec, device_view(O), device_view(p.D)); });
      EXPECT_NE(m.find("O block " + std::to_string(bad) + " "), std::string::npos) << m;
      // In place: factor() converts, and names the block too.
      auto st = s.storage();
      auto Oh = Kokkos::create_mirror_view(st.O);
      auto o_slot = Kokkos::create_mirror_view_and_copy(HostSpace(), st.o_slot);
      Kokkos::deep_copy(Oh, 1.0f);
      Oh(o_slot(bad) * nb2) = std::numeric_limits<float>::infinity();
      Kokkos::deep_copy(st.O, Oh);
      Kokkos::deep_copy(st.D, 0.0);
      for (ordinal_t r = 0; r < p.system.n; ++r) {
        auto d = Kokkos::subview(st.D, std::make_pair(r * nb2, (r + 1) * nb2));
        Kokkos::deep_copy(d, Kokkos::View<const double*, HostSpace>(p.D.data() + r * nb2, nb2));
      }
      const std::string m2 = test::message_of<NumericalError>([&] { s.factor(exec); });
      EXPECT_NE(m2.find("O block " + std::to_string(bad) + " "), std::string::npos) << m2;
    }
  }
  // A finite FP32 value that BF16 rounds past FP32's range.
  std::vector<double> O = p.O;
  O[bad * nb2] = 3.4028e38;
  Solver<> s = p.solver({OFormat::bf16, false});
  Exec exec;
  const std::string m = test::message_of<NumericalError>([&] { s.update(exec, device_view(O), device_view(p.D)); });
  EXPECT_NE(m.find("beyond FP32's range"), std::string::npos) << m;
}

TEST(McpiOFormatSolver, ReducedFormatsNeedTheDefaultPrecisions) {
  Problem p(2);
  SetupOptions so;
  so.o_storage.format = OFormat::int8;
  BlockPattern<HostSpace> pat{2, p.system.n,
                              Kokkos::View<const offset_t*, HostSpace>(p.row_ptr.data(), p.row_ptr.size()),
                              Kokkos::View<const ordinal_t*, HostSpace>(p.col_idx.data(), p.col_idx.size()), 0};
  const std::string m = test::message_of<InvalidArgument>([&] { Solver<Exec, double, double, double> s(pat, so); });
  EXPECT_NE(m.find("int8 needs the default precisions"), std::string::npos) << m;
}

// ---- D's LU factors in FP32 for the sweeps (OStorage::lu_fp32) ----

/// Problem(nb) with each D block replaced by random entries in [-1, 1) but a first pivot of
/// 10^-3 (each block row's scale kept): its LU factors (no pivoting) grow to about 10^3 and
/// cancel in L U, so that rounding them to FP32 moves D, and the sweeps' solution, by about
/// 10^-4 relative. O is scaled by 10^-3, so that O dQ, formed in FP32, moves it by much less.
Problem ill_conditioned_d(int nb) {
  Problem p(nb);
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  std::mt19937_64 rng(test::test_seed());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (ordinal_t r = 0; r < p.system.n; ++r) {
    const double scale = std::pow(10.0, 8 * (r % 7) - 24);  // Problem's row scale
    for (size_t e = 0; e < nb2; ++e) p.system.D(r * nb2 + e) = scale * (e == 0 ? 1e-3 : u(rng));
  }
  for (size_t q = 0; q < p.system.O.values.extent(0); ++q) p.system.O.values(q) *= 1e-3f;
  p.O.assign(p.system.O.values.data(), p.system.O.values.data() + p.system.O.values.extent(0));
  p.D.assign(p.system.D.data(), p.system.D.data() + p.system.D.extent(0));
  return p;
}

TEST(McpiLuFp32, SweepsSolveTheSystemOfTheRoundedFactors) {
  for (int nb : {2, 5, 17}) {
    Problem p = ill_conditioned_d(nb);
    for (const OFormat f : {OFormat::fp32, OFormat::int8}) {
      const auto exact = reference_sweeps(p.rounded(f), p.coloring, 2);
      const auto rounded = reference_sweeps(reference_rounded_lu(p.rounded(f)), p.coloring, 2);
      // What tells the two apart: rounding the factors moves the solution this far.
      const double apart = max_block_row_error(rounded, exact, nb);
      ASSERT_GT(apart, 1e-6) << "nb " << nb;
      for (const bool lu_fp32 : {false, true}) {
        OStorage storage{f, false};
        storage.lu_fp32 = lu_fp32;
        Solver<> s = p.solver(storage);
        Exec exec;
        s.update(exec, device_view(p.O), device_view(p.D));
        for (const Kernel k : all_kernels()) {
          SCOPED_TRACE("nb=" + std::to_string(nb) + " " + name(f) + " " + name(k) + (lu_fp32 ? " lu_fp32" : ""));
          Control c;
          c.max_sweeps = 2;
          c.check_interval = 1;  // checked sweeps too
          c.variant = k;
          Kokkos::View<double*, Mem> dq("dq", p.R.size());
          Kokkos::deep_copy(dq, std::numeric_limits<double>::quiet_NaN());
          const Status st = s.apply(exec, device_view(p.R), dq, c);
          EXPECT_EQ(st.sweeps, 2);
          const auto got = to_vector(dq);
          EXPECT_LT(max_block_row_error(got, lu_fp32 ? rounded : exact, nb), apart / 20);
          EXPECT_GT(max_block_row_error(got, lu_fp32 ? exact : rounded, nb), apart / 2);
          // The true final residual reads the FP64 factors: the user's D.
          EXPECT_NEAR(st.final_residual, reference_residual_norm(p.rounded(f), got), 1e-9 * st.initial_residual);
        }
      }
    }
  }
}

TEST(McpiLuFp32, AssemblyInPlaceRoundsAsUpdateDoes) {
  const int nb = 4;
  Problem p = ill_conditioned_d(nb);
  OStorage storage{OFormat::bf16, false};
  storage.lu_fp32 = true;
  Exec exec;
  Solver<> a = p.solver(storage);
  a.update(exec, device_view(p.O), device_view(p.D));
  Solver<> b = p.solver(storage);
  assemble_in_place(exec, p, b);
  Control c;
  c.max_sweeps = 3;
  c.check_interval = 0;
  Kokkos::View<double*, Mem> da("da", p.R.size()), db("db", p.R.size());
  a.apply(exec, device_view(p.R), da, c);
  b.apply(exec, device_view(p.R), db, c);
  EXPECT_EQ(to_vector(da), to_vector(db));
  const auto ref = reference_sweeps(reference_rounded_lu(p.rounded(OFormat::bf16)), p.coloring, 3);
  EXPECT_LT(max_block_row_error(to_vector(db), ref, nb), kBlockRowTolerance);
}

TEST(McpiLuFp32, BytesTrafficAndBadInput) {
  Problem p(5);
  OStorage storage{OFormat::int8, false};
  Solver<> plain = p.solver(storage);
  storage.lu_fp32 = true;
  Solver<> lu32 = p.solver(storage);
  EXPECT_TRUE(lu32.o_storage().lu_fp32);
  const double entries = static_cast<double>(lu32.n()) * 25;
  // The sweeps read 4 bytes per entry of D instead of 8; the FP64 factors stay as well.
  EXPECT_EQ(plain.traffic().d - lu32.traffic().d, entries * 4);
  EXPECT_EQ(lu32.traffic().o_values, plain.traffic().o_values);
  EXPECT_EQ(lu32.device_bytes() - plain.device_bytes(), static_cast<size_t>(entries) * 4);
  // Factors beyond FP32's range: refused, naming the user's block row (from 1 where the user counts from 1).
  std::vector<double> D = p.D;
  const size_t bad_row = 6;
  for (size_t e = 0; e < 25; ++e) D[bad_row * 25 + e] *= 1e39;
  Exec exec;
  const std::string m = test::message_of<NumericalError>([&] { lu32.update(exec, device_view(p.O), device_view(D)); });
  EXPECT_NE(m.find("D block row " + std::to_string(bad_row) + ":"), std::string::npos) << m;
  EXPECT_NE(m.find("exceed FP32's range"), std::string::npos) << m;
  plain.update(exec, device_view(p.O), device_view(D));  // FP64 factors hold them
  // Other precisions: refused at setup.
  SetupOptions so;
  so.o_storage.lu_fp32 = true;
  BlockPattern<HostSpace> pat{5, p.system.n,
                              Kokkos::View<const offset_t*, HostSpace>(p.row_ptr.data(), p.row_ptr.size()),
                              Kokkos::View<const ordinal_t*, HostSpace>(p.col_idx.data(), p.col_idx.size()), 0};
  const std::string m2 = test::message_of<InvalidArgument>([&] { Solver<Exec, double, double, double> s(pat, so); });
  EXPECT_NE(m2.find("lu_fp32) need the default precisions"), std::string::npos) << m2;
}

TEST(McpiOFormatSolver, TrafficCountsTheStoredBytes) {
  Problem p(5);
  Solver<> s32 = p.solver({});
  Solver<> s8 = p.solver({OFormat::int8, true});
  const double nnzb = static_cast<double>(s32.nnzb());
  EXPECT_EQ(s32.traffic().o_values, nnzb * 100);
  EXPECT_EQ(s8.traffic().o_values, nnzb * 30);
  EXPECT_EQ(s8.o_storage().format, OFormat::int8);
  EXPECT_TRUE(s8.o_storage().keep_fp32);
}

}  // namespace
}  // namespace ppsparse::mcpi
