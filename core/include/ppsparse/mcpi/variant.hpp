#pragma once
/// @file
/// What an MCPI sweep runs: a kernel (one of mcpi/kernels.def) and the hardware features it asks for.
#include <string>
#include <vector>

namespace ppsparse::mcpi {

/// The sweep kernels, one per line of mcpi/kernels.def.
enum class Kernel {
#define PPSPARSE_MCPI_KERNEL(id, layout, summary) id,
#include <ppsparse/mcpi/kernels.def>
#undef PPSPARSE_MCPI_KERNEL
};

/// How a kernel lays block rows on vector groups (kernels.def's layout column).
enum class GroupLayout {
  one_row,    ///< a group (nw vector groups: Zubair et al. 2016, Table I) per block row
  many_rows,  ///< a group handles floor(W / nb) block rows, nb lanes per row
};

/// The kernel's name as written in kernels.def.
const char* name(Kernel k);
/// One line on the kernel (kernels.def), for usage texts.
const char* summary(Kernel k);
/// The kernel's group layout (kernels.def).
GroupLayout layout(Kernel k);
/// Every kernel, in the order of kernels.def.
const std::vector<Kernel>& all_kernels();
/// InvalidArgument "unknown MCPI kernel 'x' (valid: ...)" for other names.
Kernel parse_kernel(const std::string& s);

/// A kernel and the hardware features of Walden et al. (2021), flags orthogonal to the kernel. Where the backend
/// has no specialised kernel or lacks a feature, the portable kernel runs without it and the
/// solver's Result::note says why.
struct Variant {
  Kernel kernel = Kernel::rows_per_warp;
  bool l2_window = false;   ///< dQ kept in a persisting-L2 window (the paper's x_1 kernels)
  bool async_copy = false;  ///< D copied asynchronously to shared memory during the SpMV loads (x_2)
  /// "auto": the solver picks the kernel and features from nb and the device (resolve_variant);
  /// the other fields are then ignored.
  bool is_auto = false;

  constexpr Variant() = default;
  constexpr Variant(Kernel k, bool l2 = false, bool async = false) : kernel(k), l2_window(l2), async_copy(async) {}
  /// The automatic choice ("auto"), the default of Control and Options.
  static constexpr Variant automatic() {
    Variant v;
    v.is_auto = true;
    return v;
  }
  bool has_features() const { return !is_auto && (l2_window || async_copy); }
  friend bool operator==(const Variant& a, const Variant& b) {
    if (a.is_auto || b.is_auto) return a.is_auto == b.is_auto;
    return a.kernel == b.kernel && a.l2_window == b.l2_window && a.async_copy == b.async_copy;
  }
  friend bool operator!=(const Variant& a, const Variant& b) { return !(a == b); }
};

/// The kernel's name, then "_l2" and "_async" for the features: the names of Walden et al. (2021) for its hardware
/// variants, e.g. "rows_per_warp_l2_async"; "auto" for the automatic choice.
std::string name(const Variant& v);
/// Inverse of name(Variant): "auto", or a kernel name with optional "_l2" and "_async" suffixes,
/// in that order. InvalidArgument listing the kernels when the name is unknown.
Variant parse_variant(const std::string& s);
/// What "auto" runs for block size nb: rows_per_warp without hardware features, the fastest or
/// within noise of it at every nb from 1 to 64 on the H100 and H200 measured, with the CUDA
/// backend's kernels and with the portable ones (docs/perf/kernel_choices.md). A concrete v
/// comes back unchanged. InvalidArgument for nb outside 1..64.
Variant resolve_variant(const Variant& v, int nb);
/// The kernels without features, then the hardware variants of Walden et al. (2021) (warp_per_row and
/// rows_per_warp with _l2 and _l2_async): the variants benchmarks and tests run by default.
const std::vector<Variant>& all_variants();

}  // namespace ppsparse::mcpi
