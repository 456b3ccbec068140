#!/usr/bin/env bash
# The hopper helper's one device call: probes, bench of steps 11-16 next to cuBLAS, GPU-vs-model
# checks at the edge shapes, and the SASS of each step.
B=build/carry-hopper
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
IDS="hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent hopper_fewer_arrivals"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope devices; } > $OUT/env.txt 2>&1
{ for id in $IDS; do echo "== $id"; cuobjdump --dump-sass $B/$id.cubin > /tmp/$id.sass 2>&1;
  echo "HGMMA $(grep -c HGMMA /tmp/$id.sass) LDL $(grep -c 'LDL' /tmp/$id.sass) STL $(grep -c 'STL' /tmp/$id.sass) SETMAXNREG/USETMAXREG $(grep -c -i 'setmaxreg\|usetmaxreg' /tmp/$id.sass)";
  grep -m3 HGMMA /tmp/$id.sass; done; } > $OUT/sass.txt 2>&1
timeout 40 $B/gemmscope probe warpgroup > $OUT/probe.log 2>&1; echo "probe rc=$?" >> $OUT/probe.log
timeout 150 $B/gemmscope bench $IDS --sizes 2048,4096,8192,4096x1024x8192 --reps 10 --json $OUT/bench.json > $OUT/bench.log 2>&1; echo "bench rc=$?" >> $OUT/bench.log
timeout 100 $B/gemmscope bench ${IDS#hopper_tma_wgmma_64 } --sizes 1000x1000x1000,128x128x4096,8192x8192x64,1000x520x8 --reps 0 --compare-model > $OUT/check.log 2>&1; echo "check rc=$?" >> $OUT/check.log
cat $OUT/sass.txt | grep -v "^ *\/\*"; tail -5 $OUT/probe.log; grep -v "^$" $OUT/bench.log | tail -40; tail -45 $OUT/check.log
