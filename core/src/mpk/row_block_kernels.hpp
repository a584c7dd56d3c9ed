#pragma once
// Device side of the matrix power kernels (private to the library), one file per concept:
// row sources, the blocked launch, the persistent and pipelined single-launch kernels, and the
// gather and scatter between numberings.
// A block is rows [row_begin, row_end) of one tile (group, power); a team computes
//   y_power(r) = sum_j a_rj y_{power-1}(j)   for its rows,
// a thread (team rank) per row and the row's entries split over the vector lanes.
#include "blocked_kernel.hpp"
#include "gather_scatter.hpp"
#include "persistent_kernel.hpp"
#include "pipelined_kernel.hpp"
#include "row_sources.hpp"
