#include <ppsparse/distributed/collective.hpp>
#include <ppsparse/distributed/partition.hpp>
#include <ppsparse/error.hpp>

#if PPSPARSE_HAVE_ZOLTAN
#include <zoltan.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ppsparse::distributed {
namespace {

// The graph as Zoltan's callbacks read it: each owned row's neighbours (global ids, split in two
// 32-bit halves since this Zoltan's ids are unsigned int) and their ranks; no self loops.
struct ZoltanGraph {
  ordinal_t n = 0;
  std::vector<global_t> ids;
  std::vector<offset_t> ptr{0};
  std::vector<global_t> neighbour;
  std::vector<int> neighbour_rank;
};

void put_id(ZOLTAN_ID_PTR at, global_t id) {
  const auto u = static_cast<std::uint64_t>(id);
  at[0] = static_cast<ZOLTAN_ID_TYPE>(u & 0xffffffffu);
  at[1] = static_cast<ZOLTAN_ID_TYPE>(u >> 32);
}

int num_obj(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return static_cast<const ZoltanGraph*>(data)->n;
}

void obj_list(void* data, int, int, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int, float*, int* ierr) {
  const auto& g = *static_cast<const ZoltanGraph*>(data);
  for (ordinal_t i = 0; i < g.n; ++i) {
    put_id(gids + 2 * i, g.ids[i]);
    lids[i] = static_cast<ZOLTAN_ID_TYPE>(i);
  }
  *ierr = ZOLTAN_OK;
}

void num_edges(void* data, int, int, int num_obj, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR lids, int* edges, int* ierr) {
  const auto& g = *static_cast<const ZoltanGraph*>(data);
  for (int k = 0; k < num_obj; ++k) edges[k] = static_cast<int>(g.ptr[lids[k] + 1] - g.ptr[lids[k]]);
  *ierr = ZOLTAN_OK;
}

void edge_list(void* data, int, int, int num_obj, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR lids, int*, ZOLTAN_ID_PTR nbor_gids,
               int* nbor_procs, int, float*, int* ierr) {
  const auto& g = *static_cast<const ZoltanGraph*>(data);
  size_t at = 0;
  for (int k = 0; k < num_obj; ++k)
    for (offset_t e = g.ptr[lids[k]]; e < g.ptr[lids[k] + 1]; ++e, ++at) {
      put_id(nbor_gids + 2 * at, g.neighbour[e]);
      nbor_procs[at] = g.neighbour_rank[e];
    }
  *ierr = ZOLTAN_OK;
}

const char* zoltan_status(int rc) {
  switch (rc) {
    case ZOLTAN_WARN:
      return "ZOLTAN_WARN";
    case ZOLTAN_FATAL:
      return "ZOLTAN_FATAL";
    case ZOLTAN_MEMERR:
      return "ZOLTAN_MEMERR";
    default:
      return "an unknown status";
  }
}

// The Zoltan_Struct, destroyed on every path out.
struct ZoltanHandle {
  Zoltan_Struct* zz = nullptr;
  ~ZoltanHandle() {
    if (zz) Zoltan_Destroy(&zz);
  }
};

}  // namespace

bool zoltan_available() { return true; }

