#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/setup.hpp>

namespace ppsparse::mcpi::detail {

namespace {

// Entry i (from 0) of a user array, as the user's language writes it: "col_idx[5]" in C and C++,
// "col_idx(6)" in Fortran (index base 1).
std::string at(const char* array, long long i, int base) {
  return base ? std::string(array) + "(" + std::to_string(i + 1) + ")"
              : std::string(array) + "[" + std::to_string(i) + "]";
}

}  // namespace

SetupPlan make_setup_plan(int nb, ordinal_t n, const offset_t* row_ptr, const ordinal_t* col_idx, int index_base,
                          const std::vector<ordinal_t>& colors, const Coloring* given, ordinal_t n_ghost) {
  const std::string who = "mcpi setup: ";
  if (nb < 1 || nb > 64)
    throw InvalidArgument(who + "block size nb = " + std::to_string(nb) + " is outside the supported 1..64");
  if (n < 0) throw InvalidArgument(who + "negative number of block rows n = " + std::to_string(n));
  if (n_ghost < 0) throw InvalidArgument(who + "negative number of ghost block columns " + std::to_string(n_ghost));
  const long long n_cols = static_cast<long long>(n) + n_ghost;
  if (index_base != 0 && index_base != 1)
    throw InvalidArgument(who + "index_base must be 0 or 1, got " + std::to_string(index_base));
  if (n_cols * nb > static_cast<long long>(max_ordinal))
    throw InvalidArgument(who + (n_ghost ? "(n + ghosts) * nb = " : "n * nb = ") + std::to_string(n_cols * nb) +
                          " exceeds 2^31 - 1 unknowns");
  if (row_ptr == nullptr) throw InvalidArgument(who + "row_ptr is null");
  if (row_ptr[0] != index_base)
    throw InvalidArgument(who + at("row_ptr", 0, index_base) + " = " + std::to_string(row_ptr[0]) +
                          ", expected index_base " + std::to_string(index_base));
  for (ordinal_t i = 0; i < n; ++i)
    if (row_ptr[i + 1] < row_ptr[i])
      throw InvalidArgument(who + at("row_ptr", i + 1, index_base) + " = " + std::to_string(row_ptr[i + 1]) + " < " +
                            at("row_ptr", i, index_base) + " = " + std::to_string(row_ptr[i]));
  const offset_t nnzb = row_ptr[n] - index_base;
  if (nnzb > 0 && col_idx == nullptr) throw InvalidArgument(who + "col_idx is null but row_ptr holds blocks");
  if (nnzb > 0 && static_cast<long double>(nnzb) * nb * nb > static_cast<long double>(SIZE_MAX / sizeof(double)))
    throw InvalidArgument(who + std::to_string(nnzb) + " blocks of " + std::to_string(nb) + "x" + std::to_string(nb) +
                          " do not fit in memory");

  // Checks per row: range, no diagonal block, no duplicate (a sorted copy of the row).
  std::vector<std::pair<ordinal_t, ordinal_t>> edges;
  edges.reserve(static_cast<size_t>(nnzb));
  std::vector<ordinal_t> row;
  for (ordinal_t i = 0; i < n; ++i) {
    const offset_t b = row_ptr[i] - index_base, e = row_ptr[i + 1] - index_base;
    row.clear();
    for (offset_t k = b; k < e; ++k) {
      const long long c = static_cast<long long>(col_idx[k]) - index_base;
      if (c < 0 || c >= n_cols)
        throw InvalidArgument(who + at("col_idx", k, index_base) + " = " + std::to_string(col_idx[k]) + " (block row " +
                              std::to_string(i + index_base) + ") is outside " + std::to_string(index_base) + ".." +
                              std::to_string(n_cols - 1 + index_base));
      if (c == i)
        throw InvalidArgument(who + at("col_idx", k, index_base) + ": block row " + std::to_string(i + index_base) +
                              " lists its diagonal block (O holds off-diagonal blocks only; D holds the diagonal)");
      row.push_back(static_cast<ordinal_t>(c));
      if (c < n) edges.emplace_back(i, static_cast<ordinal_t>(c));
    }
    std::sort(row.begin(), row.end());
    const auto dup = std::adjacent_find(row.begin(), row.end());
    if (dup != row.end())
      throw InvalidArgument(who + "block row " + std::to_string(i + index_base) + " lists block column " +
                            std::to_string(*dup + index_base) + " twice");
  }

  SetupPlan plan;
  plan.index_base = index_base;
  plan.nb = nb;
  plan.n = n;
  plan.n_ghost = n_ghost;
  if (given != nullptr) {
    if (given->perm.size() != n || given->color.size() != static_cast<size_t>(n) ||
        given->color_offsets.size() != static_cast<size_t>(given->ncolors) + 1 || given->color_offsets.front() != 0 ||
        given->color_offsets.back() != n)
      throw InvalidArgument(who + "the colouring does not describe " + std::to_string(n) + " block rows");
    check_permutation(given->perm, n, "mcpi setup: colouring");
    for (ordinal_t p = 0; p < n; ++p) {
      const ordinal_t c = given->color[given->perm.new_to_old[p]];
      if (c < 0 || c >= given->ncolors || p < given->color_offsets[c] || p >= given->color_offsets[c + 1])
        throw InvalidArgument(who + "the colouring's order does not match its colours at block row " +
                              std::to_string(given->perm.new_to_old[p] + index_base));
    }
    for (const auto& [u, v] : edges)
      if (given->color[u] == given->color[v])
        throw InvalidArgument(who + "invalid colouring: coupled block rows " + std::to_string(u + index_base) +
                              " and " + std::to_string(v + index_base) + " share colour " +
                              std::to_string(given->color[u]));
    plan.coloring = *given;
  } else {
    const Graph g = graph_from_edges(n, edges);
    if (colors.empty()) {
      plan.coloring = color_distance1(g);
    } else {
      if (colors.size() != static_cast<size_t>(n))
        throw InvalidArgument(who + "the colouring has " + std::to_string(colors.size()) + " entries for " +
                              std::to_string(n) + " block rows");
      for (ordinal_t v = 0; v < n; ++v) {
        if (colors[v] < 0)
          throw InvalidArgument(who + "block row " + std::to_string(v + index_base) + " has negative colour " +
                                std::to_string(colors[v]));
        for (offset_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k)
          if (colors[g.adj[k]] == colors[v])
            throw InvalidArgument(who + "invalid colouring: coupled block rows " + std::to_string(v + index_base) +
                                  " and " + std::to_string(g.adj[k] + index_base) + " share colour " +
                                  std::to_string(colors[v]));
      }
      plan.coloring = coloring_from_colors(g, colors);
    }
  }
  edges.clear();
  edges.shrink_to_fit();

  // Colour-ordered block CSR with sorted columns, and each user block's slot in it.
  const Permutation& perm = plan.coloring.perm;
  // Owned columns through the colour order, ghosts where they are.
  const auto new_col = [&](offset_t k) {
    const ordinal_t c = col_idx[k] - index_base;
    return c < n ? perm.old_to_new[c] : c;
  };
  plan.ia.assign(static_cast<size_t>(n) + 1, 0);
  for (ordinal_t p = 0; p < n; ++p) {
    const ordinal_t i = perm.new_to_old[p];
    plan.ia[p + 1] = plan.ia[p] + (row_ptr[i + 1] - row_ptr[i]);
  }
  plan.ja.resize(static_cast<size_t>(nnzb));
  plan.o_slot.resize(static_cast<size_t>(nnzb));
  std::vector<offset_t> order;
  for (ordinal_t p = 0; p < n; ++p) {
    const ordinal_t i = perm.new_to_old[p];
    const offset_t b = row_ptr[i] - index_base, len = row_ptr[i + 1] - row_ptr[i];
    order.resize(static_cast<size_t>(len));
    std::iota(order.begin(), order.end(), b);
    std::sort(order.begin(), order.end(), [&](offset_t x, offset_t y) { return new_col(x) < new_col(y); });
    for (offset_t q = 0; q < len; ++q) {
      const offset_t slot = plan.ia[p] + q;
      plan.ja[slot] = new_col(order[q]);
      plan.o_slot[order[q]] = slot;
    }
  }
  return plan;
}

}  // namespace ppsparse::mcpi::detail
