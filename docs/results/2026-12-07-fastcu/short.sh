#!/usr/bin/env bash
# One short call for the three open issues (about 5 minutes), each part tarred as it ends:
#  0. #29: the wgmma-paced ring in CTA pairs (probes tma_gemm_ring8192_split_wgmma_pair_*) -> pairs.tgz;
#  1. #32: every kernel and mistake on the GPU and the model at the example shape, C bit for bit
#     (`bench all --sizes example --reps 0 --compare-model`, about 70 s) -> compare.tgz;
#  2. #29: step 13's ring depths 2..6 at 4096^3, each alone under the power limit
#     (../2026-12-07-clock/device4.sh's loop, about 45 s) -> rings.tgz;
#  3. #31: fast.cu's kernels and our steps 17-19 in one call (device.sh here, about 2.5 min) -> fastcu.tgz.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-fastcu/short.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
# 0. #29: the wgmma-paced ring's first wave alone and in CTA pairs (alone, coupled, multicast), twice (about 30 s).
for i in 1 2; do
  timeout 60 $B/gemmscope_timing_probes --only tma_gemm_ring8192_split_wgmma_s3 tma_gemm_ring8192_split_wgmma_s4 \
    tma_gemm_ring8192_split_wgmma_pair --json $OUT/r/pairs-$i.json > $OUT/r/pairs-$i.log 2>&1
  echo "pairs $i rc=$? at $SECONDS s" >> $OUT/r/status.txt
done
(cd $OUT && tar czf pairs.tgz r/pairs-* r/env.txt r/status.txt)
timeout 150 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$? at $SECONDS s" >> $OUT/r/status.txt
(cd $OUT && tar czf compare.tgz r/compare.* r/env.txt r/status.txt)
mkdir -p $OUT/r/v
for s in 4 2 3 5 6; do
  timeout 40 $B/gemmscope bench hopper_producer_consumer --sizes 4096 --reps 20 --sustain 2000 --no-cublas \
    --param stages=$s --json $OUT/r/v/v-st$s.json >> $OUT/r/bench-rings.log 2>&1
  echo "stages $s rc=$? at $SECONDS s" >> $OUT/r/status.txt
done
python3 "$here/../../../scripts/merge-bench-json.py" $OUT/r/bench-rings.json "" $OUT/r/v/v-st*.json
rm -rf $OUT/r/v
(cd $OUT && tar czf rings.tgz r/bench-rings.* r/env.txt r/status.txt)
bash "$here/device.sh"
tail -12 $OUT/r/status.txt
