#pragma once
/// @file
/// The state of the aggregation multigrid (mcpi/multigrid.hpp), private to the library: a
/// hierarchy of the MCPI solver's levels (level_arrays.hpp and color_loop.hpp, one of each per
/// level; the finest is the fine Solver's) with the transfers and Galerkin maps between them,
/// and the cycle's recording. Its formation and numeric refresh are in hierarchy.cpp, its
/// cycles in multigrid.cpp.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/backend/device_graph.hpp>
#include <ppsparse/mcpi/multigrid.hpp>

#include "../solver_impl.hpp"
#include "coarsening.hpp"

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
  void with_o_source(size_t l, F&& f);

  /// Level l + 1's values from level l's storage: its D (FP64, unfactored) and its O, summed
  /// into its FP32 storage or coded straight from the sums.
  void coarse_values(const E& exec, size_t l);

  /// The hierarchy below the finest level, from the finest values in its storage (not yet
  /// factored): each level's aggregates, pattern, colouring and values.
  void build(const E& exec);

  /// Every coarse level's values from the level above's storage (fresh values in the finest).
  void galerkin_all(const E& exec);

  /// Every level's numeric phase completed (O encoded, D factored), finest first.
  void factor_all(const E& exec);

  /// Why the cycle cannot be recorded as one device graph on exec (empty if it can): what
  /// keeps any level's sweeps from being recorded (ColorLoop::graph_obstacle), or an earlier
  /// failed recording.
  std::string graph_obstacle(const E& exec);

  /// The addresses the recorded cycle reads and writes on every level. A coarse level's
  /// right-hand side is whichever of its vectors the cycle pointed it at last: it is pointed at
  /// the first again, so that the key does not depend on where the last cycle left it.
  std::vector<const void*> arrays_key();

  const detail::ResolvedSweep& resolved(const E& exec, size_t l);

  /// One cycle for the right-hand side v into the finest level's dQ: a replay of the recorded
  /// cycle where one can be recorded (recorded at the second call, after one eager cycle has
  /// done the kernels' first-launch work), else eagerly, reading v where it is.
  void run_cycle(const E& exec, const ConstVector& v);

  /// One cycle on level l from dQ = 0 for the right-hand side its sweeper already reads.
  /// Asynchronous on exec, with one exception outside a recording: the K-cycle reads three of
  /// its scalars to skip a second coarse step that would not be used.
  void cycle(const E& exec, size_t l);

  /// The K-cycle's coarse correction below level l: x_c ~ A_c^-1 b_c by up to two GCR steps,
  /// each direction a cycle of level l + 1 (Notay and Vassilevski 2008), into c.k_z1. The
  /// step sizes stay on the device (multigrid::first_step, second_step); a recorded cycle
  /// always forms the second direction, and its step size is 0 where it is not used, so the
  /// result is the same bit for bit as an eager cycle's, which skips it.
  void krylov_correction(const E& exec, size_t l);
};

}  // namespace ppsparse::mcpi
