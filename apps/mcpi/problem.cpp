#include "problem.hpp"

#include <random>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/mesh/refine.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>

namespace mcpi_app {

using namespace ppsparse;

Problem build_problem(const Options& o, bool gpu, const std::function<void(const std::string&)>& progress) {
  Problem p;
  Graph graph;
  bool have_system = false;
  switch (o.source) {
    case Options::Source::builtin: {
      const ordinal_t g = o.grid > 0 ? o.grid : (gpu ? 103 : 20);
      progress("generating the embedded mixed-element mesh graph (" + std::to_string(g) + "^3 vertices)");
      graph = gen::mixed_mesh_graph(g, g, g, o.seed);
      p.description = "embedded mixed-element mesh graph " + std::to_string(g) + "^3";
      break;
    }
    case Options::Source::mesh: {
      progress("reading " + o.path);
      mesh::Mesh m = mesh::read(o.path, o.zone);
      if (o.refine > 0) {
        progress("refining " + std::to_string(m.nelements()) + " elements " + std::to_string(o.refine) + " times");
        m = mesh::refine_uniform(m, o.refine);
      }
      progress("building the vertex graph of " + std::to_string(m.npoints()) + " points");
      graph = mesh::vertex_graph(m);
      p.description = o.path + (o.zone ? " zone " + std::to_string(o.zone) : std::string()) +
                      (o.refine ? " refined " + std::to_string(o.refine) + "x" : std::string());
      break;
    }
    case Options::Source::matrix: {
      progress("reading " + o.path);
      const auto a = io::read_matrix_market<double>(o.path);
      if (a.nrows != a.ncols)
        throw InvalidArgument("mcpi: " + o.path + " is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) +
                              "; MCPI needs a square matrix");
      if (o.pattern_only) {
        graph = graph_of(a);
        p.description = o.path + " (pattern, generated values)";
      } else {
        if (a.nrows % o.block != 0)
          throw InvalidArgument("mcpi: " + o.path + " has " + std::to_string(a.nrows) +
                                " rows, not divisible by --block " + std::to_string(o.block) +
                                " (or use --pattern-only)");
        std::mt19937_64 rng(o.seed);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        std::vector<double> R(static_cast<size_t>(a.nrows));
        for (auto& r : R) r = u(rng);
        p.system = block_system_from_csr(a, o.block, R);
        graph = graph_of(p.system.O);
        have_system = true;
        p.description = o.path + " (its values)";
      }
      break;
    }
  }
  if (!have_system) {
    progress("generating FUN3D-like " + std::to_string(o.block) + "x" + std::to_string(o.block) + " blocks for " +
             std::to_string(graph.n) + " vertices");
    p.system = gen::make_block_system(graph, o.block, o.seed);
  }
  progress("colouring " + std::to_string(graph.n) + " vertices (Kokkos Kernels distance-1)");
  p.coloring = color_distance1(graph);
  if (o.recolor_passes > 0) {
    auto sizes = [](const ppsparse::Coloring& c) {
      std::string s;
      for (ppsparse::ordinal_t k : ppsparse::color_sizes(c)) s += (s.empty() ? "" : " ") + std::to_string(k);
      return s;
    };
    const std::string before = sizes(p.coloring);
    p.coloring = ppsparse::recolor_iterated_greedy(graph, p.coloring, o.recolor_passes);
    progress("recoloured (" + std::to_string(o.recolor_passes) + " iterated-greedy passes): " + before + " -> " +
             sizes(p.coloring));
  }
  return p;
}

int user_index_base(const Options& o) { return o.source == Options::Source::matrix && !o.pattern_only ? 1 : 0; }

void rethrow_in_file_terms(const Options& o, int nb, const ppsparse::NumericalError& e) {
  if (user_index_base(o) == 0) throw e;
  throw ppsparse::InputError(
      o.path, without_prefix(e.what()) + (nb > 1 ? " (block row b holds the file's rows (b - 1) * " +
                                                       std::to_string(nb) + " + 1 .. b * " + std::to_string(nb) + ")"
                                                 : ""));
}

std::string without_prefix(const std::string& message) {
  size_t at = 0;
  if (message.compare(0, 5, "rank ") == 0) {
    const size_t colon = message.find(": ");
    if (colon != std::string::npos) at = colon + 2;
  }
  if (message.compare(at, 6, "mcpi: ") == 0) return message.substr(0, at) + message.substr(at + 6);
  return message;
}

}  // namespace mcpi_app
