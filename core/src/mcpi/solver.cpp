// The MCPI solver's facade (mcpi/solver.hpp) over its three layers (solver_impl.hpp): checks of
// the user's arguments, the staging of host vectors, and the calls into the layers; compiled
// once per supported precision on the default execution space.
#include <ppsparse/mcpi/solver.hpp>

#include <cmath>

#include "solver_impl.hpp"
#include "vector_kernels.hpp"

namespace ppsparse::mcpi {

namespace {

/// A device vector for a user vector: itself when exec can reach it, otherwise `stage`
/// (allocated on first use), filled from v when `fill`.
template <class E>
Kokkos::View<double*, typename E::memory_space> device_vector(const E& exec, const detail::UserArray& v,
                                                              Kokkos::View<double*, typename E::memory_space>& stage,
                                                              bool fill = true) {
  using Vector = Kokkos::View<double*, typename E::memory_space>;
  if (v.exec_accessible) return Vector(static_cast<double*>(v.data), v.size);
  if (stage.extent(0) != v.size)
    stage = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mcpi.vector_stage"), v.size);
  if (fill)
    Kokkos::deep_copy(
        exec, stage,
        Kokkos::View<const double*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<const double*>(v.data), v.size));
  return stage;
}

/// Copies a staged result back to the user's host vector (and fences).
template <class E>
void write_back(const E& exec, const Kokkos::View<double*, typename E::memory_space>& result,
                const detail::UserArray& user) {
  if (result.data() == user.data) return;
  Kokkos::deep_copy(
      exec, Kokkos::View<double*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<double*>(user.data), user.size),
      result);
  exec.fence();
}

/// InvalidArgument unless a user vector has n * nb entries.
void check_vector_size(const char* what, size_t size, ordinal_t n, int nb) {
  const size_t want = static_cast<size_t>(n) * nb;
  if (size != want)
    throw InvalidArgument(std::string("mcpi ") + what + " has " + std::to_string(size) +
                          " entries, expected n * nb = " + std::to_string(want));
}

/// InvalidArgument on a distributed solver, for what only one rank can do.
template <class H>
void require_single_rank(const H* halo, const char* what) {
  if (halo)
    throw InvalidArgument(std::string("mcpi ") + what +
                          ": not available on a distributed solver (apply, precondition and solve are)");
}

}  // namespace

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
  auto& a = impl_->arrays;
  using Load = typename detail::SolverImpl<E, OS, DS, XS>::Arrays::Load;
  a.load_values(exec, detail::user_array<E>(system.O.values, "O"), detail::user_array<E>(system.D, "D"),
                BlockOrder::column_major, system.d_factored ? Load::factored : Load::factor);
  a.to_internal(exec, ConstVector(device_vector(exec, detail::user_array<E>(system.R, "R"), impl_->vec_in)), a.r());
  exec.fence();
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
  return impl_->arrays.o_storage();
}
template <class E, class OS, class DS, class XS>
size_t Solver<E, OS, DS, XS>::device_bytes() const {
  return impl_->arrays.device_bytes();
}
template <class E, class OS, class DS, class XS>
int Solver<E, OS, DS, XS>::nb() const {
  return impl_->arrays.nb();
}
template <class E, class OS, class DS, class XS>
ordinal_t Solver<E, OS, DS, XS>::n() const {
  return impl_->arrays.n();
}
template <class E, class OS, class DS, class XS>
offset_t Solver<E, OS, DS, XS>::nnzb() const {
  return impl_->arrays.nnzb();
}
template <class E, class OS, class DS, class XS>
const Coloring& Solver<E, OS, DS, XS>::coloring() const {
  return impl_->arrays.coloring();
}
template <class E, class OS, class DS, class XS>
ordinal_t Solver<E, OS, DS, XS>::n_ghost() const {
  return impl_->arrays.n_ghost();
}
template <class E, class OS, class DS, class XS>
Halo<E, XS>* Solver<E, OS, DS, XS>::halo() const {
  return impl_->loop.halo();
}
template <class E, class OS, class DS, class XS>
int Solver<E, OS, DS, XS>::group_width() {
  return detail::Sweeper<E, OS, DS, XS>::group_width();
}

