#pragma once
// The values of the applications' command-line options (mcpi and mcpi --flow), each checked
// and named in the one-line error when it is bad.
#include <string>
#include <vector>

namespace mcpi_app {

/// The integer value `text` of option `opt`, within [lo, hi]; InvalidArgument naming the option.
long long parse_int(const std::string& opt, const std::string& text, long long lo, long long hi);
/// The finite number `text` of option `opt`; InvalidArgument naming the option.
double parse_real(const std::string& opt, const std::string& text);
/// A comma-separated list of finite numbers (parse_real each).
std::vector<double> parse_real_list(const std::string& opt, const std::string& text);

}  // namespace mcpi_app
