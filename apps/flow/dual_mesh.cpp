#include "dual_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <ppsparse/error.hpp>
#include <ppsparse/kokkos_compat.hpp>

namespace flow {
namespace {

using ppsparse::InvalidArgument;
namespace mesh = ppsparse::mesh;

// Local numbering of one element type, from mesh::element_edges and mesh::element_faces, for
// the device: its edges, its faces' node cycles, and the edge each pair of a cycle is.
struct TypeTable {
  int nnodes = 0, nedges = 0, nfaces = 0;
  int edge[12][2] = {};
  int face_size[6] = {};
  int face[6][4] = {};
  int face_edge[6][4] = {};
};
constexpr int kTypeIds = 15;  // ElementType ids are below 15

Kokkos::View<TypeTable*, MemSpace> type_tables() {
  Kokkos::View<TypeTable*, MemSpace> tables("flow::type_tables", kTypeIds);
  auto h = Kokkos::create_mirror_view(tables);
  for (auto t : {mesh::ElementType::triangle, mesh::ElementType::quadrilateral, mesh::ElementType::tetrahedron,
                 mesh::ElementType::pyramid, mesh::ElementType::prism, mesh::ElementType::hexahedron}) {
    TypeTable& tt = h(static_cast<int>(t));
    tt.nnodes = mesh::nodes_per_element(t);
    const auto& edges = mesh::element_edges(t);
    tt.nedges = static_cast<int>(edges.size());
    for (int e = 0; e < tt.nedges; ++e) tt.edge[e][0] = edges[e][0], tt.edge[e][1] = edges[e][1];
    if (mesh::element_dimension(t) == 3) {
      const auto& faces = mesh::element_faces(t);
      tt.nfaces = static_cast<int>(faces.size());
      for (int f = 0; f < tt.nfaces; ++f) {
        const int s = static_cast<int>(faces[f].size());
        tt.face_size[f] = s;
        for (int k = 0; k < s; ++k) {
          const int a = faces[f][k], b = faces[f][(k + 1) % s];
          tt.face[f][k] = a;
          for (int e = 0; e < tt.nedges; ++e)
            if ((edges[e][0] == a && edges[e][1] == b) || (edges[e][0] == b && edges[e][1] == a))
              tt.face_edge[f][k] = e;
        }
      }
    }
  }
  Kokkos::deep_copy(tables, h);
  return tables;
}

std::uint64_t edge_key(ordinal_t a, ordinal_t b) {
  if (a > b) std::swap(a, b);
  return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
}

// Orientation sign (+1, -1, 0) of element e by its signed volume.
int orientation(const mesh::Mesh& m, ordinal_t e, double& volume) {
  volume = mesh::element_signed_volume(m, e);
  return volume > 0 ? 1 : volume < 0 ? -1 : 0;
}

struct Vec {
  double x[3] = {0, 0, 0};
};

}  // namespace

DualMesh build_dual_mesh(const mesh::Mesh& m, const std::function<void(const std::string&)>& progress) {
  mesh::validate(m, "flow: mesh");
  const int dim = m.dim;
  const ordinal_t nv = m.npoints(), ne = m.nelements();
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };

  // Orientation: the majority's of each element type is the file's convention (CGNS's prisms
  // turn the other way from VTK's); an element against it is inverted.
  {
    std::vector<double> vol(static_cast<size_t>(ne));
    ordinal_t positive[kTypeIds] = {}, negative[kTypeIds] = {};
    for (ordinal_t e = 0; e < ne; ++e) {
      const int s = orientation(m, e, vol[e]);
      const int t = static_cast<int>(m.types[e]);
      positive[t] += s > 0;
      negative[t] += s < 0;
    }
    for (ordinal_t e = 0; e < ne; ++e) {
      const int t = static_cast<int>(m.types[e]);
      const int convention = positive[t] >= negative[t] ? 1 : -1;
      if (vol[e] * convention <= 0)
        throw InvalidArgument(
            "flow: element " + std::to_string(e + 1) + " (1-based, in the file's order of volume elements), a " +
            mesh::element_name(m.types[e]) + ", is " + (vol[e] == 0 ? "degenerate (zero volume)" : "inverted") +
            ": signed volume " + std::to_string(vol[e]) + " where " +
            std::to_string(convention > 0 ? positive[t] : negative[t]) + " of the mesh's " +
            std::to_string(positive[t] + negative[t]) + " " + mesh::element_name(m.types[e]) + "s have the other sign");
    }
  }

