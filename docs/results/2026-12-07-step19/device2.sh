#!/usr/bin/env bash
# #31: where the tensor pipe waits in fast.cu's matmul_12 and in step 19 with matmul_12's choices
# (staging=slab stages=3 order=hilbert, bf16 C) at 8192^3: Nsight Compute's stall samples per SASS
# instruction (SourceCounters), one launch each at the clocks ncu locks; the sources as CSV
# (`ncu -i ... --page source --csv --print-source sass`) -> source.tgz.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-step19/device2.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
F=${F:-build/fastcu/fastcu_harness}
src() {  # name kernel-regex command...
  local name=$1 re=$2; shift 2
  timeout -k 10 120 ncu --section SourceCounters --section WarpStateStats -k regex:"$re" --launch-count 1 \
    -o $OUT/r/$name "$@" > $OUT/r/src-$name.log 2>&1
  echo "ncu source $name rc=$? at $SECONDS s" >> $OUT/r/status.txt
  ncu -i $OUT/r/$name.ncu-rep --page source --csv --print-source sass > $OUT/r/source-$name.csv 2>&1
  echo "source $name rc=$? lines=$(wc -l < $OUT/r/source-$name.csv)" >> $OUT/r/status.txt
  rm -f $OUT/r/$name.ncu-rep
}
src matmul12 matmulKernel12 $F 8192 0 12
src step19 '^hopper' $B/gemmscope bench hopper_stmatrix_epilogue --sizes 8192 --reps 0 --no-cublas \
  --param c_dtype=bf16 --param staging=slab --param stages=3 --param order=2
(cd $OUT && tar czf source.tgz r/source-* r/src-* r/status.txt)
