// The multigrid's hierarchy (multigrid_impl.hpp): its levels formed on the device from the
// finest values (aggregates, Galerkin patterns and maps, each coarse level's colouring and
// arrays, coarsening.hpp) and their values refreshed through the maps at every numeric phase.
// Compiled once for the default execution space and precisions.
#include <cmath>
#include <cstdio>
#include <string>

#include <Kokkos_Timer.hpp>

#include <ppsparse/error.hpp>

#include "cycle_kernels.hpp"
#include "multigrid_impl.hpp"

namespace ppsparse::mcpi {

namespace {

std::string ratio(ordinal_t a, ordinal_t b) {
  const long tenths = std::lround(10.0 * a / b);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

}  // namespace

template <class E>
template <class F>
void Multigrid<E>::Impl::with_o_source(size_t l, F&& f) {
  const auto& s = arrays(l).sweeper();
  const int nb2 = nb * nb;
  if (s.O.extent(0) > 0) {
    f(impl::SlotValues<Kokkos::View<const float*, M>>{s.O, nb2});
    return;
  }
  detail::with_codec(s.o_format, [&](auto codec) {
    using Codec = decltype(codec);
    if constexpr (!Codec::plain) f(impl::CodedSlotValues<M, Codec>{s.template coded<Codec>(), s.ia, arrays(l).n()});
  });
}

template <class E>
void Multigrid<E>::Impl::coarse_values(const E& exec, size_t l) {
  Coarse& c = coarse[l];
  const Stored above = stored(l), here = stored(l + 1);
  with_o_source(l, [&](const auto& fine_o) {
    multigrid::galerkin_diagonal_values(exec, c.map, nb, fine_o, Kokkos::View<const double*, M>(above.D), here.D);
    if (here.O.extent(0) > 0) {
      multigrid::galerkin_off_values(exec, c.map, nb, fine_o, here.O);
      return;
    }
    detail::with_codec(c.level->arrays.o_storage().format, [&](auto codec) {
      using Codec = decltype(codec);
      if constexpr (!Codec::plain)
        c.level->arrays.template encode_o_from<Codec>(exec, multigrid::galerkin_off_sum(c.map, fine_o));
    });
  });
}

template <class E>
void Multigrid<E>::Impl::build(const E& exec) {
  coarse.clear();  // what a failed build left
  multigrid::LevelPattern<M> pattern = finest;
  Stored above = stored(0);
  OStorage storage{coarse_o_format(options, fine->o_storage().format), false, false};
  storage.lu_fp32 = fine->o_storage().lu_fp32;  // the coarse sweeps read the finest's D precision
  scaling = options.scaling;
  // Each level's setup time by phase, for its progress line.
  Kokkos::Timer clock;
  auto lap = [&] {
    if (!progress) return 0.0;  // nobody hears the times: no fence for them
    exec.fence();
    const double t = clock.seconds();
    clock.reset();
    return t;
  };
  auto seconds = [](double t) {
    char b[16];
    std::snprintf(b, sizeof b, "%.2f", t);
    return std::string(b);
  };
  if (scaling == MultigridOptions::Scaling::automatic) {
    const double asymmetry =
        multigrid::block_asymmetry<E, float>(exec, Kokkos::View<const float*, M>(above.O), finest, nb, above.o_slot);
    scaling = asymmetry <= 0.1 ? MultigridOptions::Scaling::energy : MultigridOptions::Scaling::residual;
    if (progress)
      progress("multigrid: |O - O^T| / |O| = " + std::to_string(asymmetry) + ": coarse corrections scaled by " +
               (scaling == MultigridOptions::Scaling::energy ? "energy" : "residual") + " minimisation (" +
               seconds(lap()) + " s)");
  }
  while (static_cast<int>(coarse.size()) + 1 < options.max_levels && pattern.n > options.coarse_rows) {
    const ordinal_t n_l = pattern.n;
    Kokkos::View<double*, M> strength;
    with_o_source(coarse.size(), [&](const auto& o) {
      strength = multigrid::block_strengths_from(exec, o, pattern.nnzb(), nb,
                                                 coarse.empty() ? arrays(0).index_base() : 0, above.o_slot);
    });
    const multigrid::Aggregates<M> agg =
        multigrid::pairwise_aggregates(exec, pattern, strength, options.matching_passes);
    const double t_aggregates = lap();
    if (agg.count * 10LL > n_l * 9LL) break;  // coarsening stalled: this level is the coarsest
    coarse.emplace_back();
    Coarse& c = coarse.back();
    c.map = multigrid::galerkin_map(exec, pattern, agg);
    const double t_pattern = lap();
    detail::SetupPlan plan = multigrid::coarse_level_plan(exec, nb, c.map.coarse);
    plan.o_storage = storage;
    c.level = std::make_unique<Level>(std::move(plan), nullptr, nullptr);
    const double t_level = lap();
    const Stored here = stored(coarse.size());
    multigrid::place_in_storage(exec, c.map, above.o_slot, above.d_slot, here.o_slot, here.d_slot);
    coarse_values(exec, coarse.size() - 1);
    const double t_values = lap();
    // The transfers between the colour orders of the level above and of this one (a level's
    // d_slot is its colour order).
    multigrid::transfers(exec, agg, above.d_slot, here.d_slot, c.to_coarse, c.from_ptr, c.from_rows);
    c.b = c.level->arrays.r();
    if (scaling == MultigridOptions::Scaling::none) {
      if (residual_scratch.extent(0) == 0)
        residual_scratch = Kokkos::View<double*, M>("mg.residual", static_cast<size_t>(n) * nb);
      c.r_above = Kokkos::View<double*, M>(residual_scratch.data(), static_cast<size_t>(n_l) * nb);
    } else {
      c.r_above = Kokkos::View<double*, M>("mg.r", static_cast<size_t>(n_l) * nb);
    }
    c.scalars = Kokkos::View<double*, M>("mg.scalars", multigrid::scalar_count);
    if (options.cycle == MultigridOptions::Cycle::k) {
      const size_t len = static_cast<size_t>(agg.count) * nb;
      c.k_r = Kokkos::View<double*, M>("mg.k_r", len);
      c.k_z1 = Kokkos::View<double*, M>("mg.k_z1", len);
      c.k_z2 = Kokkos::View<double*, M>("mg.k_z2", len);
      c.k_w1 = Kokkos::View<double*, M>("mg.k_w1", len);
      c.k_w2 = Kokkos::View<double*, M>("mg.k_w2", len);
    }
    if (progress)
      progress("multigrid: level " + std::to_string(coarse.size()) + ": " + std::to_string(agg.count) +
               " block rows (" + ratio(n_l, agg.count) + "x fewer), " + std::to_string(c.map.nnzb()) +
               " off-diagonal blocks, " + std::to_string(c.level->arrays.coloring().ncolors) + " colours; " +
               seconds(t_aggregates + t_pattern + t_level + t_values + lap()) + " s (aggregates " +
               seconds(t_aggregates) + ", Galerkin pattern " + seconds(t_pattern) + ", colouring and arrays " +
               seconds(t_level) + ", values " + seconds(t_values) + ")");
    pattern = c.map.coarse;
    above = here;
  }
  if (!coarse.empty()) {
    iterate_scratch = Kokkos::View<double*, M>("mg.iterate", static_cast<size_t>(n) * nb);
    if (scaling != MultigridOptions::Scaling::none)
      image_scratch = Kokkos::View<double*, M>("mg.image", static_cast<size_t>(n) * nb);
  }
  finest = {};
  built = true;
}

template <class E>
void Multigrid<E>::Impl::galerkin_all(const E& exec) {
  for (size_t l = 0; l < coarse.size(); ++l) coarse_values(exec, l);
}

template <class E>
void Multigrid<E>::Impl::factor_all(const E& exec) {
  fine->factor(exec);
  for (size_t l = 0; l < coarse.size(); ++l) {
    try {
      coarse[l].level->arrays.factor(exec);
    } catch (const NumericalError& e) {
      std::string what = e.what();
      if (what.compare(0, 6, "mcpi: ") == 0) what = what.substr(6);
      throw NumericalError(
          "mcpi multigrid: level " + std::to_string(l + 1) +
          " (the finest is 0; its block rows are the level above's aggregates, numbered from 0): " + what);
    }
  }
}

template void Multigrid<DefaultExecSpace>::Impl::build(const DefaultExecSpace&);
template void Multigrid<DefaultExecSpace>::Impl::galerkin_all(const DefaultExecSpace&);
template void Multigrid<DefaultExecSpace>::Impl::factor_all(const DefaultExecSpace&);

}  // namespace ppsparse::mcpi
