// The Python bindings of the readers: Matrix Market files and meshes, as arrays.
#include "arrays.hpp"

#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/refine.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>

namespace ppsparse_python {

namespace {

// ---- readers ----

py::tuple read_matrix_market_arrays(const std::string& path) {
  const CsrMatrix<double, HostSpace> a = io::read_matrix_market<double>(path);
  py::array_t<offset_t> rp(static_cast<py::ssize_t>(a.row_ptr.extent(0)), a.row_ptr.data());
  py::array_t<ordinal_t> ci(static_cast<py::ssize_t>(a.col_idx.extent(0)), a.col_idx.data());
  py::array_t<double> v(static_cast<py::ssize_t>(a.values.extent(0)), a.values.data());
  return py::make_tuple(rp, ci, v, py::make_tuple(a.nrows, a.ncols));
}

template <class T>
py::array_t<T> to_array(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

py::dict read_mesh_arrays(const std::string& path, int refine, int zone) {
  mesh::Mesh m = mesh::read(path, zone);
  if (refine < 0) throw py::value_error("refine must be >= 0, got " + std::to_string(refine));
  if (refine > 0) m = mesh::refine_uniform(m, refine);
  py::dict d;
  d["dim"] = m.dim;
  py::array_t<double> points(to_array(m.coords));
  d["points"] = points.reshape({static_cast<py::ssize_t>(m.npoints()), static_cast<py::ssize_t>(m.dim)});
  std::map<int, std::string> type_names;  // the types present, volume and face
  std::vector<int> types;
  for (const auto t : m.types) {
    types.push_back(static_cast<int>(t));
    type_names[static_cast<int>(t)] = mesh::element_name(t);
  }
  d["element_types"] = to_array(types);
  d["element_ptr"] = to_array(m.elem_ptr);
  d["element_nodes"] = to_array(m.elem_nodes);
  d["marker_names"] = m.marker_names;
  std::vector<int> face_types;
  for (const auto t : m.face_types) {
    face_types.push_back(static_cast<int>(t));
    type_names[static_cast<int>(t)] = mesh::element_name(t);
  }
  d["element_type_names"] = type_names;
  d["face_types"] = to_array(face_types);
  d["face_ptr"] = to_array(m.face_ptr);
  d["face_nodes"] = to_array(m.face_nodes);
  d["face_marker"] = to_array(m.face_marker);
  const Graph g = mesh::vertex_graph(m);
  d["graph_indptr"] = to_array(g.row_ptr);
  d["graph_indices"] = to_array(g.adj);
  return d;
}

}  // namespace

void bind_readers(py::module_& m) {
  m.def("read_matrix_market_arrays", &read_matrix_market_arrays, "path"_a);
  m.def("read_mesh_arrays", &read_mesh_arrays, "path"_a, "refine"_a = 0, "zone"_a = 0);
}

}  // namespace ppsparse_python
