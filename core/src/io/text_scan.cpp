#include "text_scan.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <system_error>

namespace ppsparse::text {

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

void split(std::string_view s, std::vector<std::string_view>& tokens) {
  tokens.clear();
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) tokens.push_back(s.substr(i, j - i));
    i = j;
  }
}

namespace {
// from_chars takes no '+'; a '+' before another sign is not a number.
std::string_view without_plus(std::string_view s) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  return s;
}
}  // namespace

Parsed parse_integer(std::string_view s, long long& value) {
  s = without_plus(s);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || end != s.data() + s.size()) return Parsed::not_a_number;
  if (ec == std::errc::result_out_of_range) return Parsed::out_of_range;
  return ec == std::errc() ? Parsed::ok : Parsed::not_a_number;
}

Parsed parse_real(std::string_view s, double& value) {
  s = without_plus(s);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || end != s.data() + s.size()) return Parsed::not_a_number;
  if (ec == std::errc::result_out_of_range) return Parsed::out_of_range;
  return ec == std::errc() ? Parsed::ok : Parsed::not_a_number;
}

std::string quoted(std::string_view s) {
  constexpr size_t max_shown = 40;
  std::string out = "'";
  for (size_t i = 0; i < std::min(s.size(), max_shown); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out += (c < 0x20 || c == 0x7f) ? '?' : s[i];
  }
  return out + (s.size() > max_shown ? "...'" : "'");
}

void Lines::open() {
  errno = 0;
  file_ = gzopen(path_.c_str(), "rb");
  if (!file_)
    throw InputError(path_, std::string("cannot open file: ") + (errno ? std::strerror(errno) : "out of memory"));
}

Lines::~Lines() { gzclose(static_cast<gzFile>(file_)); }

// Moves the partial line to the front and appends more of the file; one byte of the
// buffer always stays free for the terminating NUL of a last line without newline.
void Lines::refill() {
  const size_t partial = end_ - begin_;  // holds no newline
  if (partial > max_line_length) {
    ++line_;
    fail("line longer than " + std::to_string(max_line_length) + " characters (not " + what_ + "?)");
  }
  std::memmove(buf_.data(), buf_.data() + begin_, partial);
  begin_ = 0;
  end_ = partial;
  if (end_ + 1 >= buf_.size()) buf_.resize(buf_.size() * 2);
  const int got = gzread(static_cast<gzFile>(file_), buf_.data() + end_, static_cast<unsigned>(buf_.size() - end_ - 1));
  if (got > 0) {
    end_ += static_cast<size_t>(got);
    return;
  }
  // gzread reports a truncated gzip stream as a short read; ask gzerror every time.
  int code = Z_OK;
  const char* msg = gzerror(static_cast<gzFile>(file_), &code);
  if (code == Z_ERRNO) throw InputError(path_, line_ + 1, std::string("read error: ") + std::strerror(errno));
  if (code != Z_OK) {
    std::string detail = msg;  // zlib prefixes the path, which the message already names
    if (detail.compare(0, path_.size() + 2, path_ + ": ") == 0) detail.erase(0, path_.size() + 2);
    throw InputError(path_, line_ + 1, "corrupt or truncated gzip data (zlib: " + detail + ")");
  }
  if (got < 0) throw InputError(path_, line_ + 1, "read error");
  eof_ = true;
}

}  // namespace ppsparse::text
