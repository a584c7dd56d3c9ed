// The MCPI solver's first layer (level_arrays.hpp): one system's device arrays and their
// numeric phase, compiled once per precision on the default execution space.
#include "level_arrays.hpp"

#include <algorithm>
#include <climits>
#include <limits>
#include <stdexcept>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/detail/o_codec.hpp>
#include <ppsparse/reorder/permutation.hpp>

#include "block_lu.hpp"
#include "o_encode.hpp"
#include "precisions.hpp"
#include "vector_kernels.hpp"

namespace ppsparse::mcpi::detail {

namespace {

template <class T, class M>
void copy_in(const Kokkos::View<T*, M>& dst, const std::vector<T>& src) {
  Kokkos::deep_copy(dst, Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(src.data(), src.size()));
}

constexpr int kResidualSlots = 1024;

/// to_user(slot(k)) = k for every block k (synchronises). A free function: a CUDA extended
/// lambda may not sit in a private member.
template <class E, class M>
void invert_slots(const Kokkos::View<offset_t*, M>& slot, const Kokkos::View<offset_t*, M>& to_user) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::slot_to_user", Kokkos::RangePolicy<E>(0, slot.extent(0)),
      KOKKOS_LAMBDA(const size_t k) { to_user(static_cast<size_t>(slot(k))) = static_cast<offset_t>(k); });
  Kokkos::fence();
}

}  // namespace

template <class E, class OS, class DS, class XS>
LevelArrays<E, OS, DS, XS>::LevelArrays(SetupPlan&& plan, const Progress& progress) {
  s_.nb = plan.nb;
  const int nb = plan.nb;
  n_ = plan.n;
  n_ghost_ = plan.n_ghost;
  base_ = plan.index_base;
  global_ids_ = std::move(plan.global_ids);
  nnzb_ = static_cast<offset_t>(plan.ja.size());
  coloring_ = std::move(plan.coloring);
  boundary_end_ = std::move(plan.boundary_end);
  if (progress)
    progress("allocating " + std::to_string(n_) + " block rows in " + std::to_string(coloring_.ncolors) +
             " colours on " + std::string(E::name()));
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  s_.ia = Kokkos::View<offset_t*, memory_space>("mcpi.ia", static_cast<size_t>(n_) + 1);
  s_.ja = Kokkos::View<ordinal_t*, memory_space>("mcpi.ja", static_cast<size_t>(nnzb_));
  allocate_o(plan);
  s_.D = Kokkos::View<DS*, memory_space>("mcpi.D", static_cast<size_t>(n_) * nb2);
  if (o_storage_.lu_fp32)
    s_.d_lu32 = Kokkos::View<float*, memory_space>("mcpi.D_lu_fp32", static_cast<size_t>(n_) * nb2);
  r_ = Vector("mcpi.R", static_cast<size_t>(n_) * nb);
  o_slot_ = Kokkos::View<offset_t*, memory_space>("mcpi.o_slot", static_cast<size_t>(nnzb_));
  new_to_old_ = Kokkos::View<ordinal_t*, memory_space>("mcpi.new_to_old", static_cast<size_t>(n_));
  old_to_new_ = Kokkos::View<ordinal_t*, memory_space>("mcpi.old_to_new", static_cast<size_t>(n_));
  copy_in(s_.ia, plan.ia);
  copy_in(s_.ja, plan.ja);
  copy_in(o_slot_, plan.o_slot);
  copy_in(new_to_old_, coloring_.perm.new_to_old);
  copy_in(old_to_new_, coloring_.perm.old_to_new);
  ia_host_ = std::move(plan.ia);
  s_.rhs = r_;
  s_.dq = Kokkos::View<XS*, memory_space>("mcpi.dq", (static_cast<size_t>(n_) + n_ghost_) * nb);
  work_ = Vector("mcpi.work", static_cast<size_t>(n_) * nb);
  s_.residual_sq = Vector("mcpi.residual_sq", kResidualSlots);
  first_bad_block_ = Kokkos::View<long long, memory_space>("mcpi.first_bad_block");
  Kokkos::deep_copy(first_bad_block_, LLONG_MAX);
  ordinal_t max_color_rows = 0;
  for (ordinal_t c = 0; c < coloring_.ncolors; ++c)
    max_color_rows = std::max(max_color_rows, coloring_.color_offsets[c + 1] - coloring_.color_offsets[c]);
  s_.r_tmp = Vector("mcpi.r_tmp", static_cast<size_t>(max_color_rows) * nb);
  // Poisoned, so that an entry the split kernel reads before writing shows up as NaN.
  Kokkos::deep_copy(s_.r_tmp, std::numeric_limits<double>::quiet_NaN());
}

