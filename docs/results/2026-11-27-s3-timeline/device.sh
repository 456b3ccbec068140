#!/usr/bin/env bash
# Device call of the third timeline session of 2026-11-27 (branch timeline-rest): does the
# timeline cost step 13 at most 3% now that its consumers make their wgmma descriptors before the
# full wait (kernels/hopper_parts.cpp: ring_descriptors, consume_k_block)? Run from the
# repository root on the H100 with the GUI-off build carried in build/devcarry
# (scripts/device-check.sh says how to build it), OUT set by the caller:
#
#   bash docs/results/2026-11-27-s3-timeline/device.sh        # about 3 minutes
#
# 1. overhead: steps 12-16 at 8192^3, 50 timed launches of the plain and of the instrumented
#    kernel each (the default events, CTA 0 records), C compared byte for byte; step 13 three
#    times (its spread was 8-11% in three runs before). overhead.log, the recordings (they now
#    store their build parameters) in timelines.tgz.
# 2. SASS of step 13 at 8192^3, plain and instrumented: the PTX (`gemmscope ptx [--timeline]`),
#    ptxas -v -lineinfo's cubin, `cuobjdump -sass` of it (and nvdisasm -g when there is one),
#    and `gemmscope sass [--timeline]` (each SASS instruction under its PTX line). sass/.
B=${B:-build/devcarry}
OUT=${OUT:?set OUT to the folder the results go to}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p $OUT/timelines $OUT/sass
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1

run_overhead() {  # ID LABEL
  timeout 120 $B/gemmscope bench $1 --sizes 8192 --reps 50 --timeline $OUT/timelines/$2.timeline.json \
    --timeline-capacity 65536 >> $OUT/overhead.log 2>&1
  echo "timeline $2 rc=$?" >> $OUT/status.txt
}
run_overhead hopper_tile_128 hopper_tile_128
for run in 1 2 3; do run_overhead hopper_producer_consumer hopper_producer_consumer.run$run; done
run_overhead hopper_two_consumers hopper_two_consumers
run_overhead hopper_persistent hopper_persistent
run_overhead hopper_fewer_arrivals hopper_fewer_arrivals
rm -f $OUT/timelines/*.trace.json
tar czf $OUT/timelines.tgz -C $OUT timelines && rm -rf $OUT/timelines

for variant in plain timeline; do
  flag=; [ $variant = timeline ] && flag=--timeline
  base=$OUT/sass/step13.$variant
  $B/gemmscope ptx hopper_producer_consumer --m 8192 --n 8192 --k 8192 $flag -o $base.ptx 2>> $OUT/sass/log.txt
  ptxas -arch=sm_90a -v -lineinfo $base.ptx -o $base.cubin > $base.ptxas.log 2>&1; echo "ptxas $variant rc=$?" >> $OUT/status.txt
  cuobjdump -sass $base.cubin > $base.cuobjdump.sass 2>&1; echo "cuobjdump $variant rc=$?" >> $OUT/status.txt
  if command -v nvdisasm > /dev/null; then nvdisasm -g -c $base.cubin > $base.nvdisasm.sass 2>&1; fi
  $B/gemmscope sass hopper_producer_consumer --m 8192 --n 8192 --k 8192 $flag > $base.linked.txt 2>> $OUT/sass/log.txt
  echo "gemmscope sass $variant rc=$?" >> $OUT/status.txt
done

cat $OUT/status.txt
grep -E "TFLOP/s|timeline [-+]|C identical|DIFFER|lost" $OUT/overhead.log | cut -c1-220
grep -h "registers" $OUT/sass/*.ptxas.log
