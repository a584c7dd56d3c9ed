#include "vtu_writer.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include <ppsparse/error.hpp>

namespace flow {

namespace {

// The arrays in the order of the XML, each written after the XML as a UInt64 byte count and its
// bytes; an array's offset is where its count starts, counted from the first byte after '_'.
struct Appended {
  std::vector<std::string> blobs;
  std::uint64_t next = 0;
  template <class T>
  std::uint64_t add(const std::vector<T>& v) {
    std::string b(v.size() * sizeof(T), '\0');
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    const std::uint64_t at = next;
    next += sizeof(std::uint64_t) + b.size();
    blobs.push_back(std::move(b));
    return at;
  }
};

bool little_endian() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

}  // namespace

void write_vtu(const std::string& path, const ppsparse::mesh::Mesh& m, const std::vector<PointField>& fields) {
  const std::size_t n = static_cast<std::size_t>(m.npoints());
  for (const PointField& f : fields)
    if (f.components < 1 || f.values.size() != n * static_cast<std::size_t>(f.components))
      throw ppsparse::InvalidArgument("flow: field '" + f.name + "' has " + std::to_string(f.values.size()) +
                                      " values for " + std::to_string(n) + " points of " +
                                      std::to_string(f.components) + " components");
  Appended data;
  std::ostringstream xml;
  std::string scalars, vectors;
  for (const PointField& f : fields) {
    if (f.components == 1 && scalars.empty()) scalars = f.name;
    if (f.components == 3 && vectors.empty()) vectors = f.name;
  }
  xml << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\""
      << (little_endian() ? "LittleEndian" : "BigEndian") << "\" header_type=\"UInt64\">\n<UnstructuredGrid>\n"
      << "<Piece NumberOfPoints=\"" << n << "\" NumberOfCells=\"" << m.nelements() << "\">\n<PointData"
      << (scalars.empty() ? "" : " Scalars=\"" + scalars + "\"")
      << (vectors.empty() ? "" : " Vectors=\"" + vectors + "\"") << ">\n";
  for (const PointField& f : fields)
    xml << "<DataArray type=\"Float64\" Name=\"" << f.name << "\" NumberOfComponents=\"" << f.components
        << "\" format=\"appended\" offset=\"" << data.add(f.values) << "\"/>\n";
  std::vector<double> xyz(3 * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < m.dim; ++k) xyz[3 * i + static_cast<std::size_t>(k)] = m.coords[i * m.dim + k];
  xml << "</PointData>\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"appended\" offset=\""
      << data.add(xyz) << "\"/>\n</Points>\n<Cells>\n";
  std::vector<std::int64_t> connectivity(m.elem_nodes.begin(), m.elem_nodes.end());
  std::vector<std::int64_t> offsets(m.elem_ptr.begin() + 1, m.elem_ptr.end());
  std::vector<std::uint8_t> types(m.types.size());
  for (std::size_t e = 0; e < types.size(); ++e) types[e] = static_cast<std::uint8_t>(m.types[e]);  // VTK's ids
  xml << "<DataArray type=\"Int64\" Name=\"connectivity\" format=\"appended\" offset=\"" << data.add(connectivity)
      << "\"/>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" offset=\"" << data.add(offsets)
      << "\"/>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"appended\" offset=\"" << data.add(types)
      << "\"/>\n</Cells>\n</Piece>\n</UnstructuredGrid>\n<AppendedData encoding=\"raw\">\n_";
  std::ofstream out(path, std::ios::binary);
  if (!out) throw ppsparse::Error("flow: cannot write '" + path + "'");
  out << xml.str();
  for (const std::string& b : data.blobs) {
    const std::uint64_t bytes = b.size();
    out.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    out.write(b.data(), static_cast<std::streamsize>(b.size()));
  }
  out << "\n</AppendedData>\n</VTKFile>\n";
  if (!out) throw ppsparse::Error("flow: writing '" + path + "' failed");
}

}  // namespace flow
