#!/bin/bash
# Base and new model benches alternated kernel by kernel, R rounds (default 2): fast mode at the
# large shape, best of 3 each run; prints each kernel's best CPU seconds of each side and
# base / new.
#   BASE=/tmp/base/gemmscope_model_bench NEW=build/devcarry/gemmscope_model_bench \
#     KS="$(build/devcarry/gemmscope list | awk '$1 ~ /^[0-9][0-9]$/ {print $2}')" R=2 \
#     bash docs/results/2026-12-04-model-speed-3/ab.sh
: "${BASE:?}" "${NEW:?}" "${KS:?}"; R=${R:-2}
declare -A b n
for round in $(seq $R); do for k in $KS; do
  for side in base new; do bin=$BASE; [ $side = new ] && bin=$NEW
    t=$("$bin" --kernel $k --shape large --mode fast --repeat 3 2>/dev/null | awk -v k=$k '$1==k && $4=="fast"{print $8}')
    if [ $side = base ]; then [ -z "${b[$k]}" ] || awk "BEGIN{exit !($t < ${b[$k]})}" && b[$k]=$t
    else [ -z "${n[$k]}" ] || awk "BEGIN{exit !($t < ${n[$k]})}" && n[$k]=$t; fi
  done; done; done
for k in $KS; do printf "%-28s %8s %8s  x%s\n" $k ${b[$k]} ${n[$k]} $(awk "BEGIN{printf \"%.2f\", ${b[$k]}/${n[$k]}}"); done
