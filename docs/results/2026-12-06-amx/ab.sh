#!/bin/bash
# Same-run A/B of two gemmscope_model_bench builds: R rounds, each runs BASE then NEW (--shape large
# --mode fast --repeat 3) on the kernels K; prints each kernel's G MAC/s per build, one per round.
#   BASE=/tmp/oldwt/build/gemmscope_model_bench NEW=build/devcarry/gemmscope_model_bench \
#     K=ampere_mma_global,hopper_tma_store R=3 bash docs/results/2026-12-06-amx/ab.sh
# (ENV_NEW="GEMMSCOPE_MODEL_NO_AMX=1" runs NEW under that environment.)
R=${R:-3}
for r in $(seq "$R"); do
  for b in base new; do
    if [ $b = base ]; then bin=$BASE; envs=X=1; else bin=$NEW; envs=${ENV_NEW:-X=1}; fi
    env $envs "$bin" --shape large --mode fast --repeat 3 --kernel "$K" 2>/dev/null |
      grep -E "^[a-z_0-9]+ +large" | awk -v b=$b '{print b, $1, $(NF-5)}'
  done
done | sort -k2,2 -k1,1 | awk '{k=$2" "$1; a[k]=a[k]" "$3} END{for(k in a) print k, a[k]}' | sort
