#!/usr/bin/env bash
# Device call 1 (about 8 minutes): every timing probe on the H200 (the H200's machine description
# is measured from these, never from a ladder step), the launch probes twice more (their spread),
# and the card's own figures from nvidia-smi.
#   OUT=/tmp/out bash docs/results/<this folder>/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory,memory.total,power.limit --format=csv;
  nvidia-smi -q | grep -i -E "bus width|memory clock|product name" ; $B/gemmscope --version; $B/gemmscope devices; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > $OUT/smi.csv 2>&1 &
SMI=$!
s=$(date +%s)
timeout 400 $B/gemmscope_timing_probes --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$? $(( $(date +%s) - s )) s" >> $OUT/status.txt
for i in 2 3; do
  timeout 60 $B/gemmscope_timing_probes --only launch --json $OUT/launch$i.json > $OUT/launch$i.log 2>&1
  echo "launch$i rc=$?" >> $OUT/status.txt
done
kill $SMI
cat $OUT/status.txt; cat $OUT/probes.log
