#!/usr/bin/env bash
# Device call 3 (issue 29, about 4 minutes): does the ring probe without tensor cores (one warp's FFMA
# chain as the math, the whole 8192^3 grid of 4096 CTAs) read more from HBM behind a deeper ring
# at the card's own clock? The HBM bytes of 2026-12-04-handoff (4.09 GB at every depth) were under
# Nsight Compute's locked clock, where step 13 itself read 6.76 GB at 4 stages against 4.56 at its
# own (call 1). Plain rows at pace 20 and 28, C-tile rows at pace 20; 3, 4 and 6 stages.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-grid/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ncu
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second"
for form in "20:" "28:" "20:_ctile"; do
  pace=${form%%:*}; f=${form#*:}
  for s in 3 4 6; do
    timeout --kill-after=10 100 ncu --clock-control none --metrics "$METRICS" --launch-count 1 \
      -k regex:"^timing_tma_gemm_ring_64x64x120_s${s}_pace${pace}${f}\$" \
      $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid${f}_s${s}_pace${pace}_period \
      > $OUT/r/ncu/grid${f}-pace$pace-s$s.txt 2>&1
    echo "ncu grid$f pace $pace stages=$s rc=$?" >> $OUT/r/status.txt
  done
done
cat $OUT/r/env.txt $OUT/r/status.txt
for f in $OUT/r/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time|per_second" $f | head -4; \
  grep -E "^tma_gemm_ring" $f | cut -c1-60; done
(cd $OUT && tar czf g3.tgz r && rm -rf r)
