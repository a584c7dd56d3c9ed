// Builds a tiny CSR matrix through the installed headers and library and converts it.
#include <cstdio>

#include <ppsparse/formats/convert.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  ppsparse::CsrMatrix<double, ppsparse::HostSpace> a(2, 2, 3);
  a.row_ptr(1) = 2;
  a.row_ptr(2) = 3;
  a.col_idx(0) = 0;
  a.col_idx(1) = 1;
  a.col_idx(2) = 1;
  a.values(0) = 1.0;
  a.values(1) = 2.0;
  a.values(2) = 3.0;
  ppsparse::validate(a);
  auto b = ppsparse::csr_to_bsr(a, 2);
  if (b.nnzb() != 1 || b.values(ppsparse::block_entry(2, 0, 1)) != 2.0) {
    std::puts("consumer: FAILED");
    return 1;
  }
  std::puts("consumer: OK");
  return 0;
}
