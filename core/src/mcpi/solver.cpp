// The MCPI solver's facade (mcpi/solver.hpp) over its implementation (solver_impl.hpp),
// compiled once per supported precision on the default execution space.
#include <ppsparse/mcpi/solver.hpp>

#include "solver_impl.hpp"

namespace ppsparse::mcpi {

template <class E, class OS, class DS, class XS>
Solver<E, OS, DS, XS>::Solver(const detail::HostPattern& p, const SetupOptions& options) {
  if (p.n < 0) throw InvalidArgument("mcpi setup: negative number of block rows n = " + std::to_string(p.n));
  if (p.row_ptr_size != static_cast<size_t>(p.n) + 1)
    throw InvalidArgument("mcpi setup: row_ptr has " + std::to_string(p.row_ptr_size) +
                          " entries, expected n + 1 = " + std::to_string(static_cast<long long>(p.n) + 1));
  const offset_t nnzb = p.row_ptr[p.n] - p.index_base;
  if (nnzb < 0 || static_cast<size_t>(nnzb) > p.col_idx_size)
    throw InvalidArgument("mcpi setup: row_ptr[n] - index_base = " + std::to_string(nnzb) +
                          " blocks, but col_idx has " + std::to_string(p.col_idx_size) + " entries");
  if (options.progress) options.progress("checking and colouring " + std::to_string(p.n) + " block rows");
  detail::SetupPlan plan = detail::make_setup_plan(p.nb, p.n, p.row_ptr, p.col_idx, p.index_base, options.colors);
  plan.o_storage = options.o_storage;
  impl_ = std::make_unique<detail::SolverImpl<E, OS, DS, XS>>(std::move(plan), nullptr, options.progress);
}

template <class E, class OS, class DS, class XS>
Solver<E, OS, DS, XS>::Solver(const BlockSystem<HostSpace>& system, const Coloring& coloring, const Progress& progress,
                              int index_base, const OStorage& o_storage) {
  if (index_base != 0 && index_base != 1)
    throw InvalidArgument("mcpi: index_base must be 0 or 1, got " + std::to_string(index_base));
  check_system(system, coloring, index_base);
  detail::SetupPlan plan =
      detail::make_setup_plan(system.nb, system.n, system.O.ia.data(), system.O.ja.data(), 0, {}, &coloring);
  plan.index_base = index_base;  // the arrays are 0-based; errors count from the caller's base
  plan.o_storage = o_storage;
  impl_ = std::make_unique<detail::SolverImpl<E, OS, DS, XS>>(std::move(plan), nullptr, progress);
  if (progress) progress("copying the system to " + std::string(E::name()));
  E exec;
  if (progress && !system.d_factored)
    progress("factoring " + std::to_string(system.n) + " diagonal blocks (LU, no pivoting)");
  impl_->load_system(exec, detail::user_array<E>(system.O.values, "O"), detail::user_array<E>(system.D, "D"),
                     !system.d_factored, detail::user_array<E>(system.R, "R"));
}

template <class E, class OS, class DS, class XS>
Solver<E, OS, DS, XS>::Solver(detail::SetupPlan&& plan, std::shared_ptr<Halo<E, XS>> halo, const Progress& progress)
    : impl_(std::make_unique<detail::SolverImpl<E, OS, DS, XS>>(std::move(plan), std::move(halo), progress)) {}

template <class E, class OS, class DS, class XS>
Solver<E, OS, DS, XS>::Solver(Solver&&) noexcept = default;
template <class E, class OS, class DS, class XS>
Solver<E, OS, DS, XS>& Solver<E, OS, DS, XS>::operator=(Solver&&) noexcept = default;
template <class E, class OS, class DS, class XS>
Solver<E, OS, DS, XS>::~Solver() = default;

template <class E, class OS, class DS, class XS>
OStorage Solver<E, OS, DS, XS>::o_storage() const {
  return impl_->o_storage();
}
template <class E, class OS, class DS, class XS>
size_t Solver<E, OS, DS, XS>::device_bytes() const {
  return impl_->device_bytes();
}
template <class E, class OS, class DS, class XS>
int Solver<E, OS, DS, XS>::nb() const {
  return impl_->nb();
}
template <class E, class OS, class DS, class XS>
ordinal_t Solver<E, OS, DS, XS>::n() const {
  return impl_->n();
}
template <class E, class OS, class DS, class XS>
offset_t Solver<E, OS, DS, XS>::nnzb() const {
  return impl_->nnzb();
}
template <class E, class OS, class DS, class XS>
const Coloring& Solver<E, OS, DS, XS>::coloring() const {
  return impl_->coloring();
}
template <class E, class OS, class DS, class XS>
ordinal_t Solver<E, OS, DS, XS>::n_ghost() const {
  return impl_->n_ghost();
}
template <class E, class OS, class DS, class XS>
Halo<E, XS>* Solver<E, OS, DS, XS>::halo() const {
  return impl_->halo();
}
template <class E, class OS, class DS, class XS>
int Solver<E, OS, DS, XS>::group_width() {
  return detail::Sweeper<E, OS, DS, XS>::group_width();
}

template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::update_arrays(const E& exec, const detail::UserArray& O, const detail::UserArray& D,
                                          BlockOrder order) {
  impl_->update(exec, O, D, order);
}
template <class E, class OS, class DS, class XS>
typename Solver<E, OS, DS, XS>::Storage Solver<E, OS, DS, XS>::storage() {
  Storage st;
  st.nb = impl_->nb();
  impl_->storage(st.O, st.D, st.o_slot, st.d_slot);
  return st;
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::factor(const E& exec) {
  impl_->factor(exec);
}

template <class E, class OS, class DS, class XS>
Status Solver<E, OS, DS, XS>::apply_arrays(const E& exec, const detail::UserArray& R, const detail::UserArray& dQ,
                                           const Control& control) {
  return impl_->apply(exec, R, dQ, control);
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::multiply_arrays(const E& exec, const detail::UserArray& x, const detail::UserArray& y) {
  impl_->multiply(exec, x, y);
}

template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::to_internal(const E& exec, const ConstVector& x, const Vector& xi) const {
  impl_->to_internal(exec, x, xi);
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::to_user(const E& exec, const ConstVector& xi, const Vector& x) const {
  impl_->to_user(exec, xi, x);
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::multiply_internal(const E& exec, const ConstVector& x, const Vector& y) const {
  impl_->multiply_internal(exec, x, y);
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::precondition(const E& exec, const ConstVector& v, const Vector& z, int sweeps,
                                         const Variant& variant) {
  impl_->precondition(exec, v, z, sweeps, variant);
}
template <class E, class OS, class DS, class XS>
double Solver<E, OS, DS, XS>::norm(const E& exec, const ConstVector& x) const {
  return impl_->norm(exec, x);
}
template <class E, class OS, class DS, class XS>
std::string Solver<E, OS, DS, XS>::kernel_name(const E& exec, const Variant& v, bool backend_kernels) const {
  return impl_->resolve(exec, v, backend_kernels).name;
}
template <class E, class OS, class DS, class XS>
bool Solver<E, OS, DS, XS>::uses_backend_kernel(const Variant& v, bool backend_kernels) const {
  return impl_->resolve(E(), v, backend_kernels).specialised;
}

template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::reset() {
  impl_->reset();
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::sweep(const E& exec, const Variant& variant, bool stage_diagonal, bool backend_kernels,
                                  const KernelTuning& tuning) {
  impl_->sweep(exec, variant, stage_diagonal, backend_kernels, tuning);
}
template <class E, class OS, class DS, class XS>
bool Solver<E, OS, DS, XS>::sweep_graph(const E& exec, int count, const Variant& variant, const KernelTuning& tuning) {
  return impl_->sweep_graph(exec, count, variant, tuning);
}

template <class E, class OS, class DS, class XS>
GraphStats Solver<E, OS, DS, XS>::graph_stats() const {
  return impl_->graph_stats();
}

template <class E, class OS, class DS, class XS>
double Solver<E, OS, DS, XS>::residual_norm() {
  return impl_->residual_norm();
}
template <class E, class OS, class DS, class XS>
std::vector<double> Solver<E, OS, DS, XS>::dq_user() const {
  return impl_->dq_user();
}
template <class E, class OS, class DS, class XS>
ppsparse::backend::L2Window Solver<E, OS, DS, XS>::keep_iterate_in_l2(const E& exec) {
  return impl_->keep_iterate_in_l2(exec);
}

#define PPSPARSE_MCPI_INSTANTIATE_SOLVER(unused, OS, DS, XS) template class Solver<DefaultExecSpace, OS, DS, XS>;
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_SOLVER, _)
#undef PPSPARSE_MCPI_INSTANTIATE_SOLVER

}  // namespace ppsparse::mcpi
