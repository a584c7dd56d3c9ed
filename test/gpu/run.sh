#!/usr/bin/env bash
# Runs every test binary of a GPU (CUDA or HIP) build of ppsparse on the machine's GPU, with the
# real matrices and meshes present, and prints one summary line per suite, then a total.
#
#   test/gpu/run.sh [BUILD_DIR]            (default build/cuda)
#
# Environment:
#   SHARED_DIR  the folder holding matrices/ and meshes/ (default ../shared beside the checkout);
#               it must exist: a GPU run without the real data checks less, so it is refused.
#   OUT         where the logs and summary.txt go (default BUILD_DIR/gpu-test)
#   PPSPARSE_TEST_SEED  the base seed of the randomised tests (default: the suite's fixed seed)
# The exit status is 0 only if every suite ran and passed.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$root/build/cuda}" 2>/dev/null && pwd)" || { echo "run.sh: no build folder '${1:-$root/build/cuda}'" >&2; exit 2; }
shared="${SHARED_DIR:-$root/../shared}"
if [ ! -d "$shared/matrices" ] || [ ! -d "$shared/meshes" ]; then
  echo "run.sh: SHARED_DIR '$shared' has no matrices/ and meshes/ (set SHARED_DIR)" >&2
  exit 2
fi
out="${OUT:-$build/gpu-test}"
mkdir -p "$out"
export PPSPARSE_SHARED_DIR="$(cd "$shared" && pwd)" PPSPARSE_TEST_DATA_DIR="$root/test/data"

device="unknown device"
if command -v nvidia-smi > /dev/null; then
  device="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
elif command -v rocm-smi > /dev/null; then
  device="$(rocm-smi --showproductname 2> /dev/null | grep -m1 -i 'card series' | sed 's/.*: *//')"
fi
summary="$out/summary.txt"
echo "# ppsparse GPU tests, $(date -u +%Y-%m-%dT%H:%MZ), $device, build $build, seed ${PPSPARSE_TEST_SEED:-default}" | tee "$summary"

mapfile -t suites < <(find "$build/test" -maxdepth 3 -type f -name 'test_*' -perm -u+x | sort)
if [ "${#suites[@]}" -eq 0 ]; then
  echo "run.sh: no test binaries under $build/test" >&2
  exit 2
fi
failed=0
total_pass=0 total_fail=0 total_skip=0
for exe in "${suites[@]}"; do
  name="$(basename "$exe")"
  log="$out/$name.log"
  start=$(date +%s)
  (cd "$out" && "$exe" --gtest_color=no > "$log" 2>&1)
  status=$?
  seconds=$(( $(date +%s) - start ))
  passed=$(grep -c '^\[       OK \]' "$log")
  fails=$(grep -c '^\[  FAILED  \] [A-Za-z0-9_/.]*\.[A-Za-z0-9_/]* (' "$log")
  skipped=$(grep -c '^\[  SKIPPED \] [A-Za-z0-9_/.]*\.[A-Za-z0-9_/]* (' "$log")
  total_pass=$((total_pass + passed)) total_fail=$((total_fail + fails)) total_skip=$((total_skip + skipped))
  verdict=passed
  if [ "$status" -ne 0 ] || [ "$fails" -ne 0 ]; then
    verdict="FAILED (exit $status)"
    failed=1
  fi
  printf '%-16s %-22s %4d passed, %3d failed, %3d skipped, %4d s\n' "$name" "$verdict" "$passed" "$fails" "$skipped" "$seconds" | tee -a "$summary"
  if [ "$fails" -ne 0 ] || [ "$status" -ne 0 ]; then
    grep -E '^\[  FAILED  \] .*\(' "$log" | head -20 | sed 's/^/    /' | tee -a "$summary"
    [ "$fails" -eq 0 ] && tail -5 "$log" | sed 's/^/    /' | tee -a "$summary"
  fi
done
# The mini-app's own verification on the GPU: exit status 0 only if every variant agrees with
# the FP64 reference block row by block row, and 1 when a reference entry is moved.
mcpi="$build/apps/mcpi/mcpi"
if [ -x "$mcpi" ]; then
  "$mcpi" --grid 16 --sweeps 4 --verify > "$out/mcpi_verify.log" 2>&1
  s1=$?
  "$mcpi" --grid 16 --sweeps 4 --verify --variant rows_per_warp --test-perturb-reference 1e-3 > "$out/mcpi_wrong.log" 2>&1
  s2=$?
  "$mcpi" --mpk 4 --grid 24 --sweeps 2 > "$out/mcpi_mpk.log" 2>&1
  s3=$?
  verdict=passed
  if [ "$s1" -ne 0 ] || [ "$s2" -ne 1 ] || [ "$s3" -ne 0 ]; then verdict=FAILED; failed=1; fi
  printf '%-16s %-22s exit %d (verify), %d (wrong reference, 1 expected), %d (mpk)\n' mcpi "$verdict" "$s1" "$s2" "$s3" | tee -a "$summary"
fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped" | tee -a "$summary"
exit "$failed"
