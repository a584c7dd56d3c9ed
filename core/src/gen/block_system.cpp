#include <algorithm>
#include <cmath>
#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/counter_rng.hpp>
#include <sstream>
#include <string>

namespace ppsparse::gen {
namespace {

constexpr std::uint64_t o_stream = 0x4f;  // "O"
constexpr std::uint64_t d_stream = 0x44;  // "D"
constexpr std::uint64_t r_stream = 0x52;  // "R"
constexpr int max_block_size = 64;
// Smallest magnitude of a random entry: keeps every entry nonzero.
constexpr double min_entry = 1e-3;

}  // namespace

BlockSystem<HostSpace> make_block_system(const Graph& g, int nb, std::uint64_t seed,
                                         const BlockSystemOptions& options) {
  if (nb < 1 || nb > max_block_size)
    throw InvalidArgument("make_block_system: block size " + std::to_string(nb) + " is outside [1, " +
                          std::to_string(max_block_size) + "]");
  if (static_cast<long long>(g.n) * nb > max_ordinal)
    throw InvalidArgument("make_block_system: " + std::to_string(g.n) + " vertices x block size " + std::to_string(nb) +
                          " = " + std::to_string(static_cast<long long>(g.n) * nb) + " unknowns, more than 2^31-1");
  validate(g, "make_block_system: graph");
  const double dominance = options.dominance;
  if (!(std::isfinite(dominance) && dominance > 1.0)) {
    std::ostringstream msg;
    msg << "make_block_system: dominance " << dominance
        << " must be finite and greater than 1 for the iteration to converge";
    throw InvalidArgument(msg.str());
  }
  // Size of D's random part relative to its scaled identity; see block_system.hpp.
  const double eps = std::min(0.25, (dominance - 1.0) / (2.0 * dominance));

  const ordinal_t n = g.n;
  const auto bs = static_cast<size_t>(nb) * nb;
  BlockSystem<HostSpace> s;
  s.nb = nb;
  s.n = n;
  s.O = BsrMatrix<float, HostSpace>(nb, n, n, g.num_edges_directed(), "O");
  s.D = Kokkos::View<double*, HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "D"),
                                         static_cast<size_t>(n) * bs);
  s.R = Kokkos::View<double*, HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "R"),
                                         static_cast<size_t>(n) * nb);
  for (ordinal_t i = 0; i <= n; ++i) s.O.ia(i) = g.row_ptr[i];
  std::copy(g.adj.begin(), g.adj.end(), s.O.ja.data());

  const CounterRng o_rng(seed, o_stream), d_rng(seed, d_stream), r_rng(seed, r_stream);
  auto ia = s.O.ia;
  auto o_values = s.O.values;
  auto d_values = s.D;
  auto r_values = s.R;
  using host_policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;
  Kokkos::parallel_for("ppsparse::gen::make_block_system", host_policy(0, n), [=](ordinal_t i) {
    double row_scale = 0.0;  // s_i: sum of the row's blocks' infinity norms
    for (offset_t k = ia(i); k < ia(i + 1); ++k) {
      float* block = o_values.data() + static_cast<size_t>(k) * bs;
      for (size_t e = 0; e < bs; ++e)
        block[e] = static_cast<float>(o_rng.nonzero(min_entry, static_cast<std::uint64_t>(k), e));
      double block_norm = 0.0;
      for (int r = 0; r < nb; ++r) {
        double row_sum = 0.0;
        for (int c = 0; c < nb; ++c) row_sum += std::abs(static_cast<double>(block[block_entry(nb, r, c)]));
        block_norm = std::max(block_norm, row_sum);
      }
      row_scale += block_norm;
    }
    if (ia(i + 1) == ia(i)) row_scale = 1.0;  // isolated vertex: keep D well scaled
    const double c_i = dominance * row_scale;
    // E entries have magnitude <= eps * c_i / nb, so each row of E sums to <= eps * c_i.
    const double e_max = eps * c_i / nb;
    double* d = d_values.data() + static_cast<size_t>(i) * bs;
    for (int r = 0; r < nb; ++r)
      for (int c = 0; c < nb; ++c) {
        const auto e = static_cast<std::uint64_t>(block_entry(nb, r, c));
        d[block_entry(nb, r, c)] =
            (r == c ? c_i : 0.0) + e_max * d_rng.nonzero(min_entry, static_cast<std::uint64_t>(i), e);
      }
    for (int r = 0; r < nb; ++r)
      r_values(static_cast<size_t>(i) * nb + r) =
          r_rng.nonzero(min_entry, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(r));
  });
  Kokkos::DefaultHostExecutionSpace().fence();
  return s;
}

}  // namespace ppsparse::gen
