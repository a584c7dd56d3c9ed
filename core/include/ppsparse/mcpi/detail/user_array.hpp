#pragma once
/// @file
/// How the solver's templates hand a user's Kokkos views to the compiled implementation: as a
/// pointer, a length, the element type and whether the solver's execution space can read the
/// memory (host memory is staged). Not part of the API.
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mcpi/setup.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::detail {

/// One rank-1 array of the user's.
struct UserArray {
  void* data = nullptr;  ///< const for inputs
  size_t size = 0;
  bool is_double = true;        ///< else float
  bool exec_accessible = true;  ///< else host memory, staged through the device
};

/// A view as a UserArray; `what` names it in the error for a strided view.
template <class ExecSpace, class V>
UserArray user_array(const V& v, const char* what) {
  static_assert(compat::is_view_v<V> && V::rank == 1, "mcpi: arrays must be rank-1 Kokkos views");
  using T = typename V::non_const_value_type;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "mcpi: arrays hold float or double");
  using Mem = typename V::memory_space;
  constexpr bool here = Kokkos::SpaceAccessibility<ExecSpace, Mem>::accessible;
  static_assert(here || Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, Mem>::accessible,
                "mcpi: arrays must be in memory the solver's execution space or the host can read");
  if (!v.span_is_contiguous())
    throw InvalidArgument(std::string("mcpi ") + what + ": the view must be contiguous (not a strided subview)");
  return {const_cast<T*>(v.data()), v.extent(0), std::is_same_v<T, double>, here};
}

/// As user_array, for the solver's FP64 vectors.
template <class ExecSpace, class V>
UserArray user_vector(const V& v, const char* what) {
  static_assert(std::is_same_v<typename V::non_const_value_type, double>, "mcpi: vectors hold double");
  return user_array<ExecSpace>(v, what);
}

/// The structure of O on the host, as the user gave it (BlockPattern): the user's arrays where
/// the host can read them, else copies held here.
struct HostPattern {
  int nb = 1;
  ordinal_t n = 0;
  const offset_t* row_ptr = nullptr;
  size_t row_ptr_size = 0;
  const ordinal_t* col_idx = nullptr;
  size_t col_idx_size = 0;
  int index_base = 0;
  std::vector<offset_t> row_ptr_copy;  ///< device patterns only
  std::vector<ordinal_t> col_idx_copy;
};

template <class MemSpace>
HostPattern host_pattern(const BlockPattern<MemSpace>& p) {
  HostPattern h;
  h.nb = p.nb;
  h.n = p.n;
  h.index_base = p.index_base;
  h.row_ptr_size = p.row_ptr.extent(0);
  h.col_idx_size = p.col_idx.extent(0);
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, MemSpace>::accessible) {
    h.row_ptr = p.row_ptr.data();
    h.col_idx = p.col_idx.data();
  } else {
    h.row_ptr_copy.resize(h.row_ptr_size);
    h.col_idx_copy.resize(h.col_idx_size);
    Kokkos::deep_copy(
        Kokkos::View<offset_t*, HostSpace, Kokkos::MemoryUnmanaged>(h.row_ptr_copy.data(), h.row_ptr_size), p.row_ptr);
    Kokkos::deep_copy(
        Kokkos::View<ordinal_t*, HostSpace, Kokkos::MemoryUnmanaged>(h.col_idx_copy.data(), h.col_idx_size), p.col_idx);
    h.row_ptr = h.row_ptr_copy.data();
    h.col_idx = h.col_idx_copy.data();
  }
  return h;
}

}  // namespace ppsparse::mcpi::detail
