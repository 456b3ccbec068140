#!/usr/bin/env bash
# Builds build/fastcu/fastcu_harness: fast.cu's matmul.cu (its kernels, run_kernel, randomize_matrix,
# verify_matrix; everything before its main) followed by harness_main.cu (our main). FASTCU: a checkout of
# https://github.com/pranjalssh/fast.cu at 38eb642.
#   FASTCU=/path/to/fast.cu bash docs/results/2026-12-07-fastcu/build.sh
set -e
here="$(cd "$(dirname "$0")" && pwd)"
: "${FASTCU:?set FASTCU to a checkout of pranjalssh/fast.cu at 38eb642}"
mkdir -p build/fastcu
sed '/^int main() {/,$d' "$FASTCU/matmul.cu" > build/fastcu/harness.cu
cat "$here/harness_main.cu" >> build/fastcu/harness.cu
nvcc -std=c++17 -O3 -DNDEBUG -w --expt-relaxed-constexpr --expt-extended-lambda --use_fast_math -Xcompiler=-fPIE \
  -Xcompiler=-Wno-psabi -Xcompiler=-fno-strict-aliasing -gencode arch=compute_90a,code=sm_90a -lineinfo \
  -I"$FASTCU" build/fastcu/harness.cu -o build/fastcu/fastcu_harness -lcublas -lcuda
