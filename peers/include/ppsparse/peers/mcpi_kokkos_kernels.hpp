#pragma once
/// @file
/// The MCPI sweep built from Kokkos Kernels, a peer of mcpi::Solver in bench_mcpi. For each
/// colour c (rows [b, e) in colour order), one sweep runs
///   q = O_c dQ           KokkosSparse::spmv, SPMV_NATIVE, on a
///                        KokkosSparse::Experimental::BsrMatrix<float> of the colour's block rows
///                        (Kokkos Kernels >= 4; on GPUs its "v4.2" BSR kernel)
///   r = R_c - q          FP64, per block row, then
///   r = U^-1 L^-1 r      KokkosBatched::SerialSolveLU (nb <= 16: one thread per block row) or
///                        KokkosBatched::TeamSolveLU (nb > 16: one team per block row) on D's
///                        in-place LU factors (unit lower L, upper U, column-major)
///   dQ_c = (float) r
/// Kokkos Kernels stores BSR blocks row-major and ppsparse column-major, so setup keeps a
/// block-transposed copy of O's values (the only matrix data the peer copies; column indices
/// and D, R are shared with the caller's system). Debian's Kokkos Kernels 3.4 has no BsrMatrix:
/// there the SpMV is KokkosSparse::CrsMatrix on the point expansion of O_c (a second copy of
/// the values plus point column indices) and describe() says so. See
/// mcpi_kokkos_kernels_compat.hpp for the version differences.
///
/// Header-only: it instantiates Kokkos Kernels templates for the benchmark alone.
#include <chrono>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include <KokkosBatched_SolveLU_Decl.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/peers/mcpi_vendor_peer.hpp>  // check_colour_ordered_system

#include <ppsparse/peers/mcpi_kokkos_kernels_compat.hpp>

namespace ppsparse::bench {

namespace kk_mcpi_detail {

/// Row-major copy of column-major blocks (Kokkos Kernels' BSR layout).
template <class MemSpace>
struct TransposeBlocks {
  Kokkos::View<const float*, MemSpace> from;
  Kokkos::View<float*, MemSpace> to;
  int nb;
  KOKKOS_INLINE_FUNCTION void operator()(const offset_t k) const {
    const size_t base = static_cast<size_t>(k) * nb * nb;
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j)
        to(base + static_cast<size_t>(i) * nb + j) = from(base + static_cast<size_t>(j) * nb + i);
  }
};

/// Point (scalar) CSR expansion of the block rows, for Kokkos Kernels without BsrMatrix:
/// point row (row, i) lists, block by block, the entries O_k(i, 0..nb-1) with columns ja[k]*nb + j.
/// Its offsets are ia[row]*nb^2 + i*len*nb (len = blocks in the row), so every row is filled
/// independently; colour rebasing happens in the per-colour row maps.
template <class MemSpace>
struct ExpandToPoints {
  Kokkos::View<const offset_t*, MemSpace> ia;
  Kokkos::View<const ordinal_t*, MemSpace> ja;
  Kokkos::View<const float*, MemSpace> values;
  Kokkos::View<ordinal_t*, MemSpace> cols;
  Kokkos::View<float*, MemSpace> vals;
  int nb;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t row) const {
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    const offset_t k0 = ia(row), len = ia(row + 1) - k0;
    for (int i = 0; i < nb; ++i) {
      size_t p = static_cast<size_t>(k0) * nb2 + static_cast<size_t>(i) * len * nb;
      for (offset_t k = k0; k < k0 + len; ++k)
        for (int j = 0; j < nb; ++j, ++p) {
          cols(p) = ja(k) * nb + j;
          vals(p) = values(static_cast<size_t>(k) * nb2 + static_cast<size_t>(j) * nb + i);
        }
    }
  }
};

/// r = R - q, solve with the LU factors, dQ = (float) r; one thread per block row (nb <= 16).
template <class ExecSpace>
struct SerialSolveRows {
  using MemSpace = typename ExecSpace::memory_space;
  Kokkos::View<const double*, MemSpace> D, R;
  Kokkos::View<const float*, MemSpace> q;
  Kokkos::View<float*, MemSpace> dq;
  ordinal_t row_begin;
  int nb;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t row) const {
    double r[16];
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    const size_t local = static_cast<size_t>(row - row_begin) * nb, global = static_cast<size_t>(row) * nb;
    for (int i = 0; i < nb; ++i) r[i] = R(global + i) - static_cast<double>(q(local + i));
    Kokkos::View<const double**, Kokkos::LayoutLeft, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> A(
        D.data() + static_cast<size_t>(row) * nb2, nb, nb);
    Kokkos::View<double**, Kokkos::LayoutLeft, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> B(r, nb, 1);
    KokkosBatched::SerialSolveLU<KokkosBatched::Trans::NoTranspose, KokkosBatched::Algo::SolveLU::Unblocked>::invoke(A,
                                                                                                                     B);
    for (int i = 0; i < nb; ++i) dq(global + i) = static_cast<float>(r[i]);
  }
};

