#pragma once
/// @file
/// Settings of the device backends' specialised MCPI kernels (backends/cuda), set explicitly by
/// benchmarks and tests: the library reads no environment variable. The defaults are the
/// automatic rules, measured in docs/perf/mcpi_kernels.md; the portable kernels ignore them.
#include <string>

namespace ppsparse::mcpi {

/// Settings of the backend's specialised MCPI kernels; the defaults are the automatic rules.
/// Benchmarks and tests set them explicitly; the library reads no environment variable.
struct KernelTuning {
  /// rows_per_warp's kernel for colours of few rows (a row's blocks spread over the warp):
  /// automatic (colours with fewer than two row groups per multiprocessor), off, or always.
  enum class SmallColor { automatic, off, always };
  SmallColor small_color = SmallColor::automatic;
  /// Slots per block row of the rows_per_warp kernel: 0 (the rule by nb), or 1, 2 or 4, used
  /// where slots * nb <= 32. With O in a reduced format: 0 (the rule by format) or 1.
  int row_slots = 0;
  /// Warps per block row of the kernel for nb >= 16: 0 (the rule by colour size), 1 or 4.
  int wide_split = 0;
  /// L2 prefetch of the next blocks in the kernel for nb >= 16.
  bool wide_prefetch = true;
  /// Each colour launched as a programmatic dependent of the previous one, where the device
  /// has it (compute capability 9.0 and later).
  bool dependent_launch = true;
  /// Blocks of a row each lane of rows_per_warp keeps in flight with O in a reduced format
  /// (mcpi/o_format.hpp): 0 (the rule), 2 or 4 (8 measured slower: docs/perf/mcpi_o_formats.md).
  int unroll = 0;

  friend bool operator==(const KernelTuning& a, const KernelTuning& b) {
    return a.small_color == b.small_color && a.row_slots == b.row_slots && a.wide_split == b.wide_split &&
           a.wide_prefetch == b.wide_prefetch && a.dependent_launch == b.dependent_launch && a.unroll == b.unroll;
  }
  friend bool operator!=(const KernelTuning& a, const KernelTuning& b) { return !(a == b); }
};

/// Throws InvalidArgument naming the field, its value and what it may be, e.g.
/// "mcpi tuning: row_slots = 3 must be 0 (the rule), 1, 2 or 4".
void check_tuning(const KernelTuning& tuning);

/// "automatic", "off", "always"; parse_small_color also takes the benchmarks' older spellings
/// "" (automatic), "0" (off) and "all" (always), and refuses anything else listing the names.
const char* to_string(KernelTuning::SmallColor mode);
/// "automatic", "off" or "always"; InvalidArgument naming the text otherwise.
KernelTuning::SmallColor parse_small_color(const std::string& text);

}  // namespace ppsparse::mcpi