  // Edges, numbered in sorted order, and each element edge's global edge.
  std::vector<std::uint64_t> keys;
  for (ordinal_t e = 0; e < ne; ++e) {
    const ordinal_t* v = m.elem_nodes.data() + m.elem_ptr[e];
    for (const auto& ed : mesh::element_edges(m.types[e])) keys.push_back(edge_key(v[ed[0]], v[ed[1]]));
  }
  std::vector<ordinal_t> elem_edge(keys.size());
  {
    std::vector<std::uint64_t> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (size_t k = 0; k < keys.size(); ++k)
      elem_edge[k] = static_cast<ordinal_t>(std::lower_bound(sorted.begin(), sorted.end(), keys[k]) - sorted.begin());
    keys = std::move(sorted);
  }
  const ordinal_t nedges = static_cast<ordinal_t>(keys.size());
  say("dual mesh: " + std::to_string(nv) + " vertices, " + std::to_string(nedges) + " edges");

  DualMesh d;
  d.dim = dim;
  d.nvertices = nv;
  d.edges = Kokkos::View<ordinal_t* [2], MemSpace>("flow::edges", nedges);
  d.edge_normal = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>("flow::edge_normal", nedges, dim);
  d.volume = Kokkos::View<double*, MemSpace>("flow::volume", nv);

  // The block pattern: row i lists its neighbours in order; edge e's blocks (i, j) and (j, i).
  std::vector<offset_t> degree(static_cast<size_t>(nv) + 1, 0);
  for (auto k : keys) {
    ++degree[static_cast<size_t>(k >> 32) + 1];
    ++degree[static_cast<size_t>(k & 0xffffffffu) + 1];
  }
  std::partial_sum(degree.begin(), degree.end(), degree.begin());
  d.row_ptr = degree;
  d.col_idx.assign(static_cast<size_t>(degree.back()), 0);
  auto edges_h = Kokkos::create_mirror_view(d.edges);
  std::vector<ordinal_t> pos_edge(d.col_idx.size());  // the edge of each block (v, j)
  for (ordinal_t e = 0; e < nedges; ++e) {
    const ordinal_t i = static_cast<ordinal_t>(keys[e] >> 32), j = static_cast<ordinal_t>(keys[e] & 0xffffffffu);
    edges_h(e, 0) = i;
    edges_h(e, 1) = j;
  }
  // Row i: its lower neighbours j < i (keys (j, i), met in order of j), then its upper ones
  // (keys (i, j), in order of j), so each row is sorted.
  {
    // Count lower neighbours per row to know where the upper ones start.
    std::vector<offset_t> nlower(static_cast<size_t>(nv), 0);
    for (auto k : keys) ++nlower[static_cast<size_t>(k & 0xffffffffu)];
    std::vector<offset_t> lower_fill(static_cast<size_t>(nv)), upper_fill(static_cast<size_t>(nv));
    for (ordinal_t i = 0; i < nv; ++i) {
      lower_fill[i] = degree[i];
      upper_fill[i] = degree[i] + nlower[i];
    }
    for (ordinal_t e = 0; e < nedges; ++e) {
      const ordinal_t i = edges_h(e, 0), j = edges_h(e, 1);
      const offset_t pij = upper_fill[i]++;
      const offset_t pji = lower_fill[j]++;
      d.col_idx[static_cast<size_t>(pij)] = j;
      d.col_idx[static_cast<size_t>(pji)] = i;
      pos_edge[static_cast<size_t>(pij)] = pos_edge[static_cast<size_t>(pji)] = e;
    }
  }
  Kokkos::deep_copy(d.edges, edges_h);
  {
    const size_t nnzb = d.col_idx.size();
    d.row_ptr_device = Kokkos::View<offset_t*, MemSpace>("flow::row_ptr", d.row_ptr.size());
    d.col_idx_device = Kokkos::View<ordinal_t*, MemSpace>("flow::col_idx", nnzb);
    d.pos_edge = Kokkos::View<ordinal_t*, MemSpace>("flow::pos_edge", nnzb);
    using HostOffsets = Kokkos::View<const offset_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using HostOrdinals = Kokkos::View<const ordinal_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    Kokkos::deep_copy(d.row_ptr_device, HostOffsets(d.row_ptr.data(), d.row_ptr.size()));
    Kokkos::deep_copy(d.col_idx_device, HostOrdinals(d.col_idx.data(), nnzb));
    Kokkos::deep_copy(d.pos_edge, HostOrdinals(pos_edge.data(), nnzb));
  }

