#pragma once
/// @file
/// The first layer of the MCPI solver: one block system's device arrays in colour order and
/// their numeric phase. Built from a SetupPlan (pattern and colouring, setup.cpp), it holds O
/// in its storage format (mcpi/o_formats.def), D's LU factors, the maps between the user's
/// numbering and the colour order, and R; update() and factor() fill and check the values,
/// naming the user's blocks in errors. It knows no halo and runs no sweep: the colour loop
/// (color_loop.hpp) sweeps over its Sweeper, and a multigrid level holds one of each.
#include <climits>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <ppsparse/mcpi/detail/user_array.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/mcpi/setup.hpp>
#include <ppsparse/reorder/coloring.hpp>
#include <ppsparse/types.hpp>

#include "o_encode.hpp"
#include "sweeper.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
class LevelArrays {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using Vector = Kokkos::View<double*, memory_space>;
  using ConstVector = Kokkos::View<const double*, memory_space>;
  using Progress = std::function<void(const std::string&)>;
  using SweeperType = Sweeper<ExecSpace, OScalar, DScalar, XScalar>;

  /// Allocates every array of the plan's system on the device (progress, if set, hears it).
  LevelArrays(SetupPlan&& plan, const Progress& progress);

  int nb() const { return s_.nb; }
  ordinal_t n() const { return n_; }
  ordinal_t n_ghost() const { return n_ghost_; }
  offset_t nnzb() const { return nnzb_; }
  int index_base() const { return base_; }
  const Coloring& coloring() const { return coloring_; }
  /// Per colour, the end of its boundary rows (a distributed plan's; empty on one rank).
  const std::vector<ordinal_t>& boundary_end() const { return boundary_end_; }
  OStorage o_storage() const { return o_storage_; }
  size_t device_bytes() const;

  /// The arrays as the kernels see them. sweeper().rhs is what the sweeps read as R.
  SweeperType& sweeper() { return s_; }
  const SweeperType& sweeper() const { return s_; }

  // ---- numeric phase (each synchronises) ----

  /// What load_values does with D, and where O goes.
  enum class Load {
    factor,    ///< O into its stored format, D factored as it is read (update())
    factored,  ///< the same, D given as LU factors and copied
    /// O into the FP32 storage of an assembly in place and D copied unfactored: the state that
    /// factor() completes (the multigrid's Galerkin product reads the values in between)
    stage
  };
  /// The user's O and D on exec: O's blocks into their slots, D as `how` says. NumericalError
  /// naming the user's block for a NaN or Inf in O (checked first) or a failed pivot.
  void load_values(const ExecSpace& exec, const UserArray& O, const UserArray& D, BlockOrder order, Load how);
  /// The value storage for an assembly in place (mcpi::Solver::Storage); InvalidArgument where
  /// the solver keeps the user's O in FP64, which only load_values fills.
  void storage(Kokkos::View<OScalar*, memory_space>& O, Kokkos::View<DScalar*, memory_space>& D,
               Kokkos::View<const offset_t*, memory_space>& o_slot,
               Kokkos::View<const ordinal_t*, memory_space>& d_slot);
  /// The same views, unchecked and leaving the values in place: the multigrid's Galerkin
  /// product reads and writes its levels' values there between load_values (Load::stage) and
  /// factor(). With `fp32_o` false a reduced format gets no FP32 staging (O empty): a coarse
  /// level's O is then coded straight from its Galerkin sums (encode_o_from).
  void storage_views(Kokkos::View<OScalar*, memory_space>& O, Kokkos::View<DScalar*, memory_space>& D,
                     Kokkos::View<const offset_t*, memory_space>& o_slot,
                     Kokkos::View<const ordinal_t*, memory_space>& d_slot, bool fp32_o = true);
  /// O coded straight from `source` (o_encode.hpp: entry j * nb + i of the block in slot p, as
  /// FP32) by Codec, the codec of the level's reduced format, with no FP32 staging; the next
  /// factor() names the block of a NaN or Inf. Asynchronous on exec.
  template <class Codec, class Source>
  void encode_o_from(const ExecSpace& exec, const Source& source) {
    if (o_storage_.format == OFormat::fp32 || s_.O.extent(0) > 0)
      throw std::logic_error("mcpi: encode_o_from needs a reduced O without its FP32 staging");
    Kokkos::deep_copy(exec, first_bad_block_, LLONG_MAX);
    encode_by<Codec>(exec, source);
  }
  /// After an assembly in place: O converted into its stored format, D factored.
  void factor(const ExecSpace& exec);
  bool has_values() const { return has_values_; }
  /// InvalidArgument unless values were loaded ("mcpi <what>: ...").
  void require_values(const char* what) const;

  // ---- vectors ----

