#pragma once
/// @file
/// The solver's vector kernels (renumbering, widening, norms, the block operator, the scatter
/// of user values), as free functions: a CUDA extended lambda may not sit in a private member.
#include <climits>
#include <cmath>
#include <stdexcept>

#include <ppsparse/kokkos_compat.hpp>
#include "block_lu.hpp"
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

/// xi(p * nb + e) = x(n2o(p) * nb + e): user's numbering -> colour order (with conversion).
template <class ExecSpace, class N2O, class X, class XI>
void to_internal(const ExecSpace& exec, const N2O& n2o, int nb, const X& x, const XI& xi) {
  using T = typename XI::non_const_value_type;
  Kokkos::parallel_for(
      "ppsparse::mcpi::to_internal", Kokkos::RangePolicy<ExecSpace>(exec, 0, xi.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { xi(q) = static_cast<T>(x(static_cast<size_t>(n2o(q / nb)) * nb + q % nb)); });
}

/// x(n2o(p) * nb + e) = xi(p * nb + e): colour order -> user's numbering (with conversion).
template <class ExecSpace, class N2O, class XI, class X>
void to_user(const ExecSpace& exec, const N2O& n2o, int nb, const XI& xi, const X& x) {
  using T = typename X::non_const_value_type;
  Kokkos::parallel_for(
      "ppsparse::mcpi::to_user", Kokkos::RangePolicy<ExecSpace>(exec, 0, xi.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { x(static_cast<size_t>(n2o(q / nb)) * nb + q % nb) = static_cast<T>(xi(q)); });
}

/// y = x with conversion.
template <class ExecSpace, class X, class Y>
void convert(const ExecSpace& exec, const X& x, const Y& y) {
  using T = typename Y::non_const_value_type;
  Kokkos::parallel_for(
      "ppsparse::mcpi::convert", Kokkos::RangePolicy<ExecSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { y(q) = static_cast<T>(x(q)); });
}

/// r = b - r.
template <class ExecSpace, class B, class R>
void subtract_from(const ExecSpace& exec, const B& b, const R& r) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::subtract_from", Kokkos::RangePolicy<ExecSpace>(exec, 0, r.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { r(q) = b(q) - r(q); });
}

/// sum_q x(q)^2 (NaN if x holds a NaN or Inf); synchronises.
template <class ExecSpace, class X>
double sum_squares(const ExecSpace& exec, const X& x) {
  double sum = 0.0;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::norm", Kokkos::RangePolicy<ExecSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q, double& acc) { acc += static_cast<double>(x(q)) * x(q); }, sum);
  return sum;
}

/// One pass of classical Gram-Schmidt against the first `ncols` columns of V (LayoutLeft):
/// w -= V sub (if subtract), then out[k] = V(:, k) . w for k < ncols (if dots) and
/// out[ncols] = w . w, reading V and w once. (Kokkos Kernels' transposed gemv, which this
/// replaces, ran 30x below the bandwidth at FGMRES's tall, narrow shapes.) Synchronises.
template <class VV, class WW, class HH>
struct GramSchmidtPass {
  using value_type = double[];
  unsigned value_count;
  VV v;
  WW w;
  HH sub;
  int ncols;
  bool subtract, dots;

  KOKKOS_INLINE_FUNCTION void operator()(const size_t r, value_type acc) const {
    double x = w(r);
    if (subtract) {
      for (int k = 0; k < ncols; ++k) x -= v(r, k) * sub(k);
      w(r) = x;
    }
    if (dots)
      for (int k = 0; k < ncols; ++k) acc[k] += v(r, k) * x;
    acc[ncols] += x * x;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type acc) const {
    for (unsigned k = 0; k < value_count; ++k) acc[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (unsigned k = 0; k < value_count; ++k) dst[k] += src[k];
  }
#if !PPSPARSE_KOKKOS_4
  KOKKOS_INLINE_FUNCTION void join(volatile value_type dst, const volatile value_type src) const {
    for (unsigned k = 0; k < value_count; ++k) dst[k] += src[k];
  }
#endif
};

template <class ExecSpace, class VV, class WW, class HH>
void gram_schmidt_pass(const ExecSpace& exec, const VV& v, int ncols, const HH& sub, bool subtract, bool dots,
                       const WW& w, double* out) {
  GramSchmidtPass<VV, WW, HH> f{static_cast<unsigned>(ncols + 1), v, w, sub, ncols, subtract, dots};
  Kokkos::parallel_reduce("ppsparse::mcpi::gram_schmidt", Kokkos::RangePolicy<ExecSpace>(exec, 0, w.extent(0)), f,
                          Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(out, ncols + 1));
}

/// The first block row (entries / nb) of x holding a NaN or Inf, or -1; synchronises.
template <class ExecSpace, class X>
long long first_not_finite_row(const ExecSpace& exec, const X& x, int nb) {
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::find_not_finite", Kokkos::RangePolicy<ExecSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q, long long& mn) {
        const double v = x(q);
        const long long row = static_cast<long long>(q / nb);
        if (!(v - v == 0.0) && row < mn) mn = row;
      },
      Kokkos::Min<long long>(first));
  return first == LLONG_MAX ? -1 : first;
}