/// The same with one team per block row and the right-hand side in team scratch (nb > 16).
template <class ExecSpace>
struct TeamSolveRows {
  using MemSpace = typename ExecSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using scratch_view = Kokkos::View<double**, Kokkos::LayoutLeft, typename ExecSpace::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<const double*, MemSpace> D, R;
  Kokkos::View<const float*, MemSpace> q;
  Kokkos::View<float*, MemSpace> dq;
  ordinal_t row_begin;
  int nb;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const ordinal_t row = row_begin + member.league_rank();
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    const size_t local = static_cast<size_t>(member.league_rank()) * nb, global = static_cast<size_t>(row) * nb;
    scratch_view B(member.team_scratch(0), nb, 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, nb),
                         [&](const int i) { B(i, 0) = R(global + i) - static_cast<double>(q(local + i)); });
    member.team_barrier();
    Kokkos::View<const double**, Kokkos::LayoutLeft, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> A(
        D.data() + static_cast<size_t>(row) * nb2, nb, nb);
    KokkosBatched::TeamSolveLU<member_type, KokkosBatched::Trans::NoTranspose,
                               KokkosBatched::Algo::SolveLU::Unblocked>::invoke(member, A, B);
    member.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, nb),
                         [&](const int i) { dq(global + i) = static_cast<float>(B(i, 0)); });
  }
};

}  // namespace kk_mcpi_detail

template <class ExecSpace = DefaultExecSpace>
class KokkosKernelsMcpiPeer {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using device_type = Kokkos::Device<ExecSpace, memory_space>;
#if PPSPARSE_KK_HAS_BSR_SPMV
  using matrix_type = KokkosSparse::Experimental::BsrMatrix<float, int, device_type, void, int>;
#else
  using matrix_type = KokkosSparse::CrsMatrix<float, int, device_type, void, int>;
#endif
  using x_type = Kokkos::View<const float*, device_type>;
  using y_type = Kokkos::View<float*, device_type>;
  using spmv_type = kk_compat::NativeSpmv<ExecSpace, matrix_type, x_type, y_type>;

  /// Borrows the colour-ordered system (O, LU-factored D, R; keep it alive and unchanged).
  /// InvalidArgument if it fails check_colour_ordered_system or a colour's entries exceed the
  /// 32-bit offsets the matrices are instantiated with.
  KokkosKernelsMcpiPeer(const BlockSystem<memory_space>& system, const std::vector<ordinal_t>& color_offsets,
                        const ExecSpace& exec = ExecSpace())
      : s_(system), offsets_(color_offsets), exec_(exec) {
    const std::string who = "Kokkos Kernels MCPI peer";
    mcpi::check_color_ordered_system(who, system, color_offsets);
    const auto t0 = std::chrono::steady_clock::now();
    const int nb = system.nb;
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    const offset_t nnzb = system.O.nnzb();
#if PPSPARSE_KK_HAS_BSR_SPMV
    values_ = Kokkos::View<float*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_mcpi.bsr_values"),
                                                 system.O.values.extent(0));
    Kokkos::parallel_for("ppsparse::bench::kk_mcpi::transpose_blocks", Kokkos::RangePolicy<ExecSpace>(exec, 0, nnzb),
                         kk_mcpi_detail::TransposeBlocks<memory_space>{system.O.values, values_, nb});
    const offset_t per_row_entry = 1;  // BSR offsets count blocks
#else
    values_ = Kokkos::View<float*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_mcpi.point_values"), system.O.values.extent(0));
    point_cols_ = Kokkos::View<ordinal_t*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_mcpi.point_cols"), system.O.values.extent(0));
    Kokkos::parallel_for("ppsparse::bench::kk_mcpi::expand_to_points",
                         Kokkos::RangePolicy<ExecSpace>(exec, 0, system.n),
                         kk_mcpi_detail::ExpandToPoints<memory_space>{system.O.ia, system.O.ja, system.O.values,
                                                                      point_cols_, values_, nb});
    const offset_t per_row_entry = static_cast<offset_t>(nb2);  // point offsets count scalars
#endif
    const auto ia = Kokkos::create_mirror_view_and_copy(HostSpace(), system.O.ia);
    ordinal_t max_rows = 0;
    for (size_t c = 0; c + 1 < color_offsets.size(); ++c) {
      const ordinal_t b = color_offsets[c], e = color_offsets[c + 1];
      max_rows = std::max(max_rows, e - b);
      if (e == b) {
        colors_.emplace_back();
        continue;
      }
      const offset_t first = ia(b), blocks = ia(e) - first;
      if (blocks * per_row_entry > static_cast<offset_t>(INT_MAX))
        throw InvalidArgument(who + ": colour " + std::to_string(c) + " has " + std::to_string(blocks * per_row_entry) +
                              " entries, more than the 32-bit offsets it is instantiated with");
      Color col;
      col.b = b;
      col.e = e;
#if PPSPARSE_KK_HAS_BSR_SPMV
      Kokkos::View<int*, memory_space> row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_mcpi.row_map"),
                                               static_cast<size_t>(e - b) + 1);
      auto h = Kokkos::create_mirror_view(row_map);
      for (ordinal_t i = b; i <= e; ++i) h(i - b) = static_cast<int>(ia(i) - first);
      Kokkos::deep_copy(row_map, h);
      typename matrix_type::values_type vals(values_.data() + static_cast<size_t>(first) * nb2,
                                             static_cast<size_t>(blocks) * nb2);
      typename matrix_type::index_type cols(system.O.ja.data() + first, static_cast<size_t>(blocks));
      col.a = matrix_type("kk_mcpi.O_c", e - b, system.n, static_cast<int>(blocks), vals, row_map, cols, nb);
#else
      // Point row (row, i) starts at ia[row]*nb^2 + i*len*nb (see ExpandToPoints).
      Kokkos::View<int*, memory_space> row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_mcpi.row_map"),
                                               static_cast<size_t>(e - b) * nb + 1);
      auto h = Kokkos::create_mirror_view(row_map);
      for (ordinal_t row = b; row < e; ++row) {
        const offset_t len = ia(row + 1) - ia(row);
        for (int i = 0; i < nb; ++i)
          h(static_cast<size_t>(row - b) * nb + i) = static_cast<int>((ia(row) - first) * nb2 + i * len * nb);
      }
      h(static_cast<size_t>(e - b) * nb) = static_cast<int>(blocks * nb2);
      Kokkos::deep_copy(row_map, h);
      typename matrix_type::values_type vals(values_.data() + static_cast<size_t>(first) * nb2,
                                             static_cast<size_t>(blocks) * nb2);
      typename matrix_type::index_type cols(point_cols_.data() + static_cast<size_t>(first) * nb2,
                                            static_cast<size_t>(blocks) * nb2);
      col.a =
          matrix_type("kk_mcpi.O_c", (e - b) * nb, system.n * nb, static_cast<int>(blocks * nb2), vals, row_map, cols);
