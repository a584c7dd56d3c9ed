#pragma once
/// @file
/// The vendor-library MCPI solver that Walden et al. (2021, section V) started from, as a benchmark peer
/// of mcpi::Solver. One sweep runs, for each colour c in order:
///   q_c  = O_c dQ                (FP32 block SpMV; O_c = the colour's block rows)
///   r    = R_c - q_c             (FP64)
///   r    = L_c^-1 r, U_c^-1 r    (batched triangular solves with D's in-place LU factors)
///   dQ_c = (float) r
/// On CUDA builds (backends/cuda/mcpi_cusparse_peer.cpp): cusparseSbsrmv (legacy BSR API,
/// column-major blocks; cusparseSpMV on CSR for nb = 1, which bsrmv does not accept) and two
/// cublasDtrsmBatched calls per colour. Elsewhere available() is false and setup() refuses.
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/block_system.hpp>

namespace ppsparse::mcpi {

/// Throws InvalidArgument, naming `who`, unless `system` is a colour-ordered MCPI system the
/// peers can run: D LU-factored, nb in [1, 64], consistent extents, and colour_offsets a
/// nondecreasing list from 0 to n (colour c = rows [colour_offsets[c], colour_offsets[c+1])).
template <class MemSpace>
void check_color_ordered_system(const std::string& who, const BlockSystem<MemSpace>& s,
                                const std::vector<ordinal_t>& color_offsets) {
  if (s.nb < 1 || s.nb > 64)
    throw InvalidArgument(who + ": block size nb = " + std::to_string(s.nb) + " is outside [1, 64]");
  if (!s.d_factored) throw InvalidArgument(who + ": D must hold its LU factors (d_factored is false)");
  const size_t nb = static_cast<size_t>(s.nb), n = static_cast<size_t>(s.n);
  if (s.n < 0 || s.O.nb != s.nb || s.O.nblockrows != s.n || s.O.nblockcols != s.n || s.O.ia.extent(0) != n + 1 ||
      s.O.values.extent(0) != static_cast<size_t>(s.O.nnzb()) * nb * nb || s.D.extent(0) != n * nb * nb ||
      s.R.extent(0) != n * nb)
    throw InvalidArgument(who + ": the system's extents disagree (n = " + std::to_string(s.n) +
                          ", nb = " + std::to_string(s.nb) + ", O " + std::to_string(s.O.nblockrows) + " x " +
                          std::to_string(s.O.nblockcols) + " blocks of " + std::to_string(s.O.nb) + ", D " +
                          std::to_string(s.D.extent(0)) + " and R " + std::to_string(s.R.extent(0)) + " entries)");
  if (color_offsets.size() < 2 || color_offsets.front() != 0 || color_offsets.back() != s.n)
    throw InvalidArgument(who + ": colour offsets must run from 0 to n = " + std::to_string(s.n));
  for (size_t c = 0; c + 1 < color_offsets.size(); ++c)
    if (color_offsets[c + 1] < color_offsets[c])
      throw InvalidArgument(who + ": colour offsets decrease at colour " + std::to_string(c));
}

class VendorPeer {
 public:
  using memory_space = DefaultMemSpace;

  VendorPeer();
  ~VendorPeer();
  VendorPeer(VendorPeer&&) noexcept;
  VendorPeer& operator=(VendorPeer&&) noexcept;
  VendorPeer(const VendorPeer&) = delete;
  VendorPeer& operator=(const VendorPeer&) = delete;

  /// Whether this build has the vendor libraries ("cuSPARSE 12.6.3 + cuBLAS 13.0.0", or "none").
  static bool available();
  static std::string library();

  /// Borrows the colour-ordered system (its views are shared, not copied: keep it alive and
  /// unchanged) and builds the per-colour descriptors, 32-bit row pointers and the pointer
  /// arrays of the batched solves. InvalidArgument if !available(), the system fails
  /// check_colour_ordered_system, or it has more than 2^31-1 blocks; Error if a library fails.
  void setup(const BlockSystem<memory_space>& system, const std::vector<ordinal_t>& color_offsets);
  void reset();  ///< dQ = 0 (the iteration's start)
  /// One sweep over all colours, asynchronous on the default execution space instance.
  /// InvalidArgument before setup().
  void sweep();
  /// dQ in colour order (n * nb FP32 values).
  Kokkos::View<const float*, memory_space> dq() const;
  /// What one sweep calls, one line.
  std::string describe() const;
  double setup_seconds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppsparse::mcpi
