#pragma once
/// @file
/// Errors of distributed work agreed by every rank: a rank that finds bad input must not leave
/// the others waiting in a collective it never reaches. Each step checks locally, then every
/// rank learns the first failing rank's error and throws it.
#include <string>

#include <mpi.h>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/halo.hpp>

namespace ppsparse::dist {

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

}  // namespace ppsparse::dist
