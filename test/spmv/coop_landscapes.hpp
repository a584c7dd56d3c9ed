#pragma once
// csr_coop's tuner tests: the GPU-like search space and the measured H100 landscapes
// (test/data/coop_landscape_*.txt) that the walk's and the line search's replays share.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <ppsparse/spmv/csr_coop.hpp>

#include "test_util.hpp"

namespace ppsparse::test {

inline spmv::CoopSearchSpace gpu_like_space() { return spmv::CoopSearchSpace{32, {64, 96, 128, 192, 256, 384, 512}, 64}; }

// Every valid point of a search space.
inline std::vector<spmv::CoopParams> grid(const spmv::CoopSearchSpace& s) {
  std::vector<spmv::CoopParams> g;
  for (int c = 1; c <= s.max_coop; c *= 2)
    for (int r = 1; r <= s.max_repeat; r *= 2)
      for (int b : s.block_sizes)
        if (b >= c && b % c == 0) g.push_back({c, r, b});
  return g;
}

// csr_coop's times measured on an H100 over the whole GPU search space, per matrix, with the
// fixed rule's start point (test/data/coop_landscape_h100.txt).
struct MeasuredLandscape {
  std::string matrix;
  ordinal_t nrows = 0;
  offset_t nnz = 0;
  spmv::CoopParams start;  // the fixed rule on that device
  std::map<std::tuple<int, int, int>, double> us;
  double operator()(const spmv::CoopParams& p) const { return us.at({p.coop, p.repeat, p.block_size}); }
  double best() const {
    double b = 1e300;
    for (const auto& [k, t] : us) b = std::min(b, t);
    return b;
  }
};

inline std::vector<MeasuredLandscape> measured_landscapes(const std::string& file) {
  std::ifstream in(data_dir() / file);
  std::vector<MeasuredLandscape> all;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string points;
    MeasuredLandscape l;
    fields >> l.matrix >> l.nrows >> l.nnz >> points;
    l.start = spmv::coop_fixed_rule(l.nrows, l.nnz, 32, 132 * 2048, true);
    char comma;
    std::istringstream ps(points);
    std::string point;
    while (std::getline(ps, point, ';')) {
      int c, r, b;
      double t;
      std::istringstream(point) >> c >> comma >> r >> comma >> b >> comma >> t;
      l.us[{c, r, b}] = t;
    }
    all.push_back(std::move(l));
  }
  return all;
}

}  // namespace ppsparse::test
