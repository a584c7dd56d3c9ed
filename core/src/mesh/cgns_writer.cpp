// CGNS writer (mesh/cgns_reader.hpp) through the CGNS library: one base, one unstructured zone
// per mesh, linear element sections.
#include <algorithm>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/cgns_reader.hpp>

#include "cgns_common.hpp"

namespace ppsparse::mesh {

#if PPSPARSE_HAVE_CGNS
using namespace cgns;

void write_cgns(const std::string& path, const std::vector<Mesh>& zones, const CgnsWriteOptions& options) {
  if (zones.empty()) throw InvalidArgument("write_cgns: no zone to write");
  for (const Mesh& m : zones) {
    validate(m, "write_cgns");
    if (m.dim != zones[0].dim) throw InvalidArgument("write_cgns: zones of dimensions 2 and 3");
  }
  auto check = [&](int rc) {
    if (rc != CG_OK) throw Error("write_cgns: '" + path + "': " + cg_get_error());
  };
  check(cg_set_file_type(options.hdf5 ? CG_FILE_HDF5 : CG_FILE_ADF));
  CgnsFile file(path, CG_MODE_WRITE);
  if (!file.open()) throw Error("write_cgns: cannot open '" + path + "' for writing: " + cg_get_error());
  const int fn = file.fn();
  const int dim = zones[0].dim;
  int base = 0;
  check(cg_base_write(fn, "Base", dim, dim, &base));
  for (size_t k = 0; k < zones.size(); ++k) {
    const Mesh& m = zones[k];
    cgsize_t size[3] = {m.npoints(), m.nelements(), 0};
    int z = 0;
    check(cg_zone_write(fn, base, ("zone" + std::to_string(k + 1)).c_str(), size, CGNS_ENUMV(Unstructured), &z));
    static const char* names[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
    for (int d = 0; d < dim; ++d) {
      std::vector<double> x(static_cast<size_t>(m.npoints()));
      for (ordinal_t p = 0; p < m.npoints(); ++p) x[p] = m.coords[static_cast<size_t>(p) * dim + d];
      int c = 0;
      check(cg_coord_write(fn, base, z, CGNS_ENUMV(RealDouble), names[d], x.data(), &c));
    }
    if (options.mixed) {
      std::vector<cgsize_t> conn, offsets{0};
      for (ordinal_t e = 0; e < m.nelements(); ++e) {
        conn.push_back(cgns_type(m.types[e]));
        for (offset_t j = m.elem_ptr[e]; j < m.elem_ptr[e + 1]; ++j) conn.push_back(m.elem_nodes[j] + 1);
        offsets.push_back(static_cast<cgsize_t>(conn.size()));
      }
      int s = 0;
      check(cg_poly_section_write(fn, base, z, "Cells", CGNS_ENUMV(MIXED), 1, m.nelements(), 0, conn.data(),
                                  offsets.data(), &s));
      continue;
    }
    cgsize_t next = 1;
    for (const CgnsType& t : kLinearTypes) {
      if (t.dim != dim) continue;
      std::vector<cgsize_t> conn;
      for (ordinal_t e = 0; e < m.nelements(); ++e)
        if (m.types[e] == t.type)
          for (offset_t j = m.elem_ptr[e]; j < m.elem_ptr[e + 1]; ++j) conn.push_back(m.elem_nodes[j] + 1);
      if (conn.empty()) continue;
      const cgsize_t count = static_cast<cgsize_t>(conn.size()) / t.nodes;
      int s = 0;
      check(
          cg_section_write(fn, base, z, type_name(t.cgns).c_str(), t.cgns, next, next + count - 1, 0, conn.data(), &s));
      next += count;
    }
  }
  if (!file.close()) throw Error("write_cgns: closing '" + path + "' failed: " + cg_get_error());
}

#else

void write_cgns(const std::string& path, const std::vector<Mesh>&, const CgnsWriteOptions&) { cgns::no_cgns(path); }

#endif

}  // namespace ppsparse::mesh