template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::update_arrays(const E& exec, const detail::UserArray& O, const detail::UserArray& D,
                                          BlockOrder order) {
  impl_->loop.collectively(
      [&] { impl_->arrays.load_values(exec, O, D, order, detail::SolverImpl<E, OS, DS, XS>::Arrays::Load::factor); });
}
template <class E, class OS, class DS, class XS>
typename Solver<E, OS, DS, XS>::Storage Solver<E, OS, DS, XS>::storage() {
  Storage st;
  st.nb = impl_->arrays.nb();
  impl_->arrays.storage(st.O, st.D, st.o_slot, st.d_slot);
  return st;
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::factor(const E& exec) {
  impl_->loop.collectively([&] { impl_->arrays.factor(exec); });
}

template <class E, class OS, class DS, class XS>
Status Solver<E, OS, DS, XS>::apply_arrays(const E& exec, const detail::UserArray& R, const detail::UserArray& dQ,
                                           const Control& control) {
  auto& a = impl_->arrays;
  const bool given = control.initial_guess == InitialGuess::given;
  Vector x;
  impl_->loop.collectively([&] {
    check_control(control);
    a.require_values("apply");
    check_vector_size("apply: R", R.size, a.n(), a.nb());
    check_vector_size("apply: dQ", dQ.size, a.n(), a.nb());
    a.to_internal(exec, ConstVector(device_vector(exec, R, impl_->vec_in)), a.r());
    a.sweeper().rhs = a.r();
    x = device_vector(exec, dQ, impl_->vec_out, given);
    Kokkos::deep_copy(exec, a.sweeper().dq, XS(0));
    if (given) a.dq_from_user(exec, ConstVector(x));
  });
  const Status st = detail::run_apply(exec, a, impl_->loop, control, given);
  a.dq_to_user(exec, x);
  write_back(exec, x, dQ);
  return st;
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::multiply_arrays(const E& exec, const detail::UserArray& x, const detail::UserArray& y) {
  auto& a = impl_->arrays;
  require_single_rank(halo(), "multiply");
  a.require_values("multiply");
  check_vector_size("multiply: x", x.size, a.n(), a.nb());
  check_vector_size("multiply: y", y.size, a.n(), a.nb());
  const auto xd = device_vector(exec, x, impl_->vec_in);
  const auto yd = device_vector(exec, y, impl_->vec_out, false);
  a.operator_apply(exec, ConstVector(xd), yd, true);
  write_back(exec, yd, y);
}

template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::to_internal(const E& exec, const ConstVector& x, const Vector& xi) const {
  impl_->arrays.to_internal(exec, x, xi);
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::to_user(const E& exec, const ConstVector& xi, const Vector& x) const {
  impl_->arrays.to_user(exec, xi, x);
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::multiply_internal(const E& exec, const ConstVector& x, const Vector& y) const {
  require_single_rank(halo(), "multiply_internal");
  impl_->arrays.operator_apply(exec, x, y, false);
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::precondition(const E& exec, const ConstVector& v, const Vector& z, int sweeps,
                                         const Variant& variant) {
  detail::precondition(exec, impl_->arrays, impl_->loop, v, z, sweeps, variant);
}
template <class E, class OS, class DS, class XS>
double Solver<E, OS, DS, XS>::norm(const E& exec, const ConstVector& x) const {
  return std::sqrt(impl_->loop.global_sum(impl::sum_squares(exec, x)));
}
template <class E, class OS, class DS, class XS>
std::string Solver<E, OS, DS, XS>::operator_system() const {
  return impl_->arrays.operator_system();
}
template <class E, class OS, class DS, class XS>
std::string Solver<E, OS, DS, XS>::kernel_name(const E& exec, const Variant& v, bool backend_kernels) const {
  return impl_->arrays.sweeper().resolve(exec, v, backend_kernels, KernelTuning{}).name;
}
template <class E, class OS, class DS, class XS>
bool Solver<E, OS, DS, XS>::uses_backend_kernel(const Variant& v, bool backend_kernels) const {
  return impl_->arrays.sweeper().resolve(E(), v, backend_kernels, KernelTuning{}).specialised;
}

template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::reset() {
  auto& s = impl_->arrays.sweeper();
  s.rhs = impl_->arrays.r();
  Kokkos::deep_copy(s.dq, XS(0));
}
template <class E, class OS, class DS, class XS>
void Solver<E, OS, DS, XS>::sweep(const E& exec, const Variant& variant, bool stage_diagonal, bool backend_kernels,
                                  const KernelTuning& tuning) {
  impl_->arrays.require_values("sweep");
  auto& s = impl_->arrays.sweeper();
  s.stage_diagonal = stage_diagonal;
  impl_->loop.sweep(exec, impl_->loop.resolved(exec, variant, backend_kernels, tuning));
  s.stage_diagonal = false;
}
template <class E, class OS, class DS, class XS>
bool Solver<E, OS, DS, XS>::sweep_graph(const E& exec, int count, const Variant& variant, const KernelTuning& tuning) {
  impl_->arrays.require_values("sweep_graph");
  if (count < 0) throw InvalidArgument("mcpi sweep_graph: count must be >= 0, got " + std::to_string(count));
  check_tuning(tuning);
  return impl_->loop.run_sweeps(exec, impl_->loop.resolved(exec, variant, true, tuning), count, true);
}

template <class E, class OS, class DS, class XS>
GraphStats Solver<E, OS, DS, XS>::graph_stats() const {
  return impl_->loop.graph_stats();
}

template <class E, class OS, class DS, class XS>
double Solver<E, OS, DS, XS>::residual_norm() {
  return impl_->loop.true_residual(E());
}
template <class E, class OS, class DS, class XS>
std::vector<double> Solver<E, OS, DS, XS>::dq_user() const {
  return impl_->arrays.dq_user();
}
template <class E, class OS, class DS, class XS>
ppsparse::backend::L2Window Solver<E, OS, DS, XS>::keep_iterate_in_l2(const E& exec) {
  const auto& dq = impl_->arrays.sweeper().dq;
  return ppsparse::backend::l2_window_begin(exec, dq.data(), dq.span() * sizeof(XS));
}

#define PPSPARSE_MCPI_INSTANTIATE_SOLVER(unused, OS, DS, XS) template class Solver<DefaultExecSpace, OS, DS, XS>;
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_SOLVER, _)
#undef PPSPARSE_MCPI_INSTANTIATE_SOLVER

}  // namespace ppsparse::mcpi