  // Elements on the device: types, nodes, global edges.
  using HostI = Kokkos::View<const ordinal_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<int*, MemSpace> types("flow::types", ne);
  {
    auto th = Kokkos::create_mirror_view(types);
    for (ordinal_t e = 0; e < ne; ++e) th(e) = static_cast<int>(m.types[e]);
    Kokkos::deep_copy(types, th);
  }
  Kokkos::View<offset_t*, MemSpace> elem_ptr("flow::elem_ptr", ne + 1);
  Kokkos::View<offset_t*, MemSpace> edge_ptr("flow::edge_ptr", ne + 1);
  {
    auto ph = Kokkos::create_mirror_view(elem_ptr);
    auto eh = Kokkos::create_mirror_view(edge_ptr);
    offset_t at = 0;
    for (ordinal_t e = 0; e <= ne; ++e) {
      ph(e) = m.elem_ptr[e];
      eh(e) = at;
      if (e < ne) at += static_cast<offset_t>(mesh::element_edges(m.types[e]).size());
    }
    Kokkos::deep_copy(elem_ptr, ph);
    Kokkos::deep_copy(edge_ptr, eh);
  }
  Kokkos::View<ordinal_t*, MemSpace> elem_nodes("flow::elem_nodes", m.elem_nodes.size());
  Kokkos::deep_copy(elem_nodes, HostI(m.elem_nodes.data(), m.elem_nodes.size()));
  Kokkos::View<ordinal_t*, MemSpace> elem_edges("flow::elem_edges", elem_edge.size());
  Kokkos::deep_copy(elem_edges, HostI(elem_edge.data(), elem_edge.size()));
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> x("flow::coords", nv, dim);
  {
    auto xh = Kokkos::create_mirror_view(x);
    for (ordinal_t p = 0; p < nv; ++p)
      for (int k = 0; k < dim; ++k) xh(p, k) = m.coords[static_cast<size_t>(p) * dim + k];
    Kokkos::deep_copy(x, xh);
  }
  d.coords = x;
  const auto tables = type_tables();
  const auto edges = d.edges;
  const auto normal = d.edge_normal;
  const auto volume = d.volume;

