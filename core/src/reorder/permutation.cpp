#include <algorithm>
#include <numeric>
#include <ppsparse/reorder/permutation.hpp>
#include <utility>

namespace ppsparse {
namespace {

// Inverse of p, or InvalidArgument (naming `who` and the first bad entry) if p is not a
// bijection of 0 .. p.size()-1.
std::vector<ordinal_t> checked_inverse(const std::vector<ordinal_t>& p, const char* who) {
  if (p.size() > static_cast<size_t>(max_ordinal))
    throw InvalidArgument(std::string(who) + ": " + std::to_string(p.size()) + " entries, more than 2^31-1");
  const auto n = static_cast<ordinal_t>(p.size());
  std::vector<ordinal_t> inv(p.size(), -1);
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t v = p[i];
    if (v < 0 || v >= n)
      throw InvalidArgument(std::string(who) + ": entry " + std::to_string(i) + " is " + std::to_string(v) +
                            ", outside [0, " + std::to_string(n) + ")");
    if (inv[v] != -1)
      throw InvalidArgument(std::string(who) + ": value " + std::to_string(v) + " appears at entries " +
                            std::to_string(inv[v]) + " and " + std::to_string(i));
    inv[v] = i;
  }
  return inv;
}

// Row structure of P A P^T for any compressed-row pattern: new row i is old row
// new_to_old[i] with columns renumbered and sorted. Calls move(dst, src) for every entry,
// dst and src being entry positions in the new and old arrays.
template <class Move>
void permute_rows(ordinal_t n, const offset_t* old_ptr, const ordinal_t* old_col, const Permutation& p,
                  offset_t* new_ptr, ordinal_t* new_col, const Move& move) {
  new_ptr[0] = 0;
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t r = p.new_to_old[i];
    new_ptr[i + 1] = new_ptr[i] + (old_ptr[r + 1] - old_ptr[r]);
  }
  const ordinal_t* new_to_old = p.new_to_old.data();
  const ordinal_t* old_to_new = p.old_to_new.data();
  using host_space = Kokkos::DefaultHostExecutionSpace;
  Kokkos::parallel_for("ppsparse::permute_rows", Kokkos::RangePolicy<host_space>(0, n), [=](ordinal_t i) {
    thread_local std::vector<std::pair<ordinal_t, offset_t>> row;  // (new column, old position)
    const ordinal_t r = new_to_old[i];
    row.clear();
    for (offset_t k = old_ptr[r]; k < old_ptr[r + 1]; ++k) row.emplace_back(old_to_new[old_col[k]], k);
    std::sort(row.begin(), row.end());
    offset_t dst = new_ptr[i];
    for (const auto& [col, src] : row) {
      new_col[dst] = col;
      move(dst, src);
      ++dst;
    }
  });
  host_space().fence();
}

}  // namespace

bool is_bijection(const std::vector<ordinal_t>& p) {
  if (p.size() > static_cast<size_t>(max_ordinal)) return false;
  std::vector<char> seen(p.size(), 0);
  for (ordinal_t v : p) {
    if (v < 0 || static_cast<size_t>(v) >= p.size() || seen[v]) return false;
    seen[v] = 1;
  }
  return true;
}

Permutation Permutation::identity(ordinal_t n) {
  if (n < 0) throw InvalidArgument("Permutation::identity: size " + std::to_string(n) + " is negative");
  Permutation p;
  p.new_to_old.resize(static_cast<size_t>(n));
  std::iota(p.new_to_old.begin(), p.new_to_old.end(), 0);
  p.old_to_new = p.new_to_old;
  return p;
}

Permutation Permutation::from_new_to_old(std::vector<ordinal_t> v) {
  Permutation p;
  p.old_to_new = checked_inverse(v, "Permutation::from_new_to_old");
  p.new_to_old = std::move(v);
  return p;
}

Permutation Permutation::from_old_to_new(std::vector<ordinal_t> v) {
  Permutation p;
  p.new_to_old = checked_inverse(v, "Permutation::from_old_to_new");
  p.old_to_new = std::move(v);
  return p;
}

void check_permutation(const Permutation& p, ordinal_t n, const std::string& who) {
  if (p.new_to_old.size() != static_cast<size_t>(n) || p.old_to_new.size() != static_cast<size_t>(n))
    throw InvalidArgument(who + ": permutation has " + std::to_string(p.new_to_old.size()) + " new-to-old and " +
                          std::to_string(p.old_to_new.size()) + " old-to-new entries, expected " + std::to_string(n));
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t o = p.new_to_old[i];
    if (o < 0 || o >= n || p.old_to_new[o] != i)
      throw InvalidArgument(who + ": permutation maps are not inverse bijections at new index " + std::to_string(i));
  }
}

