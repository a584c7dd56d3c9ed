#!/usr/bin/env bash
# wide_block_kernel (nb 16..64) as a programmatic dependent launch: tests, sanitizers, nb sweep PDL off/on alternating;
# the default problem once each way (re-runs the dependent-launch refactor of 0bec672 on a GPU).
export LD_LIBRARY_PATH=$PWD/.kokkos/deps/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
B=.devtools/bin
for f in $B/*.xz; do [ -f "${f%.xz}" ] || python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" "$f" "${f%.xz}"; chmod +x "${f%.xz}"; done
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for v in 1 0; do PPSPARSE_MCPI_CUDA_PDL=$v $B/test_mcpi --gtest_filter='McpiSolver.*' > $OUT/test_mcpi_pdl$v.txt 2>&1; echo "PDL=$v $(tail -1 $OUT/test_mcpi_pdl$v.txt)"; done
PPSPARSE_MCPI_CUDA_SMALL=0 $B/test_mcpi --gtest_filter='McpiSolver.*' 2>&1 | tail -1
timeout 150 compute-sanitizer --tool memcheck $B/test_mcpi --gtest_filter='McpiSolver.AllVariantsMatchReferenceForAllBlockSizes' 2>&1 | tail -1
timeout 200 compute-sanitizer --tool racecheck $B/test_mcpi --gtest_filter='McpiSolver.ResidualDecreasesOnDominantSystems' 2>&1 | tail -1
date -u
i=0
for v in 0 1 0 1; do
  i=$((i+1))
  PPSPARSE_MCPI_CUDA_PDL=$v timeout 130 $B/bench_mcpi --problems=default,nb_sweep --nb_list=16,24,32,48,64 --reps=3 --check_sweeps=1 \
    --benchmark_filter='copy|default.*/rows_per_warp_l2/backend|nbsweep.*/warp_per_row/backend' \
    --benchmark_out=$OUT/wide_${i}_$v.json --benchmark_out_format=json > /dev/null 2>$OUT/wide_${i}.err || echo "v=$v rc=$?"
  date -u
done
python3 - $OUT <<'PY'
import json,sys,glob
cols=[]; rows={}
for f in sorted(glob.glob(sys.argv[1]+'/wide_*.json')):
    try: d=json.load(open(f))
    except Exception as e: print(f, e); continue
    k=f.split('/')[-1][:-5]; cols.append(k)
    for b in d["benchmarks"]:
        if b.get("aggregate_name")!="median" or b["run_name"].startswith("copy"): continue
        rows.setdefault(b["run_name"].split("/")[1],{})[k]=b["pct_copy"]
print(f"{'problem':22s} "+" ".join(f"{c:>9s}" for c in cols))
for n,v in rows.items(): print(f"{n:22s} "+" ".join(f"{v.get(c,0):9.1f}" for c in cols))
PY
