#!/usr/bin/env bash
# #29: step 09's co-resident CTAs as 8 groups of 4 warps meeting at their own barriers in one CTA
# (cp_async_fill_rows32_*_8groups_), beside the whole CTA synced and not synced; with them every
# cp_async_fill_rows32_ row. #31: step 19's SASS as it ships and at 256x128 sharing A, for the main
# loop's instruction count. About a minute; each part tarred as it ends.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-mio/device1.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 150 $B/gemmscope_timing_probes --only cp_async_fill_rows32 --json $OUT/r/copies.json > $OUT/r/copies.log 2>&1
echo "copies rc=$?" >> $OUT/r/status.txt
grep -E "^cp_async" $OUT/r/copies.log | cut -c1-100
(cd $OUT && tar czf copies.tgz r/copies.* r/env.txt r/status.txt)
for v in "" "--param bm=256 --param bn=128 --param share=a" "--param cluster=1"; do
  name=$(echo "default $v" | tr -d ' -' | sed 's/param/_/g')
  timeout 60 $B/gemmscope sass hopper_stmatrix_epilogue --m 4096 --n 4096 --k 4096 $v > $OUT/r/sass-$name.txt 2>&1
  echo "sass $name rc=$?" >> $OUT/r/status.txt
done
(cd $OUT && tar czf sass.tgz r/sass-*.txt r/status.txt)
cat $OUT/r/status.txt