  /// The stored R in colour order (what the sweeps read unless sweeper().rhs is pointed elsewhere).
  const Vector& r() const { return r_; }
  /// The owned rows of dQ (the ghosts follow them in sweeper().dq).
  Kokkos::View<XScalar*, memory_space> dq_owned() const;
  /// The current dQ in the user's numbering, on the host.
  std::vector<double> dq_user() const;
  void to_internal(const ExecSpace& exec, const ConstVector& x, const Vector& xi) const;
  void to_user(const ExecSpace& exec, const ConstVector& xi, const Vector& x) const;
  /// The owned rows of dQ from x in the user's numbering, and back (with conversion).
  void dq_from_user(const ExecSpace& exec, const ConstVector& x) const;
  void dq_to_user(const ExecSpace& exec, const Vector& x) const;
  /// y = (D + O) x in FP64, x and y in the user's numbering (`user`) or in colour order, on exec;
  /// O the FP32 copy where the format keeps one (operator_full).
  void operator_apply(const ExecSpace& exec, const ConstVector& x, const Vector& y, bool user) const;
  /// Whether the operator and the true residuals read an FP32 O (fp32, or a kept copy).
  bool operator_full() const;
  /// The systems that the operator (operator_apply) and the true residuals (the colour loop's)
  /// measure, in Status::system's words.
  std::string operator_system() const;
  std::string residual_system() const;
  /// The user's block row of colour-ordered row `row`, in the user's numbering ("17", with
  /// " (numbered from 1)" where the base is 1 and `say_base`, and " (global id 1234)" on a
  /// distributed system).
  std::string user_row(ordinal_t row, bool say_base = true) const;

 private:
  bool reduced() const { return o_storage_.format != OFormat::fp32; }
  void allocate_o(const SetupPlan& plan);
  template <class Source>
  void encode_o(const ExecSpace& exec, const Source& source);
  /// encode_o by Codec (a coded format's): o_coded read as its stored type.
  template <class Codec, class Source>
  void encode_by(const ExecSpace& exec, const Source& source) {
    using Stored = typename Codec::stored;
    const Kokkos::View<Stored*, memory_space, Kokkos::MemoryUnmanaged> stored(
        reinterpret_cast<Stored*>(s_.o_coded.data()), s_.o_coded.extent(0) / sizeof(Stored));
    impl::encode_o<Codec>(exec, source, s_.ia, n_, s_.nb, stored, s_.o_scale, first_bad_block_);
  }
  void encode_fp32_copy(const ExecSpace& exec);
  void make_slot_to_user() const;
  long long first_bad(const ExecSpace& exec) const;
  void check_encoded(const ExecSpace& exec) const;
  void check_factored(long long failure) const;
  void round_lu(const ExecSpace& exec);
  [[noreturn]] void throw_not_finite_block(long long k, bool rounded = false) const;
  /// " (global id G)" for the user's row `user` of a distributed system, else "".
  std::string global_name(ordinal_t user) const;
  template <class T>
  Kokkos::View<const T*, memory_space, Kokkos::MemoryUnmanaged> device_input(const ExecSpace& exec, const UserArray& a,
                                                                             size_t byte_offset);
  template <class OT, class DT>
  void load_typed(const ExecSpace& exec, const UserArray& O, const UserArray& D, BlockOrder order, Load how,
                  size_t o_bytes);
  /// The FP32 O that an assembly in place writes (a reduced format's staging, allocated here).
  void allocate_staging();

  SweeperType s_;
  ordinal_t n_ = 0;
  ordinal_t n_ghost_ = 0;
  int base_ = 0;                       ///< the user's index base: errors name blocks and rows from it
  std::vector<long long> global_ids_;  ///< SetupPlan::global_ids: errors name them too
  offset_t nnzb_ = 0;
  Coloring coloring_;
  std::vector<ordinal_t> boundary_end_;
  std::vector<offset_t> ia_host_;  ///< colour-ordered row pointers (error messages)
  Vector r_;                       ///< R in colour order
  Kokkos::View<ordinal_t*, memory_space> new_to_old_, old_to_new_;
  Kokkos::View<offset_t*, memory_space> o_slot_;
  OStorage o_storage_;
  mutable Kokkos::View<offset_t*, memory_space> slot_to_user_;  ///< a reduced format's, made at first use
  Vector work_;                                                 ///< U x of the operator, n * nb
  Kokkos::View<double*, memory_space> o_user_;                  ///< OStorage::keep_fp64: the user's O in FP64
  Kokkos::View<unsigned char*, memory_space> stage_;            ///< host inputs of update(), on first use
  Kokkos::View<long long, memory_space> first_bad_block_;       ///< the first user block of O with a NaN or Inf
  bool has_values_ = false;
};

}  // namespace ppsparse::mcpi::detail
