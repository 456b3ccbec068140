#!/usr/bin/env bash
# The Ampere rungs on the H100: bench vs cuBLAS (+ model compare), probes, mma.sync peak, edges, ncu.
set -u
C=$(cd "$(dirname "$0")" && pwd)
W=/tmp/w; mkdir -p $W/ncu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
A="ampere_mma_global ampere_cp_async ampere_ldmatrix"
S=$OUT/summary.txt
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s); timeout --kill-after=5 $limit "$@" > $W/$name.log 2>&1; local rc=$?; echo "== $name rc=$rc $(( $(date +%s) - t0 )) s" >> $S; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $C/gemmscope --version; } > $S 2>&1
step bench 95 $C/gemmscope bench $A --sizes 4096 --reps 20 --compare-model --json $OUT/bench.json
sed -n '/^kernel /,$p' $W/bench.log >> $S; grep -E "model vs GPU" $W/bench.log >> $S
step probes 35 $C/gemmscope probe ldmatrix
step probe_mma 12 $C/gemmscope probe mma
grep -hE "^(PASS|FAIL|SKIP)|probes passed" $W/probes.log $W/probe_mma.log >> $S
step peak 25 $C/gemmscope_mma_peak --json $OUT/mma-peak.json
cat $W/peak.log >> $S
step edges 40 bash -c "$C/gemmscope bench ampere_mma_global --sizes 960x992x1008 --reps 0 --no-cublas --json $W/e1.json; $C/gemmscope bench ampere_cp_async --sizes 960x1024x1008 --reps 0 --no-cublas --json $W/e2.json; $C/gemmscope bench ampere_ldmatrix --sizes 1024x896x992 --reps 0 --no-cublas --json $W/e3.json"
sed -n '/^kernel /,$p' $W/edges.log >> $S
step ncu 75 env NCU_TIMEOUT=20 KERNELS="$A" MISTAKES="ampere_ldmatrix:unswizzled-ldmatrix" bash $C/ncu-bank-conflicts.sh $C/gemmscope $W/ncu
sed -n '/^shared-memory bank conflicts/,$p' $W/ncu.log >> $S
tar czf $OUT/logs.tgz -C $W . 2>/dev/null
cat $S
