#!/usr/bin/env bash
# #29 against the new kernels (8e25af1, the consumers' descriptors): steps 13-19 alone under the power
# limit (`bench --reps 50 --sustain 2000 --no-cublas`, as device3.sh of ../2026-12-07-clock runs the
# ladder) at 4096^3 and 8192^3, merged into r/bench-hopper.json for scripts/timing-validate.py.
#   mkdir -p build/n && tar xJf build/c2/c.txz -C build/n && OUT=$OUT B=build/n bash docs/results/2026-12-07-step19/device5.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
mkdir -p $OUT/r/v
for size in 4096 8192; do
  for k in hopper_stmatrix_epilogue hopper_tma_store hopper_cluster_multicast hopper_fewer_arrivals hopper_persistent \
           hopper_two_consumers hopper_producer_consumer; do
    timeout 40 $B/gemmscope bench $k --sizes $size --reps 50 --sustain 2000 --no-cublas --json $OUT/r/v/$size-$k.json \
      >> $OUT/r/bench.log 2>&1
    echo "$k $size rc=$? at $SECONDS s" >> $OUT/r/status.txt
  done
done
python3 "$here/../../../scripts/merge-bench-json.py" $OUT/r/bench-hopper.json \
  "$($B/gemmscope list | awk '$1 ~ /^[0-9][0-9]$/ {print $2}')" $OUT/r/v/*.json
rm -rf $OUT/r/v
grep -h "TFLOP/s" $OUT/r/bench.log | grep "^\[" | cut -c1-160
tail -2 $OUT/r/status.txt
