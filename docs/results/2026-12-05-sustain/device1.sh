#!/usr/bin/env bash
# Prepared on 2026-12-05 (no device was lent that session) for issue #29's next device call: the
# ladder timed in the state the model's clocks describe, the card under its power limit. Each
# step runs with ours and cuBLAS in alternation for 2 s before its timed rounds
# (`bench --sustain 2000`), then 50 paired rounds, at 4096^3 and 8192^3, so that
# scripts/timing-validate.py compares the model with runs whose clock is the capped one and the
# error left is the cycles'.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-sustain/device1.sh     (about 5 minutes)
# Then, here: python3 scripts/timing-validate.py build/devcarry/gemmscope r/bench-sustained.json OUT
source "$(dirname "$0")/../../../scripts/device-call.sh"
sustained_ladder "4096 8192" 270 $OUT/r/bench-sustained.json
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^(simt|ampere|hopper)" $OUT/r/bench.log | cut -c1-110 | head -45
(cd $OUT && tar czf sustained.tgz r && rm -rf r)