Permutation compose(const Permutation& first, const Permutation& then) {
  check_permutation(first, first.size(), "compose: first");
  check_permutation(then, first.size(), "compose: then");
  Permutation p;
  p.new_to_old.resize(first.new_to_old.size());
  p.old_to_new.resize(first.new_to_old.size());
  for (size_t i = 0; i < p.new_to_old.size(); ++i) {
    p.new_to_old[i] = first.new_to_old[then.new_to_old[i]];
    p.old_to_new[p.new_to_old[i]] = static_cast<ordinal_t>(i);
  }
  return p;
}

Graph permute(const Graph& g, const Permutation& p) {
  validate(g, "permute: graph");
  check_permutation(p, g.n, "permute(graph)");
  Graph out;
  out.n = g.n;
  out.row_ptr.assign(static_cast<size_t>(g.n) + 1, 0);
  out.adj.resize(g.adj.size());
  permute_rows(g.n, g.row_ptr.data(), g.adj.data(), p, out.row_ptr.data(), out.adj.data(), [](offset_t, offset_t) {});
  return out;
}

template <class S>
CsrMatrix<S, HostSpace> permute(const CsrMatrix<S, HostSpace>& a, const Permutation& p) {
  validate(a, "permute: matrix");
  if (a.nrows != a.ncols)
    throw InvalidArgument("permute: matrix is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) +
                          ", not square");
  check_permutation(p, a.nrows, "permute(CSR)");
  CsrMatrix<S, HostSpace> b(a.nrows, a.ncols, a.nnz(), "permuted");
  auto old_values = a.values;
  auto new_values = b.values;
  permute_rows(a.nrows, a.row_ptr.data(), a.col_idx.data(), p, b.row_ptr.data(), b.col_idx.data(),
               [=](offset_t dst, offset_t src) { new_values(dst) = old_values(src); });
  return b;
}

template <class S>
BsrMatrix<S, HostSpace> permute(const BsrMatrix<S, HostSpace>& a, const Permutation& p) {
  validate(a, "permute: block matrix");
  if (a.nblockrows != a.nblockcols)
    throw InvalidArgument("permute: block matrix is " + std::to_string(a.nblockrows) + " x " +
                          std::to_string(a.nblockcols) + " blocks, not square");
  check_permutation(p, a.nblockrows, "permute(BSR)");
  BsrMatrix<S, HostSpace> b(a.nb, a.nblockrows, a.nblockcols, a.nnzb(), "permuted");
  auto old_values = a.values;
  auto new_values = b.values;
  const size_t bs = a.block_size();
  permute_rows(a.nblockrows, a.ia.data(), a.ja.data(), p, b.ia.data(), b.ja.data(), [=](offset_t dst, offset_t src) {
    for (size_t e = 0; e < bs; ++e)
      new_values(static_cast<size_t>(dst) * bs + e) = old_values(static_cast<size_t>(src) * bs + e);
  });
  return b;
}

BlockSystem<HostSpace> permute(const BlockSystem<HostSpace>& s, const Permutation& p) {
  const auto bs = static_cast<size_t>(s.nb) * s.nb;
  if (s.nb < 1 || s.n < 0 || s.O.nb != s.nb || s.O.nblockrows != s.n ||
      s.D.extent(0) != static_cast<size_t>(s.n) * bs || s.R.extent(0) != static_cast<size_t>(s.n) * s.nb)
    throw InvalidArgument("permute: block system of " + std::to_string(s.n) + " block rows with nb " +
                          std::to_string(s.nb) + " has inconsistent O, D or R sizes");
  check_permutation(p, s.n, "permute(block system)");
  BlockSystem<HostSpace> t;
  t.nb = s.nb;
  t.n = s.n;
  t.d_factored = s.d_factored;
  t.O = permute(s.O, p);
  t.D = Kokkos::View<double*, HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "D"), s.D.extent(0));
  t.R = Kokkos::View<double*, HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "R"), s.R.extent(0));
  const auto nb = static_cast<size_t>(s.nb);
  for (size_t i = 0; i < static_cast<size_t>(s.n); ++i) {
    const auto o = static_cast<size_t>(p.new_to_old[i]);
    std::copy_n(s.D.data() + o * bs, bs, t.D.data() + i * bs);
    std::copy_n(s.R.data() + o * nb, nb, t.R.data() + i * nb);
  }
  return t;
}

template CsrMatrix<float, HostSpace> permute(const CsrMatrix<float, HostSpace>&, const Permutation&);
template CsrMatrix<double, HostSpace> permute(const CsrMatrix<double, HostSpace>&, const Permutation&);
template BsrMatrix<float, HostSpace> permute(const BsrMatrix<float, HostSpace>&, const Permutation&);
template BsrMatrix<double, HostSpace> permute(const BsrMatrix<double, HostSpace>&, const Permutation&);

}  // namespace ppsparse
