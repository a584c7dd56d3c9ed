// mesh::read: the formats of mesh/formats.def, recognised by content and name, each read by
// its reader.
#include <ppsparse/mesh/read.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/cgns_reader.hpp>
#include <ppsparse/mesh/gmsh_reader.hpp>
#include <ppsparse/mesh/su2_reader.hpp>
#include <ppsparse/mesh/ugrid_reader.hpp>

namespace ppsparse::mesh {

namespace {

// ---- the tests of formats.def's signature and hint columns, on the file's first bytes ----

bool none(const std::string&) { return false; }

// HDF5 ("\x89HDF\r\n\x1a\n") or ADF ("@(#)ADF Database").
bool cgns_signature(const std::string& head) {
  return head.compare(0, 8, "\x89HDF\r\n\x1a\n") == 0 || head.find("@(#)ADF Database") != std::string::npos;
}

// A first line "$MeshFormat".
bool gmsh_signature(const std::string& head) {
  const size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head.compare(first, 11, "$MeshFormat") == 0;
}

// An "NDIME=" line (keywords may have spaces before '=').
bool su2_hint(const std::string& head) {
  for (size_t at = head.find("NDIME"); at != std::string::npos; at = head.find("NDIME", at + 1)) {
    size_t k = at + 5;
    while (k < head.size() && (head[k] == ' ' || head[k] == '\t')) ++k;
    if (k < head.size() && head[k] == '=') return true;
  }
  return false;
}

void single_zone(const std::string& path, int zone, const char* name) {
  const bool vowel = std::string_view("AEIOU").find(name[0]) != std::string_view::npos;
  if (zone > 1)
    throw InputError(
        path, "zone " + std::to_string(zone) + " asked: " + (vowel ? "an " : "a ") + name + " file has one zone");
  if (zone < 0) throw InputError(path, "zone " + std::to_string(zone) + " asked: zones are numbered from 1");
}

using Test = bool (*)(const std::string&);
using Reader = Mesh (*)(const std::string&, int);

// formats.def's zones column: how the reader takes a zone.
#define PPSPARSE_MESH_READER_multizone(read, name) [](const std::string& path, int zone) { return read(path, zone); }
#define PPSPARSE_MESH_READER_single(read, name) \
  [](const std::string& path, int zone) {       \
    single_zone(path, zone, name);              \
    return read(path);                          \
  }

struct Format {
  MeshFormat id;
  const char* name;
  const char* extensions;
  Test signature, hint;
  Reader read;
};

const Format kFormats[] = {
#define PPSPARSE_MESH_FORMAT(id, name, extensions, signature, hint, zones, read) \
  {MeshFormat::id, name, extensions, &signature, &hint, PPSPARSE_MESH_READER_##zones(read, name)},
#include <ppsparse/mesh/formats.def>
#undef PPSPARSE_MESH_FORMAT
};

bool has_extension(const std::string& name, const Format& f) {
  std::istringstream list(f.extensions);
  for (std::string ext; list >> ext;)
    if (name.size() >= ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) return true;
  return false;
}

const Format* format(MeshFormat id) {
  for (const Format& f : kFormats)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace

const char* to_string(MeshFormat id) {
  const Format* f = format(id);
  return f ? f->name : "unknown";
}

std::string known_mesh_formats() {
  std::string names, list;
  size_t count = 0;
  for (const Format& f : kFormats)
    if (f.id != MeshFormat::cgns || cgns_available()) ++count;
  size_t k = 0;
  for (const Format& f : kFormats) {
    if (f.id == MeshFormat::cgns && !cgns_available()) continue;
    list += (k == 0 ? "" : k + 1 == count ? " and " : ", ") + std::string(f.name) + " (" + f.extensions + ")";
    ++k;
  }
  return list + (cgns_available() ? "" : "; this build reads no CGNS");
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
  // A signature proves the format; a name is taken next for the formats without one (their
  // content cannot say), then a hint; a signature format's name last, so that its reader says
  // what is wrong with a file that lacks its signature.
  for (const Format& f : kFormats)
    if (f.signature(head)) return f.id;
  for (const Format& f : kFormats)
    if (f.signature == &none && has_extension(name, f)) return f.id;
  for (const Format& f : kFormats)
    if (f.hint(head)) return f.id;
  for (const Format& f : kFormats)
    if (has_extension(name, f)) return f.id;
  return MeshFormat::unknown;
}

Mesh read(const std::string& path, int zone) {
  const MeshFormat id = detect_mesh_format(path);
  if (const Format* f = format(id)) return f->read(path, zone);
  std::string names;
  for (const Format& f : kFormats)
    names += (names.empty() ? "" : &f == std::end(kFormats) - 1 ? " or " : ", ") + std::string(f.name);
  throw InputError(path, "unknown mesh format (not " + names + "); ppsparse reads " + known_mesh_formats() + " meshes");
}

}  // namespace ppsparse::mesh
