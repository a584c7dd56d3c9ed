#!/usr/bin/env bash
# Reproduces docs/perf/mcpi_*.md on a CUDA machine: builds ppsparse's mcpi app and MCPI
# tests against your CUDA Kokkos / Kokkos Kernels, runs the tests, the embedded default
# problem (1.1 M vertices, nb = 5) and an nb sweep. Results go to $OUT (default ./perf-out).
#
#   Kokkos_ROOT=... KokkosKernels_ROOT=... bench/tools/run_mcpi_gpu.sh
# Optional: CUDA_ARCH (default sm_90), EXTRA_CMAKE_ARGS (e.g. -DZLIB_ROOT=... -DGTest_DIR=...), NB_LIST, SKIP_NB_SWEEP=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${Kokkos_ROOT:?set Kokkos_ROOT to a CUDA-enabled Kokkos install}"
KokkosKernels_ROOT=${KokkosKernels_ROOT:-$Kokkos_ROOT}
OUT=${OUT:-$PWD/perf-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
date -u +%Y-%m-%dT%H:%MZ | tee -a "$OUT/gpu.txt"
if [ ! -f build/cuda/CMakeCache.txt ]; then
  cmake -S . -B build/cuda -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$Kokkos_ROOT/bin/nvcc_wrapper" \
    -DKokkos_ROOT="$Kokkos_ROOT" -DKokkosKernels_ROOT="$KokkosKernels_ROOT" -DPPSPARSE_ENABLE_BENCH=OFF \
    -DCMAKE_CXX_FLAGS="-arch=${CUDA_ARCH:-sm_90}" \
    ${EXTRA_CMAKE_ARGS:-} > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
fi
cmake --build build/cuda -j"$(nproc)" --target mcpi test_mcpi > "$OUT/build.log" 2>&1 ||
  { grep -B2 -A8 -m8 "rror" "$OUT/build.log" | head -80; exit 1; }
./build/cuda/test/test_mcpi > "$OUT/test_mcpi.txt" 2>&1 && tail -1 "$OUT/test_mcpi.txt" || { tail -30 "$OUT/test_mcpi.txt"; exit 1; }
mcpi=./build/cuda/apps/mcpi/mcpi
$mcpi --grid 16 --sweeps 4 --verify > "$OUT/mcpi_verify.txt" 2>&1 || { tail -12 "$OUT/mcpi_verify.txt"; exit 1; }
$mcpi --json "$OUT/mcpi_default.json" > "$OUT/mcpi_default.txt" 2>&1
grep -E "^(problem|n |O |colours|bytes|copy)" "$OUT/mcpi_default.txt"
grep -A5 "^variant" "$OUT/mcpi_default.txt"
if [ "${SKIP_NB_SWEEP:-0}" != 1 ]; then
  for nb in ${NB_LIST:-1 2 3 4 5 8 13 16 17 32 64}; do
    grid=64
    if [ "$nb" -gt 16 ]; then grid=28; fi
    $mcpi --grid $grid --block "$nb" --sweeps 10 --json "$OUT/nb$nb.json" > "$OUT/nb$nb.txt" 2>&1
    echo "nb=$nb grid=$grid^3 $(grep '^copy' "$OUT/nb$nb.txt" | cut -c11-24)"
    grep -A5 "^variant" "$OUT/nb$nb.txt" | tail -4
  done
fi
