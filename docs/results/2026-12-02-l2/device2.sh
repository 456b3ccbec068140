#!/usr/bin/env bash
# Device call 2 (about 5 minutes):
#  1. the [gpu] tests of bench's counted SM clock and of the timing run it extends;
#  2. bench of steps 11, 12, 16 and 19 at 4096^3 and 8192^3 with the counted clock (the clock the SMs
#     held, beside NVML's reported one), against cuBLAS in the same run;
#  3. Nsight Compute's HBM bytes of step 16 in each tile order (row, grouped, Hilbert) at 4096^3 and
#     8192^3, against the timing model's hbm_read_bytes (the Schedule view's table).
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-l2/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
timeout 150 $B/gemmscope_tests '\[gpu\] runner: bench counts the SM clock the card held under a long GEMM\, and can skip it' \
  '\[gpu\] runner: timing gives reps\, a stable C and a cuBLAS baseline' > $OUT/gpu-tests.txt 2>&1
echo "gpu-tests rc=$?" >> $OUT/status.txt
timeout 200 $B/gemmscope bench hopper_tma_wgmma_64 hopper_tile_128 hopper_fewer_arrivals hopper_stmatrix_epilogue \
  --sizes 4096,8192 --reps 20 --json $OUT/bench-clock.json > $OUT/bench-clock.log 2>&1
echo "bench rc=$?" >> $OUT/status.txt
for size in 4096 8192; do for order in 0 1 2; do
  timeout --kill-after=10 60 ncu --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,gpc__cycles_elapsed.max \
    --launch-count 1 -k regex:'^hopper_fewer_arrivals' $B/gemmscope bench hopper_fewer_arrivals --sizes $size \
    --param order=$order --reps 0 > $OUT/ncu/step16-$size-order$order.txt 2>&1
  echo "ncu step16 $size order=$order rc=$? $(grep -E 'dram__bytes_read.sum' $OUT/ncu/step16-$size-order$order.txt | awk '{print $(NF-1), $NF}')" >> $OUT/status.txt
done; done
cat $OUT/status.txt
tail -5 $OUT/gpu-tests.txt
python3 -c "
import json,sys
for r in json.load(open(sys.argv[1]))['results']:
    c=r.get('conditions') or {}; t=r.get('tflops') or {}; s=r.get('shape') or {}
    print(r.get('kernel'), s.get('m'), t.get('median') if isinstance(t,dict) else t, round(r.get('ratio_vs_cublas') or 0,3),
          'counted', r.get('sm_clock_counted_mhz'), 'nvml', (c.get('sm_clock_reported_mhz') or {}).get('median'), r.get('counted_clock_note','')[:60])
" $OUT/bench-clock.json
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
