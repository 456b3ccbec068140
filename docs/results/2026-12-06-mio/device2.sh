#!/usr/bin/env bash
# #29: is the clock the ladder was validated at the kernel's own? `bench --sustain` runs each kernel
# in turn with cuBLAS (and times them in paired rounds), so the card's power limit sets one clock for
# the pair; the model's clock rule, and the probes it rests on, are each load alone. Steps 07, 10,
# 11, 12, 16 and 19 at 4096^3, each alone (`--no-cublas`) and then in turn with cuBLAS, back to back;
# then the whole ladder at 4096^3 alone, for scripts/timing-validate.py. About 5 minutes; each part
# tarred as it ends.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-mio/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
mkdir -p $OUT/r/pairs
for k in ampere_ldmatrix hopper_tma_wgmma_64 hopper_tile_128 simt_warptile hopper_fewer_arrivals hopper_stmatrix_epilogue; do
  for mode in alone paired; do
    extra=""; [ $mode = alone ] && extra="--no-cublas"
    timeout 60 $B/gemmscope bench $k --sizes 4096 --reps 50 --sustain 2000 $extra --json $OUT/r/pairs/$k-$mode.json \
      >> $OUT/r/pairs/bench.log 2>&1
    echo "$k $mode rc=$?" >> $OUT/r/status.txt
  done
done
python3 - $OUT/r/pairs <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    r = json.load(open(f))["results"][0]
    print(os.path.basename(f), r.get("tflops"), round(r.get("sm_clock_counted_mhz") or 0), (r.get("conditions") or {}).get("power_w"))
PY
(cd $OUT && tar czf pairs.tgz r/pairs r/env.txt r/status.txt)
LADDER_ARGS=--no-cublas sustained_ladder "4096" 240 $OUT/r/bench-alone.json
(cd $OUT && tar czf ladder.tgz r/bench-alone.json r/bench.log r/status.txt r/env.txt)
cat $OUT/r/status.txt