  Kokkos::parallel_for(
      "flow::dual_faces", Kokkos::RangePolicy<>(0, ne), KOKKOS_LAMBDA(const ordinal_t e) {
        const TypeTable& t = tables(types(e));
        const ordinal_t* v = &elem_nodes(elem_ptr(e));
        const ordinal_t* ge = &elem_edges(edge_ptr(e));
        double c[3] = {0, 0, 0};
        for (int a = 0; a < t.nnodes; ++a)
          for (int k = 0; k < dim; ++k) c[k] += x(v[a], k) / t.nnodes;
        // Adds the dual-face piece n (oriented from a to b) to edge le, and the volumes.
        auto add = [&](int le, int a, int b, double* n, double va, double vb) {
          double along = 0;
          for (int k = 0; k < dim; ++k) along += n[k] * (x(v[b], k) - x(v[a], k));
          const double sign = (along < 0 ? -1.0 : 1.0) * (edges(ge[le], 0) == v[a] ? 1.0 : -1.0);
          for (int k = 0; k < dim; ++k) Kokkos::atomic_add(&normal(ge[le], k), sign * n[k]);
          Kokkos::atomic_add(&volume(v[a]), va);
          Kokkos::atomic_add(&volume(v[b]), vb);
        };
        if (dim == 2) {
          for (int le = 0; le < t.nedges; ++le) {
            const int a = t.edge[le][0], b = t.edge[le][1];
            double mid[2], n[2];
            for (int k = 0; k < 2; ++k) mid[k] = 0.5 * (x(v[a], k) + x(v[b], k));
            n[0] = c[1] - mid[1];
            n[1] = -(c[0] - mid[0]);
            // Triangles (a, mid, c) and (b, mid, c): the vertices' parts of the element.
            auto area = [&](int p) {
              return 0.5 * ppsparse::compat::fabs((mid[0] - x(v[p], 0)) * (c[1] - x(v[p], 1)) -
                                                  (mid[1] - x(v[p], 1)) * (c[0] - x(v[p], 0)));
            };
            add(le, a, b, n, area(a), area(b));
          }
          return;
        }
        for (int f = 0; f < t.nfaces; ++f) {
          const int s = t.face_size[f];
          double cf[3] = {0, 0, 0};
          for (int k = 0; k < s; ++k)
            for (int q = 0; q < 3; ++q) cf[q] += x(v[t.face[f][k]], q) / s;
          for (int k = 0; k < s; ++k) {
            const int a = t.face[f][k], b = t.face[f][(k + 1) % s];
            double mid[3], p[3], q[3], n[3];
            for (int r = 0; r < 3; ++r) {
              mid[r] = 0.5 * (x(v[a], r) + x(v[b], r));
              p[r] = cf[r] - mid[r];
              q[r] = c[r] - mid[r];
            }
            n[0] = 0.5 * (p[1] * q[2] - p[2] * q[1]);
            n[1] = 0.5 * (p[2] * q[0] - p[0] * q[2]);
            n[2] = 0.5 * (p[0] * q[1] - p[1] * q[0]);
            // Tetrahedra (vertex, mid, cf, c): the vertices' parts of the element next to this
            // piece of face.
            auto tet = [&](int w) {
              double r0[3];
              for (int r = 0; r < 3; ++r) r0[r] = x(v[w], r) - mid[r];
              return ppsparse::compat::fabs(r0[0] * (p[1] * q[2] - p[2] * q[1]) - r0[1] * (p[0] * q[2] - p[2] * q[0]) +
                                            r0[2] * (p[0] * q[1] - p[1] * q[0])) /
                     6.0;
            };
            add(t.face_edge[f][k], a, b, n, tet(a), tet(b));
          }
        }
      });

