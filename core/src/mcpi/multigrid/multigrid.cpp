// The aggregation multigrid preconditioner (mcpi/multigrid.hpp): its public face and its
// cycles (their kernels in cycle_kernels.hpp) over the hierarchy of multigrid_impl.hpp (formed
// and refreshed in hierarchy.cpp), recorded as one device graph where the backend records
// graphs. Compiled once for the default execution space and precisions.
#include <string>
#include <type_traits>

#include <ppsparse/backend/device_graph.hpp>
#include <ppsparse/error.hpp>

#include "../vector_kernels.hpp"
#include "cycle_kernels.hpp"
#include "multigrid_impl.hpp"

namespace ppsparse::mcpi {

template <class E>
std::string Multigrid<E>::Impl::graph_obstacle(const E& exec) {
  if (!cycle_failure.empty()) return cycle_failure;
  for (size_t l = 0; l <= coarse.size(); ++l) {
    std::string why = loop(l).graph_obstacle(exec, resolved(exec, l));
    if (!why.empty()) return "level " + std::to_string(l) + ": " + why;
  }
  return {};
}

template <class E>
std::vector<const void*> Multigrid<E>::Impl::arrays_key() {
  std::vector<const void*> key;
  for (size_t l = 0; l <= coarse.size(); ++l) {
    if (l > 0) arrays(l).sweeper().rhs = coarse[l - 1].b;
    const auto level = loop(l).sweep_arrays();
    key.insert(key.end(), level.begin(), level.end());
  }
  return key;
}

template <class E>
const detail::ResolvedSweep& Multigrid<E>::Impl::resolved(const E& exec, size_t l) {
  return loop(l).resolved(exec, Variant::automatic(), true, KernelTuning{});
}

template <class E>
void Multigrid<E>::Impl::run_cycle(const E& exec, const ConstVector& v) {
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

template <class E>
void Multigrid<E>::Impl::cycle(const E& exec, size_t l) {
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

template <class E>
void Multigrid<E>::Impl::krylov_correction(const E& exec, size_t l) {
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
