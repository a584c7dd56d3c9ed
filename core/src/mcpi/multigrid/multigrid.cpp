// The aggregation multigrid preconditioner (mcpi/multigrid.hpp): a hierarchy of the MCPI
// solver's levels (level_arrays.hpp and color_loop.hpp, one of each per level; the finest is the
// fine Solver's), coarsened and refreshed by coarsening.hpp, and its V-cycle. Compiled once for
// the default execution space and precisions.
#include <ppsparse/mcpi/multigrid.hpp>

#include <string>

#include <ppsparse/error.hpp>

#include "../solver_impl.hpp"
#include "../../util/to_device.hpp"
#include "../vector_kernels.hpp"
#include "coarsening.hpp"

namespace ppsparse::mcpi {

void check_multigrid_options(const MultigridOptions& o) {
  auto bad = [](const std::string& what) { throw InvalidArgument("mcpi multigrid: " + what); };
  if (o.max_levels < 1) bad("max_levels must be >= 1, got " + std::to_string(o.max_levels));
  if (o.coarse_rows < 1) bad("coarse_rows must be >= 1, got " + std::to_string(o.coarse_rows));
  if (o.matching_passes < 1) bad("matching_passes must be >= 1, got " + std::to_string(o.matching_passes));
  if (o.pre_sweeps < 0 || o.post_sweeps < 0)
    bad("pre_sweeps and post_sweeps must be >= 0, got " + std::to_string(o.pre_sweeps) + " and " +
        std::to_string(o.post_sweeps));
  if (o.coarse_sweeps < 1) bad("coarse_sweeps must be >= 1, got " + std::to_string(o.coarse_sweeps));
  if (o.cycle_index < 1 || o.cycle_index > 3)
    bad("cycle_index must be 1 (V), 2 (W) or 3, got " + std::to_string(o.cycle_index));
}

// A named namespace: CUDA's extended lambdas may not live in an unnamed one.
namespace multigrid {

/// b_c(c) = sum of r(p) over the fine rows p of coarse row c (colour orders), in a fixed order.
template <class E, class M>
void restrict_residual(const E& exec, int nb, const Kokkos::View<const offset_t*, M>& ptr,
                       const Kokkos::View<const ordinal_t*, M>& rows, const Kokkos::View<const double*, M>& r,
                       const Kokkos::View<double*, M>& b) {
  const ordinal_t nc = static_cast<ordinal_t>(ptr.extent(0)) - 1;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::restrict", Kokkos::RangePolicy<E>(exec, 0, nc), KOKKOS_LAMBDA(const ordinal_t c) {
        for (int e = 0; e < nb; ++e) {
          double sum = 0;
          for (offset_t t = ptr(c); t < ptr(c + 1); ++t) sum += r(static_cast<size_t>(rows(t)) * nb + e);
          b(static_cast<size_t>(c) * nb + e) = sum;
        }
      });
}

/// x(p) += x_c(to_coarse(p)) for every fine row p (colour orders).
template <class E, class M, class X>
void prolong_correction(const E& exec, int nb, const Kokkos::View<const ordinal_t*, M>& to_coarse, const X& xc,
                        const X& x) {
  const ordinal_t n = static_cast<ordinal_t>(to_coarse.extent(0));
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::prolong", Kokkos::RangePolicy<E>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t p) {
        for (int e = 0; e < nb; ++e)
          x(static_cast<size_t>(p) * nb + e) += xc(static_cast<size_t>(to_coarse(p)) * nb + e);
      });
}

/// The user's array a (n values, float or double, host or device) into dst, in FP64, on exec.
template <class E>
void to_double(const E& exec, const detail::UserArray& a, const Kokkos::View<double*, typename E::memory_space>& dst) {
  using M = typename E::memory_space;
  if (!a.exec_accessible) {
    Kokkos::View<double*, HostSpace> h(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg.stage"), a.size);
    for (size_t q = 0; q < a.size; ++q)
      h(q) = a.is_double ? static_cast<const double*>(a.data)[q] : static_cast<const float*>(a.data)[q];
    Kokkos::deep_copy(exec, dst, h);
    exec.fence();
  } else if (a.is_double) {
    Kokkos::deep_copy(
        exec, dst, Kokkos::View<const double*, M, Kokkos::MemoryUnmanaged>(static_cast<const double*>(a.data), a.size));
  } else {
    impl::convert(
        exec, Kokkos::View<const float*, M, Kokkos::MemoryUnmanaged>(static_cast<const float*>(a.data), a.size), dst);
  }
}

}  // namespace multigrid

template <class E>
struct Multigrid<E>::Impl {
  using M = typename E::memory_space;
  using Level = detail::SolverImpl<E, float, double, float>;
  using Arrays = typename Level::Arrays;
  using Loop = typename Level::Loop;

