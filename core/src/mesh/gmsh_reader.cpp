// The Gmsh MSH reader (MSH 2.2 and 4.1, ASCII or binary): the file, its tokens and numbers in
// the file's encoding, and the sections' order (gmsh_sections.cpp reads each section).
#include "gmsh_parser.hpp"

namespace ppsparse::mesh {
namespace gmsh_detail {

Mesh GmshParser::parse() {
  section_ = "$MeshFormat";
  const std::string first = token("the $MeshFormat line");
  if (first != "$MeshFormat") fail("not a Gmsh MSH file: it starts with '" + first + "', not $MeshFormat");
  read_format();
  bool have_nodes = false, have_elements = false;
  for (;;) {
    section_ = "(between sections)";
    if (!skip_space()) break;
    const std::string t = token("a section");
    if (t.size() < 2 || t[0] != '$') fail("'" + t + "' between sections, where a $Section line belongs");
    const std::string name = t.substr(1);
    section_ = t;
    if (name == "Nodes") {
      if (have_nodes) fail("a second $Nodes section");
      have_nodes = true;
      rest_of_line();
      v41_ ? nodes_v41() : nodes_v22();
      expect_end("Nodes");
    } else if (name == "Elements") {
      if (have_elements) fail("a second $Elements section");
      if (!have_nodes) fail("$Elements before $Nodes");
      have_elements = true;
      rest_of_line();
      v41_ ? elements_v41() : elements_v22();
      expect_end("Elements");
    } else if (name == "PhysicalNames") {
      rest_of_line();
      physical_names();
      expect_end("PhysicalNames");
    } else if (name == "Entities" && v41_) {
      rest_of_line();
      entities();
      expect_end("Entities");
    } else if (name == "MeshFormat") {
      fail("a second $MeshFormat section");
    } else if (name.compare(0, 3, "End") == 0) {
      fail("'" + t + "' without its section");
    } else {
      skip_section(name);
    }
  }
  section_ = "(end of file)";
  line_ = token_line_;
  if (!have_nodes) fail("no $Nodes section");
  if (!have_elements) fail("no $Elements section");
  return assemble();
}

void GmshParser::fail(const std::string& reason) const {
  if (binary_) throw InputError(path_, "section " + section_ + ": " + reason);
  throw InputError(path_, line_, reason);
}

bool GmshParser::skip_space() {
  int c;
  while ((c = in_.peek()) != EOF && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v')) {
    if (c == '\n') ++line_;
    in_.get();
  }
  return c != EOF;
}

std::string GmshParser::token(const char* what) {
  if (!skip_space()) fail(std::string("the file ends before ") + what);
  token_line_ = line_;
  std::string t;
  int c;
  while ((c = in_.peek()) != EOF && !std::isspace(c)) {
    t.push_back(static_cast<char>(in_.get()));
    if (t.size() > 64) fail(std::string(what) + ": '" + printable(t.substr(0, 32)) + "...' is too long");
  }
  return t;
}

std::string GmshParser::printable(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  return s;
}

long long GmshParser::ascii_integer(const char* what) {
  const std::string t = token(what);
  long long v = 0;
  const text::Parsed r = text::parse_integer(t, v);
  if (r == text::Parsed::out_of_range) fail(std::string(what) + ": '" + printable(t) + "' is out of range");
  if (r != text::Parsed::ok) fail(std::string(what) + ": '" + printable(t) + "' is not an integer");
  return v;
}

double GmshParser::ascii_real(const char* what) {
  const std::string t = token(what);
  double v = 0;
  const text::Parsed r = text::parse_real(t, v);
  if (r == text::Parsed::not_a_number) fail(std::string(what) + ": '" + printable(t) + "' is not a number");
  if (r != text::Parsed::ok || !std::isfinite(v))
    fail(std::string(what) + ": '" + printable(t) + "' is not a finite number");
  return v;
}

void GmshParser::rest_of_line() {
  int c;
  while ((c = in_.get()) != EOF && c != '\n')
    if (c != ' ' && c != '\t' && c != '\r')
      fail("unexpected '" + printable(std::string(1, static_cast<char>(c))) + "' at the end of a line");
  if (c == '\n') ++line_;
}

void GmshParser::expect_end(const std::string& name) {
  const std::string t = token(("$End" + name).c_str());
  if (t != "$End" + name)
    fail("'" + printable(t) + "' where $End" + name + " belongs (more data than the counts say?)");
}

void GmshParser::skip_section(const std::string& name) {
  const std::string marker = "$End" + name;
  const long long start = line_;
  size_t matched = 0;
  int prev = '\n', c;
  while ((c = in_.get()) != EOF) {
    if (matched == 0) {
      if (c == '$' && prev == '\n') matched = 1;
    } else if (c == marker[matched]) {
      if (++matched == marker.size()) {
        const int next = in_.peek();
        if (next == EOF || std::isspace(next)) return;
        matched = 0;
      }
    } else {
      matched = 0;
    }
    if (c == '\n') ++line_;
    prev = c;
  }
  line_ = start;
  fail("the file ends inside $" + name + " (no " + marker + " line)");
}

void GmshParser::check_fits(long double bytes) const {
  const std::uint64_t left = size_ - std::min(size_, in_.offset());
  if (bytes > static_cast<long double>(left))
    fail("the counts need " + std::to_string(static_cast<unsigned long long>(std::min<long double>(bytes, 1e19L))) +
         " more bytes, the file has " + std::to_string(left) + " (a truncated file?)");
}

long long GmshParser::size_value(const char* what) {
  if (!binary_) return ascii_integer(what);
  if (v41_) {
    const std::uint64_t v = binary<std::uint64_t>(what);
    if (v > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()))
      fail(std::string(what) + " " + std::to_string(v) + " is out of range");
    return static_cast<long long>(v);
  }
  return binary<std::int32_t>(what);
}

long long GmshParser::int_value(const char* what) { return binary_ ? binary<std::int32_t>(what) : ascii_integer(what); }

double GmshParser::real_value(const char* what) {
  if (!binary_) return ascii_real(what);
  const double v = binary<double>(what);
  if (!std::isfinite(v)) fail(std::string(what) + " is not a finite number");
  return v;
}

long long GmshParser::count(const char* what, long long limit, bool text) {
  const long long n = text ? ascii_integer(what) : size_value(what);
  if (n < 0) fail(std::string(what) + " is negative (" + std::to_string(n) + ")");
  if (n > limit) fail(std::string(what) + " " + std::to_string(n) + " exceeds " + std::to_string(limit));
  return n;
}

}  // namespace gmsh_detail

using gmsh_detail::GmshParser;
Mesh read_gmsh(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "cannot open file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file");
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path, "cannot open file: " + ec.message());
  Mesh m = GmshParser(path, in, size).parse();
  try {
    validate(m, "Gmsh mesh");
  } catch (const InvalidArgument& e) {
    throw InputError(path, e.what());
  }
  return m;
}

}  // namespace ppsparse::mesh