/// The sum of x's entries, on exec (synchronises).
template <class ExecSpace, class X>
double sum(const ExecSpace& exec, const X& x) {
  double total = 0.0;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::sum", Kokkos::RangePolicy<ExecSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q, double& s) { s += x(q); }, total);
  return total;
}

/// Scatters the user's O blocks (block k at k * nb * nb, `row_major` or column-major) into their
/// slots of O (column-major, converted to O's precision), asynchronously on exec. The lowest
/// user block holding a NaN or Inf is min'ed into first_bad (a device scalar the caller sets).
///
/// A team copies a run of whole blocks, its threads striding over the run's entries with the
/// block and entry indices stepped, not divided (a 64-bit division per entry made the scatter
/// compute-bound on GPUs), and loading kLoadBatch entries before storing them, so that enough
/// bytes are in flight to run near copy speed.
template <class ExecSpace, class Src, class Slot, class Dst, class Bad>
void scatter_o(const ExecSpace& exec, const Src& o, const Slot& slot, int nb, bool row_major, const Dst& O,
               const Bad& first_bad) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using T = typename Dst::non_const_value_type;
  const int nb2 = nb * nb;
  const long long nblocks = static_cast<long long>(o.extent(0) / nb2);
  if (nblocks == 0) return;
  const bool gpu = compat::is_gpu_space<ExecSpace>();
  const int per_team = gpu ? (8192 + nb2 - 1) / nb2 : 1024;  // blocks
  const long long league = (nblocks + per_team - 1) / per_team;
  if (league > INT_MAX) throw std::length_error("mcpi scatter_o: too many blocks for one launch");
  Kokkos::parallel_for(
      "ppsparse::mcpi::scatter_o", Policy(exec, static_cast<int>(league), gpu ? 256 : 1),
      KOKKOS_LAMBDA(const typename Policy::member_type& m) {
        const long long k0 = static_cast<long long>(m.league_rank()) * per_team;
        const int count = static_cast<int>(k0 + per_team <= nblocks ? per_team : nblocks - k0);
        const int len = count * nb2, step = m.team_size();
        const size_t src0 = static_cast<size_t>(k0) * nb2;
        // Entry q = kb * nb2 + ea * nb + eb of the run, and the step in the same terms.
        int q = m.team_rank();
        int kb = q / nb2, ea = (q % nb2) / nb, eb = q % nb;
        const int sk = step / nb2, sa = (step % nb2) / nb, sb = step % nb;
        while (q < len) {
          long long k[kLoadBatch];
          size_t dst[kLoadBatch];
          T x[kLoadBatch] = {};
          // Constant trip counts, so that the batch stays in registers.
          const int n = (len - q + step - 1) / step < kLoadBatch ? (len - q + step - 1) / step : kLoadBatch;
          PPSPARSE_UNROLL
          for (int u = 0; u < kLoadBatch; ++u) {
            k[u] = k0 + kb;
            dst[u] = static_cast<size_t>(row_major ? eb * nb + ea : ea * nb + eb);
            eb += sb;
            ea += sa;
            kb += sk;
            if (eb >= nb) {
              eb -= nb;
              ++ea;
            }
            if (ea >= nb) {
              ea -= nb;
              ++kb;
            }
          }
          PPSPARSE_UNROLL
          for (int u = 0; u < kLoadBatch; ++u) {
            if (u < n) {
              x[u] = static_cast<T>(o(src0 + q + u * step));
              dst[u] += static_cast<size_t>(slot(k[u])) * nb2;
            }
          }
          PPSPARSE_UNROLL
          for (int u = 0; u < kLoadBatch; ++u) {
            if (u < n) {
              O(dst[u]) = x[u];
              if (!(x[u] - x[u] == 0)) Kokkos::atomic_fetch_min(&first_bad(), k[u]);
            }
          }
          q += n * step;
        }
      });
}

/// Block b (colour order) of D read from the user's diagonal blocks (n * nb * nb by user block
/// row, `row_major` or column-major) through n2o: factor_diagonal_blocks_from's source for an
/// update, which so reads the user's D once (no scatter pass before the LU), and
/// copy_diagonal_blocks' for a D given factored.
template <class Src, class N2O>
struct UserDiagonalBlocks {
  static constexpr bool in_place = false;
  Src d;
  N2O n2o;
  int nb;
  bool row_major;
  /// Entry e (column-major: row e % nb, column e / nb) of block b.
  KOKKOS_INLINE_FUNCTION double operator()(const size_t b, const int e) const {
    const int j = e / nb, i = e - j * nb;
    return static_cast<double>(d(static_cast<size_t>(n2o(b)) * nb * nb + (row_major ? i * nb + j : e)));
  }
};