  /// A coarse level: how the level above sums into it and hands its residual down, its arrays
  /// and colour loop, its values (in its aggregates' order) and its vectors.
  struct Coarse {
    multigrid::GalerkinMap<M> map;
    std::unique_ptr<Level> level;
    Kokkos::View<double*, M> O, D;
    Kokkos::View<ordinal_t*, M> to_coarse;  ///< the level above's colour row -> this level's colour row
    Kokkos::View<offset_t*, M> from_ptr;    ///< this level's colour row -> the level above's colour rows
    Kokkos::View<ordinal_t*, M> from_rows;
    Kokkos::View<double*, M> b;                 ///< this level's right-hand side (colour order)
    Kokkos::View<double*, M> r_above, x_above;  ///< the level above's residual and widened iterate
  };

  MultigridOptions options;
  std::unique_ptr<Solver<E>> fine;
  int nb = 1;
  ordinal_t n = 0;
  std::vector<offset_t> row_ptr;  ///< the finest pattern, 0-based, the user's numbering
  std::vector<ordinal_t> col_idx;
  Kokkos::View<double*, M> O0, D0;  ///< the finest values in FP64, the Galerkin product's input
  std::vector<Coarse> coarse;
  bool built = false;

  Arrays& arrays(size_t l) { return l == 0 ? fine->impl_->arrays : coarse[l - 1].level->arrays; }
  Loop& loop(size_t l) { return l == 0 ? fine->impl_->loop : coarse[l - 1].level->loop; }

  /// The hierarchy below the finest level, from the values in O0 and D0.
  void build(const E& exec) {
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    ordinal_t n_l = n;
    std::vector<offset_t> ptr = row_ptr;
    std::vector<ordinal_t> col = col_idx;
    Kokkos::View<double*, M> O_l = O0, D_l = D0;
    const OStorage storage{fine->o_storage().format, false, false};
    while (static_cast<int>(coarse.size()) + 1 < options.max_levels && n_l > options.coarse_rows) {
      const auto strength = multigrid::block_strengths<E, double>(exec, O_l, static_cast<offset_t>(col.size()), nb);
      const multigrid::Aggregates agg =
          multigrid::pairwise_aggregates(exec, n_l, ptr, col, strength, options.matching_passes);
      if (agg.count * 10 > n_l * 9) break;  // coarsening stalled: this level is the coarsest
      Coarse c;
      c.map = multigrid::galerkin_map<M>(n_l, ptr, col, agg);
      detail::SetupPlan plan =
          detail::make_setup_plan(nb, agg.count, c.map.row_ptr.data(), c.map.col_idx.data(), 0, {});
      plan.o_storage = storage;
      c.level = std::make_unique<Level>(std::move(plan), nullptr, nullptr);
      c.O = Kokkos::View<double*, M>("mg.O", static_cast<size_t>(c.map.nnzb()) * nb2);
      c.D = Kokkos::View<double*, M>("mg.D", static_cast<size_t>(agg.count) * nb2);
      multigrid::galerkin_values<E, double, double>(exec, c.map, nb, O_l, D_l, c.O, c.D);
      // The transfers between the colour orders of the level above and of this one.
      const Coloring& above = arrays(coarse.size()).coloring();
      const Coloring& here = c.level->arrays.coloring();
      std::vector<ordinal_t> to(static_cast<size_t>(n_l));
      std::vector<std::vector<ordinal_t>> from(static_cast<size_t>(agg.count));
      for (ordinal_t p = 0; p < n_l; ++p) {
        const ordinal_t user = above.perm.new_to_old[static_cast<size_t>(p)];
        const ordinal_t cc = here.perm.old_to_new[static_cast<size_t>(agg.of_row[static_cast<size_t>(user)])];
        to[static_cast<size_t>(p)] = cc;
        from[static_cast<size_t>(cc)].push_back(p);
      }
      std::vector<offset_t> fptr(1, 0);
      std::vector<ordinal_t> frows;
      for (const auto& f : from) {
        frows.insert(frows.end(), f.begin(), f.end());
        fptr.push_back(static_cast<offset_t>(frows.size()));
      }
      c.to_coarse = util::to_device<ordinal_t, M>(to, "mg.to_coarse");
      c.from_ptr = util::to_device<offset_t, M>(fptr, "mg.from_ptr");
      c.from_rows = util::to_device<ordinal_t, M>(frows, "mg.from_rows");
      c.b = Kokkos::View<double*, M>("mg.b", static_cast<size_t>(agg.count) * nb);
      c.r_above = Kokkos::View<double*, M>("mg.r", static_cast<size_t>(n_l) * nb);
      c.x_above = Kokkos::View<double*, M>("mg.x", static_cast<size_t>(n_l) * nb);
      n_l = agg.count;
      ptr = c.map.row_ptr;
      col = c.map.col_idx;
      O_l = c.O;
      D_l = c.D;
      coarse.push_back(std::move(c));
    }
    built = true;
  }

