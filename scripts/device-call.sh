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

# The runnable ladder under the power limit: every step that is not sm_100a, the tensor-core steps
# first, at each of SIZES, `bench --reps 50 --sustain 2000`, until BUDGET_S seconds have passed;
# merged in ladder order into MERGED (a bench JSON for scripts/timing-validate.py). LADDER_ARGS adds
# bench options (e.g. --no-cublas: each kernel sustained alone, not in turn with cuBLAS).
#   sustained_ladder "4096 8192" 270 $OUT/r/bench-sustained.json
sustained_ladder() {
  local sizes=$1 end=$((SECONDS + $2)) merged=$3 size k
  mkdir -p "$OUT/r/v"
  for size in $sizes; do
    for k in $($B/gemmscope list | awk '$1 ~ /^[0-9][0-9]$/ && $3 != "sm_100a" {print $2}' | tac); do
      [ $SECONDS -lt $end ] || { echo "$k $size not run: out of time" >> "$OUT/r/status.txt"; continue; }
      timeout 60 $B/gemmscope bench $k --sizes $size --reps 50 --sustain 2000 ${LADDER_ARGS:-} --json "$OUT/r/v/$size-$k.json" \
        >> "$OUT/r/bench.log" 2>&1
      echo "$k $size rc=$?" >> "$OUT/r/status.txt"
    done
  done
  python3 "$(dirname "${BASH_SOURCE[0]}")/merge-bench-json.py" "$merged" \
    "$($B/gemmscope list | awk '$1 ~ /^[0-9][0-9]$/ {print $2}')" "$OUT"/r/v/*.json
  rm -rf "$OUT/r/v"
}