template <class E, class OS, class DS, class XS>
size_t LevelArrays<E, OS, DS, XS>::device_bytes() const {
  auto bytes = [](const auto& v) { return v.span() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
  return bytes(s_.ia) + bytes(s_.ja) + bytes(s_.O) + bytes(s_.o_coded) + bytes(s_.o_scale) + bytes(s_.D) +
         bytes(s_.d_lu32) + bytes(s_.dq) + bytes(s_.r_tmp) + bytes(s_.residual_sq) + bytes(r_) + bytes(new_to_old_) +
         bytes(old_to_new_) + bytes(o_slot_) + bytes(slot_to_user_) + bytes(work_) + bytes(first_bad_block_) +
         bytes(o_user_);
}

/// O's storage in the plan's format: the plain O (fp32, or a coded format's kept FP32 copy)
/// and the codec's entries and scales.
template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::allocate_o(const SetupPlan& plan) {
  o_storage_ = plan.o_storage;
  s_.o_format = o_storage_.format;
  const size_t entries = static_cast<size_t>(nnzb_) * plan.nb * plan.nb;
  if (reduced() && !SweeperType::default_precision)
    throw InvalidArgument(std::string("mcpi setup: O in ") + name(o_storage_.format) +
                          " needs the default precisions (FP32 O and dQ, FP64 D)");
  if (o_storage_.lu_fp32 && !SweeperType::default_precision)
    throw InvalidArgument(
        "mcpi setup: D's LU factors in FP32 for the sweeps (OStorage::lu_fp32) need the default precisions (FP32 O "
        "and dQ, FP64 D)");
  if (operator_full()) s_.O = Kokkos::View<OS*, memory_space>("mcpi.O", entries);
  if (o_storage_.keep_fp64) o_user_ = Kokkos::View<double*, memory_space>("mcpi.O_user_fp64", entries);
  with_codec(o_storage_.format, [&](auto codec) {
    using Codec = decltype(codec);
    if constexpr (!Codec::plain) {
      // Padded by 16 bytes: the CUDA kernels read a column as the aligned words covering it.
      s_.o_coded = Kokkos::View<unsigned char*, memory_space>(std::string("mcpi.O_") + name(o_storage_.format),
                                                              entries * sizeof(typename Codec::stored) + 16);
      if constexpr (Codec::scale == OScale::per_block_row)
        s_.o_scale = Kokkos::View<std::int8_t*, memory_space>("mcpi.O_scale", static_cast<size_t>(plan.n) + 16);
      if constexpr (Codec::scale == OScale::per_column_of_block)
        s_.o_scale =
            Kokkos::View<std::int8_t*, memory_space>("mcpi.O_scale", static_cast<size_t>(nnzb_) * plan.nb + 16);
    }
  });
}

/// slot_to_user_ from o_slot_, at its first use: a coded O encoded from the user's arrays, or
/// an error naming the user's block of a slot. A multigrid's coarse level, which has no user
/// arrays, holds none while its values are finite.
template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::make_slot_to_user() const {
  if (slot_to_user_.extent(0) == static_cast<size_t>(nnzb_)) return;
  slot_to_user_ = Kokkos::View<offset_t*, memory_space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "mcpi.slot_to_user"), static_cast<size_t>(nnzb_));
  invert_slots<E>(o_slot_, slot_to_user_);
}

/// Converts O from `source` (o_encode.hpp) into the coded format, the first slot holding a
/// NaN or Inf into first_bad_block_ (set by the caller).
template <class E, class OS, class DS, class XS>
template <class Source>
void LevelArrays<E, OS, DS, XS>::encode_o(const E& exec, const Source& source) {
  with_codec(o_storage_.format, [&](auto codec) {
    using Codec = decltype(codec);
    if constexpr (!Codec::plain) encode_by<Codec>(exec, source);
  });
}

/// Converts the FP32 O (the kept copy or the staging of an assembly in place) into the coded
/// format; NumericalError naming the user's block of a NaN or Inf (synchronises).
template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::encode_fp32_copy(const E& exec) {
  Kokkos::deep_copy(exec, first_bad_block_, LLONG_MAX);
  encode_o(exec, impl::SlotValues<decltype(s_.O)>{s_.O, s_.nb * s_.nb});
  check_encoded(exec);
}