#endif
      col.spmv = std::make_shared<spmv_type>();
      colors_.push_back(std::move(col));
    }
    q_ = Kokkos::View<float*, memory_space>("kk_mcpi.q", static_cast<size_t>(max_rows) * nb);
    dq_ = Kokkos::View<float*, memory_space>("kk_mcpi.dq", static_cast<size_t>(system.n) * nb);
    exec.fence();
    setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void reset() { Kokkos::deep_copy(dq_, 0.0f); }

  /// One sweep over all colours, asynchronous on the execution space instance.
  void sweep() {
    const int nb = s_.nb;
    const x_type x = dq_;
    for (const Color& c : colors_) {
      if (c.e == c.b) continue;
      const y_type y(q_.data(), static_cast<size_t>(c.e - c.b) * nb);
      c.spmv->apply(exec_, c.a, x, y);
      if (nb <= 16) {
        Kokkos::parallel_for("ppsparse::bench::kk_mcpi::serial_solve_lu",
                             Kokkos::RangePolicy<ExecSpace>(exec_, c.b, c.e),
                             kk_mcpi_detail::SerialSolveRows<ExecSpace>{s_.D, s_.R, q_, dq_, c.b, nb});
      } else {
        const int team = compat::is_gpu_space<ExecSpace>() ? (nb > 32 ? 64 : 32) : 1;
        Kokkos::TeamPolicy<ExecSpace> policy(exec_, c.e - c.b, team);
        using Functor = kk_mcpi_detail::TeamSolveRows<ExecSpace>;
        policy.set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_view::shmem_size(nb, 1)));
        Kokkos::parallel_for("ppsparse::bench::kk_mcpi::team_solve_lu", policy, Functor{s_.D, s_.R, q_, dq_, c.b, nb});
      }
    }
  }

  Kokkos::View<const float*, memory_space> dq() const { return dq_; }
  double setup_seconds() const { return setup_seconds_; }

  static std::string describe(int nb) {
#if PPSPARSE_KK_HAS_BSR_SPMV
    std::string spmv = "KokkosSparse::spmv SPMV_NATIVE on BsrMatrix<float> (row-major copy of the blocks)";
#else
    std::string spmv =
        "KokkosSparse::spmv native on CrsMatrix<float> of the point expansion (this Kokkos Kernels has no BsrMatrix)";
#endif
    return spmv + " + KokkosBatched::" +
           (nb <= 16 ? "SerialSolveLU (thread per block row)" : "TeamSolveLU (team per block row)") +
           ", FP64 r, per colour";
  }

 private:
  struct Color {
    ordinal_t b = 0, e = 0;
    matrix_type a;
    std::shared_ptr<spmv_type> spmv;
  };
  BlockSystem<memory_space> s_;
  std::vector<ordinal_t> offsets_;
  ExecSpace exec_;
  Kokkos::View<float*, memory_space> values_;
#if !PPSPARSE_KK_HAS_BSR_SPMV
  Kokkos::View<ordinal_t*, memory_space> point_cols_;
#endif
  std::vector<Color> colors_;
  Kokkos::View<float*, memory_space> q_, dq_;
  double setup_seconds_ = 0;
};

}  // namespace ppsparse::bench
