#pragma once
// The precision combinations (O, D, dQ) the MCPI solver is compiled for, in one list:
// M(X, OScalar, DScalar, XScalar) for each, X passed through (a kernel's id, or unused).
#define PPSPARSE_MCPI_FOR_EACH_PRECISION(M, X) \
  M(X, float, double, float)                   \
  M(X, double, double, double)                 \
  M(X, float, float, float)                    \
  M(X, float, double, double)
