#pragma once
/// @file
/// Counter-based random numbers: a value is a pure function of (seed, stream, counters),
/// so generators give the same output whatever order or thread computes an entry,
/// and an entry (i, j) can be recomputed from (j, i) to make symmetric values.
#include <cstdint>

namespace ppsparse::gen {

/// SplitMix64 finaliser: a bijective 64-bit mix with full avalanche.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// One independent stream of values per (seed, stream); stream separates purposes
/// (off-diagonal values, diagonal values, element types, ...) inside one generator.
class CounterRng {
 public:
  constexpr CounterRng(std::uint64_t seed, std::uint64_t stream)
      : key_(mix64(mix64(seed) ^ (stream * 0xd6e8feb86659fd93ULL))) {}

  /// 64 random bits for counters (a, b): a SplitMix64 sequence in b under a key made from a,
  /// so a loop over b with a fixed costs one mix per value once the compiler hoists a's part.
  constexpr std::uint64_t bits(std::uint64_t a, std::uint64_t b = 0) const {
    return mix64(mix64(key_ ^ (a * 0xff51afd7ed558ccdULL)) + b * 0x9e3779b97f4a7c15ULL);
  }
  /// Uniform in [0, 1), 53 random bits.
  constexpr double uniform(std::uint64_t a, std::uint64_t b = 0) const {
    return static_cast<double>(bits(a, b) >> 11) * 0x1.0p-53;
  }
  /// Uniform in [lo, hi).
  constexpr double uniform(double lo, double hi, std::uint64_t a, std::uint64_t b = 0) const {
    return lo + (hi - lo) * uniform(a, b);
  }
  /// Random sign times a magnitude uniform in [min_abs, 1]: never zero.
  constexpr double nonzero(double min_abs, std::uint64_t a, std::uint64_t b = 0) const {
    const std::uint64_t r = bits(a, b);
    const double mag = min_abs + (1.0 - min_abs) * (static_cast<double>(r >> 11) * 0x1.0p-53);
    return (r & 1) ? -mag : mag;
  }

 private:
  std::uint64_t key_;
};

}  // namespace ppsparse::gen
