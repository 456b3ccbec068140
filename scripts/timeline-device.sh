#!/usr/bin/env bash
# The timeline's GPU check (issue 30), in one run of a few minutes:
#
#   OUT=/some/dir scripts/timeline-device.sh [BUILD_DIR]
#
# BUILD_DIR (default build/device) holds a gemmscope built on the development machine (see
# scripts/device-check.sh). Writes to $OUT:
#   timelines.tgz   one timeline per Hopper step at 8192^3, *timeline*.json and *.trace.json
#   overhead.log    steps 11-16 at 8192^3: plain and instrumented TFLOP/s, slowdown, C identical
#   identical.log   every step this GPU runs at its example shape: C identical with and without
#                   the timeline (bench --timeline at --reps 3)
# Exit status: 0 when every run passed (C identical everywhere, nothing lost), 1 otherwise.
set -u
BUILD_DIR=${1:-build/device}
GS="$BUILD_DIR/gemmscope"
OUT=${OUT:-./timeline-out}
mkdir -p "$OUT/timelines" || exit 1
status=0
for id in hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent \
          hopper_fewer_arrivals; do
  timeout 90 "$GS" bench "$id" --sizes 8192 --reps 20 --timeline "$OUT/timelines/$id.timeline.json" \
    --timeline-capacity 65536 >>"$OUT/overhead.log" 2>&1 || status=1
done
for id in $("$GS" list --json | python3 -c 'import json,sys; print(" ".join(k["id"] for k in json.load(sys.stdin)))' 2>/dev/null); do
  timeout 60 "$GS" bench "$id" --sizes example --reps 3 --timeline "$OUT/timelines/$id.example.timeline.json" \
    >>"$OUT/identical.log" 2>&1 || echo "$id: exit $?" >>"$OUT/identical.log"
done
rm -f "$OUT"/timelines/*.example.timeline.json "$OUT"/timelines/*.example.timeline.trace.json
tar czf "$OUT/timelines.tgz" -C "$OUT" timelines && rm -rf "$OUT/timelines"
grep -E "timeline|skipped|WRONG|DIFFERS" "$OUT/overhead.log" "$OUT/identical.log"
exit $status
