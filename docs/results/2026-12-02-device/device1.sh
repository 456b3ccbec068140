#!/usr/bin/env bash
# Device call 1 (about 9 minutes): the speed part of the device check (bench of every step at
# 4096^3 and 8192^3 with the model beside it, the timing probes, new ones of the queue in front of
# the L1 data path included, each described figure beside the probe that measured it today, and the
# mma.sync peak), with the card's clock, power and temperature sampled meanwhile.
#   OUT=/tmp/out bash docs/results/<this folder>/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/smi.csv 2>&1 &
SMI=$!
OUT=$OUT/dc PART=speed TOTAL_BUDGET_S=540 bash scripts/device-check.sh $B > /dev/null 2>&1
kill $SMI
cp $OUT/dc/bench.json $OUT/bench-ladder.json; cp $OUT/dc/timing-probes.json $OUT/
tar czf $OUT/dc.tgz -C $OUT dc && cp $OUT/dc/summary.txt $OUT/ && rm -rf $OUT/dc
cat $OUT/summary.txt
python3 -c "import json,sys; [print(p['name'], p.get('gpu'), p.get('model')) for p in json.load(open(sys.argv[1]))['probes'] if 'queue' in p['name']]" $OUT/timing-probes.json
