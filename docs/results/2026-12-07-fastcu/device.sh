#!/usr/bin/env bash
# #31: fast.cu's kernels and ours on one card in one call, each in its own harness and both in one
# method, so that "each new step within 2 points of its fast.cu counterpart" is settled on the same
# card and the same cuBLAS (anchors.md's fast.cu figures and our sweeps came from different runs).
#  1. fast.cu @38eb642's matmul_8 (clusters + multicast), _10 (TMA store), _11 (Hilbert) and _12 (stmatrix),
#     built from its own sources with a harness of our own (build/fastcu/fastcu_harness; see README.md):
#     its method (verified against cublasGemmEx, 5 s of rest, 8 launches back to back) and ours (2 s of
#     its kernel and cuBLAS in alternation, then 20 paired rounds of 5 launches each, the median ratio),
#     bf16 C, at 4096^3 and 8192^3;
#  2. our steps 17, 18 and 19 with bf16 C beside cuBLAS's bf16 C (`bench --reps 20 --sustain 2000`) at
#     the same sizes.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-fastcu/device.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
F=${F:-build/fastcu/fastcu_harness}
for size in 4096 8192; do
  timeout -k 5 90 $F $size 5 8 10 11 12 > $OUT/r/fastcu-$size.log 2>&1
  echo "fastcu $size rc=$? at $SECONDS s" >> $OUT/r/status.txt
  timeout -k 5 90 $B/gemmscope bench hopper_cluster_multicast hopper_tma_store hopper_stmatrix_epilogue \
    --param c_dtype=bf16 --sizes $size --reps 20 --sustain 2000 --json $OUT/r/ours-$size.json > $OUT/r/ours-$size.log 2>&1
  echo "ours $size rc=$? at $SECONDS s" >> $OUT/r/status.txt
  (cd $OUT && tar czf fastcu.tgz r)
done
cat $OUT/r/status.txt; grep -h "burst\|paired" $OUT/r/fastcu-*.log
