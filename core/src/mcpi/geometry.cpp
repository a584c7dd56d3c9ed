#include <ppsparse/mcpi/geometry.hpp>

#include <string>

#include <ppsparse/error.hpp>

namespace ppsparse::mcpi {

WarpPerRowShape warp_per_row_shape_k40(int nb) {
  // Zubair et al. (2016), Table I, verbatim except nb = 1, where the table's nbk = 2 would leave
  // 30 of 32 lanes idle; we process 32 blocks per iteration instead.
  static const WarpPerRowShape table[17] = {{0, 0, 0},                                               // unused
                                            {1, 32, 4}, {1, 8, 4}, {1, 3, 4}, {1, 2, 4}, {1, 1, 4},  // nb 1..5
                                            {2, 1, 2},  {2, 1, 2}, {2, 1, 2},                        // nb 6..8
                                            {4, 1, 1},  {4, 1, 1}, {4, 1, 1}, {5, 1, 1}, {6, 1, 1},
                                            {7, 1, 1},  {8, 1, 1}, {8, 1, 1}};  // nb 9..16
  if (nb < 1 || nb > 16)
    throw InvalidArgument("warp_per_row_shape_k40: nb = " + std::to_string(nb) + " is outside 1..16");
  return table[nb];
}

Geometry make_geometry(Kernel k, int nb, int W) {
  if (nb < 1 || nb > 64)
    throw InvalidArgument("MCPI kernels support block sizes 1..64; got nb = " + std::to_string(nb));
  if (W < 1) throw InvalidArgument("MCPI geometry: vector width must be >= 1");
  Geometry g;
  g.W = W;
  const int nb2 = nb * nb;

  auto block_row_geometry = [&](int slots) {
    // Zubair et al. (2016), nb in 17..64: nw = ceil(nb / W) warps hold one block column; `slots` blocks at a time.
    g.map = LaneMap::block_row;
    const int warps_per_slot = (nb + W - 1) / W;
    g.lanes_per_slot = warps_per_slot * W;
    g.slots = slots;
    g.warps_per_group = warps_per_slot * slots;
    g.rows_per_group = 1;
    g.groups_per_team = 1;
  };

  switch (layout(k)) {
    case GroupLayout::one_row:
      if (nb <= 16) {
        g.map = LaneMap::entry;
        g.lanes_per_slot = nb2;
        if (W == 32) {
          const auto t = warp_per_row_shape_k40(nb);
          g.warps_per_group = t.nw;
          g.slots = t.nbk;
          g.groups_per_team = t.nrbk;
        } else {
          // Same rule for other widths: enough warps to hold one block, as many blocks as fit.
          g.warps_per_group = (nb2 + W - 1) / W;
          g.slots = (g.warps_per_group * W) / nb2;
          g.groups_per_team = g.warps_per_group == 1 ? 4 : (g.warps_per_group == 2 ? 2 : 1);
        }
        g.rows_per_group = 1;
      } else {
        block_row_geometry(4);
      }
      break;
    case GroupLayout::many_rows:
      if (2 * nb <= W) {
        g.map = LaneMap::rows;
        g.lanes_per_slot = nb;
        g.slots = 1;
        g.warps_per_group = 1;
        g.rows_per_group = W / nb;
        g.groups_per_team = 4;
      } else {
        // Fewer than two rows fit in a group: one row per group, several warps if nb > W.
        block_row_geometry(1);
        g.groups_per_team = g.warps_per_group == 1 ? 4 : 1;
      }
      break;
  }
  return g;
}

}  // namespace ppsparse::mcpi