  /// Every coarse level's values from the level above's (O0, D0 for the first), factored.
  void refresh(const E& exec, BlockOrder order) {
    Kokkos::View<double*, M> O_l = O0, D_l = D0;
    for (size_t l = 0; l < coarse.size(); ++l) {
      Coarse& c = coarse[l];
      multigrid::galerkin_values<E, double, double>(exec, c.map, nb, O_l, D_l, c.O, c.D);
      try {
        c.level->arrays.load_values(exec, detail::user_array<E>(c.O, "O"), detail::user_array<E>(c.D, "D"), order,
                                    true);
      } catch (const NumericalError& e) {
        std::string what = e.what();
        if (what.compare(0, 6, "mcpi: ") == 0) what = what.substr(6);
        throw NumericalError(
            "mcpi multigrid: level " + std::to_string(l + 1) +
            " (the finest is 0; its block rows are the level above's aggregates, numbered from 0): " + what);
      }
      O_l = c.O;
      D_l = c.D;
    }
  }

  /// One cycle on level l from dQ = 0 for the right-hand side its sweeper already reads.
  void cycle(const E& exec, size_t l) {
    Arrays& a = arrays(l);
    Loop& lp = loop(l);
    auto& s = a.sweeper();
    Kokkos::deep_copy(exec, s.dq, 0.0f);
    const detail::ResolvedSweep& rs = lp.resolved(exec, Variant::automatic(), true, KernelTuning{});
    if (l == coarse.size()) {
      lp.run_sweeps(exec, rs, options.coarse_sweeps, false);
      return;
    }
    Coarse& c = coarse[l];
    lp.run_sweeps(exec, rs, options.pre_sweeps, false);
    // Above the coarsest level one correction: its sweeps solve it about as well twice as once.
    const int corrections = l + 2 < coarse.size() + 1 ? options.cycle_index : 1;
    for (int k = 0; k < corrections; ++k) {
      impl::convert(exec, a.dq_owned(), c.x_above);
      a.operator_apply(exec, typename Arrays::ConstVector(c.x_above), c.r_above, false);
      impl::subtract_from(exec, s.rhs, c.r_above);
      multigrid::restrict_residual<E, M>(exec, nb, c.from_ptr, c.from_rows, c.r_above, c.b);
      c.level->arrays.sweeper().rhs = c.b;
      cycle(exec, l + 1);
      multigrid::prolong_correction<E, M>(exec, nb, c.to_coarse, c.level->arrays.dq_owned(), a.dq_owned());
    }
    lp.run_sweeps(exec, rs, options.post_sweeps, false);
  }
};

template <class E>
Multigrid<E>::Multigrid(const detail::HostPattern& p, const MultigridOptions& options, const SetupOptions& setup)
    : impl_(std::make_unique<Impl>()) {
  check_multigrid_options(options);
  impl_->options = options;
  impl_->fine.reset(new Solver<E>(p, setup));  // the pattern checked there
  impl_->nb = p.nb;
  impl_->n = p.n;
  impl_->row_ptr.resize(static_cast<size_t>(p.n) + 1);
  for (size_t i = 0; i < impl_->row_ptr.size(); ++i) impl_->row_ptr[i] = p.row_ptr[i] - p.index_base;
  impl_->col_idx.resize(static_cast<size_t>(impl_->row_ptr.back()));
  for (size_t k = 0; k < impl_->col_idx.size(); ++k) impl_->col_idx[k] = p.col_idx[k] - p.index_base;
  const size_t nb2 = static_cast<size_t>(p.nb) * p.nb;
  impl_->O0 = Kokkos::View<double*, typename Impl::M>("mg.O0", impl_->col_idx.size() * nb2);
  impl_->D0 = Kokkos::View<double*, typename Impl::M>("mg.D0", static_cast<size_t>(p.n) * nb2);
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
  impl_->fine->update_arrays(exec, O, D, order);  // checks the sizes and values
  multigrid::to_double(exec, O, impl_->O0);
  multigrid::to_double(exec, D, impl_->D0);
  if (!impl_->built) impl_->build(exec);
  impl_->refresh(exec, order);
}

template <class E>
void Multigrid<E>::precondition(const E& exec, const ConstVector& v, const Vector& z) {
  auto& a = impl_->arrays(0);
  a.require_values("multigrid precondition");
  a.sweeper().rhs = Vector(const_cast<double*>(v.data()), v.extent(0));
  impl_->cycle(exec, 0);
  impl::convert(exec, a.dq_owned(), z);
  a.sweeper().rhs = a.r();
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
    out.push_back({a.n(), a.nnzb(), a.coloring().ncolors});
  }
  return out;
}

template class Multigrid<DefaultExecSpace>;

}  // namespace ppsparse::mcpi
