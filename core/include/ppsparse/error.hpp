#pragma once
/// @file
/// Every error a user can cause is reported as one line naming what and where.
#include <stdexcept>
#include <string>

namespace ppsparse {

/// Base class of all ppsparse errors; what() is a single line.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A malformed input file: what() is "FILE:LINE: reason".
class InputError : public Error {
 public:
  /// "FILE:LINE: reason".
  InputError(const std::string& file, long long line, const std::string& reason)
      : Error(file + ":" + std::to_string(line) + ": " + reason), file_(file), line_(line), reason_(reason) {}
  /// "FILE: reason", for errors not tied to a line (binary formats, missing files).
  InputError(const std::string& file, const std::string& reason)
      : Error(file + ": " + reason), file_(file), line_(0), reason_(reason) {}
  /// The file, the line (0 when none) and the reason, as given.
  const std::string& file() const { return file_; }
  long long line() const { return line_; }  // 0 when the error is not tied to a line
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  long long line_;
  std::string reason_;
};

/// An argument that violates a documented precondition (sizes, options, shapes).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A numerical breakdown the user must know about (singular or NaN pivot, ...).
class NumericalError : public Error {
 public:
  using Error::Error;
};

}  // namespace ppsparse
