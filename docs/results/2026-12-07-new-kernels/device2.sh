#!/usr/bin/env bash
# Part 2 of 2 (device1.sh first, on the same warm card; under 9.5 minutes):
#  1. the cp.async GEMM-copy probes (cp_gemm*: step 09's copies in its geometry, at its 4096^3 and
#     8192^3 grids, nine CTAs an SM, and at 8192^3 with four, two and one), timed, then Nsight
#     Compute's DRAM bytes of one launch of each (about 2.5 minutes; build/c1/p.txz holds the probe
#     program built after build/c1/c.txz's);
#  2. #31's sizes: step 19 as it ships (bf16 C), with slab staging and 3 stages, and with f32 C, each
#     beside cuBLAS with the same output type in paired rounds after 2 s of load (`bench --reps 20
#     --sustain 2000`; about 2 minutes);
#  3. the runnable ladder alone under the power limit at 4096x1024x8192 and 2048^3 until 550 s.
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-new-kernels/device2.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
[ -f build/c1/p.txz ] && tar xJf build/c1/p.txz -C $B  # the probe program with the cp_gemm rows
timeout 120 $B/gemmscope_timing_probes --only cp_gemm --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
METRICS="dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg"
for row in 128_k512_lds20_x9:128x128x512_lds20_24k 128_k512_lds0_x9:128x128x512_lds0_24k \
           64_k256_lds20_x9:64x64x256_lds20_24k 128_k512_lds20_x4:128x128x512_lds20_56k \
           128_k512_lds20_x2:128x128x512_lds20_100k 128_k512_lds20_x1:128x128x512_lds20_200k; do
  probe=cp_gemm${row%%:*} kernel=timing_cp_gemm_${row##*:}
  timeout --kill-after=10 45 ncu --metrics "$METRICS" --launch-count 1 -k regex:"^${kernel}\$" \
    $B/gemmscope_timing_probes --only $probe > $OUT/r/ncu-$probe.txt 2>&1
  echo "ncu $probe rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
done
(cd $OUT && tar czf probes.tgz r)
step19_sizes 560
LEFT=$((550 - SECONDS))
[ $LEFT -gt 20 ] && LADDER_ARGS=--no-cublas sustained_ladder "4096x1024x8192 2048" $LEFT $OUT/r/bench-small.json
(cd $OUT && tar czf all.tgz r)
grep -hE "^cp_gemm" $OUT/r/probes.log | cut -c1-70
for f in $OUT/r/ncu-*.txt; do echo "== $(basename $f)"; grep -E "dram__|gpu__time" $f | awk '{print $1, $(NF)}'; done
grep -h "TFLOP/s (" $OUT/r/s19-*.log | cut -c1-190
tail -3 $OUT/r/status.txt
