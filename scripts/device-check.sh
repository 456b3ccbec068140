#!/usr/bin/env bash
# The GPU check: everything gemmscope can only confirm on a real GPU, in one run (< 9.5 minutes).
#
#   OUT=/some/dir [PART=correct|speed|all] scripts/device-check.sh [BUILD_DIR]
#
# The whole check takes about 16 minutes on an H200 and a device call here may take 10, so it runs
# as two parts, each under TOTAL_BUDGET_S: PART=correct (devices, [gpu] tests, ISA probes, ncu) and
# PART=speed (devices, bench, the timing probes against the card's machine description, the
# mma.sync peak). PART=all (the default) runs every step in one go, for a machine without that limit.
#
# Run it from the repository root on the GPU machine. It builds nothing: BUILD_DIR (default
# build/device) is a build made on the development machine and carried along, e.g.
#
#   cmake -S . -B build/device -G Ninja -DGEMMSCOPE_GUI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
#         "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG"
#   ninja -C build/device gemmscope gemmscope_tests gemmscope_mma_peak gemmscope_timing_probes gemmscope_open_bench
#
# (no -g: the two programs are ~4 and ~7 MB instead of ~170 MB; -O2, not Release's -O3, which
# makes GCC 12 print a false -Wrestrict warning). Needed: BUILD_DIR/gemmscope and
# BUILD_DIR/tests/gemmscope_tests (or BUILD_DIR/gemmscope_tests); gemmscope_timing_probes and
# gemmscope_mma_peak are run where the build has them. They
# need glibc >= 2.34 and the libstdc++ of GCC >= 12; libcuda is opened at run time, and
# cuBLASLt as libcublasLt.so.13 from the library path or /usr/local/cuda/lib64.
#
# Steps, each under a time limit, each logged to $OUT (default ./device-out):
#   1. devices     gemmscope devices                                 devices.log
#   2. gpu-tests   gemmscope_tests "[gpu]" (Catch2 console reporter)  gpu-tests.txt
#   3. probes      gemmscope probe all                               probes.log
#   4. bench       gemmscope bench all --sizes 4096,8192 --reps 20 --compare-model
#                  --json $OUT/bench.json                             bench.log, bench.json
#   5. ncu         scripts/ncu-bank-conflicts.sh (and unswizzled-ldmatrix) ncu.log, ncu/
#   6. mma-peak    gemmscope_mma_peak --json $OUT/mma-peak.json        mma-peak.log, mma-peak.json
#                  (the mma.sync ceiling of the Ampere steps; skipped when BUILD_DIR has no
#                  gemmscope_mma_peak)
#   7. timing-probes  gemmscope_timing_probes --json $OUT/timing-probes.json   timing-probes.log
#                  (the microbenchmarks behind the machine description, each beside the model's
#                  figure, then every described figure beside the probe that measured it today)
# PART=correct runs 1, 2, 3 and 5; PART=speed runs 1, 4, 7 and 6.
# then a summary: each step's status and time, and the lines that matter from each log.
# Exit status: 0 when every step passed, 1 otherwise (the summary says which).
set -u

BUILD_DIR=${1:-build/device}
PART=${PART:-all}
case $PART in
  all | correct | speed) ;;
  *) echo "device-check: PART=$PART is not a part: all, correct or speed" >&2; exit 2 ;;
esac
# Step limits add up to this: a part stays under 9.5 minutes (a device call: 10); all of it takes ~16.
if [ "$PART" = all ]; then TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-1030}; else TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-570}; fi
# in_part correct|speed: whether this run does that part's steps.
in_part() { [ "$PART" = all ] || [ "$PART" = "$1" ]; }
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-./device-out}
mkdir -p "$OUT" || { echo "device-check: cannot create $OUT" >&2; exit 1; }
OUT=$(cd "$OUT" && pwd)

GEMMSCOPE="$BUILD_DIR/gemmscope"
TESTS="$BUILD_DIR/tests/gemmscope_tests"
[ -x "$TESTS" ] || TESTS="$BUILD_DIR/gemmscope_tests"
if [ ! -x "$GEMMSCOPE" ]; then
  echo "device-check: $GEMMSCOPE is missing: build it on the development machine and carry it (see the header)" >&2
  exit 1
fi
if [ -d /usr/local/cuda/lib64 ]; then export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi

START=$(date +%s)
names=()
results=()

# run_step NAME MAX_SECONDS RESERVE_SECONDS LOG COMMAND...: runs COMMAND with its output in LOG,
# under min(MAX_SECONDS, time left - RESERVE_SECONDS); RESERVE keeps time for the later steps.
run_step() {
  local name=$1 max=$2 reserve=$3 log=$4
  shift 4
  local now left limit t0 rc
  now=$(date +%s)
  left=$((TOTAL_BUDGET_S - (now - START) - reserve))
  limit=$max
  [ "$left" -lt "$limit" ] && limit=$left
  names+=("$name")
  if [ "$limit" -lt 10 ]; then
    results+=("SKIPPED (out of time)")
    echo "== $name: skipped, out of time"
    return
  fi
  echo "== $name (limit ${limit} s): $*"
  t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" > "$log" 2>&1
  rc=$?
  local took=$(( $(date +%s) - t0 ))
  case $rc in
    0) results+=("ok (${took} s)") ;;
    124 | 137) results+=("TIMED OUT after ${took} s (limit ${limit} s)") ;;
    3) results+=("NO GPU (exit 3, ${took} s)") ;;
    *) results+=("FAILED (exit $rc, ${took} s)") ;;
  esac
  echo "   -> ${results[-1]}"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -a)"
  command -v nvidia-smi > /dev/null && timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,persistence_mode --format=csv
  command -v nvcc > /dev/null && nvcc --version | tail -n 2
  command -v ncu > /dev/null && ncu --version | tail -n 1
  echo "gemmscope: $GEMMSCOPE ($("$GEMMSCOPE" --version 2>&1))"
  echo "tests: $TESTS"
  ldd "$GEMMSCOPE" 2>&1 | grep -E "not found|GLIBC" || true
} > "$OUT/environment.txt" 2>&1

