#include <ppsparse/backend/last_level_cache.hpp>

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <string>

#include <ppsparse/kokkos_compat.hpp>

namespace ppsparse::backend {
namespace {

// "32768K", "1M", "512" -> bytes; 0 if unreadable.
std::size_t parse_sysfs_size(const std::string& text) {
  std::size_t value = 0;
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) value = value * 10 + (text[i++] - '0');
  if (i == 0) return 0;
  if (i < text.size()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    if (unit == 'K') value <<= 10;
    if (unit == 'M') value <<= 20;
    if (unit == 'G') value <<= 30;
  }
  return value;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

std::size_t sysfs_last_level_cache() {
  int best_level = 0;
  std::size_t best = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string type = read_line(dir + "type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const int level = std::atoi(read_line(dir + "level").c_str());
    const std::size_t size = parse_sysfs_size(read_line(dir + "size"));
    if (size > 0 && level >= best_level) {
      best_level = level;
      best = size;
    }
  }
  return best;
}

}  // namespace

std::size_t host_last_level_cache_bytes() {
  if (const std::size_t s = sysfs_last_level_cache()) return s;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  if (const long s = sysconf(_SC_LEVEL3_CACHE_SIZE); s > 0) return static_cast<std::size_t>(s);
#endif
#if defined(_SC_LEVEL2_CACHE_SIZE)
  if (const long s = sysconf(_SC_LEVEL2_CACHE_SIZE); s > 0) return static_cast<std::size_t>(s);
#endif
  return fallback_last_level_cache_bytes;
}

}  // namespace ppsparse::backend
