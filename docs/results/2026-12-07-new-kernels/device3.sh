#!/usr/bin/env bash
# The app's H100 reference run (assets/reference/): every runnable step at 4096^3 beside cuBLASLt in
# the same run, default build parameters (step 19: bf16 C against cuBLAS's bf16 C), as `bench all`
# measures by default (about 2 minutes); 8192^3 after it while 240 s last.
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-new-kernels/device3.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 200 $B/gemmscope bench all --sizes 4096 --reps 5 --json $OUT/r/bench-ladder-4096.json > $OUT/r/bench-ladder-4096.log 2>&1
echo "ladder 4096 rc=$? at $SECONDS s" >> $OUT/r/status.txt
(cd $OUT && tar czf l4096.tgz r)
LEFT=$((240 - SECONDS))
[ $LEFT -gt 60 ] && timeout $LEFT $B/gemmscope bench all --sizes 8192 --reps 5 --json $OUT/r/bench-ladder-8192.json > $OUT/r/bench-ladder-8192.log 2>&1
echo "ladder 8192 rc=$? at $SECONDS s" >> $OUT/r/status.txt
(cd $OUT && tar czf all.tgz r)
grep -h "TFLOP/s" $OUT/r/bench-ladder-4096.log | grep "^\[" | cut -c1-170
tail -2 $OUT/r/status.txt
