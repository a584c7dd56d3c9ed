#pragma once
/// @file
/// A renumbering of vertices (or block rows) and its application to graphs, matrices,
/// block systems and vectors. Convention: new index i holds old index new_to_old[i];
/// a matrix A becomes P A P^T, i.e. entry (new_to_old[i], new_to_old[j]) of A moves to (i, j).
#include <ppsparse/error.hpp>
#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/formats/bsr.hpp>
#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/graph.hpp>
#include <string>
#include <vector>

namespace ppsparse {

/// True when p holds each of 0 .. p.size()-1 exactly once.
bool is_bijection(const std::vector<ordinal_t>& p);

/// A permutation of n indices and its inverse: new index i holds old index new_to_old[i].
struct Permutation {
  std::vector<ordinal_t> new_to_old;  ///< new index i holds old index new_to_old[i]
  std::vector<ordinal_t> old_to_new;  ///< inverse of new_to_old

  static Permutation identity(ordinal_t n);
  /// InvalidArgument (naming the first bad entry) unless p is a bijection of 0 .. p.size()-1.
  static Permutation from_new_to_old(std::vector<ordinal_t> p);
  /// Same, from the inverse map (old index i moves to p[i]): the form RCM libraries return.
  static Permutation from_old_to_new(std::vector<ordinal_t> p);
  ordinal_t size() const { return static_cast<ordinal_t>(new_to_old.size()); }
};

/// InvalidArgument, naming `who`, unless p is a consistent permutation of n items
/// (both maps of size n and inverse of each other). Every function below checks this.
void check_permutation(const Permutation& p, ordinal_t n, const std::string& who);

/// Renumber by `first`, then renumber the result by `then`: permute(x, compose(f, t)) ==
/// permute(permute(x, f), t). InvalidArgument if the sizes differ.
Permutation compose(const Permutation& first, const Permutation& then);

/// The renumbered graph (still sorted, symmetric, loop-free).
Graph permute(const Graph& g, const Permutation& p);

/// Symmetric permutation P A P^T of a square matrix; rows come out sorted.
/// InvalidArgument if a is not square or p's size differs from the row count.
template <class S>
CsrMatrix<S, HostSpace> permute(const CsrMatrix<S, HostSpace>& a, const Permutation& p);

/// Symmetric permutation of block rows and block columns; blocks move intact.
template <class S>
BsrMatrix<S, HostSpace> permute(const BsrMatrix<S, HostSpace>& a, const Permutation& p);

/// O, D and R renumbered together (D's blocks, factored or not, move with their rows).
BlockSystem<HostSpace> permute(const BlockSystem<HostSpace>& s, const Permutation& p);

/// Vector in the user's numbering -> vector in the permuted numbering; with block > 1 the
/// vector holds `block` consecutive values per index, moved together.
/// InvalidArgument unless block >= 1 and x.size() == p.size() * block.
template <class T>
std::vector<T> to_new(const std::vector<T>& x, const Permutation& p, int block = 1);

/// Inverse of to_new: permuted numbering -> the user's numbering.
template <class T>
std::vector<T> to_old(const std::vector<T>& x, const Permutation& p, int block = 1);

// ---- implementation of the vector templates (any value type) ----

namespace detail {
inline void check_vector(size_t size, const Permutation& p, int block, const char* who) {
  if (block < 1) throw InvalidArgument(std::string(who) + ": block size " + std::to_string(block) + " is not positive");
  check_permutation(p, p.size(), who);
  if (size != static_cast<size_t>(p.size()) * static_cast<size_t>(block))
    throw InvalidArgument(std::string(who) + ": vector has " + std::to_string(size) + " entries, expected " +
                          std::to_string(p.size()) + " x block " + std::to_string(block));
}
}  // namespace detail

template <class T>
std::vector<T> to_new(const std::vector<T>& x, const Permutation& p, int block) {
  detail::check_vector(x.size(), p, block, "to_new");
  std::vector<T> y(x.size());
  const auto b = static_cast<size_t>(block);
  for (size_t i = 0; i < p.new_to_old.size(); ++i)
    for (size_t e = 0; e < b; ++e) y[i * b + e] = x[static_cast<size_t>(p.new_to_old[i]) * b + e];
  return y;
}

template <class T>
std::vector<T> to_old(const std::vector<T>& x, const Permutation& p, int block) {
  detail::check_vector(x.size(), p, block, "to_old");
  std::vector<T> y(x.size());
  const auto b = static_cast<size_t>(block);
  for (size_t i = 0; i < p.new_to_old.size(); ++i)
    for (size_t e = 0; e < b; ++e) y[static_cast<size_t>(p.new_to_old[i]) * b + e] = x[i * b + e];
  return y;
}

}  // namespace ppsparse
