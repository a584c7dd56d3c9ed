#pragma once
// What the CGNS reader and writer share: the linear element types, the file handle, and the
// error of a build without the CGNS library. Private to the library.
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/cgns_reader.hpp>

#if PPSPARSE_HAVE_CGNS
#include <cgnslib.h>

#include <array>
#endif

namespace ppsparse::mesh::cgns {

#if PPSPARSE_HAVE_CGNS
#if CG_BUILD_64BIT
inline constexpr CGNS_ENUMT(DataType_t) kSizeType = CGNS_ENUMV(LongInteger);
#else
inline constexpr CGNS_ENUMT(DataType_t) kSizeType = CGNS_ENUMV(Integer);
#endif

// A linear CGNS element type as the Mesh holds it; dim 0 is NODE.
struct CgnsType {
  CGNS_ENUMT(ElementType_t) cgns;
  int nodes;
  int dim;
  ElementType type;
};

inline constexpr std::array<CgnsType, 8> kLinearTypes = {{{CGNS_ENUMV(NODE), 1, 0, ElementType::line},
                                                          {CGNS_ENUMV(BAR_2), 2, 1, ElementType::line},
                                                          {CGNS_ENUMV(TRI_3), 3, 2, ElementType::triangle},
                                                          {CGNS_ENUMV(QUAD_4), 4, 2, ElementType::quadrilateral},
                                                          {CGNS_ENUMV(TETRA_4), 4, 3, ElementType::tetrahedron},
                                                          {CGNS_ENUMV(PYRA_5), 5, 3, ElementType::pyramid},
                                                          {CGNS_ENUMV(PENTA_6), 6, 3, ElementType::prism},
                                                          {CGNS_ENUMV(HEXA_8), 8, 3, ElementType::hexahedron}}};

inline const CgnsType* linear_type(long long t) {
  for (const CgnsType& c : kLinearTypes)
    if (static_cast<long long>(c.cgns) == t) return &c;
  return nullptr;
}

inline std::string type_name(long long t) {
  if (t >= 0 && t < NofValidElementTypes) return cg_ElementTypeName(static_cast<CGNS_ENUMT(ElementType_t)>(t));
  return "type " + std::to_string(t);
}

// A CGNS enumeration's name, or its number when out of the table.
inline std::string enum_name(const char* const* names, int count, int value) {
  return value >= 0 && value < count ? names[value] : std::to_string(value);
}

// The file, closed on every path out.
class CgnsFile {
 public:
  CgnsFile(const std::string& path, int mode) {
    if (cg_open(path.c_str(), mode, &fn_) != CG_OK) fn_ = -1;
  }
  ~CgnsFile() {
    if (fn_ >= 0) cg_close(fn_);
  }
  CgnsFile(const CgnsFile&) = delete;
  CgnsFile& operator=(const CgnsFile&) = delete;
  int fn() const { return fn_; }
  bool open() const { return fn_ >= 0; }
  // Closes now; false when closing fails (writes are flushed here).
  bool close() {
    const int rc = fn_ >= 0 ? cg_close(fn_) : CG_OK;
    fn_ = -1;
    return rc == CG_OK;
  }

 private:
  int fn_ = -1;
};

inline CGNS_ENUMT(ElementType_t) cgns_type(ElementType t) {
  for (const CgnsType& c : kLinearTypes)
    if (c.dim > 0 && c.type == t) return c.cgns;
  return CGNS_ENUMV(ElementTypeNull);
}
#else
[[noreturn]] inline void no_cgns(const std::string& what) {
  throw Error(what +
              ": this build of ppsparse reads no CGNS (configure with -DPPSPARSE_ENABLE_CGNS=ON and libcgns-dev)");
}
#endif

}  // namespace ppsparse::mesh::cgns
