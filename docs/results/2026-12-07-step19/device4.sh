#!/usr/bin/env bash
# #31/#29: the descriptor change on steps 13-15 (call 3 measured 16-19): old (build/o, 317f5d0) and new
# (build/n, 8e25af1's kernels) in turn, sustained beside cuBLAS at 8192^3 and 4096^3, and step 13's
# cycles at ncu's locked clock; the model gives step 13 4% slower with the change (its PTX has two more
# instructions a descriptor on the consumer's path), the card is the judge.
#   mkdir -p build/o build/n && tar xJf build/c1/c.txz -C build/o && tar xJf build/c2/c.txz -C build/n && OUT=$OUT bash docs/results/2026-12-07-step19/device4.sh
here="$(dirname "$0")"
B=build/n
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
M="sm__cycles_elapsed.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
for v in o n; do
  timeout -k 5 60 ncu --metrics "$M" -k regex:'^hopper' --launch-count 1 build/$v/gemmscope bench hopper_producer_consumer \
    --sizes 8192 --reps 0 --no-cublas > $OUT/r/ncu-step13-$v.txt 2>&1
  echo "ncu step13 $v rc=$? at $SECONDS s" >> $OUT/r/status.txt
done
for size in 8192 4096; do
  for k in hopper_producer_consumer hopper_two_consumers hopper_persistent; do
    for v in o n; do
      timeout -k 5 40 build/$v/gemmscope bench $k --sizes $size --reps 20 --sustain 2000 --json $OUT/r/ab-$k-$size-$v.json \
        > $OUT/r/ab-$k-$size-$v.log 2>&1
      echo "ab $k $size $v rc=$? at $SECONDS s" >> $OUT/r/status.txt
    done
  done
done
(cd $OUT && tar czf r4.tgz r)
grep -h "TFLOP/s (" $OUT/r/ab-*.log | cut -c1-200
for f in $OUT/r/ncu-*.txt; do echo "$(basename $f): $(grep -E 'sm__cycles_elapsed|hmma' $f | awk '{print $NF}' | tr '\n' ' ')"; done
tail -2 $OUT/r/status.txt
