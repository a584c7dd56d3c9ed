// The aggregation multigrid preconditioner (mcpi/multigrid.hpp): a hierarchy of the MCPI
// solver's levels (level_arrays.hpp and color_loop.hpp, one of each per level; the finest is the
// fine Solver's), coarsened and refreshed by coarsening.hpp, and its cycles (their kernels in
// cycle_kernels.hpp), recorded as one device graph where the backend records graphs. Compiled once for
// the default execution space and precisions.
#include <ppsparse/mcpi/multigrid.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>

#include <Kokkos_Timer.hpp>

#include <ppsparse/backend/device_graph.hpp>
#include <ppsparse/error.hpp>

#include "../solver_impl.hpp"
#include "../../util/to_device.hpp"
#include "../vector_kernels.hpp"
#include "coarsening.hpp"
#include "cycle_kernels.hpp"

namespace ppsparse::mcpi {

template <class E>
struct Multigrid<E>::Impl {
  using M = typename E::memory_space;
  using Level = detail::SolverImpl<E, float, double, float>;
  using Arrays = typename Level::Arrays;
  using Loop = typename Level::Loop;

  /// A coarse level: how the level above sums into it and hands its residual down, its arrays
  /// and colour loop, and its vectors. Its values live in its arrays' storage only.
  struct Coarse {
    multigrid::GalerkinMap<M> map;  ///< from the level above's storage into this level's
    std::unique_ptr<Level> level;
    Kokkos::View<ordinal_t*, M> to_coarse;  ///< the level above's colour row -> this level's colour row
    Kokkos::View<offset_t*, M> from_ptr;    ///< this level's colour row -> the level above's colour rows
    Kokkos::View<ordinal_t*, M> from_rows;
    /// This level's right-hand side (colour order): its arrays' R, which a coarse level has no
    /// other use for.
    Kokkos::View<double*, M> b;
    /// The level above's residual: the shared residual_scratch where the corrections are not
    /// scaled (restricted, then free again), else this level's own, which the scaling reads
    /// after the coarser cycle.
    Kokkos::View<double*, M> r_above;
    /// The K-cycle's vectors on this level: the GCR residual, its two directions and their images.
    Kokkos::View<double*, M> k_r, k_z1, k_z2, k_w1, k_w2;
    /// The scalars of the level above's correction from this one (multigrid::Scalar).
    Kokkos::View<double*, M> scalars;
  };
  /// A level's value storage (LevelArrays::storage_views): FP32 O (empty on a coarse level in a
  /// coded format), D before its factoring.
  struct Stored {
    Kokkos::View<float*, M> O;
    Kokkos::View<double*, M> D;
    Kokkos::View<const offset_t*, M> o_slot;
    Kokkos::View<const ordinal_t*, M> d_slot;
  };

  MultigridOptions options;
  std::function<void(const std::string&)> progress;
  std::unique_ptr<Solver<E>> fine;
  int nb = 1;
  ordinal_t n = 0;
  /// The finest pattern, 0-based, the user's numbering: what build() coarsens first, released
  /// once the hierarchy stands (the finest level's arrays hold it in colour order).
  multigrid::LevelPattern<M> finest;
  std::vector<Coarse> coarse;
  /// A level's FP64 iterate (then its prolonged correction) and the operator's image of it: one
  /// pair for all levels (each free again before the coarser level runs), sized for the finest;
  /// and, for unscaled corrections, every level's residual (Coarse::r_above).
  Kokkos::View<double*, M> iterate_scratch, image_scratch, residual_scratch;
  /// The whole cycle recorded as one device graph (CUDA, HIP), its finest right-hand side read
  /// from cycle_rhs; recorded again where any level's arrays moved (cycle_key).
  Kokkos::View<double*, M> cycle_rhs;
  ppsparse::backend::DeviceGraph cycle_graph;
  std::vector<const void*> cycle_key;
  bool warmed_up = false;     ///< one cycle ran eagerly: the kernels' first-launch work is done
  bool recording = false;     ///< cycle() is being recorded: no host reads, no nested graphs
  std::string cycle_failure;  ///< why a recording failed: no more are tried
  GraphStats cycle_stats;
  bool built = false;
  MultigridOptions::Scaling scaling = MultigridOptions::Scaling::none;  ///< as resolved at build

