#!/usr/bin/env bash
# device1.sh and device2.sh in one call (starts were scarce): the twoa clock rows (#29) first, then
# the compare-model rows and the [gpu] tests (#32), each under a shorter limit (about 9 minutes;
# GPU_TESTS=0 leaves the tests out, for a call of under 6 minutes).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-amx/device3.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
{ lscpu | grep -m1 "Model name"; grep -m1 -o -w -E "amx_bf16|avx512_bf16" /proc/cpuinfo | sort -u | tr '\n' ' '; echo; } >> $OUT/r/env.txt
timeout 120 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_matched_gbs sm_clock_under_wgmma_streamed_l2_matched_rep \
  sm_clock_under_wgmma_alone_capped sm_clock_under_wgmma_alone_twoa sm_clock_under_wgmma_streamed_l2_matched_twoa \
  sm_clock_under_wgmma_streamed_hbm_matched_capped sm_clock_under_wgmma_streamed_hbm_matched_gbs \
  sm_clock_under_wgmma_streamed_hbm_matched_twoa \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$? at ${SECONDS}s" >> $OUT/r/status.txt
timeout 180 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$? at ${SECONDS}s" >> $OUT/r/status.txt
if [ "${GPU_TESTS:-1}" != 0 ]; then
  timeout $((555 - SECONDS)) $B/tests/gemmscope_tests "[gpu]" -r console --durations yes > $OUT/r/gpu-tests.txt 2>&1
  echo "gpu-tests rc=$? at ${SECONDS}s" >> $OUT/r/status.txt
fi
cat $OUT/r/env.txt $OUT/r/status.txt
echo "identical rows: $(grep -c 'identical, bit for bit' $OUT/r/compare.log)"
grep "model vs GPU:" $OUT/r/compare.log | grep -v "identical, bit for bit\|race:\|hangs on the GPU too" | head
grep -E "^sm_clock" $OUT/r/probes.log | cut -c1-100
[ -f $OUT/r/gpu-tests.txt ] && tail -4 $OUT/r/gpu-tests.txt
(cd $OUT && tar czf r3.tgz r && rm -rf r)
