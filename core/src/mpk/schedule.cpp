#include <ppsparse/mpk/schedule.hpp>

#include <algorithm>

#include <ppsparse/error.hpp>

namespace ppsparse::mpk {
namespace {

std::string tile_name(ordinal_t group, int power) {
  return "tile (group " + std::to_string(group) + ", power " + std::to_string(power) + ")";
}

// Group of every row for strictly increasing offsets from 0 to n.
std::vector<ordinal_t> group_of_rows(const std::vector<ordinal_t>& offsets) {
  std::vector<ordinal_t> g(static_cast<size_t>(offsets.back()));
  for (size_t k = 0; k + 1 < offsets.size(); ++k)
    std::fill(g.begin() + offsets[k], g.begin() + offsets[k + 1], static_cast<ordinal_t>(k));
  return g;
}

// "" if offsets start at 0, increase strictly and end at n.
std::string offsets_defect(const std::vector<ordinal_t>& offsets, ordinal_t n) {
  if (offsets.empty() || offsets.front() != 0) return "group offsets must start at 0";
  for (size_t k = 1; k < offsets.size(); ++k)
    if (offsets[k] <= offsets[k - 1])
      return "group offsets must increase strictly (group " + std::to_string(k - 1) + " is empty or negative)";
  if (offsets.back() != n)
    return "group offsets end at " + std::to_string(offsets.back()) + " but the matrix has " + std::to_string(n) +
           " rows";
  return "";
}

template <class Scalar>
void check_square(const CsrMatrix<Scalar, HostSpace>& a, const std::string& who) {
  if (a.nrows != a.ncols)
    throw InvalidArgument(who + ": the matrix is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) +
                          "; matrix powers need a square matrix");
  if (a.row_ptr.extent(0) != static_cast<size_t>(a.nrows) + 1)
    throw InvalidArgument(who + ": row_ptr has " + std::to_string(a.row_ptr.extent(0)) + " entries, expected " +
                          std::to_string(static_cast<long long>(a.nrows) + 1));
}

}  // namespace

int live_groups(int powers, int skew) {
  if (powers < 1) throw InvalidArgument("mpk: powers must be >= 1 (got " + std::to_string(powers) + ")");
  if (skew == 1) return powers + 1;
  if (skew == 2) return 2 * powers + 1;
  throw InvalidArgument("mpk: wavefront skew must be 1 or 2 (got " + std::to_string(skew) + ")");
}

template <class Scalar>
std::vector<ordinal_t> merge_levels(const CsrMatrix<Scalar, HostSpace>& a, const std::vector<ordinal_t>& level_offsets,
                                    const std::vector<double>& row_bytes, double group_bytes, ordinal_t align) {
  const std::string who = "mpk merge_levels";
  check_square(a, who);
  const ordinal_t n = a.nrows;
  if (level_offsets.empty() || level_offsets.front() != 0 || level_offsets.back() != n)
    throw InvalidArgument(who + ": level offsets must run from 0 to the row count " + std::to_string(n));
  for (size_t l = 1; l < level_offsets.size(); ++l)
    if (level_offsets[l] < level_offsets[l - 1])
      throw InvalidArgument(who + ": level offsets decrease at level " + std::to_string(l - 1));
  if (row_bytes.size() != static_cast<size_t>(n))
    throw InvalidArgument(who + ": row_bytes has " + std::to_string(row_bytes.size()) + " entries, expected " +
                          std::to_string(n));
  if (!(group_bytes > 0)) throw InvalidArgument(who + ": the group size in bytes must be positive");
  if (align < 1) throw InvalidArgument(who + ": align must be >= 1 (got " + std::to_string(align) + ")");
  if (n == 0) return {0};

  std::vector<double> prefix(static_cast<size_t>(n) + 1, 0.0);
  for (ordinal_t r = 0; r < n; ++r) prefix[r + 1] = prefix[r] + row_bytes[r];

  // Greedy: close a group before the level that would overflow it.
  std::vector<ordinal_t> cuts{0};
  for (size_t l = 0; l + 1 < level_offsets.size(); ++l) {
    const ordinal_t begin = level_offsets[l], end = level_offsets[l + 1];
    if (begin > cuts.back() && prefix[end] - prefix[cuts.back()] > group_bytes) {
      const ordinal_t cut = begin / align * align;
      if (cut > cuts.back()) cuts.push_back(cut);
    }
  }
  cuts.push_back(n);

  // Merge until every reference stays within neighbouring groups (a cut moved by the
  // alignment, or levels that are not BFS levels, can break that). Merging never creates a
  // violation (it only removes cuts between two rows), so two passes suffice:
  //  * forward: for each group g in turn, while a row of g references a column at or past
  //    the start of group g+2, merge g+1 with g+2 (group g itself stays as it is);
  //  * backward: for each group g from the last, while a row of g references a column
  //    before the start of group g-1, merge g-2 with g-1.
  // Cuts live in a doubly linked list (cut index -> next/previous live cut).
  const int ncuts = static_cast<int>(cuts.size());
  std::vector<int> next(ncuts), prev(ncuts);
  for (int i = 0; i < ncuts; ++i) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  auto unlink = [&](int i) {
    next[prev[i]] = next[i];
    prev[next[i]] = prev[i];
  };
  const int last = ncuts - 1;  // the cut at n, never removed
  for (int i = 0; i != last; i = next[i]) {
    ordinal_t reach = 0;
    for (offset_t e = a.row_ptr(cuts[i]); e < a.row_ptr(cuts[next[i]]); ++e) reach = std::max(reach, a.col_idx(e));
    const int j = next[i];
    while (j != last && next[j] != last && reach >= cuts[next[j]]) unlink(next[j]);
  }
  for (int i = prev[last]; i > 0; i = prev[i]) {
    ordinal_t reach = n;
    for (offset_t e = a.row_ptr(cuts[i]); e < a.row_ptr(cuts[next[i]]); ++e) reach = std::min(reach, a.col_idx(e));
    while (prev[i] > 0 && reach < cuts[prev[i]]) unlink(prev[i]);
  }
  std::vector<ordinal_t> kept;
  for (int i = 0; i != last; i = next[i]) kept.push_back(cuts[i]);
  kept.push_back(n);
  cuts.swap(kept);
  return cuts;
}

MpkSchedule make_wavefront_schedule(std::vector<ordinal_t> group_offsets, int powers, int skew) {
  live_groups(powers, skew);  // checks powers and skew
  if (group_offsets.empty()) throw InvalidArgument("mpk schedule: group offsets must start at 0");
  if (const std::string d = offsets_defect(group_offsets, group_offsets.back()); !d.empty())
    throw InvalidArgument("mpk schedule: " + d);
  MpkSchedule s;
  s.powers = powers;
  s.skew = skew;
  s.group_offsets = std::move(group_offsets);
  const ordinal_t G = s.ngroups();
  s.order.reserve(static_cast<size_t>(G) * powers);
  const long long last_step = static_cast<long long>(G) - 1 + static_cast<long long>(skew) * (powers - 1);
  for (long long step = 0; G > 0 && step <= last_step; ++step) {
    const size_t before = s.order.size();
    for (int k = 1; k <= powers; ++k) {
      const long long g = step - static_cast<long long>(skew) * (k - 1);
      if (g < 0 || g >= G) continue;
      s.order.push_back(Tile{static_cast<ordinal_t>(g), k});
      if (skew == 1) s.launch_offsets.push_back(static_cast<int>(s.order.size()));
    }
    if (skew != 1 && s.order.size() > before) s.launch_offsets.push_back(static_cast<int>(s.order.size()));
  }
  return s;
}

template <class Scalar>
std::string schedule_violation(const MpkSchedule& s, const CsrMatrix<Scalar, HostSpace>& a) {
  if (a.nrows != a.ncols)
    return "the matrix is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) + ", not square";
  if (s.powers < 1) return "powers must be >= 1 (got " + std::to_string(s.powers) + ")";
  if (const std::string d = offsets_defect(s.group_offsets, a.nrows); !d.empty()) return d;
  const ordinal_t G = s.ngroups();
  const long long ntiles = static_cast<long long>(G) * s.powers;
  if (static_cast<long long>(s.order.size()) != ntiles)
    return "the order holds " + std::to_string(s.order.size()) +
           " tiles, expected groups x powers = " + std::to_string(ntiles);
  if (s.launch_offsets.empty() || s.launch_offsets.front() != 0 ||
      s.launch_offsets.back() != static_cast<int>(s.order.size()))
    return "launch offsets must run from 0 to the tile count " + std::to_string(s.order.size());
  for (size_t l = 1; l < s.launch_offsets.size(); ++l)
    if (s.launch_offsets[l] <= s.launch_offsets[l - 1])
      return "launch offsets must increase strictly (launch " + std::to_string(l - 1) + " is empty)";

  // Launch of every tile, index (power-1)*G + group.
  std::vector<int> launch_of(static_cast<size_t>(ntiles), -1);
  for (int l = 0; l < s.nlaunches(); ++l)
    for (int t = s.launch_offsets[l]; t < s.launch_offsets[l + 1]; ++t) {
      const Tile tile = s.order[t];
      if (tile.group < 0 || tile.group >= G || tile.power < 1 || tile.power > s.powers)
        return tile_name(tile.group, tile.power) + " at position " + std::to_string(t) + " is out of range (" +
               std::to_string(G) + " groups, " + std::to_string(s.powers) + " powers)";
      int& slot = launch_of[static_cast<size_t>(tile.power - 1) * G + tile.group];
      if (slot >= 0) return tile_name(tile.group, tile.power) + " appears twice";
      slot = l;
    }
  // Every tile is present (count matched and no repeats); check the wavefront rule.
  for (int l = 0; l < s.nlaunches(); ++l)
    for (int t = s.launch_offsets[l]; t < s.launch_offsets[l + 1]; ++t) {
      const Tile tile = s.order[t];
      if (tile.power == 1) continue;
      for (ordinal_t h = std::max<ordinal_t>(0, tile.group - 1); h <= std::min<ordinal_t>(G - 1, tile.group + 1); ++h) {
        const int dep = launch_of[static_cast<size_t>(tile.power - 2) * G + h];
        if (dep >= l)
          return tile_name(tile.group, tile.power) + " runs in launch " + std::to_string(l) + " but needs " +
                 tile_name(h, tile.power - 1) + ", which runs in launch " + std::to_string(dep);
      }
    }
  if (a.row_ptr.extent(0) != static_cast<size_t>(a.nrows) + 1) return "the matrix's row_ptr has the wrong length";
  const std::vector<ordinal_t> group_of = group_of_rows(s.group_offsets);
  for (ordinal_t r = 0; r < a.nrows; ++r)
    for (offset_t e = a.row_ptr(r); e < a.row_ptr(r + 1); ++e) {
      const ordinal_t c = a.col_idx(e);
      if (c < 0 || c >= a.ncols)
        return "row " + std::to_string(r) + " has column " + std::to_string(c) + " out of range";
      const ordinal_t g = group_of[r], h = group_of[c];
      if (h > g + 1 || h < g - 1)
        return "row " + std::to_string(r) + " (group " + std::to_string(g) + ") references column " +
               std::to_string(c) + " (group " + std::to_string(h) +
               "); rows may reference only their own and neighbouring groups";
    }
  return "";
}

template <class Scalar>
void check_schedule(const MpkSchedule& schedule, const CsrMatrix<Scalar, HostSpace>& a) {
  const std::string v = schedule_violation(schedule, a);
  if (!v.empty()) throw InvalidArgument("mpk schedule: " + v);
}

#define PPSPARSE_MPK_SCHEDULE_INSTANTIATE(S)                                                                  \
  template std::vector<ordinal_t> merge_levels(const CsrMatrix<S, HostSpace>&, const std::vector<ordinal_t>&, \
                                               const std::vector<double>&, double, ordinal_t);                \
  template std::string schedule_violation(const MpkSchedule&, const CsrMatrix<S, HostSpace>&);                \
  template void check_schedule(const MpkSchedule&, const CsrMatrix<S, HostSpace>&);
PPSPARSE_MPK_SCHEDULE_INSTANTIATE(float)
PPSPARSE_MPK_SCHEDULE_INSTANTIATE(double)
#undef PPSPARSE_MPK_SCHEDULE_INSTANTIATE

}  // namespace ppsparse::mpk
