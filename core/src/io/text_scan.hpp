#pragma once
// What the text readers share (Matrix Market, SU2, Gmsh's ASCII sections): a line reader over
// zlib with line numbers and "FILE:LINE: reason" errors, white-space tokens, strict number
// parsing, and quoting of file text for messages. Private to the library.
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <string>
#include <string_view>
#include <vector>

#include <ppsparse/error.hpp>

namespace ppsparse::text {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// s without leading and trailing white space.
std::string_view trim(std::string_view s);

/// The white-space separated tokens of s.
void split(std::string_view s, std::vector<std::string_view>& tokens);

enum class Parsed { ok, not_a_number, out_of_range };

/// The whole of s as a decimal integer (an optional '+' or '-' sign, then digits); out_of_range
/// when it is one but does not fit in 64 bits.
Parsed parse_integer(std::string_view s, long long& value);
/// The whole of s as a decimal floating-point number (optional sign); out_of_range when it
/// overflows a double.
Parsed parse_real(std::string_view s, double& value);

/// File text for a message: in single quotes, at most 40 characters (then "..."), control
/// bytes shown as '?', so that the message stays one short printable line whatever the file holds.
std::string quoted(std::string_view s);

// A line this long is not text (most likely a binary file).
constexpr size_t max_line_length = size_t(1) << 20;

// Lines of a plain or gzip file, numbered from 1; zlib passes plain files through unchanged.
// `what` names the expected content in the message for a directory ("a Matrix Market file").
class Lines {
 public:
  Lines(const std::string& path, const std::string& what) : path_(path), what_(what), buf_(size_t(1) << 18) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory, not " + what);
    open();
  }
  Lines(const Lines&) = delete;
  Lines& operator=(const Lines&) = delete;
  ~Lines();

  // The next line, NUL-terminated in place and without its end-of-line characters;
  // false at the end of the file.
  bool next(std::string_view& line) {
    for (;;) {
      char* start = buf_.data() + begin_;
      const size_t avail = end_ - begin_;
      if (auto* nl = static_cast<char*>(std::memchr(start, '\n', avail))) {
        begin_ = static_cast<size_t>(nl - buf_.data()) + 1;
        return finish(start, static_cast<size_t>(nl - start), line);
      }
      if (eof_) {
        if (avail == 0) return false;
        begin_ = end_;
        return finish(start, avail, line);  // last line without a newline
      }
      refill();
    }
  }

  long long line_number() const { return line_; }
  const std::string& path() const { return path_; }

  /// InputError "FILE:LINE: reason" at the current line (line 1 before the first).
  [[noreturn]] void fail(const std::string& reason) const { throw InputError(path_, line_ > 0 ? line_ : 1, reason); }

 private:
  bool finish(char* start, size_t len, std::string_view& line) {
    ++line_;
    if (len > 0 && start[len - 1] == '\r') --len;  // CRLF files
    if (std::memchr(start, '\0', len)) fail("NUL byte in line (binary file?)");
    start[len] = '\0';  // lets strtod stop at the end of the last token
    line = std::string_view(start, len);
    return true;
  }

  // Moves the partial line to the front and appends more of the file; one byte of the
  // buffer always stays free for the terminating NUL of a last line without newline.
  void refill();
  void open();

  std::string path_;
  std::string what_;
  void* file_ = nullptr;  // gzFile
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  long long line_ = 0;
};

}  // namespace ppsparse::text
