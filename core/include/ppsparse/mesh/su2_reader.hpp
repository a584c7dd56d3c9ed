#pragma once
/// @file
/// Reader for SU2's native ASCII mesh format.
///
///   % comment                   (anywhere; '%' starts a comment to the end of the line)
///   NDIME= 3                    (2 or 3; "NDIME=3" and "NDIME = 3" are the same)
///   NELEM= n                    then n lines "type n0 n1 ... [index]"
///   NPOIN= n [ndomain]          then n lines "x y [z] [index]"
///   NMARK= m                    then m times: MARKER_TAG= name, MARKER_ELEMS= k, k lines
///
/// Multizone files (NZONE= n, then IZONE= 1 .. n, each a zone as above, in order) are read
/// whole, the zones joined as disjoint parts of one mesh (zone k's node ids offset by the
/// points of zones 1 .. k-1), or one zone alone. Whatever follows a zone's marker section up to
/// the next IZONE= (NPERIODIC=, FFD_ boxes) is ignored; other KEY= lines are skipped. Boundary markers are validated
/// (element types of dimension NDIME-1, node ids in range) and kept as the mesh's boundary faces
/// under their MARKER_TAG (zones read together share markers of the same name).
#include <string>

#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// zone 0 reads every zone, zone k >= 1 zone k only. Throws InputError "FILE:LINE: reason" for
/// any malformed input (a zone repeating a section without IZONE= between them, zones out of
/// order, fewer or more zones than NZONE=, zones of different NDIME), "FILE: zone K asked, the
/// file has N zones", and "FILE: cannot open file" when the file cannot be read.
Mesh read_su2(const std::string& path, int zone = 0);

}  // namespace ppsparse::mesh
