#!/bin/bash
# ab.sh (docs/results/2026-12-04-model-speed-3) with the benches' JSON seconds (full precision
# where ab.sh's table has four digits): base and new alternated kernel by kernel, R rounds, best of
# 3 each run; prints each side's best and median and their ratios.
#   BASE=/tmp/base/gemmscope_model_bench NEW=build/rel/gemmscope_model_bench \
#     KS="ampere_mma_global ampere_cp_async ampere_ldmatrix" R=15 bash ab2.sh
: "${BASE:?}" "${NEW:?}" "${KS:?}"; R=${R:-2}
dir=$(mktemp -d)
for round in $(seq $R); do for k in $KS; do
  for side in b n; do bin=$BASE; [ $side = n ] && bin=$NEW
    "$bin" --kernel $k --shape large --mode fast --repeat 3 2>/dev/null | grep '^{' |
      sed 's/.*"seconds":\([0-9.e-]*\).*/\1/' >> "$dir/$k.$side"
  done; done; done
for k in $KS; do
  python3 - "$dir" "$k" <<'PY'
import sys, statistics as st
d, k = sys.argv[1], sys.argv[2]
b = [float(x) for x in open(f'{d}/{k}.b')]; n = [float(x) for x in open(f'{d}/{k}.n')]
print(f"{k:28s} base {min(b):.5f} (med {st.median(b):.5f})  new {min(n):.5f} (med {st.median(n):.5f})"
      f"  best x{min(b)/min(n):.3f}  med x{st.median(b)/st.median(n):.3f}")
PY
done
rm -r "$dir"
