#include <ppsparse/mcpi/reference.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/detail/o_codec.hpp>
#include <ppsparse/reorder/permutation.hpp>

#include "block_lu.hpp"

namespace ppsparse::mcpi {
namespace {

// Solves the dense column-major nb x nb system a x = b in place (partial pivoting).
void dense_solve(std::vector<double> a, std::vector<double>& b, int nb) {
  for (int k = 0; k < nb; ++k) {
    int p = k;
    for (int i = k + 1; i < nb; ++i)
      if (std::abs(a[k * nb + i]) > std::abs(a[k * nb + p])) p = i;
    if (a[k * nb + p] == 0.0) throw NumericalError("reference_sweeps: singular diagonal block");
    if (p != k) {
      for (int j = 0; j < nb; ++j) std::swap(a[j * nb + k], a[j * nb + p]);
      std::swap(b[k], b[p]);
    }
    for (int i = k + 1; i < nb; ++i) {
      const double l = a[k * nb + i] / a[k * nb + k];
      for (int j = k; j < nb; ++j) a[j * nb + i] -= l * a[j * nb + k];
      b[i] -= l * b[k];
    }
  }
  for (int k = nb - 1; k >= 0; --k) {
    double s = b[k];
    for (int j = k + 1; j < nb; ++j) s -= a[j * nb + k] * b[j];
    b[k] = s / a[k * nb + k];
  }
}

// r -= O(row, :) dq, in FP64 (O's FP32 values widened).
void subtract_off_diagonal(const BlockSystem<HostSpace>& s, const ordinal_t row, const std::vector<double>& dq,
                           std::vector<double>& r) {
  const int nb = s.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  for (offset_t k = s.O.ia(row); k < s.O.ia(row + 1); ++k) {
    const size_t col = static_cast<size_t>(s.O.ja(k));
    for (int j = 0; j < nb; ++j)
      for (int i = 0; i < nb; ++i)
        r[i] -= static_cast<double>(s.O.values(static_cast<size_t>(k) * nb2 + j * nb + i)) * dq[col * nb + j];
  }
}

// The sweeps from dQ = 0; residuals, if given, receives each sweep's in-sweep residual norm.
std::vector<double> sweep(const BlockSystem<HostSpace>& s, const std::vector<ordinal_t>& color_offsets, int sweeps,
                          std::vector<double>* residuals) {
  if (s.d_factored) throw InvalidArgument("reference_sweeps: D must not be factored");
  const int nb = s.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  std::vector<double> dq(static_cast<size_t>(s.n) * nb, 0.0);
  std::vector<double> r(nb), a(nb2);
  for (int it = 0; it < sweeps; ++it) {
    double sum = 0.0;
    for (size_t c = 0; c + 1 < color_offsets.size(); ++c) {
      for (ordinal_t row = color_offsets[c]; row < color_offsets[c + 1]; ++row) {
        for (int i = 0; i < nb; ++i) r[i] = s.R(static_cast<size_t>(row) * nb + i);
        subtract_off_diagonal(s, row, dq, r);
        for (size_t e = 0; e < nb2; ++e) a[e] = s.D(static_cast<size_t>(row) * nb2 + e);
        if (residuals) {
          for (int i = 0; i < nb; ++i) {
            double e = r[i];
            for (int j = 0; j < nb; ++j) e -= a[j * nb + i] * dq[static_cast<size_t>(row) * nb + j];
            sum += e * e;
          }
        }
        dense_solve(a, r, nb);
        for (int i = 0; i < nb; ++i) dq[static_cast<size_t>(row) * nb + i] = r[i];
      }
    }
    if (residuals) residuals->push_back(std::sqrt(sum));
  }
  return dq;
}

}  // namespace

std::vector<double> reference_sweeps(const BlockSystem<HostSpace>& s, const std::vector<ordinal_t>& color_offsets,
                                     int sweeps) {
  return sweep(s, color_offsets, sweeps, nullptr);
}

std::vector<double> reference_sweep_residuals(const BlockSystem<HostSpace>& s, const Coloring& coloring, int sweeps) {
  std::vector<double> residuals;
  sweep(permute(s, coloring.perm), coloring.color_offsets, sweeps, &residuals);
  return residuals;
}

std::vector<double> reference_sweeps(const BlockSystem<HostSpace>& s, const Coloring& coloring, int sweeps) {
  return to_old(reference_sweeps(permute(s, coloring.perm), coloring.color_offsets, sweeps), coloring.perm, s.nb);
}

double max_block_row_error(const std::vector<double>& dq, const std::vector<double>& ref, int nb) {
  if (nb < 1 || dq.size() != ref.size() || ref.size() % static_cast<size_t>(nb) != 0)
    throw InvalidArgument("max_block_row_error: dq has " + std::to_string(dq.size()) + " entries, the reference " +
                          std::to_string(ref.size()) + ", nb = " + std::to_string(nb));
  const size_t rows = ref.size() / static_cast<size_t>(nb);
  double total = 0;
  for (double v : ref) total += v * v;
  const double floor = rows ? 1e-3 * std::sqrt(total / static_cast<double>(rows)) : 0.0;
  double worst = 0;
  for (size_t r = 0; r < rows; ++r) {
    double num = 0, den = 0;
    for (size_t i = r * static_cast<size_t>(nb); i < (r + 1) * static_cast<size_t>(nb); ++i) {
      num += (dq[i] - ref[i]) * (dq[i] - ref[i]);
      den += ref[i] * ref[i];
    }
    const double scale = std::max(std::sqrt(den), floor);
    const double e = scale > 0 ? std::sqrt(num) / scale : std::sqrt(num);
    if (std::isnan(e)) return e;
    worst = std::max(worst, e);
  }
  return worst;
}

double reference_residual_norm(const BlockSystem<HostSpace>& s, const std::vector<double>& dq) {
  if (s.d_factored) throw InvalidArgument("reference_residual_norm: D must not be factored");
  const int nb = s.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  double sum = 0.0;
  std::vector<double> r(nb);
  for (ordinal_t row = 0; row < s.n; ++row) {
    for (int i = 0; i < nb; ++i) r[i] = s.R(static_cast<size_t>(row) * nb + i);
    subtract_off_diagonal(s, row, dq, r);
    for (int j = 0; j < nb; ++j)
      for (int i = 0; i < nb; ++i)
        r[i] -= s.D(static_cast<size_t>(row) * nb2 + j * nb + i) * dq[static_cast<size_t>(row) * nb + j];
    for (int i = 0; i < nb; ++i) sum += r[i] * r[i];
  }
  return std::sqrt(sum);
}

namespace {

/// O's values decoded after encoding by Codec, its scales chosen as the device chooses them.
template <class Codec, class Scalar>
void round_by_codec(const BsrMatrix<Scalar, HostSpace>& o, std::vector<double>& out) {
  const int nb = o.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  auto v = [&](size_t at) { return static_cast<float>(o.values(at)); };
  const ordinal_t n = static_cast<ordinal_t>(o.ia.extent(0)) - 1;
  for (ordinal_t r = 0; r < n; ++r) {
    const size_t b0 = static_cast<size_t>(o.ia(r)) * nb2, b1 = static_cast<size_t>(o.ia(r + 1)) * nb2;
    int e = 0;
    if constexpr (Codec::scale == detail::OScale::per_block_row) {
      float row_max = 0.0f;
      for (size_t at = b0; at < b1; ++at) row_max = std::max(row_max, std::fabs(v(at)));
      e = Codec::scale_exp(row_max);
    }
    for (size_t b = b0; b < b1; b += nb2) {
      for (int j = 0; j < nb; ++j) {  // column j: entries j * nb + i, i = 0 .. nb-1
        if constexpr (Codec::scale == detail::OScale::per_column_of_block) {
          float m = 0.0f;
          for (int i = 0; i < nb; ++i) m = std::max(m, std::fabs(v(b + j * nb + i)));
          e = Codec::scale_exp(m);
        }
        for (int i = 0; i < nb; ++i) {
          const size_t at = b + j * nb + i;
          out[at] = Codec::plain ? v(at) : Codec::decode(Codec::encode(v(at), e), e);
        }
      }
    }
  }
}

}  // namespace

template <class Scalar>
std::vector<double> reference_round_o(OFormat format, const BsrMatrix<Scalar, HostSpace>& o) {
  std::vector<double> out(o.values.extent(0));
  detail::with_codec(format, [&](auto codec) { round_by_codec<decltype(codec)>(o, out); });
  return out;
}
template std::vector<double> reference_round_o(OFormat, const BsrMatrix<float, HostSpace>&);
template std::vector<double> reference_round_o(OFormat, const BsrMatrix<double, HostSpace>&);

BlockSystem<HostSpace> reference_rounded_system(OFormat format, const BlockSystem<HostSpace>& s) {
  if (format == OFormat::fp32) return s;  // O is FP32 already
  BlockSystem<HostSpace> rounded = s;
  rounded.O.values = Kokkos::View<float*, HostSpace>("O_rounded", s.O.values.extent(0));
  const std::vector<double> v = reference_round_o(format, s.O);
  for (size_t q = 0; q < v.size(); ++q) rounded.O.values(q) = static_cast<float>(v[q]);  // exact: decoded FP32
  return rounded;
}

BlockSystem<HostSpace> reference_rounded_lu(const BlockSystem<HostSpace>& s) {
  if (s.d_factored) throw InvalidArgument("reference_rounded_lu: D must not be factored");
  const int nb = s.nb;
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  BlockSystem<HostSpace> rounded = s;
  rounded.D = Kokkos::View<double*, HostSpace>("D_rounded_lu", s.D.extent(0));
  std::vector<double> lu(nb2);
  for (ordinal_t row = 0; row < s.n; ++row) {
    for (size_t e = 0; e < nb2; ++e) lu[e] = s.D(static_cast<size_t>(row) * nb2 + e);
    int bad = -1;
    if (lu_factor_block(lu.data(), nb, default_relative_tiny_pivot, &bad) != PivotFailure::none)
      throw NumericalError("reference_rounded_lu: block row " + std::to_string(row) + " fails to factor at row " +
                           std::to_string(bad));
    for (double& v : lu) v = static_cast<float>(v);
    // (L U)(i, j) = sum over k <= min(i, j) of L(i, k) U(k, j), L's diagonal 1.
    for (int j = 0; j < nb; ++j)
      for (int i = 0; i < nb; ++i) {
        double sum = 0.0;
        for (int k = 0; k <= std::min(i, j); ++k) sum += (k == i ? 1.0 : lu[k * nb + i]) * lu[j * nb + k];
        rounded.D(static_cast<size_t>(row) * nb2 + j * nb + i) = sum;
      }
  }
  return rounded;
}

}  // namespace ppsparse::mcpi
