#!/usr/bin/env bash
# #31, Hopper part 2: step 19 at cuBLAS's tile (bm=256 bn=128: each consumer 128 rows, two
# wgmma.m64n128k16 a k16 step) in pairs side by side sharing A (share=a), beside step 19 as it
# ships (128x256, pairs one above the other sharing B) and cuBLAS, bf16 C, on an H100 or H200.
# Each part is tarred as it ends, so a call cut at its time limit keeps the parts before the cut
# (about 4.5 minutes in all; every command has its own timeout):
#  1. correct on the card: C against the reference at odd edge shapes (264x264x72: a pair's second
#     CTA right of C; 520x136x72: below C; 2304x1024x64 on 64 CTAs: pairs taking a second tile;
#     1000x1000x512), and the GPU's C against the model's bit for bit at the example shape with every
#     mistake (--compare-model), for share=a in pairs and fours and share=b alone (about 60 s) -> check.tgz;
#  2. the tiles beside cuBLAS in paired rounds (sweep --gpu, 20 rounds) at 4096^3, 8192^3, 2048^3:
#     128x256 and 256x128, each with share=b alone and in pairs and share=a in pairs; then 256x128
#     share=a with ctas 128/132 (cuBLAS runs 132) x order grouped/hilbert at 4096^3 and 8192^3
#     (about 150 s) -> sweep.tgz;
#  3. Nsight Compute at 4096^3 on 256x128 share=a and cuBLAS in one bench round (SM cycles at its
#     fixed clock, L2 sectors, HBM bytes: cuBLAS read 10% fewer L2 sectors than the 128x256 tile on
#     2026-12-06), if ncu is installed and time is left (about 50 s) -> ncu.tgz;
#  4. the [step19] GPU tests (the same shapes and more, bit for bit against the model) if time is left.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-tile256/device.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cp $OUT/r/env.txt $OUT/env.txt
pack() { cat $OUT/r/status.txt; (cd $OUT && mv r $1 && tar czf $1.tgz $1 && rm -rf $1); mkdir -p $OUT/r; cp $OUT/env.txt $OUT/r/; }
left() { echo $((270 - SECONDS)); }
K=hopper_stmatrix_epilogue
W="--param bm=256 --param bn=128"

# 1. correctness
for v in "share=a cluster=2 compare" "share=a cluster=4" "share=b cluster=1 compare"; do
  set -- $v
  cm=""; [ "$3" = compare ] && cm=--compare-model
  name="$1-$2"
  timeout -k 10 60 $B/gemmscope bench $K $W --param $1 --param $2 --param ctas=64 --reps 0 $cm \
    --sizes 264x264x72,520x136x72,2304x1024x64,1000x1000x512 --json $OUT/r/check-$name.json > $OUT/r/check-$name.log 2>&1
  echo "check $name rc=$?" >> $OUT/r/status.txt
done
grep -h "model vs GPU:\|wrong\|FAIL\|hang\|fault" $OUT/r/check-*.log | head -20
pack check

# 2. timing beside cuBLAS (sweep: each combination with cuBLAS in 20 paired rounds; Ctrl-C keeps what finished)
sweep() {  # name, seconds, sizes, params...
  local name=$1 t=$2 sizes=$3; shift 3
  [ $(left) -gt 20 ] || { echo "sweep $name not run: out of time" >> $OUT/r/status.txt; return; }
  [ $t -lt $(left) ] || t=$(left)
  timeout -s INT -k 15 $t $B/gemmscope sweep $K "$@" --gpu --reps 20 --sizes $sizes \
    --json $OUT/r/sweep-$name.json --csv $OUT/r/sweep-$name.csv > $OUT/r/sweep-$name.log 2>&1
  echo "sweep $name rc=$?" >> $OUT/r/status.txt
}
for size in 4096 8192 2048; do
  sweep 128x256-$size 40 $size --param bm=128 --param bn=256 --param share=0,1 --param cluster=1,2
  sweep 256x128-$size 40 $size --param bm=256 --param bn=128 --param share=0,1 --param cluster=1,2
done
sweep 256x128-a-ctas-order 60 4096,8192 $W --param share=1 --param cluster=2 --param ctas=128,132 --param order=1,2
for f in $OUT/r/sweep-*.log; do echo "== $f"; grep -v "^\[\|cannot be built" $f | head -14; done
pack sweep

# 3. Nsight Compute: our 256x128 pairs sharing A and cuBLAS's kernel at one clock
if command -v ncu > /dev/null && [ $(left) -gt 60 ]; then
  M=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum,dram__bytes.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum
  timeout -k 10 $(( $(left) < 100 ? $(left) : 100 )) ncu --metrics "$M" --launch-count 12 $B/gemmscope bench $K --sizes 4096 \
    --reps 1 $W --param share=a > $OUT/r/ncu-256x128-a-cublas.txt 2>&1
  echo "ncu rc=$?" >> $OUT/r/status.txt
  grep -E "^  [A-Za-z_]|gpu__time|cycles_elapsed|lts__t|dram__|wavefronts|inst_executed" $OUT/r/ncu-256x128-a-cublas.txt | cut -c1-150 | head -60
else
  echo "ncu not run: $(command -v ncu > /dev/null && echo out of time || echo no ncu)" >> $OUT/r/status.txt
fi
pack ncu

# 4. the [step19] GPU tests, bit for bit against the model, with what time is left
if [ -x $B/tests/gemmscope_tests ] && [ $(left) -gt 30 ]; then
  timeout -k 5 $(left) $B/tests/gemmscope_tests "[step19]" > $OUT/r/tests-step19.log 2>&1
  echo "tests [step19] rc=$?" >> $OUT/r/status.txt
  tail -3 $OUT/r/tests-step19.log
else
  echo "tests [step19] not run: $([ -x $B/tests/gemmscope_tests ] && echo out of time || echo no test binary)" >> $OUT/r/status.txt
fi
pack tests
rm -rf $OUT/r
echo "took ${SECONDS}s"