  Arrays& arrays(size_t l) { return l == 0 ? fine->impl_->arrays : coarse[l - 1].level->arrays; }
  const Arrays& arrays(size_t l) const { return l == 0 ? fine->impl_->arrays : coarse[l - 1].level->arrays; }
  Loop& loop(size_t l) { return l == 0 ? fine->impl_->loop : coarse[l - 1].level->loop; }
  Stored stored(size_t l) {
    Stored st;
    // Only the finest level keeps an FP32 O beside a coded one (the staging of its assembly).
    arrays(l).storage_views(st.O, st.D, st.o_slot, st.d_slot, l == 0);
    return st;
  }

  /// f(source) with level l's O as the multigrid reads it (o_encode.hpp's StoredValues): its
  /// FP32 values where it holds them (an FP32 level, the finest level's staging), else its
  /// coded entries.
  template <class F>
  void with_o_source(size_t l, F&& f) {
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

  /// Level l + 1's values from level l's storage: its D (FP64, unfactored) and its O, summed
  /// into its FP32 storage or coded straight from the sums.
  void coarse_values(const E& exec, size_t l) {
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

  /// The hierarchy below the finest level, from the finest values in its storage (not yet
  /// factored): each level's aggregates, pattern, colouring and values.
  void build(const E& exec) {
    coarse.clear();  // what a failed build left
    multigrid::LevelPattern<M> pattern = finest;
    Stored above = stored(0);
    const OStorage storage{coarse_o_format(options, fine->o_storage().format), false, false};
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

  static std::string ratio(ordinal_t a, ordinal_t b) {
    const long tenths = std::lround(10.0 * a / b);
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
  }

  /// Every coarse level's values from the level above's storage (fresh values in the finest).
  void galerkin_all(const E& exec) {
    for (size_t l = 0; l < coarse.size(); ++l) coarse_values(exec, l);
  }

  /// Every level's numeric phase completed (O encoded, D factored), finest first.
  void factor_all(const E& exec) {
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

  /// Why the cycle cannot be recorded as one device graph on exec (empty if it can): what
  /// keeps any level's sweeps from being recorded (ColorLoop::graph_obstacle), or an earlier
  /// failed recording.
  std::string graph_obstacle(const E& exec) {
    if (!cycle_failure.empty()) return cycle_failure;
    for (size_t l = 0; l <= coarse.size(); ++l) {
      std::string why = loop(l).graph_obstacle(exec, resolved(exec, l));
      if (!why.empty()) return "level " + std::to_string(l) + ": " + why;
    }
    return {};
  }

  /// The addresses the recorded cycle reads and writes on every level. A coarse level's
  /// right-hand side is whichever of its vectors the cycle pointed it at last: it is pointed at
  /// the first again, so that the key does not depend on where the last cycle left it.
  std::vector<const void*> arrays_key() {
    std::vector<const void*> key;
    for (size_t l = 0; l <= coarse.size(); ++l) {
      if (l > 0) arrays(l).sweeper().rhs = coarse[l - 1].b;
      const auto level = loop(l).sweep_arrays();
      key.insert(key.end(), level.begin(), level.end());
    }
    return key;
  }

  const detail::ResolvedSweep& resolved(const E& exec, size_t l) {
    return loop(l).resolved(exec, Variant::automatic(), true, KernelTuning{});
  }

  /// One cycle for the right-hand side v into the finest level's dQ: a replay of the recorded
  /// cycle where one can be recorded (recorded at the second call, after one eager cycle has
  /// done the kernels' first-launch work), else eagerly, reading v where it is.
  void run_cycle(const E& exec, const ConstVector& v) {
    auto& fine_rhs = arrays(0).sweeper().rhs;
    const std::string why_not = graph_obstacle(exec);
    if (!why_not.empty() || !warmed_up) {
      cycle_stats.why_not = why_not.empty() ? "the first cycle runs eagerly" : why_not;
      warmed_up = true;
      fine_rhs = Vector(const_cast<double*>(v.data()), v.extent(0));
      cycle(exec, 0);
      return;
    }
    // A recorded cycle reads its right-hand side from where it was recorded.
    if (!cycle_rhs.data()) cycle_rhs = Vector("mg.cycle_rhs", v.extent(0));
    Kokkos::deep_copy(exec, cycle_rhs, v);
    fine_rhs = cycle_rhs;
    std::vector<const void*> key = arrays_key();
    if (!cycle_graph || key != cycle_key) {
      Kokkos::Timer timer;
      std::string message;
      recording = true;
      const ErrorKind kind =
          capture_error([&] { cycle_graph = ppsparse::backend::record_graph(exec, [&] { cycle(exec, 0); }); }, message);
      recording = false;
      if (kind != ErrorKind::none) {
        cycle_graph = {};
        cycle_failure = cycle_stats.why_not = "recording the cycle failed: " + message;
        if (progress) progress("multigrid: " + cycle_failure + "; cycles run eagerly from now on");
        cycle(exec, 0);
        return;
      }
      cycle_key = std::move(key);
      ++cycle_stats.recordings;
      cycle_stats.record_seconds += timer.seconds();
    }
    cycle_stats.why_not.clear();
    ppsparse::backend::replay_graph(exec, cycle_graph);
    ++cycle_stats.replays;
  }

  /// One cycle on level l from dQ = 0 for the right-hand side its sweeper already reads.
  /// Asynchronous on exec, with one exception outside a recording: the K-cycle reads three of
  /// its scalars to skip a second coarse step that would not be used.
  void cycle(const E& exec, size_t l) {
    Arrays& a = arrays(l);
    Loop& lp = loop(l);
    auto& s = a.sweeper();
    Kokkos::deep_copy(exec, s.dq, 0.0f);
    const detail::ResolvedSweep& rs = resolved(exec, l);
    // Inside the cycle's recording the sweeps are recorded with it, not as graphs of their own.
    const bool sweep_graphs = !recording;
    if (l == coarse.size()) {
      lp.run_sweeps(exec, rs, options.coarse_sweeps, sweep_graphs);
      return;
    }
    Coarse& c = coarse[l];
    lp.run_sweeps(exec, rs, options.pre_sweeps, sweep_graphs);
    const size_t len = static_cast<size_t>(a.n()) * nb;
    const Kokkos::View<double*, M> x(iterate_scratch.data(), len), r = c.r_above;
    // The W-cycle's second correction and the K-cycle's Krylov steps cost more than they give
    // above the coarsest level, which its sweeps solve about as well once as twice.
    // Levels between those of cycle_every correct once, as a V-cycle does.
    const bool next_coarsest = l + 1 == coarse.size();
    const bool strong = !next_coarsest &&
                        static_cast<int>(l % static_cast<size_t>(options.cycle_every)) == options.cycle_every - 1 &&
                        a.n() >= options.cycle_min_rows;
    const bool krylov = options.cycle == MultigridOptions::Cycle::k && strong;
    const int corrections = options.cycle == MultigridOptions::Cycle::w && strong ? 2 : 1;
    for (int k = 0; k < corrections; ++k) {
      impl::convert(exec, a.dq_owned(), x);
      a.operator_apply(exec, typename Arrays::ConstVector(x), r, false);
      impl::subtract_from(exec, s.rhs, r);
      multigrid::restrict_residual<E, M>(exec, nb, c.from_ptr, c.from_rows, r, c.b);
      if (krylov) {
        krylov_correction(exec, l);
      } else {
        c.level->arrays.sweeper().rhs = c.b;
        cycle(exec, l + 1);
      }
      // The coarse correction x_c: the K-cycle's combination of its GCR directions, else the
      // coarser level's iterate; prolonged onto (accumulate) or into `target`.
      auto prolong = [&](const auto& target, bool accumulate) {
        if (krylov)
          multigrid::prolong_correction<E, M>(exec, nb, c.to_coarse, c.k_z1, target, accumulate);
        else
          multigrid::prolong_correction<E, M>(exec, nb, c.to_coarse, c.level->arrays.dq_owned(), target, accumulate);
      };
      if (scaling == MultigridOptions::Scaling::none) {
        prolong(a.dq_owned(), true);
        continue;
      }
      // e = P x_c, scaled by alpha: energy, (e, r) / (e, A e), or 1; residual, the alpha that
      // minimises |r - alpha A e|, or 0.
      prolong(x, false);
      const Kokkos::View<double*, M> ae(image_scratch.data(), len);
      a.operator_apply(exec, typename Arrays::ConstVector(x), ae, false);
      const bool energy = scaling == MultigridOptions::Scaling::energy;
      multigrid::dot_into(exec, r, energy ? x : ae, c.scalars, multigrid::scale_num);
      multigrid::dot_into(exec, energy ? x : ae, ae, c.scalars, multigrid::scale_den);
      multigrid::add_scaled(exec, x, a.dq_owned(), c.scalars, energy ? 1.0 : 0.0);
    }
    lp.run_sweeps(exec, rs, options.post_sweeps, sweep_graphs);
  }

  /// The K-cycle's coarse correction below level l: x_c ~ A_c^-1 b_c by up to two GCR steps,
  /// each direction a cycle of level l + 1 (Notay and Vassilevski 2008), into c.k_z1. The
  /// step sizes stay on the device (multigrid::first_step, second_step); a recorded cycle
  /// always forms the second direction, and its step size is 0 where it is not used, so the
  /// result is the same bit for bit as an eager cycle's, which skips it.
  void krylov_correction(const E& exec, size_t l) {
    Coarse& c = coarse[l];
    Arrays& ac = c.level->arrays;
    using ConstVector = typename Arrays::ConstVector;
    // z1 = B b, w1 = A_c z1, r = b - a1 w1 with a1 minimising |r|.
    ac.sweeper().rhs = c.b;
    cycle(exec, l + 1);
    impl::convert(exec, ac.dq_owned(), c.k_z1);
    ac.operator_apply(exec, ConstVector(c.k_z1), c.k_w1, false);
    multigrid::dot_into(exec, c.k_w1, c.k_w1, c.scalars, multigrid::w1w1);
    multigrid::dot_into(exec, c.k_w1, c.b, c.scalars, multigrid::w1b);
    multigrid::first_residual(exec, c.b, c.k_w1, c.k_r, c.scalars);
    multigrid::dot_into(exec, c.b, c.b, c.scalars, multigrid::bb);
    multigrid::dot_into(exec, c.k_r, c.k_r, c.scalars, multigrid::rr);
    if (!recording) {
      // The first step cut the residual 4-fold (or there was none): x_c = a1 z1.
      double s[3];
      Kokkos::deep_copy(exec, Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(s, 3),
                        Kokkos::subview(c.scalars, std::make_pair(0, 3)));
      exec.fence();
      static_assert(multigrid::w1w1 == 0 && multigrid::bb == 1 && multigrid::rr == 2);
      if (!(s[0] > 0) || s[2] <= 0.0625 * s[1]) {
        multigrid::combine(exec, c.k_z1, c.k_z2, c.scalars);
        return;
      }
    }
    // z2 = B r, w2 = A_c z2, both made orthogonal to w1; x_c = a1 z1 + a2 z2.
    ac.sweeper().rhs = c.k_r;
    cycle(exec, l + 1);
    impl::convert(exec, ac.dq_owned(), c.k_z2);
    ac.operator_apply(exec, ConstVector(c.k_z2), c.k_w2, false);
    multigrid::dot_into(exec, c.k_w2, c.k_w1, c.scalars, multigrid::w2w1);
    multigrid::orthogonalise(exec, c.k_z1, c.k_w1, c.k_z2, c.k_w2, c.scalars);
    multigrid::dot_into(exec, c.k_w2, c.k_w2, c.scalars, multigrid::w2w2);
    multigrid::dot_into(exec, c.k_w2, c.k_r, c.scalars, multigrid::w2r);
    multigrid::combine(exec, c.k_z1, c.k_z2, c.scalars);
  }
};

template <class E>
Multigrid<E>::Multigrid(const detail::HostPattern& p, const MultigridOptions& options, const SetupOptions& setup)
    : impl_(std::make_unique<Impl>()) {
  check_multigrid_options(options);
  impl_->options = options;
  impl_->progress = setup.progress;
  impl_->fine.reset(new Solver<E>(p, setup));  // the pattern checked there
  impl_->nb = p.nb;
  impl_->n = p.n;
  std::vector<offset_t> row_ptr(static_cast<size_t>(p.n) + 1);
  for (size_t i = 0; i < row_ptr.size(); ++i) row_ptr[i] = p.row_ptr[i] - p.index_base;
  std::vector<ordinal_t> col_idx(static_cast<size_t>(row_ptr.back()));
  for (size_t k = 0; k < col_idx.size(); ++k) col_idx[k] = p.col_idx[k] - p.index_base;
  impl_->finest = multigrid::level_pattern<typename Impl::M>(p.n, row_ptr, col_idx);
}

template <class E>
Multigrid<E>::Multigrid(Multigrid&&) noexcept = default;
template <class E>
Multigrid<E>& Multigrid<E>::operator=(Multigrid&&) noexcept = default;
template <class E>
Multigrid<E>::~Multigrid() = default;

template <class E>
Solver<E>& Multigrid<E>::fine() {
  return *impl_->fine;
}

template <class E>
void Multigrid<E>::update_arrays(const E& exec, const detail::UserArray& O, const detail::UserArray& D,
                                 BlockOrder order) {
  // The values are staged in the finest level's storage, unfactored, checked in the user's
  // numbering; factor() sums them into the coarse levels before it factors each level.
  impl_->fine->impl_->loop.collectively(
      [&] { impl_->arrays(0).load_values(exec, O, D, order, Impl::Arrays::Load::stage); });
  factor(exec);
}

template <class E>
typename Solver<E>::Storage Multigrid<E>::storage() {
  return impl_->fine->storage();
}

template <class E>
void Multigrid<E>::factor(const E& exec) {
  if (!impl_->built) {
    impl_->build(exec);
  } else {
    impl_->galerkin_all(exec);
  }
  impl_->factor_all(exec);
}

template <class E>
void Multigrid<E>::precondition(const E& exec, const ConstVector& v, const Vector& z) {
  auto& a = impl_->arrays(0);
  a.require_values("multigrid precondition");
  impl_->run_cycle(exec, v);
  impl::convert(exec, a.dq_owned(), z);
  a.sweeper().rhs = a.r();
}

template <class E>
GraphStats Multigrid<E>::graph_stats() const {
  return impl_->cycle_stats;
}

template <class E>
std::function<void(const E&, const typename Multigrid<E>::ConstVector&, const typename Multigrid<E>::Vector&)>
Multigrid<E>::preconditioner() {
  return [this](const E& exec, const ConstVector& v, const Vector& z) { precondition(exec, v, z); };
}

template <class E>
std::vector<MultigridLevel> Multigrid<E>::levels() const {
  std::vector<MultigridLevel> out;
  for (size_t l = 0; l <= impl_->coarse.size(); ++l) {
    const auto& a = impl_->arrays(l);
    out.push_back({a.n(), a.nnzb(), a.coloring().ncolors, a.device_bytes()});
  }
  return out;
}

template <class E>
size_t Multigrid<E>::device_bytes() const {
  size_t bytes = 0;
  auto add = [&](const auto&... views) {
    ((bytes += views.span() * sizeof(typename std::decay_t<decltype(views)>::value_type)), ...);
  };
  for (size_t l = 0; l <= impl_->coarse.size(); ++l) bytes += impl_->arrays(l).device_bytes();
  for (const auto& c : impl_->coarse) {
    const auto& m = c.map;
    add(m.off_ptr, m.off_src, m.diag_d_ptr, m.diag_d_src, m.diag_o_ptr, m.diag_o_src);  // d_dst: the level's
    // b is the level's R, counted with its arrays; a shared r_above with residual_scratch.
    add(c.to_coarse, c.from_ptr, c.from_rows, c.k_r, c.k_z1, c.k_z2, c.k_w1, c.k_w2, c.scalars);
    if (!impl_->residual_scratch.data()) add(c.r_above);
  }
  add(impl_->iterate_scratch, impl_->image_scratch, impl_->residual_scratch, impl_->cycle_rhs);
  return bytes;
}

template class Multigrid<DefaultExecSpace>;

}  // namespace ppsparse::mcpi