  // Boundary faces: oriented outward on the host (against the element they bound), then each
  // vertex's part of each face added to its boundary node on the device.
  const ordinal_t nf = m.nfaces();
  std::vector<offset_t> v2e_ptr(static_cast<size_t>(nv) + 1, 0);
  for (ordinal_t e = 0; e < ne; ++e)
    for (offset_t k = m.elem_ptr[e]; k < m.elem_ptr[e + 1]; ++k) ++v2e_ptr[static_cast<size_t>(m.elem_nodes[k]) + 1];
  std::partial_sum(v2e_ptr.begin(), v2e_ptr.end(), v2e_ptr.begin());
  std::vector<ordinal_t> v2e(static_cast<size_t>(v2e_ptr.back()));
  {
    std::vector<offset_t> at(v2e_ptr.begin(), v2e_ptr.end() - 1);
    for (ordinal_t e = 0; e < ne; ++e)
      for (offset_t k = m.elem_ptr[e]; k < m.elem_ptr[e + 1]; ++k) v2e[static_cast<size_t>(at[m.elem_nodes[k]]++)] = e;
  }
  auto point = [&](ordinal_t p) {
    Vec r;
    for (int k = 0; k < dim; ++k) r.x[k] = m.coords[static_cast<size_t>(p) * dim + k];
    return r;
  };
  std::vector<ordinal_t> face_nodes(m.face_nodes.size());
  std::vector<std::uint64_t> bkeys;  // (vertex, marker) of every face corner
  std::vector<int> count_in_marker(m.marker_names.size(), 0);
  for (ordinal_t f = 0; f < nf; ++f) {
    const int s = mesh::nodes_per_element(m.face_types[f]);
    const ordinal_t* v = m.face_nodes.data() + m.face_ptr[f];
    const int marker = m.face_marker[f];
    ++count_in_marker[static_cast<size_t>(marker)];
    ordinal_t owner = -1;
    for (offset_t k = v2e_ptr[v[0]]; k < v2e_ptr[v[0] + 1] && owner < 0; ++k) {
      const ordinal_t e = v2e[static_cast<size_t>(k)];
      const ordinal_t* en = m.elem_nodes.data() + m.elem_ptr[e];
      const int enn = static_cast<int>(m.elem_ptr[e + 1] - m.elem_ptr[e]);
      bool all = true;
      for (int a = 0; a < s && all; ++a) all = std::find(en, en + enn, v[a]) != en + enn;
      if (all) owner = e;
    }
    if (owner < 0)
      throw InvalidArgument("flow: boundary face " + std::to_string(count_in_marker[static_cast<size_t>(marker)]) +
                            " of marker '" + m.marker_names[static_cast<size_t>(marker)] +
                            "' (1-based, in the file's order) is not a face of any element");
    Vec ce, cf, n;
    const ordinal_t* en = m.elem_nodes.data() + m.elem_ptr[owner];
    const int enn = static_cast<int>(m.elem_ptr[owner + 1] - m.elem_ptr[owner]);
    for (int a = 0; a < enn; ++a)
      for (int k = 0; k < dim; ++k) ce.x[k] += point(en[a]).x[k] / enn;
    for (int a = 0; a < s; ++a)
      for (int k = 0; k < dim; ++k) cf.x[k] += point(v[a]).x[k] / s;
    if (dim == 2) {
      const Vec pa = point(v[0]), pb = point(v[1]);
      n.x[0] = pb.x[1] - pa.x[1];
      n.x[1] = -(pb.x[0] - pa.x[0]);
    } else {
      for (int a = 0; a < s; ++a) {
        const Vec p = point(v[a]), q = point(v[(a + 1) % s]);
        double u[3], w[3];
        for (int k = 0; k < 3; ++k) u[k] = p.x[k] - cf.x[k], w[k] = q.x[k] - cf.x[k];
        n.x[0] += u[1] * w[2] - u[2] * w[1];
        n.x[1] += u[2] * w[0] - u[0] * w[2];
        n.x[2] += u[0] * w[1] - u[1] * w[0];
      }
    }
    double out = 0;
    for (int k = 0; k < dim; ++k) out += n.x[k] * (cf.x[k] - ce.x[k]);
    ordinal_t* fv = face_nodes.data() + m.face_ptr[f];
    for (int a = 0; a < s; ++a) fv[a] = out >= 0 ? v[a] : v[s - 1 - a];
    for (int a = 0; a < s; ++a)
      bkeys.push_back((static_cast<std::uint64_t>(fv[a]) << 32) | static_cast<std::uint32_t>(marker));
  }
  std::vector<std::uint64_t> bnodes = bkeys;
  std::sort(bnodes.begin(), bnodes.end());
  bnodes.erase(std::unique(bnodes.begin(), bnodes.end()), bnodes.end());
  const ordinal_t nb = static_cast<ordinal_t>(bnodes.size());
  d.bnode_vertex = Kokkos::View<ordinal_t*, MemSpace>("flow::bnode_vertex", nb);
  d.bnode_marker = Kokkos::View<int*, MemSpace>("flow::bnode_marker", nb);
  d.bnode_normal = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>("flow::bnode_normal", nb, dim);
  {
    auto vh = Kokkos::create_mirror_view(d.bnode_vertex);
    auto mh = Kokkos::create_mirror_view(d.bnode_marker);
    for (ordinal_t b = 0; b < nb; ++b) {
      vh(b) = static_cast<ordinal_t>(bnodes[b] >> 32);
      mh(b) = static_cast<int>(bnodes[b] & 0xffffffffu);
    }
    Kokkos::deep_copy(d.bnode_vertex, vh);
    Kokkos::deep_copy(d.bnode_marker, mh);
  }
  std::vector<ordinal_t> corner_bnode(bkeys.size());
  for (size_t k = 0; k < bkeys.size(); ++k)
    corner_bnode[k] = static_cast<ordinal_t>(std::lower_bound(bnodes.begin(), bnodes.end(), bkeys[k]) - bnodes.begin());
  Kokkos::View<offset_t*, MemSpace> fptr("flow::face_ptr", nf + 1);
  Kokkos::deep_copy(fptr, Kokkos::View<const offset_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                              m.face_ptr.data(), m.face_ptr.size()));
  Kokkos::View<ordinal_t*, MemSpace> fnodes("flow::face_nodes", face_nodes.size());
  Kokkos::deep_copy(fnodes, HostI(face_nodes.data(), face_nodes.size()));
  Kokkos::View<ordinal_t*, MemSpace> fbnode("flow::face_bnode", corner_bnode.size());
  Kokkos::deep_copy(fbnode, HostI(corner_bnode.data(), corner_bnode.size()));
  const auto bnormal = d.bnode_normal;
  Kokkos::parallel_for(
      "flow::boundary_normals", Kokkos::RangePolicy<>(0, nf), KOKKOS_LAMBDA(const ordinal_t f) {
        const offset_t first = fptr(f);
        const int s = static_cast<int>(fptr(f + 1) - first);
        if (dim == 2) {
          const ordinal_t a = fnodes(first), b = fnodes(first + 1);
          const double n0 = x(b, 1) - x(a, 1), n1 = -(x(b, 0) - x(a, 0));
          for (int q = 0; q < 2; ++q) {
            Kokkos::atomic_add(&bnormal(fbnode(first + q), 0), 0.5 * n0);
            Kokkos::atomic_add(&bnormal(fbnode(first + q), 1), 0.5 * n1);
          }
          return;
        }
        double cf[3] = {0, 0, 0};
        for (int k = 0; k < s; ++k)
          for (int r = 0; r < 3; ++r) cf[r] += x(fnodes(first + k), r) / s;
        // Triangles (a, mid, cf) for a and (mid, b, cf) for b: right-handed, so outward.
        auto add = [&](ordinal_t bn, const double* p0, const double* p1) {
          double u[3], w[3];
          for (int r = 0; r < 3; ++r) u[r] = p0[r] - cf[r], w[r] = p1[r] - cf[r];
          Kokkos::atomic_add(&bnormal(bn, 0), 0.5 * (u[1] * w[2] - u[2] * w[1]));
          Kokkos::atomic_add(&bnormal(bn, 1), 0.5 * (u[2] * w[0] - u[0] * w[2]));
          Kokkos::atomic_add(&bnormal(bn, 2), 0.5 * (u[0] * w[1] - u[1] * w[0]));
        };
        for (int k = 0; k < s; ++k) {
          const ordinal_t a = fnodes(first + k), b = fnodes(first + (k + 1) % s);
          double pa[3], pb[3], mid[3];
          for (int r = 0; r < 3; ++r) {
            pa[r] = x(a, r);
            pb[r] = x(b, r);
            mid[r] = 0.5 * (pa[r] + pb[r]);
          }
          add(fbnode(first + k), pa, mid);
          add(fbnode(first + (k + 1) % s), mid, pb);
        }
      });
  Kokkos::fence();

  // Every control volume must have a positive volume (an orphan vertex has none).
  {
    auto vh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), volume);
    for (ordinal_t p = 0; p < nv; ++p)
      if (!(vh(p) > 0))
        throw InvalidArgument("flow: vertex " + std::to_string(p + 1) +
                              " (1-based) belongs to no element: its control volume is empty");
  }
  say("dual mesh: " + std::to_string(nb) + " boundary nodes on " + std::to_string(m.marker_names.size()) + " markers");
  return d;
}

}  // namespace flow
