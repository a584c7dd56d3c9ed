#pragma once
/// @file
/// The ways the matrix power kernel y_k = A^k x (k = 1..p) can run.
#include <string>
#include <vector>

namespace ppsparse::mpk {

/// The variants, one per line of mpk/variants.def, then automatic: the cost model's choice
/// (checked once against back_to_back by timing). pipelined falls back to persistent where its
/// teams' residency is not guaranteed.
enum class MpkVariant {
#define PPSPARSE_MPK_VARIANT(id, summary) id,
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
  automatic
};

/// "back_to_back", "blocked", "graph", "persistent", "pipelined", "automatic".
const char* to_string(MpkVariant variant);
/// One line on what the variant does (variants.def), for usage texts.
const char* summary(MpkVariant variant);
/// Every variant except automatic, in the order of variants.def.
const std::vector<MpkVariant>& concrete_variants();
/// Inverse of to_string. InvalidArgument on any other name:
///   "unknown MPK variant 'fast' (valid: back_to_back, blocked, graph, persistent, pipelined, automatic)".
MpkVariant parse_variant(const std::string& name);

/// Storage the blocked and persistent kernels read the level-ordered matrix from.
enum class MpkFormat {
  csr,       ///< compressed rows
  sell,      ///< SELL-C-1 (chunks of C rows stored column-major, no sorting: the level order stays)
  automatic  // sell on GPUs (Panzlaff 2024: SELL-8 was fastest on every GPU it measured), csr on CPUs
};
/// "csr", "sell", "automatic".
const char* to_string(MpkFormat format);
/// InvalidArgument: "unknown MPK format 'ell' (valid: csr, sell, automatic)".
MpkFormat parse_format(const std::string& name);

/// The numbering the level-ordered matrix takes its levels from.
enum class MpkOrdering {
  bfs,       ///< breadth-first levels from a pseudo-peripheral vertex (reorder/bfs_levels.hpp)
  input,     ///< the matrix's own numbering, cut into levels (input_order_levels)
  automatic  // input where its widest two adjacent levels hold fewer rows than bfs's, else bfs
};
/// "bfs", "input", "automatic".
const char* to_string(MpkOrdering ordering);
/// InvalidArgument: "unknown MPK ordering 'rcm' (valid: bfs, input, automatic)".
MpkOrdering parse_ordering(const std::string& name);

}  // namespace ppsparse::mpk
