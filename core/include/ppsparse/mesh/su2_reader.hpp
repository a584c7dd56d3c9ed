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
/// Only the first zone of a multi-zone file (NZONE=) is read, and whatever follows the
/// zone's marker section (NPERIODIC=, FFD_ boxes, further zones) is ignored; other
/// KEY= lines before that are skipped. Boundary markers are parsed and validated
/// (element types of dimension NDIME-1, node ids in range), then dropped.
#include <string>

#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// Throws InputError "FILE:LINE: reason" for any malformed input, and
/// InputError "FILE: cannot open file" when the file cannot be read.
Mesh read_su2(const std::string& path);

}  // namespace ppsparse::mesh
