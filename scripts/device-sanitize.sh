#!/usr/bin/env bash
# compute-sanitizer over every runnable step of the ladder, on the GPU machine (< 9.5 minutes).
#
#   OUT=/some/dir scripts/device-sanitize.sh [BUILD_DIR]
#
# BUILD_DIR (default build/device) is built as scripts/device-check.sh says; only
# BUILD_DIR/gemmscope is needed. Each of compute-sanitizer's four tools runs once over
#
#   gemmscope bench all --sizes 256 --reps 1 --warmup 0 --no-cublas --in-process
#
# (--in-process: the launches happen in the process the sanitizer watches, not in a forked
# child), each under a time limit, each logged to $OUT/sanitize-TOOL.log. The summary gives
# each tool's error count, the kernels its reports name, and bench's own verdict per step.
# Exit status: 0 when every tool ran and reported 0 errors, 1 otherwise.
set -u

BUILD_DIR=${1:-build/device}
OUT=${OUT:-./device-out}
TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-540}
SIZE=${SIZE:-256}
mkdir -p "$OUT" || { echo "device-sanitize: cannot create $OUT" >&2; exit 1; }
OUT=$(cd "$OUT" && pwd)
GEMMSCOPE="$BUILD_DIR/gemmscope"
[ -x "$GEMMSCOPE" ] || { echo "device-sanitize: $GEMMSCOPE is missing (see scripts/device-check.sh)" >&2; exit 1; }
if [ -d /usr/local/cuda/lib64 ]; then export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi

SANITIZER=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -z "$SANITIZER" ] && [ -x "$c" ] && SANITIZER=$c
done
[ -n "$SANITIZER" ] || { echo "device-sanitize: compute-sanitizer not found (PATH, /usr/local/cuda)" >&2; exit 1; }

START=$(date +%s)
TOOLS=(memcheck racecheck synccheck initcheck)
status=0
declare -A result
for i in "${!TOOLS[@]}"; do
  tool=${TOOLS[$i]}
  log="$OUT/sanitize-$tool.log"
  # An equal share of what is left for this tool and those after it.
  left=$((TOTAL_BUDGET_S - ($(date +%s) - START) - 10))
  limit=$((left / (${#TOOLS[@]} - i)))
  if [ "$limit" -lt 20 ]; then
    result[$tool]="SKIPPED (out of time)"
    status=1
    continue
  fi
  echo "== $tool (limit ${limit} s)"
  t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$SANITIZER" --tool "$tool" --print-limit 50 \
    "$GEMMSCOPE" bench all --sizes "$SIZE" --reps 1 --warmup 0 --no-cublas --in-process > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - t0 ))
  # memcheck, synccheck, initcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY:
  # N hazards displayed (E errors, W warnings)".
  errors=$(grep -oE "ERROR SUMMARY: [0-9]+ error" "$log" | grep -oE "[0-9]+" | tail -n 1)
  if [ "$tool" = racecheck ]; then
    errors=$(grep -oE "RACECHECK SUMMARY: .*\(([0-9]+) error" "$log" | grep -oE "\(([0-9]+)" | tr -d '(' | tail -n 1)
    [ -z "$errors" ] && grep -q "RACECHECK SUMMARY: 0 hazards" "$log" && errors=0
    [ -z "$errors" ] && errors=$(grep -oE "ERROR SUMMARY: [0-9]+ error" "$log" | grep -oE "[0-9]+" | tail -n 1)
  fi
  case $rc in
    124 | 137) result[$tool]="TIMED OUT after ${took} s (limit ${limit} s); errors so far: ${errors:-?}"; status=1 ;;
    *)
      result[$tool]="${errors:-?} errors (exit $rc, ${took} s)"
      # bench exits 1 when a step fails its check; the sanitizer's verdict is the error count.
      [ "${errors:-1}" = 0 ] || status=1 ;;
  esac
  echo "   -> ${result[$tool]}"
done

{
  echo
  echo "================ compute-sanitizer summary ($(( $(date +%s) - START )) s, size $SIZE) ================"
  "$SANITIZER" --version 2>&1 | tail -n 1
  for tool in "${TOOLS[@]}"; do printf '  %-10s %s\n' "$tool" "${result[$tool]:-not run}"; done
  for tool in "${TOOLS[@]}"; do
    log="$OUT/sanitize-$tool.log"
    [ -f "$log" ] || continue
    echo "--- $tool: kernels named in its reports (count)"
    grep -oE "in (gemm|probe)[A-Za-z0-9_]*|kernel [A-Za-z0-9_]+" "$log" | sort | uniq -c | sort -rn | head -n 20
    grep -E "^========= (Program hit|Invalid|Race|Barrier|Uninitialized)" "$log" | sort | uniq -c | sort -rn | head -n 10
    echo "--- $tool: bench's verdicts"
    sed -n '/^kernel /,$p' "$log" | grep -v "^=========" | head -n 40
    grep -E "^gemmscope:" "$log" | head -n 10
  done
  echo
  echo "logs: $OUT/sanitize-*.log"
} | tee "$OUT/sanitize-summary.txt"
exit $status
