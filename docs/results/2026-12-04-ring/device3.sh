#!/usr/bin/env bash
# Device call 3 (issue #32, up to 8 minutes): the [gpu] tests, their model-vs-GPU cases included,
# on this session's binaries.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-ring/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
T=$B/tests/gemmscope_tests; [ -x $T ] || T=$B/gemmscope_tests
timeout 480 $T "[gpu]" -r console --durations yes > $OUT/r/gpu-tests.txt 2>&1
echo "gpu-tests rc=$?" >> $OUT/r/status.txt
cat $OUT/r/status.txt
grep -E "^[0-9.]+ s: " $OUT/r/gpu-tests.txt | tail -30
tail -4 $OUT/r/gpu-tests.txt
(cd $OUT && tar czf r3.tgz r && rm -rf r)
