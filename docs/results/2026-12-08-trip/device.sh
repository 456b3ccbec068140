#!/usr/bin/env bash
# A short call (about 2.5 minutes) for a session whose device time went on refused starts: the copy
# probes with one trip to L2 a round (copy_trip_*) beside the plain bursts (README: why step 07 is
# predicted fast), steps 07 and 08 alone under the power limit at 4096^3 (the pair #29's 2026-12-07
# data ordered wrong), and #31's step 19 with bn=192 on 132 CTAs against the shipped bn=256 on 128 at
# 3000x5000x4096, bf16 C, each beside cuBLAS, with the model against the card for bn=192.
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-08-trip/device.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
timeout 40 $B/gemmscope_timing_probes --only copy_trip_ copy_burst_ --json $OUT/r/trip.json > $OUT/r/trip.log 2>&1
echo "copy probes rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
(cd $OUT && tar czf r1.tgz r)
for k in simt_warptile ampere_mma_global; do
  timeout 40 $B/gemmscope bench $k --sizes 4096 --reps 50 --sustain 2000 --no-cublas --json "$OUT/r/pair-$k.json" \
    > "$OUT/r/pair-$k.log" 2>&1
  echo "$k 4096 rc=$? at $SECONDS s" >> "$OUT/r/status.txt"
done
(cd $OUT && tar czf r1.tgz r)
n=100
for v in "--param bn=192 --param ctas=132" ""; do
  n=$((n + 1))
  timeout -k 5 30 $B/gemmscope bench hopper_stmatrix_epilogue --param c_dtype=bf16 $v --sizes 3000x5000x4096 --reps 20 \
    --sustain 2000 --json "$OUT/r/s19-$n.json" > "$OUT/r/s19-$n.log" 2>&1
  echo "step19 3000x5000x4096 [$v] rc=$? at $SECONDS s" >> "$OUT/r/status.txt"
done
(cd $OUT && tar czf r1.tgz r)
timeout 40 $B/gemmscope bench hopper_stmatrix_epilogue --param bn=192 --param ctas=132 --sizes example --reps 0 \
  --compare-model > $OUT/r/compare-s19.log 2>&1
echo "compare-model step 19 bn=192 rc=$? at $SECONDS s" >> "$OUT/r/status.txt"
(cd $OUT && tar czf r1.tgz r)
cat $OUT/r/env.txt; cat $OUT/r/status.txt
grep -h "^hopper_stmatrix_epilogue\|^simt_warptile\|^ampere_mma_global" $OUT/r/s19-*.log $OUT/r/pair-*.log 2>/dev/null | cut -c1-120
tail -5 $OUT/r/compare-s19.log
grep -v "^  GPU" $OUT/r/trip.log | tail -16
