#!/bin/bash
# Writes `gemmscope gui --state-json` (the data behind every view, headless) for every kernel of
# `gemmscope list` at its example shape, and for the persistent and CTA-pair steps at 4096^3,
# into OUTDIR; run it with two binaries and diff the folders to see what a change does to the
# views:
#   scripts/state-json-all.sh OLD/gemmscope /tmp/before
#   scripts/state-json-all.sh build/dev/gemmscope /tmp/after
#   diff -r /tmp/before /tmp/after
# Needs xvfb-run (the app renders its frames headless).
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 GEMMSCOPE_BINARY OUTDIR" >&2
  exit 2
fi
bin=$1
out=$2
mkdir -p "$out" || exit 1
ids=$("$bin" list --json | python3 -c 'import json, sys; print(" ".join(k["id"] for k in json.load(sys.stdin)))') || exit 1
run() {  # NAME ARGS...
  local name=$1
  shift
  xvfb-run -a -s "-screen 0 2600x1500x24" "$bin" gui --no-settings "$@" --state-json "$out/$name.json" >"$out/$name.log" 2>&1
  echo "$name: exit $?"
}
for id in $ids; do run "$id" --kernel "$id"; done
for id in hopper_persistent hopper_fewer_arrivals blackwell_2sm; do
  run "$id-4096" --kernel "$id" --m 4096 --n 4096 --k 4096
done