/// D(b * nb * nb + e) = source(b, e) for every block b (colour order) and entry e: D as the
/// source gives it, not factored (a system whose D is already factored).
template <class ExecSpace, class Source, class Dst>
void copy_diagonal_blocks(const ExecSpace& exec, const Source& source, int nb, const Dst& D) {
  using T = typename Dst::non_const_value_type;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  Kokkos::parallel_for(
      "ppsparse::mcpi::copy_diagonal_blocks", Kokkos::RangePolicy<ExecSpace>(exec, 0, D.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { D(q) = static_cast<T>(source(q / nb2, static_cast<int>(q % nb2))); });
}

/// to(q) = from(q) rounded to nearest FP32 (D's LU factors for the sweeps, OStorage::lu_fp32);
/// returns the first block (of nb2 entries) with an entry beyond FP32's range, or -1.
template <class ExecSpace, class From, class To>
long long round_to_fp32(const ExecSpace& exec, const From& from, const To& to, const size_t nb2) {
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::round_to_fp32", Kokkos::RangePolicy<ExecSpace>(exec, 0, to.extent(0)),
      KOKKOS_LAMBDA(const size_t q, long long& mn) {
        const float v = static_cast<float>(from(q));
        to(q) = v;
        const long long block = static_cast<long long>(q / nb2);
        if (!(v - v == 0.0f) && block < mn) mn = block;  // Inf (or NaN)
      },
      Kokkos::Min<long long>(first));
  return first == LLONG_MAX ? -1 : first;
}

/// Row q (block row q / nb, entry q % nb) of (D + O) x in FP64, D from its LU factors: x in the
/// user's numbering (`user`, through n2o) or in colour order; u holds U x (upper()).
template <class MemSpace, class XView, class OA, class DS = double>
struct OperatorRow {
  Kokkos::View<const ordinal_t*, MemSpace> n2o;
  Kokkos::View<const DS*, MemSpace> D;
  Kokkos::View<const double*, MemSpace> u;
  Kokkos::View<const offset_t*, MemSpace> ia;
  Kokkos::View<const ordinal_t*, MemSpace> ja;
  OA O;  ///< O's accessor (o_access.hpp)
  XView x;
  int nb;
  bool user;

  KOKKOS_INLINE_FUNCTION size_t at(const size_t p) const { return user ? static_cast<size_t>(n2o(p)) : p; }
  /// (U x) of block row p, entry i (U: D's upper factor, diagonal included).
  KOKKOS_INLINE_FUNCTION double upper(const size_t p, const int i) const {
    const DS* lu = D.data() + p * nb * nb;
    const size_t xp = at(p);
    double s = 0.0;
    for (int j = i; j < nb; ++j) s += lu[j * nb + i] * x(xp * nb + j);
    return s;
  }
  KOKKOS_INLINE_FUNCTION double operator()(const size_t q) const {
    const size_t p = q / nb, nb2 = static_cast<size_t>(nb) * nb;
    const int i = static_cast<int>(q % nb);
    const DS* lu = D.data() + p * nb2;
    double s = u(q);
    for (int k = 0; k < i; ++k) s += lu[k * nb + i] * u(p * nb + k);
    for (offset_t b = ia(p); b < ia(p + 1); ++b) {
      const size_t c = at(static_cast<size_t>(ja(b)));
      const size_t blk = static_cast<size_t>(b) * nb2 + i;
      for (int j = 0; j < nb; ++j)
        s += static_cast<double>(O(static_cast<ordinal_t>(p), blk + static_cast<size_t>(j) * nb, b, j)) * x(c * nb + j);
    }
    return s;
  }
};

/// Fills u = U x for every block row (the first pass of OperatorRow).
template <class ExecSpace, class Op, class U>
void operator_upper(const ExecSpace& exec, const Op& op, const U& u) {
  const int nb = op.nb;
  Kokkos::parallel_for(
      "ppsparse::mcpi::operator_upper", Kokkos::RangePolicy<ExecSpace>(exec, 0, u.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { u(q) = op.upper(q / nb, static_cast<int>(q % nb)); });
}

/// y = (D + O) x, y in the numbering of x.
template <class ExecSpace, class Op, class Y>
void operator_apply(const ExecSpace& exec, const Op& op, const Y& y) {
  const int nb = op.nb;
  Kokkos::parallel_for(
      "ppsparse::mcpi::operator", Kokkos::RangePolicy<ExecSpace>(exec, 0, y.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { y(op.at(q / nb) * nb + q % nb) = op(q); });
}

}  // namespace ppsparse::mcpi::impl
