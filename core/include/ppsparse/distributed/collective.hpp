#pragma once
/// @file
/// Errors of distributed work agreed by every rank: a rank that finds bad input must not leave
/// the others waiting in a collective it never reaches. Each step checks locally, then every
/// rank learns the first failing rank's error and throws it.
#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/halo.hpp>

namespace ppsparse::distributed {

using mcpi::capture_error;
using mcpi::ErrorKind;

/// Collective over comm: when any rank passes a kind other than none, every rank receives the
/// kind and the message of the lowest such rank, prefixed "rank R: "; otherwise none.
ErrorKind agree(MPI_Comm comm, ErrorKind kind, std::string& message);

/// agree(), then throws the agreed error (InvalidArgument, NumericalError or Error) on every rank.
void agree_or_throw(MPI_Comm comm, ErrorKind kind, std::string message);

/// Runs local() (which may throw ppsparse errors) and agrees on its outcome: every rank throws
/// the first failing rank's error, or none throws.
template <class F>
void collectively(MPI_Comm comm, F&& local) {
  std::string message;
  const ErrorKind kind = capture_error(local, message);
  agree_or_throw(comm, kind, std::move(message));
}

/// Personalised all-to-all of trivially copyable records (collective over comm): out[q] goes to
/// rank q; returns what each rank sent here, by rank. Messages over 1 GiB go in pieces, which
/// MPI delivers in order.
template <class T>
std::vector<std::vector<T>> all_to_all(MPI_Comm comm, const std::vector<std::vector<T>>& out) {
  static_assert(std::is_trivially_copyable_v<T>, "records are sent as bytes");
  const int size = static_cast<int>(out.size());
  std::vector<long long> send_n(size), recv_n(size);
  for (int q = 0; q < size; ++q) send_n[q] = static_cast<long long>(out[q].size());
  MPI_Alltoall(send_n.data(), 1, MPI_LONG_LONG, recv_n.data(), 1, MPI_LONG_LONG, comm);
  std::vector<std::vector<T>> in(size);
  std::vector<MPI_Request> requests;
  constexpr int tag = 4101;
  constexpr long long piece = (1LL << 30) / static_cast<long long>(sizeof(T));
  for (int q = 0; q < size; ++q) {
    in[q].resize(static_cast<size_t>(recv_n[q]));
    for (long long at = 0; at < recv_n[q]; at += piece) {
      requests.emplace_back();
      MPI_Irecv(in[q].data() + at, static_cast<int>(std::min(piece, recv_n[q] - at) * sizeof(T)), MPI_BYTE, q, tag,
                comm, &requests.back());
    }
  }
  for (int q = 0; q < size; ++q)
    for (long long at = 0; at < send_n[q]; at += piece) {
      requests.emplace_back();
      MPI_Isend(out[q].data() + at, static_cast<int>(std::min(piece, send_n[q] - at) * sizeof(T)), MPI_BYTE, q, tag,
                comm, &requests.back());
    }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  return in;
}

}  // namespace ppsparse::distributed
