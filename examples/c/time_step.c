/* A time-step loop through the C interface: a 7-point block stencil on a G^3 grid (nb = 5),
 * new values at every step, MCPI to a tolerance, then FGMRES + MCPI on the last step.
 * Arrays are C's: 0-based indices, row-major blocks, in host memory (a GPU code passes
 * PPSPARSE_MEMORY_DEVICE and device pointers from its own assembly instead).
 * Exits 1 if a step does not converge or a call fails. Usage: example_time_step_c [G] [steps] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ppsparse/c/mcpi.h>

#define NB 5

static int check(int rc, const char* what) {
  if (rc != PPSPARSE_SUCCESS) fprintf(stderr, "%s failed (%d): %s\n", what, rc, ppsparse_last_error());
  return rc != PPSPARSE_SUCCESS;
}

/* Block values of step t: O couples a row to its neighbours, D dominates them. */
static void assemble(int g, int t, const int32_t* row_ptr, const int32_t* col_idx, double* O, double* D, double* R) {
  const int n = g * g * g;
  for (int i = 0; i < n; ++i) {
    for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      for (int a = 0; a < NB; ++a)
        for (int b = 0; b < NB; ++b) /* row-major: (a, b) at a * NB + b */
          O[(size_t)k * NB * NB + a * NB + b] =
              (a == b ? -1.0 : 0.05 * sin(0.3 * (i + col_idx[k]) + a - 2.0 * b)) * (1.0 + 0.1 * t);
    const int deg = row_ptr[i + 1] - row_ptr[i];
    for (int a = 0; a < NB; ++a) {
      for (int b = 0; b < NB; ++b)
        D[(size_t)i * NB * NB + a * NB + b] = a == b ? (deg + 0.5) * (1.0 + 0.1 * t) : 0.02 * cos(i + a * b);
      R[(size_t)i * NB + a] = sin(0.01 * i + a + t);
    }
  }
}

int main(int argc, char** argv) {
  const int g = argc > 1 ? atoi(argv[1]) : 12, steps = argc > 2 ? atoi(argv[2]) : 3;
  if (g < 2 || steps < 1) {
    fprintf(stderr, "usage: example_time_step_c [G >= 2] [steps >= 1]\n");
    return 2;
  }
  const int n = g * g * g;
  int32_t* row_ptr = malloc(sizeof(int32_t) * (n + 1));
  int32_t* col_idx = malloc(sizeof(int32_t) * 6 * n);
  row_ptr[0] = 0;
  for (int z = 0, i = 0; z < g; ++z)
    for (int y = 0; y < g; ++y)
      for (int x = 0; x < g; ++x, ++i) {
        int32_t k = row_ptr[i];
        if (z > 0) col_idx[k++] = i - g * g;
        if (y > 0) col_idx[k++] = i - g;
        if (x > 0) col_idx[k++] = i - 1;
        if (x + 1 < g) col_idx[k++] = i + 1;
        if (y + 1 < g) col_idx[k++] = i + g;
        if (z + 1 < g) col_idx[k++] = i + g * g;
        row_ptr[i + 1] = k;
      }
  const size_t nnzb = (size_t)row_ptr[n];
  double* O = malloc(sizeof(double) * nnzb * NB * NB);
  double* D = malloc(sizeof(double) * (size_t)n * NB * NB);
  double* R = malloc(sizeof(double) * (size_t)n * NB);
  double* dq = malloc(sizeof(double) * (size_t)n * NB);
  int failed = 0;
  ppsparse_mcpi_solver* solver = NULL;
  if (check(ppsparse_initialize(), "ppsparse_initialize")) return 1;
  failed |= check(ppsparse_mcpi_create(&solver, NB, n, row_ptr, col_idx, 0, NULL, PPSPARSE_MEMORY_HOST),
                  "ppsparse_mcpi_create");
  int32_t ncolors = 0;
  if (!failed) failed |= check(ppsparse_mcpi_sizes(solver, NULL, NULL, NULL, &ncolors), "ppsparse_mcpi_sizes");
  if (!failed) printf("C: %d block rows, nb %d, %zu blocks, %d colours\n", n, NB, nnzb, ncolors);
  ppsparse_mcpi_control control;
  ppsparse_mcpi_control_default(&control);
  control.max_sweeps = 500;
  control.rtol = 1e-6;
  control.check_interval = 5;
  for (int t = 0; t < steps && !failed; ++t) {
    assemble(g, t, row_ptr, col_idx, O, D, R);
    failed |= check(ppsparse_mcpi_update(solver, O, D, PPSPARSE_ROW_MAJOR, PPSPARSE_MEMORY_HOST), "update");
    ppsparse_mcpi_status st;
    if (!failed) failed |= check(ppsparse_mcpi_apply(solver, R, dq, PPSPARSE_MEMORY_HOST, &control, &st), "apply");
    if (failed) break;
    int steps_at[128], count = 0;
    double residuals[128];
    failed |= check(ppsparse_mcpi_history(solver, 128, steps_at, residuals, &count), "history");
    printf("step %d: MCPI %d sweeps, ||r|| %.3e -> %.3e (reason %d); checks:", t, st.sweeps, st.initial_residual,
           st.final_residual, st.reason);
    for (int c = 0; c < count && c < 128; ++c) printf(" %d:%.2e", steps_at[c], residuals[c]);
    printf("\n");
    if (st.reason != PPSPARSE_CONVERGED) failed = 1;
  }
  if (!failed) {
    ppsparse_fgmres_control fc;
    ppsparse_fgmres_control_default(&fc);
    fc.rtol = 1e-6;
    fc.sweeps = 2;
    ppsparse_mcpi_status st;
    failed |= check(ppsparse_mcpi_fgmres(solver, R, dq, PPSPARSE_MEMORY_HOST, &fc, &st), "fgmres");
    if (!failed) {
      printf("last step again: FGMRES + MCPI %d iterations, %d sweeps, ||r|| %.3e -> %.3e (reason %d)\n", st.iterations,
             st.sweeps, st.initial_residual, st.final_residual, st.reason);
      if (st.reason != PPSPARSE_CONVERGED) failed = 1;
    }
  }
  /* An error, as a caller sees it: a bad block order. */
  if (!failed && ppsparse_mcpi_update(solver, O, D, 7, PPSPARSE_MEMORY_HOST) == PPSPARSE_SUCCESS) failed = 1;
  if (!failed) printf("a bad call says: %s\n", ppsparse_last_error());
  ppsparse_mcpi_destroy(solver);
  ppsparse_finalize();
  free(row_ptr);
  free(col_idx);
  free(O);
  free(D);
  free(R);
  free(dq);
  printf(failed ? "C example: FAILED\n" : "C example: OK\n");
  return failed;
}
