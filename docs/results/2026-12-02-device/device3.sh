#!/usr/bin/env bash
# Device call 3 (about 2 minutes): NVML's power is a one-second average on this card, so call 2's
# Hopper rows (timed blocks of 10-60 ms) read the idle card before them (about 119 W). bench now
# runs a kernel whose timed launches took less than a second back to back for 1.3 s more and
# samples only after the first second: the power of the kernel itself. A few steps at 4096^3 and
# 8192^3, then the [gpu] runner test of timing (paired ratio and samples per step).
#   OUT=/tmp/out bash docs/results/<this folder>/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
timeout 200 $B/gemmscope bench simt_naive simt_warptile ampere_ldmatrix hopper_tma_wgmma_64 hopper_persistent \
  hopper_stmatrix_epilogue --sizes 4096,8192 --reps 20 --json $OUT/bench-power.json > $OUT/bench-power.log 2>&1
echo "bench rc=$?" >> $OUT/status.txt
[ -x $B/tests/gemmscope_tests ] && timeout 200 $B/tests/gemmscope_tests \
  "[gpu] runner: timing gives reps, a stable C and a cuBLAS baseline" > $OUT/gpu-timing-test.txt 2>&1
echo "gpu-timing-test rc=$?" >> $OUT/status.txt
cat $OUT/status.txt; sed -n '/^kernel /,$p' $OUT/bench-power.log; tail -4 $OUT/gpu-timing-test.txt
python3 -c "import json,sys; [print(r['kernel'], r['shape']['m'], (r.get('conditions') or {}).get('how'), r.get('conditions_error')) for r in json.load(open(sys.argv[1]))['results']]" $OUT/bench-power.json
