# Sourced by the one-off device calls recorded under docs/results/ (not run by itself): the CUDA
# paths, the carried build (B, default build/devcarry), the results folder ($OUT/r, which the
# call tars at its end) and the card's line in $OUT/r/env.txt.
#   source "$(dirname "$0")/../../../scripts/device-call.sh"
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT/r"
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > "$OUT/r/env.txt" 2>&1
