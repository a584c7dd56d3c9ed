/* Solves a small MCPI system through the installed C interface. */
#include <stdio.h>

#include <ppsparse/c/mcpi.h>

int main(void) {
  enum { N = 4, NB = 2, NNZB = 6 };
  const int32_t row_ptr[N + 1] = {0, 1, 3, 5, 6};
  const int32_t col_idx[NNZB] = {1, 0, 2, 1, 3, 2};
  double O[NNZB * NB * NB], D[N * NB * NB], R[N * NB], dq[N * NB];
  for (int q = 0; q < NNZB * NB * NB; ++q) O[q] = (q % 3 == 0) ? -1.0 : 0.1;
  for (int q = 0; q < N * NB * NB; ++q) D[q] = (q % (NB * NB)) % (NB + 1) == 0 ? 4.0 : 0.2;
  for (int q = 0; q < N * NB; ++q) R[q] = 1.0 + q;
  ppsparse_mcpi_solver* s = NULL;
  ppsparse_mcpi_control c;
  ppsparse_mcpi_status st;
  ppsparse_mcpi_control_default(&c);
  c.max_sweeps = 200;
  c.rtol = 1e-6;
  c.check_interval = 1;
  int rc = ppsparse_initialize();
  if (!rc) rc = ppsparse_mcpi_create(&s, NB, N, row_ptr, col_idx, 0, NULL, PPSPARSE_MEMORY_HOST);
  if (!rc) rc = ppsparse_mcpi_update(s, O, D, PPSPARSE_ROW_MAJOR, PPSPARSE_MEMORY_HOST);
  if (!rc) rc = ppsparse_mcpi_apply(s, R, dq, PPSPARSE_MEMORY_HOST, &c, &st);
  if (rc) printf("consumer_c: error %d: %s\n", rc, ppsparse_last_error());
  ppsparse_mcpi_destroy(s);
  ppsparse_finalize();
  if (rc || st.reason != PPSPARSE_CONVERGED) {
    puts("consumer_c: FAILED");
    return 1;
  }
  printf("consumer_c: converged after %d sweeps, ||r|| %.2e -> %.2e\nconsumer_c: OK\n", st.sweeps, st.initial_residual,
         st.final_residual);
  return 0;
}
