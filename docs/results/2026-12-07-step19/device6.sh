#!/usr/bin/env bash
# #31's sizes with the new kernels (8e25af1): step 19 as it ships (bf16 C), with slab staging and 3 stages
# (bf16 C, the best at 4096^3 and 8192^3 on 2026-12-07), and with f32 C, each beside cuBLAS with the same
# output type in paired rounds after 2 s of load (`bench --reps 20 --sustain 2000`), at the issue's sizes.
# About 2 minutes.
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-step19/device6.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
step19_sizes
grep -h "TFLOP/s (" $OUT/r/s19-*.log | cut -c1-190
tail -2 $OUT/r/status.txt
