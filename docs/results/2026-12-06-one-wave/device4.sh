#!/usr/bin/env bash
# #29: is a 3-stage ring latency-bound on the card? Steps 13 and 15 at 8192^3 with 2..6 stages,
# each timed under a sustained clock with its own timeline (the traced CTA, every warp), to read
# the consumers' full-barrier waits and the K period against the ring's depth.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-one-wave/device4.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
mkdir -p $OUT/r/t
for K in hopper_persistent hopper_producer_consumer; do
  for S in 2 3 4 5 6; do
    timeout 120 $B/gemmscope bench $K --sizes 8192 --reps 20 --sustain 1000 --no-cublas --param stages=$S \
      --timeline $OUT/r/t/$K-s$S.json --timeline-capacity 65536 --json $OUT/r/t/$K-s$S.bench.json >> $OUT/r/t.log 2>&1
    echo "$K stages=$S rc=$?" >> $OUT/r/status.txt
  done
done
rm -f $OUT/r/t/*.trace.json
# Keep warp 0 (producer), 4 and 8 (the consumers' first warps) of each timeline: the ring's events.
python3 - "$OUT/r/t" <<'PY'
import json, sys, glob
for f in glob.glob(sys.argv[1] + "/*-s[0-9].json"):
    d = json.load(open(f))
    d["events"] = [e for e in d["events"] if e[3] in (0, 4, 8)]
    json.dump(d, open(f, "w"), separators=(",", ":"))
PY
(cd $OUT && tar czf ring.tgz r)
cat $OUT/r/status.txt
grep -E "TFLOP/s \(" $OUT/r/t.log | cut -c1-120