/// first_bad_block_ on the host (LLONG_MAX: none); synchronises.
template <class E, class OS, class DS, class XS>
long long LevelArrays<E, OS, DS, XS>::first_bad(const E& exec) const {
  long long bad = LLONG_MAX;
  Kokkos::deep_copy(exec, Kokkos::View<long long, HostSpace>(&bad), first_bad_block_);
  exec.fence();
  return bad;
}

/// After encode_o: NumericalError naming the user's block of the first bad slot (synchronises).
template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::check_encoded(const E& exec) const {
  const long long bad = first_bad(exec);
  if (bad == LLONG_MAX) return;
  make_slot_to_user();
  offset_t k = 0;
  Kokkos::deep_copy(Kokkos::View<offset_t, HostSpace>(&k), Kokkos::subview(slot_to_user_, static_cast<size_t>(bad)));
  throw_not_finite_block(k, o_storage_.format != OFormat::fp32);
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::storage(Kokkos::View<OS*, memory_space>& O, Kokkos::View<DS*, memory_space>& D,
                                         Kokkos::View<const offset_t*, memory_space>& o_slot,
                                         Kokkos::View<const ordinal_t*, memory_space>& d_slot) {
  has_values_ = false;
  if (o_storage_.keep_fp64)
    throw InvalidArgument(
        "mcpi storage(): the solver keeps the user's O in FP64 (OStorage::keep_fp64), which only update() fills; "
        "an assembly in place would leave it stale");
  storage_views(O, D, o_slot, d_slot);
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::storage_views(Kokkos::View<OS*, memory_space>& O, Kokkos::View<DS*, memory_space>& D,
                                               Kokkos::View<const offset_t*, memory_space>& o_slot,
                                               Kokkos::View<const ordinal_t*, memory_space>& d_slot, bool fp32_o) {
  if (fp32_o) allocate_staging();
  O = s_.O;
  D = s_.D;
  o_slot = o_slot_;
  d_slot = old_to_new_;
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::allocate_staging() {
  if (reduced() && s_.O.extent(0) == 0)
    s_.O = Kokkos::View<OS*, memory_space>("mcpi.O_fp32_staging", static_cast<size_t>(nnzb_) * s_.nb * s_.nb);
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::factor(const E& exec) {
  has_values_ = false;
  if (reduced() && s_.O.extent(0) > 0)
    encode_fp32_copy(exec);  // O written in place: convert it
  else if (reduced())
    check_encoded(exec);  // coded by encode_o_from
  check_factored(factor_diagonal_blocks(exec, s_.D, s_.nb, n_));
  round_lu(exec);
  has_values_ = true;
}

/// OStorage::lu_fp32: the sweeps' copy of D's factors, rounded to nearest FP32 (an FP64 factor
/// beyond FP32's range becomes Inf, which the sweeps would spread: refused, naming the row).
template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::round_lu(const E& exec) {
  if (s_.d_lu32.extent(0) == 0) return;
  const long long first = impl::round_to_fp32(exec, s_.D, s_.d_lu32, static_cast<size_t>(s_.nb) * s_.nb);
  if (first < 0) return;
  throw NumericalError("mcpi: D block row " + user_row(static_cast<ordinal_t>(first)) +
                       ": its LU factors exceed FP32's range (OStorage::lu_fp32); keep them in FP64");
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::require_values(const char* what) const {
  if (!has_values_)
    throw InvalidArgument(std::string("mcpi ") + what +
                          ": the solver holds no factored values (call update(), or factor() after writing into "
                          "storage())");
}

/// NumericalError naming the user's block row for a failure code of factor_diagonal_blocks.
template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::check_factored(long long failure) const {
  if (failure < 0) return;
  const ordinal_t user = coloring_.perm.new_to_old[failed_block(failure)];
  throw_pivot_failure(failure, s_.nb, user, base_, global_name(user));
}

/// A device view of the user's input: itself when exec can read it, otherwise a copy in the
/// device staging buffer at byte_offset (reserved by load_values).
template <class E, class OS, class DS, class XS>
template <class T>
Kokkos::View<const T*, typename E::memory_space, Kokkos::MemoryUnmanaged> LevelArrays<E, OS, DS, XS>::device_input(
    const E& exec, const UserArray& a, size_t byte_offset) {
  using Input = Kokkos::View<const T*, memory_space, Kokkos::MemoryUnmanaged>;
  if (a.exec_accessible) return Input(static_cast<const T*>(a.data), a.size);
  const size_t need = byte_offset + a.size * sizeof(T);
  if (stage_.extent(0) < need) throw std::logic_error("mcpi: staging buffer not reserved");
  Kokkos::View<T*, memory_space, Kokkos::MemoryUnmanaged> dst(reinterpret_cast<T*>(stage_.data() + byte_offset),
                                                              a.size);
  Kokkos::deep_copy(exec, dst,
                    Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<const T*>(a.data), a.size));
  return Input(dst.data(), dst.extent(0));
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::load_values(const E& exec, const UserArray& O, const UserArray& D, BlockOrder order,
                                             Load how) {
  has_values_ = false;
  const size_t nb2 = static_cast<size_t>(s_.nb) * s_.nb;
  if (O.size != static_cast<size_t>(nnzb_) * nb2)
    throw InvalidArgument("mcpi update: O has " + std::to_string(O.size) +
                          " values, expected nnzb * nb * nb = " + std::to_string(static_cast<size_t>(nnzb_) * nb2));
  if (D.size != static_cast<size_t>(n_) * nb2)
    throw InvalidArgument("mcpi update: D has " + std::to_string(D.size) +
                          " values, expected n * nb * nb = " + std::to_string(static_cast<size_t>(n_) * nb2));
  // Host inputs share one staging buffer, sized for both before either is staged (first use).
  const size_t o_bytes = (O.size * (O.is_double ? sizeof(double) : sizeof(float)) + 63) / 64 * 64;
  const size_t stage_bytes = o_bytes + D.size * (D.is_double ? sizeof(double) : sizeof(float));
  if ((!O.exec_accessible || !D.exec_accessible) && stage_.extent(0) < stage_bytes)
    stage_ = Kokkos::View<unsigned char*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mcpi.stage"),
                                                        stage_bytes);
  const auto with_d = [&](auto o_type) {
    using OT = decltype(o_type);
    if (D.is_double)
      load_typed<OT, double>(exec, O, D, order, how, o_bytes);
    else
      load_typed<OT, float>(exec, O, D, order, how, o_bytes);
  };
  if (O.is_double)
    with_d(double{});
  else
    with_d(float{});
}

template <class E, class OS, class DS, class XS>
template <class OT, class DT>
void LevelArrays<E, OS, DS, XS>::load_typed(const E& exec, const UserArray& O, const UserArray& D, BlockOrder order,
                                            Load how, size_t o_bytes) {
  const auto o = device_input<OT>(exec, O, 0);
  const auto d = device_input<DT>(exec, D, o_bytes);
  const bool row_major = order == BlockOrder::row_major;
  const bool stage = how == Load::stage;
  if (stage) allocate_staging();
  Kokkos::deep_copy(exec, first_bad_block_, LLONG_MAX);
  if (operator_full() || stage) impl::scatter_o(exec, o, o_slot_, s_.nb, row_major, s_.O, first_bad_block_);
  if (o_storage_.keep_fp64) impl::scatter_o(exec, o, o_slot_, s_.nb, row_major, o_user_, first_bad_block_);
  const bool encode_user = reduced() && !o_storage_.keep_fp32 && !stage;
  if (encode_user) make_slot_to_user();
  if (encode_user)
    encode_o(exec, impl::UserValues<decltype(o), decltype(slot_to_user_)>{o, slot_to_user_, s_.nb, row_major});
  const impl::UserDiagonalBlocks<decltype(d), decltype(new_to_old_)> source{d, new_to_old_, s_.nb, row_major};
  long long failure = -1;
  if (how == Load::factor)
    failure = factor_diagonal_blocks_from(exec, source, s_.D, s_.nb, n_);
  else
    impl::copy_diagonal_blocks(exec, source, s_.nb, s_.D);
  if (encode_user) {
    check_encoded(exec);
  } else {
    const long long bad = first_bad(exec);
    if (bad != LLONG_MAX) throw_not_finite_block(bad);
    if (stage) return;                      // factor() encodes and factors
    if (reduced()) encode_fp32_copy(exec);  // from the FP32 copy just written
  }
  check_factored(failure);
  round_lu(exec);
  has_values_ = true;
}

/// NumericalError naming user block k of O (its user row and column); `rounded`: the value
/// is finite but does not fit the coded format.
template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::throw_not_finite_block(long long k, bool rounded) const {
  offset_t slot = 0;
  Kokkos::deep_copy(Kokkos::View<offset_t, HostSpace>(&slot), Kokkos::subview(o_slot_, static_cast<size_t>(k)));
  const auto row = std::upper_bound(ia_host_.begin(), ia_host_.end(), slot) - ia_host_.begin() - 1;
  ordinal_t col = 0;
  Kokkos::deep_copy(Kokkos::View<ordinal_t, HostSpace>(&col), Kokkos::subview(s_.ja, static_cast<size_t>(slot)));
  // A ghost column is named by its global id, the only name the user gave it.
  const std::string column = col < n_ ? user_row(col, false)
                             : global_ids_.empty()
                                 ? "ghost " + std::to_string(col - n_ + base_)
                                 : "ghost with global id " + std::to_string(global_ids_[static_cast<size_t>(col)]);
  throw NumericalError(
      "mcpi: O block " + std::to_string(k + base_) + " (" + user_row(row, false) + ", " + column + ")" +
      (base_ ? ", numbered from 1," : "") + " holds a NaN or Inf" +
      (rounded ? std::string(" (or a value beyond FP32's range, as stored in ") + name(o_storage_.format) + ")"
               : std::string()));
}

template <class E, class OS, class DS, class XS>
std::string LevelArrays<E, OS, DS, XS>::user_row(ordinal_t row, bool say_base) const {
  const ordinal_t user = coloring_.perm.new_to_old[row];
  return std::to_string(user + base_) + (say_base && base_ ? " (numbered from 1)" : "") + global_name(user);
}

template <class E, class OS, class DS, class XS>
std::string LevelArrays<E, OS, DS, XS>::global_name(ordinal_t user) const {
  return global_ids_.empty() ? std::string()
                             : " (global id " + std::to_string(global_ids_[static_cast<size_t>(user)]) + ")";
}

template <class E, class OS, class DS, class XS>
Kokkos::View<XS*, typename E::memory_space> LevelArrays<E, OS, DS, XS>::dq_owned() const {
  return Kokkos::subview(s_.dq, std::make_pair(size_t(0), static_cast<size_t>(n_) * s_.nb));
}

template <class E, class OS, class DS, class XS>
std::vector<double> LevelArrays<E, OS, DS, XS>::dq_user() const {
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), dq_owned());
  std::vector<double> x(h.extent(0));
  for (size_t i = 0; i < x.size(); ++i) x[i] = h(i);
  return to_old(x, coloring_.perm, s_.nb);
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::to_internal(const E& exec, const ConstVector& x, const Vector& xi) const {
  impl::to_internal(exec, new_to_old_, s_.nb, x, xi);
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::to_user(const E& exec, const ConstVector& xi, const Vector& x) const {
  impl::to_user(exec, new_to_old_, s_.nb, xi, x);
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::dq_from_user(const E& exec, const ConstVector& x) const {
  impl::to_internal(exec, new_to_old_, s_.nb, x, dq_owned());
}

template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::dq_to_user(const E& exec, const Vector& x) const {
  impl::to_user(exec, new_to_old_, s_.nb, dq_owned(), x);
}

template <class E, class OS, class DS, class XS>
bool LevelArrays<E, OS, DS, XS>::operator_full() const {
  return !reduced() || o_storage_.keep_fp32;
}

/// D through its LU factors: U x into work_ first.
template <class E, class OS, class DS, class XS>
void LevelArrays<E, OS, DS, XS>::operator_apply(const E& exec, const ConstVector& x, const Vector& y, bool user) const {
  const auto run = [&](const auto& oa) {
    impl::OperatorRow<memory_space, ConstVector, std::decay_t<decltype(oa)>, DS> op{
        new_to_old_, s_.D, work_, s_.ia, s_.ja, oa, x, s_.nb, user};
    impl::operator_upper(exec, op, work_);
    impl::operator_apply(exec, op, y);
  };
  if (o_storage_.keep_fp64)
    run(impl::PlainO<memory_space, double>{o_user_});
  else
    s_.visit_o(operator_full(), run);
}

template <class E, class OS, class DS, class XS>
std::string LevelArrays<E, OS, DS, XS>::residual_system() const {
  if (reduced() && o_storage_.keep_fp32) return "O's FP32 copy";
  return std::string("O as stored (") + (std::is_same_v<OS, double> ? "fp64" : name(o_storage_.format)) + ")";
}

template <class E, class OS, class DS, class XS>
std::string LevelArrays<E, OS, DS, XS>::operator_system() const {
  return o_storage_.keep_fp64 ? std::string("the user's O in FP64") : residual_system();
}

#define PPSPARSE_MCPI_INSTANTIATE_LEVEL_ARRAYS(unused, OS, DS, XS) \
  template class LevelArrays<DefaultExecSpace, OS, DS, XS>;
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_LEVEL_ARRAYS, _)
#undef PPSPARSE_MCPI_INSTANTIATE_LEVEL_ARRAYS

}  // namespace ppsparse::mcpi::detail
