#pragma once
/// @file
/// The formats in which the MCPI solver may store the off-diagonal blocks O for its sweeps.
/// O is most of a sweep's bytes (1822 of 2210 MB for the default problem in FP32), so a
/// narrower O is a faster sweep and a larger problem per GPU. Arithmetic stays in FP32 in
/// every format (each entry is decoded to FP32 as it is loaded); D's LU factors and R keep
/// their precisions.
///
/// Rounding, exactly as the device applies it (mcpi/detail/o_codec.hpp; reference_round_o in
/// mcpi/reference.hpp reproduces it bit for bit on the host):
///  - fp32: the entry (a double is rounded to nearest FP32).
///  - bf16: the FP32 entry rounded to nearest, ties to even, to 8 significant bits (relative
///    error at most 2^-8).
///  - fp16: one power-of-two scale 2^e per block row (all its blocks), e chosen so that the
///    row's largest magnitude m lands in [2^14, 2^15); each entry a / 2^e is rounded to the
///    nearest IEEE half, ties to even (relative error at most 2^-11 for |a| >= m 2^-29; smaller
///    entries lose bits as half subnormals, and those below about m 2^-40 become 0).
///  - int8: one power-of-two scale 2^e per column of each block, the smallest e with
///    m 2^-e <= 127 for that column's largest magnitude m; each entry round(a / 2^e), ties to
///    even (absolute error at most 2^(e-1) <= m / 127 for every entry of the column). SU2 scales
///    the rows of a block instead; a column's scale multiplies the one dQ value the column meets,
///    once, in every kernel whose lanes own a block's columns: the CUDA kernels (0.87x their time
///    with row scales) and, for an int8 O, the portable rows_per_warp (0.99x its time with row
///    scales; docs/perf/mcpi_o_formats.md).
/// The scales are stored as signed 8-bit exponents and clamped to [-126, 127], so block rows
/// (fp16) or block columns (int8) whose largest magnitude is below about 1e-36 lose their
/// smallest entries. A NaN or Inf entry is an
/// error naming the user's block.
#include <cstddef>
#include <string>
#include <vector>

namespace ppsparse::mcpi {

/// How the sweeps store O: one enumerator per line of mcpi/o_formats.def, in its order.
enum class OFormat {
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary) id,
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
};

/// How the solver stores the values its sweeps read (SetupOptions::o_storage): O's format and
/// the copies kept beside it, and the precision of D's LU factors in the sweeps.
struct OStorage {
  OFormat format = OFormat::fp32;
  /// With a reduced format: also keep O in FP32 (4 more bytes per entry). The operator
  /// (multiply, multiply_internal: FGMRES's Krylov operator), the true residuals that decide
  /// convergence and the final residual then use the FP32 O, so they measure the system the
  /// user assembled; the sweeps, and the estimates of the checks fused into them, read the
  /// reduced copy. Without it (the default) everything reads the reduced O: no FP32 copy, and a
  /// residual check moves the reduced bytes. Ignored for fp32.
  bool keep_fp32 = false;
  /// Also keep the user's O as given to update(), in FP64 (8 more bytes per entry). The operator
  /// (multiply, multiply_internal: FGMRES's Krylov operator) then reads the user's values, so that
  /// FGMRES's residuals and its converged status are those of the system the user assembled, not
  /// of O rounded to its stored format (Status::system says which). The sweeps, and MCPI's own
  /// residual checks, still read the stored O. The values must come through update(): storage()
  /// refuses, as an assembly in place would leave the FP64 copy stale.
  bool keep_fp64 = false;
  /// The sweeps read D's LU factors in FP32: factored in FP64 as always, then rounded to
  /// nearest FP32 (4 bytes per entry of D instead of 8 in every sweep: with a 5 x 5 int8 O,
  /// D's factors are about a fifth of a sweep's bytes). Arithmetic stays FP64. The FP64
  /// factors are kept (for the operator, the true residuals and the next assembly in place),
  /// so the solver holds 4 more bytes per entry of D. The sweeps then iterate towards the
  /// system whose D is the product of the rounded factors, which differs from the user's by
  /// about 2^-24 times D's condition number, relative. Needs the default precisions (FP32 O
  /// and dQ, FP64 D); InvalidArgument otherwise. Any format of O.
  bool lu_fp32 = false;
  friend bool operator==(const OStorage& a, const OStorage& b) {
    return a.format == b.format && a.keep_fp32 == b.keep_fp32 && a.keep_fp64 == b.keep_fp64 && a.lu_fp32 == b.lu_fp32;
  }
};

/// The format's id in o_formats.def: "fp32", "bf16", "fp16", "int8".
const char* name(OFormat f);
/// Inverse of name(OFormat); InvalidArgument listing the formats for other names.
OFormat parse_o_format(const std::string& s);
/// Every format, in o_formats.def's order.
const std::vector<OFormat>& all_o_formats();
/// Bytes of O's values and scales for nnzb blocks of size nb in n block rows (fp32: 4 per entry):
/// the codec's stored entries and one byte per scale.
double o_format_bytes(OFormat f, long long n, long long nnzb, int nb);

}  // namespace ppsparse::mcpi
