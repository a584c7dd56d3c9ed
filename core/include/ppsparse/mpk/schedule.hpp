#pragma once
/// @file
/// Level-blocked schedules of the matrix power kernel y_k = A y_{k-1}, k = 1..p (Panzlaff 2024,
/// after RACE: Alappat et al., "Level-based blocking for sparse matrices", IEEE TPDS 2022).
///
/// Rows are renumbered level by level (reorder/bfs_levels.hpp), so that a row of level l only
/// references levels l-1, l and l+1. Consecutive levels are merged into groups (group g is
/// rows [group_offsets[g], group_offsets[g+1])) that still reference only their own and the
/// neighbouring groups. A tile (g, k) computes the rows of group g of y_k; it reads y_{k-1} on
/// groups g-1, g and g+1, so it may run once tiles (g-1, k-1), (g, k-1) and (g+1, k-1) (those
/// that exist) are done: the wavefront rule.
///
/// Wavefront order with skew s: tile (g, k) belongs to step g + s (k-1); steps run in order,
/// and the tiles of a step by increasing k.
///  * s = 1 is RACE's diagonal (fig. 2.7 of Panzlaff 2024): tile (g+1, k-1) is in the same step as
///    (g, k), just before it, so tiles run one after another: one launch per tile, G p launches.
///    Between two uses of a group's matrix rows p+1 groups are touched (live_groups).
///  * s = 2 puts all dependencies of a tile in earlier steps, so the up to p tiles of a step run
///    together in one launch: G + 2(p-1) launches. Between two uses of a group (steps t and
///    t+2) the groups of steps t, t+1, t+2 are touched: 2p+1 groups, so for the same cache
///    the groups are about half as big as with s = 1.
#include <string>
#include <vector>

#include <ppsparse/formats/csr.hpp>

namespace ppsparse::mpk {

/// Rows of one group at one power (1..p).
struct Tile {
  ordinal_t group = 0;
  int power = 0;
  bool operator==(const Tile& o) const { return group == o.group && power == o.power; }
};

/// A level-blocked wavefront schedule: groups of rows, the order of (group, power) tiles, and
/// the tiles each launch runs.
struct MpkSchedule {
  int powers = 0;                           ///< p
  int skew = 2;                             ///< of the wavefront order (1 or 2)
  std::vector<ordinal_t> group_offsets{0};  ///< G + 1, strictly increasing, from 0 to nrows
  std::vector<Tile> order;                  ///< each of the G p tiles once, in execution order
  std::vector<int> launch_offsets{0};  ///< launch l runs order[launch_offsets[l], launch_offsets[l+1]) concurrently

  ordinal_t ngroups() const { return static_cast<ordinal_t>(group_offsets.size()) - 1; }
  ordinal_t nrows() const { return group_offsets.back(); }
  int nlaunches() const { return static_cast<int>(launch_offsets.size()) - 1; }
  ordinal_t group_rows(ordinal_t g) const { return group_offsets[g + 1] - group_offsets[g]; }
};

/// Groups whose footprint must fit the cache together for every group to be read from memory
/// only at its first power: p+1 for skew 1, 2p+1 for skew 2 (see above). InvalidArgument
/// unless powers >= 1 and skew is 1 or 2.
int live_groups(int powers, int skew);

/// Merges consecutive levels (level_offsets: L+1 entries from 0 to nrows, nondecreasing) into
/// groups of at most group_bytes each, counting row r as row_bytes[r] (its matrix entries and
/// vector entries); a level bigger than group_bytes becomes a group of its own. Cuts fall only
/// on multiples of align (the SELL chunk height, whole cache lines of the vectors), so a group
/// may begin with the last rows of the previous level. Groups are then merged further until
/// every row of `a` references only its own and the neighbouring groups, which holds for any
/// input levels. InvalidArgument if a is not square, the sizes disagree, level_offsets is
/// not as above, group_bytes is not positive or align < 1.
template <class Scalar>
std::vector<ordinal_t> merge_levels(const CsrMatrix<Scalar, HostSpace>& a, const std::vector<ordinal_t>& level_offsets,
                                    const std::vector<double>& row_bytes, double group_bytes, ordinal_t align);

/// The wavefront schedule of p powers over the given groups (see above). InvalidArgument
/// unless group_offsets starts at 0 and increases strictly, powers >= 1 and skew is 1 or 2.
MpkSchedule make_wavefront_schedule(std::vector<ordinal_t> group_offsets, int powers, int skew);

/// Empty when `schedule` is legal for `a` (square, in level order), else one line naming the
/// first defect:
///  * malformed parts (group offsets, tile out of range, a tile missing or repeated, launch
///    offsets), e.g. "tile (group 2, power 3) appears twice";
///  * a dependency not satisfied before use, e.g. "tile (group 3, power 2) runs in launch 4
///    but needs tile (group 4, power 1), which runs in launch 5";
///  * a row referencing a group that is not its own or a neighbour, e.g. "row 17 (group 3)
///    references column 52 (group 5); rows may reference only their own and neighbouring groups".
template <class Scalar>
std::string schedule_violation(const MpkSchedule& schedule, const CsrMatrix<Scalar, HostSpace>& a);

/// Throws InvalidArgument("mpk schedule: " + schedule_violation(...)) unless legal.
template <class Scalar>
void check_schedule(const MpkSchedule& schedule, const CsrMatrix<Scalar, HostSpace>& a);

}  // namespace ppsparse::mpk