std::vector<int> partition_zoltan(MPI_Comm comm, const LocalStructure& s, const ZoltanOptions& options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string who = "partition_zoltan: ";
  collectively(comm, [&] {
    if (options.method != "GRAPH" && options.method != "HYPERGRAPH")
      throw InvalidArgument(who + "method '" + options.method + "': GRAPH or HYPERGRAPH");
    if (!(options.imbalance_tolerance >= 1.0))
      throw InvalidArgument(who + "imbalance tolerance " + std::to_string(options.imbalance_tolerance) + " is below 1");
  });
  const std::vector<GhostOwner> owner = locate_ghosts(comm, s);  // checks s on one rank too
  if (size == 1) return std::vector<int>(static_cast<size_t>(s.n), 0);
  const int base = s.index_base;
  ZoltanGraph g;
  g.n = s.n;
  for (ordinal_t i = 0; i < s.n; ++i) g.ids.push_back(s.global_ids[i] - base);
  for (ordinal_t i = 0; i < s.n; ++i) {
    for (offset_t k = s.row_ptr[i] - base; k < s.row_ptr[i + 1] - base; ++k) {
      const ordinal_t c = s.col_idx[k] - base;
      if (c == i) continue;
      const bool owned = c < s.n;
      g.neighbour.push_back(owned ? g.ids[c] : s.ghost_ids[c - s.n] - base);
      g.neighbour_rank.push_back(owned ? rank : owner[c - s.n].rank);
    }
    g.ptr.push_back(static_cast<offset_t>(g.neighbour.size()));
  }

  float version = 0;
  ZoltanHandle handle;
  std::string message;
  ErrorKind kind = ErrorKind::none;
  if (Zoltan_Initialize(0, nullptr, &version) != ZOLTAN_OK || !(handle.zz = Zoltan_Create(comm))) {
    kind = ErrorKind::other;
    message = who + "Zoltan_Initialize or Zoltan_Create failed";
  }
  agree_or_throw(comm, kind, message);
  Zoltan_Struct* zz = handle.zz;
  const std::string imbalance = std::to_string(options.imbalance_tolerance);
  const std::string parts = std::to_string(size);
  const std::pair<const char*, const char*> params[] = {{"DEBUG_LEVEL", "0"},
                                                        {"LB_METHOD", options.method.c_str()},
                                                        {"GRAPH_PACKAGE", "PHG"},
                                                        {"HYPERGRAPH_PACKAGE", "PHG"},
                                                        {"LB_APPROACH", "PARTITION"},
                                                        {"GRAPH_SYMMETRIZE", "TRANSPOSE"},
                                                        {"NUM_GID_ENTRIES", "2"},
                                                        {"NUM_LID_ENTRIES", "1"},
                                                        {"OBJ_WEIGHT_DIM", "0"},
                                                        {"EDGE_WEIGHT_DIM", "0"},
                                                        {"RETURN_LISTS", "PARTS"},
                                                        {"NUM_GLOBAL_PARTS", parts.c_str()},
                                                        {"IMBALANCE_TOL", imbalance.c_str()},
                                                        {"PHG_RANDOMIZE_INPUT", "0"},
                                                        {"SEED", "1"}};
  for (const auto& [key, value] : params) Zoltan_Set_Param(zz, key, value);
  // HYPERGRAPH builds its hyperedges (a row and its neighbours) from the same graph callbacks.
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, &g);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, &g);
  Zoltan_Set_Num_Edges_Multi_Fn(zz, num_edges, &g);
  Zoltan_Set_Edge_List_Multi_Fn(zz, edge_list, &g);
  int changes = 0, gid_entries = 0, lid_entries = 0, n_import = 0, n_export = 0;
  ZOLTAN_ID_PTR import_gids = nullptr, import_lids = nullptr, export_gids = nullptr, export_lids = nullptr;
  int *import_procs = nullptr, *import_parts = nullptr, *export_procs = nullptr, *export_parts = nullptr;
  const int rc = Zoltan_LB_Partition(zz, &changes, &gid_entries, &lid_entries, &n_import, &import_gids, &import_lids,
                                     &import_procs, &import_parts, &n_export, &export_gids, &export_lids, &export_procs,
                                     &export_parts);
  std::vector<int> part(static_cast<size_t>(s.n), -1);
  if (rc == ZOLTAN_OK || rc == ZOLTAN_WARN) {
    for (int k = 0; k < n_export; ++k) part[export_lids[k]] = export_parts[k];
  } else {
    kind = ErrorKind::other;
    message = who + "Zoltan_LB_Partition returned " + zoltan_status(rc);
  }
  Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
  Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
  if (kind == ErrorKind::none)
    for (ordinal_t i = 0; i < s.n; ++i)
      if (part[i] < 0 || part[i] >= size) {
        kind = ErrorKind::other;
        message = who + "Zoltan gave row " + std::to_string(i) + " part " + std::to_string(part[i]);
        break;
      }
  agree_or_throw(comm, kind, message);
  return part;
}

}  // namespace ppsparse::distributed

#else  // no Zoltan in this build

namespace ppsparse::distributed {

bool zoltan_available() { return false; }

std::vector<int> partition_zoltan(MPI_Comm, const LocalStructure&, const ZoltanOptions&) {
  throw Error(
      "partition_zoltan: this build of ppsparse has no Zoltan (configure with -DPPSPARSE_ENABLE_ZOLTAN=ON and "
      "libtrilinos-zoltan-dev)");
}

}  // namespace ppsparse::distributed

#endif
