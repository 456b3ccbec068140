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

# #29's variants, each alone under the power limit (`bench --reps 20 --sustain 2000 --no-cublas`):
# step 02 with swap-row-col at 4096^3, and step 13's rings of 2 to 6 stages at 4096^3 and 8192^3;
# merged into MERGED, the log in $OUT/r/bench-variants.log.
#   timing_variants $OUT/r/bench-variants.json
timing_variants() {
  local merged=$1 size s
  mkdir -p "$OUT/r/v"
  {
    timeout 60 $B/gemmscope bench simt_coalesced --sizes 4096 --reps 20 --sustain 2000 --no-cublas --break swap-row-col \
      --json "$OUT/r/v/v-swap.json"
    for size in 4096 8192; do
      for s in 2 3 4 5 6; do
        timeout 60 $B/gemmscope bench hopper_producer_consumer --sizes $size --reps 20 --sustain 2000 --no-cublas \
          --param stages=$s --json "$OUT/r/v/v-st$s-$size.json"
      done
    done
  } > "$OUT/r/bench-variants.log" 2>&1
  echo "variants rc=$? at ${SECONDS} s" >> "$OUT/r/status.txt"
  python3 "$(dirname "${BASH_SOURCE[0]}")/merge-bench-json.py" "$merged" "" "$OUT"/r/v/v-*.json
  rm -rf "$OUT/r/v"
}

# #31's sizes: step 19 as it ships (bf16 C), with slab staging and 3 stages (bf16 C), and with f32 C,
# each beside cuBLAS with the same C type in paired rounds after 2 s of load (`bench --reps 20
# --sustain 2000`), into $OUT/r/s19-N.{json,log}, tarred into $OUT/sizes.tgz after each size; none
# started once the call has run END seconds (SECONDS; default: no limit).
#   step19_sizes [END]
step19_sizes() {
  local end=${1:-0} n=0 size v
  for size in 8192 4096 6144 2048 4096x1024x8192 3000x5000x4096; do
    for v in "--param c_dtype=bf16 --param staging=slab --param stages=3" "--param c_dtype=bf16" "--param c_dtype=f32"; do
      n=$((n + 1))
      if [ "$end" -gt 0 ] && [ $SECONDS -ge "$end" ]; then
        echo "step19 $size [$v] not run: out of time" >> "$OUT/r/status.txt"
        continue
      fi
      timeout -k 5 40 $B/gemmscope bench hopper_stmatrix_epilogue $v --sizes $size --reps 20 --sustain 2000 \
        --json "$OUT/r/s19-$n.json" > "$OUT/r/s19-$n.log" 2>&1
      echo "step19 $size [$v] rc=$? at $SECONDS s" >> "$OUT/r/status.txt"
    done
    (cd "$OUT" && tar czf sizes.tgz r)
  done
}