# Each step's reserve keeps time for the later steps of the same run (the parts' reserves are
# those of their own later steps; PART=all takes the sum, as before the split).
run_step devices 60 "$(in_part correct && echo 330 || echo 350)" "$OUT/devices.log" "$GEMMSCOPE" devices
if in_part correct; then
  if [ -x "$TESTS" ]; then
    # [gpu] took 200 s for 21 of its 24 cases on the H200 (2026-12-01; "the model computes the GPU's bytes"
    # alone 93 s), so 250.
    run_step gpu-tests 250 180 "$OUT/gpu-tests.log" "$TESTS" "[gpu]" -r console -o "$OUT/gpu-tests.txt" --durations yes
  else
    names+=("gpu-tests"); results+=("MISSING: $TESTS not found")
  fi
  run_step probes 90 "$(in_part speed && echo 280 || echo 150)" "$OUT/probes.log" "$GEMMSCOPE" probe all
  run_step ncu 150 "$(in_part speed && echo 180 || echo 0)" "$OUT/ncu.log" env NCU_TIMEOUT=60 \
    MISTAKES="ampere_ldmatrix:unswizzled-ldmatrix" bash "$SCRIPT_DIR/ncu-bank-conflicts.sh" "$GEMMSCOPE" "$OUT/ncu"
fi
if in_part speed; then
  run_step bench 330 180 "$OUT/bench.log" "$GEMMSCOPE" bench all --sizes 4096,8192 --reps 20 --compare-model \
    --json "$OUT/bench.json"
  # The timing probes took 92 s on the H200 (2026-12-01), and the clock rows that hold the card at
  # its power limit for 2 s each (2026-12-02) add about 25 s.
  if [ -x "$BUILD_DIR/gemmscope_timing_probes" ]; then
    run_step timing-probes 150 30 "$OUT/timing-probes.log" "$BUILD_DIR/gemmscope_timing_probes" \
      --json "$OUT/timing-probes.json"
  else
    names+=("timing-probes"); results+=("MISSING: $BUILD_DIR/gemmscope_timing_probes not found")
  fi
  if [ -x "$BUILD_DIR/gemmscope_mma_peak" ]; then
    run_step mma-peak 30 0 "$OUT/mma-peak.log" "$BUILD_DIR/gemmscope_mma_peak" --json "$OUT/mma-peak.json"
  else
    names+=("mma-peak"); results+=("MISSING: $BUILD_DIR/gemmscope_mma_peak not found")
  fi
fi

# --- summary ---------------------------------------------------------------------------------
{
  echo
  echo "================ device check summary, PART=$PART ($(( $(date +%s) - START )) s) ================"
  head -n 2 "$OUT/environment.txt" | tail -n 1
  for i in "${!names[@]}"; do printf '  %-10s %s\n' "${names[$i]}" "${results[$i]}"; done
  echo
  echo "--- devices"
  head -n 4 "$OUT/devices.log" 2> /dev/null
  echo "--- gpu tests (full report: gpu-tests.txt)"
  grep -E "^(All tests passed|test cases:|assertions:)" "$OUT/gpu-tests.txt" 2> /dev/null
  grep -B2 -A12 -E "FAILED:" "$OUT/gpu-tests.txt" 2> /dev/null | head -n 60
  grep -h -A3 "warning:" "$OUT/gpu-tests.txt" 2> /dev/null | grep -E "skipped|reported as" | sort | uniq -c | sort -rn | head -n 10
  echo "--- probes"
  grep -E "^(PASS|FAIL|SKIP)|probes passed|gemmscope:" "$OUT/probes.log" 2> /dev/null
  echo "--- bench (JSON: bench.json)"
  sed -n '/^kernel /,$p' "$OUT/bench.log" 2> /dev/null
  grep -E "^gemmscope:" "$OUT/bench.log" 2> /dev/null
  echo "--- ncu bank conflicts"
  sed -n '/^shared-memory bank conflicts/,$p' "$OUT/ncu.log" 2> /dev/null
  echo "--- timing probes against the machine description (full table: timing-probes.log)"
  sed -n '/description against this run/,$p' "$OUT/timing-probes.log" 2> /dev/null | grep -E "description|^figure|differs"
  echo "--- mma.sync peak"
  tail -n 1 "$OUT/mma-peak.log" 2> /dev/null
  echo
  echo "logs: $OUT"
} | tee "$OUT/summary.txt"

for r in "${results[@]}"; do
  case $r in ok*) ;; *) exit 1 ;; esac
done
exit 0
