#include <ppsparse/mesh/read.hpp>

#include <filesystem>
#include <fstream>
#include <string_view>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/cgns_reader.hpp>
#include <ppsparse/mesh/gmsh_reader.hpp>
#include <ppsparse/mesh/su2_reader.hpp>
#include <ppsparse/mesh/ugrid_reader.hpp>

namespace ppsparse::mesh {

namespace {
std::string readable() {
  return std::string("ppsparse reads SU2 (.su2), AFLR3 UGRID (.ugrid, .lb8.ugrid, ...), Gmsh MSH 2.2/4.1 (.msh)") +
         (cgns_available() ? " and CGNS (.cgns)" : "; this build reads no CGNS") + " meshes";
}

void single_zone(const std::string& path, int zone, const char* format) {
  if (zone > 1) throw InputError(path, "zone " + std::to_string(zone) + " asked: " + format + " file has one zone");
  if (zone < 0) throw InputError(path, "zone " + std::to_string(zone) + " asked: zones are numbered from 1");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

const char* to_string(MeshFormat format) {
  switch (format) {
    case MeshFormat::su2:
      return "SU2";
    case MeshFormat::ugrid:
      return "AFLR3 UGRID";
    case MeshFormat::gmsh:
      return "Gmsh MSH";
    case MeshFormat::cgns:
      return "CGNS";
    case MeshFormat::unknown:
      break;
  }
  return "unknown";
}

MeshFormat detect_mesh_format(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "cannot open file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file");
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  const std::string name = std::filesystem::path(path).filename().string();
  // Signatures first: a CGNS file is HDF5 ("\x89HDF\r\n\x1a\n") or ADF ("@(#)ADF Database").
  if (head.compare(0, 8, "\x89HDF\r\n\x1a\n") == 0 || head.find("@(#)ADF Database") != std::string::npos)
    return MeshFormat::cgns;
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && head.compare(first, 11, "$MeshFormat") == 0) return MeshFormat::gmsh;
  if (ends_with(name, ".ugrid")) return MeshFormat::ugrid;
  if (ends_with(name, ".su2")) return MeshFormat::su2;
  // SU2 content: an "NDIME=" line (keywords may have spaces before '=').
  for (size_t at = head.find("NDIME"); at != std::string::npos; at = head.find("NDIME", at + 1)) {
    size_t k = at + 5;
    while (k < head.size() && (head[k] == ' ' || head[k] == '\t')) ++k;
    if (k < head.size() && head[k] == '=') return MeshFormat::su2;
  }
  if (ends_with(name, ".msh")) return MeshFormat::gmsh;
  if (ends_with(name, ".cgns") || ends_with(name, ".adf") || ends_with(name, ".hdf")) return MeshFormat::cgns;
  return MeshFormat::unknown;
}

Mesh read(const std::string& path, int zone) {
  const MeshFormat f = detect_mesh_format(path);
  switch (f) {
    case MeshFormat::su2:
      return read_su2(path, zone);
    case MeshFormat::ugrid:
      single_zone(path, zone, "an AFLR3 UGRID");
      return read_ugrid(path);
    case MeshFormat::gmsh:
      single_zone(path, zone, "a Gmsh MSH");
      return read_gmsh(path);
    case MeshFormat::cgns:
      return read_cgns(path, zone);
    case MeshFormat::unknown:
      break;
  }
  throw InputError(path, "unknown mesh format (not SU2, AFLR3 UGRID, Gmsh MSH or CGNS); " + readable());
}

}  // namespace ppsparse::mesh
