#!/usr/bin/env bash
# Issue #32: the [gpu] tests, their model-vs-GPU cases included, on the binaries of call 1 (about 5
# minutes).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-amx/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
{ lscpu | grep -m1 "Model name"; grep -m1 -o -w -E "amx_bf16|avx512_bf16" /proc/cpuinfo | sort -u | tr '\n' ' '; echo; } >> $OUT/r/env.txt
timeout 540 $B/tests/gemmscope_tests "[gpu]" -r console --durations yes > $OUT/r/gpu-tests.txt 2>&1
echo "gpu-tests rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
tail -4 $OUT/r/gpu-tests.txt
(cd $OUT && tar czf r2.tgz r && rm -rf r)
