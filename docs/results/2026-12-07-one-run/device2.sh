#!/usr/bin/env bash
# Device call 2 (issue 31, about 4 minutes; the same warm card as call 1 where it can): step 19 at
# #31's sizes beside cuBLAS with the same C type (step19_sizes: as it ships, staging=slab stages=3,
# f32 C), then bn=192 (f496a0b) at the shapes whose 128x256 tiles leave the last round part-empty,
# with 132 and 128 persistent CTAs, bf16 C, each in paired rounds after 2 s of load.
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-one-run/device2.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
n=100
for size in 3000x5000x4096 4096x1024x8192 2048; do
  for v in "--param bn=192 --param ctas=132" "--param bn=192 --param ctas=132 --param staging=slab" \
           "--param bn=192" "--param ctas=132"; do
    n=$((n + 1))
    timeout -k 5 40 $B/gemmscope bench hopper_stmatrix_epilogue --param c_dtype=bf16 $v --sizes $size --reps 20 \
      --sustain 2000 --json "$OUT/r/s19-$n.json" > "$OUT/r/s19-$n.log" 2>&1
    echo "step19 $size [$v] rc=$? at $SECONDS s" >> "$OUT/r/status.txt"
  done
  (cd "$OUT" && tar czf r2.tgz r)
done
step19_sizes 230
(cd "$OUT" && tar czf r2.tgz r)
cat $OUT/r/env.txt; grep -v "rc=0" $OUT/r/status.txt | tail -5
grep -h "^hopper_stmatrix_epilogue" $OUT/r/s19-*.log | cut -c1-120
