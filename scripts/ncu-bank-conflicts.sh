#!/usr/bin/env bash
# Shared-memory bank conflicts: Nsight Compute on the GPU against the CPU model.
#
#   scripts/ncu-bank-conflicts.sh [GEMMSCOPE] [OUT_DIR]
#
# GEMMSCOPE: the gemmscope binary (default: $GEMMSCOPE, else build/device/gemmscope, else
# `gemmscope` on PATH). OUT_DIR: where the logs go (default: $OUT/ncu, else ./ncu-out).
#
# For every kernel of `gemmscope list` (or those named in $KERNELS, space-separated), and for
# each ID:MISTAKE named in $MISTAKES (space-separated), at the example shape:
#  * ncu profiles one launch of the kernel (gemmscope bench ID --sizes example --reps 0
#    --no-cublas --in-process: one checked launch, no timing, no cuBLAS, no forked child so the
#    profiler follows a plain process) and reads
#      l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
#      l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
#  * the model runs the same kernel at the same shape (gemmscope sim ID --json) and reports
#    smem.bank_conflicts: wavefronts beyond the ideal, loads and stores together, whole grid.
# Then one table. The model counts ld/st.shared (and ldmatrix/stmatrix) wavefronts; ncu's LSU
# counters see the same instructions, while wgmma and TMA traffic goes through other pipes and
# is in neither number.
#
# Degrades gracefully: without ncu, or without permission to read the GPU's performance
# counters (ERR_NVGPUCTRPERM), it says so, prints the model's column alone and exits 0.
# Exit status: 0 (also when ncu is unusable), 1 when a gemmscope command fails.
set -u

GEMMSCOPE=${1:-${GEMMSCOPE:-}}
if [ -z "$GEMMSCOPE" ]; then
  if [ -x build/device/gemmscope ]; then GEMMSCOPE=build/device/gemmscope; else GEMMSCOPE=$(command -v gemmscope || true); fi
fi
if [ -z "$GEMMSCOPE" ] || [ ! -x "$GEMMSCOPE" ]; then
  echo "ncu-bank-conflicts: no gemmscope binary (give its path as the first argument)" >&2
  exit 1
fi
OUT_DIR=${2:-${OUT:+$OUT/ncu}}
OUT_DIR=${OUT_DIR:-./ncu-out}
mkdir -p "$OUT_DIR"
NCU_TIMEOUT=${NCU_TIMEOUT:-120}

LD_METRIC=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
ST_METRIC=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum

NCU=${NCU:-$(command -v ncu || true)}
if [ -z "$NCU" ] && [ -x /usr/local/cuda/bin/ncu ]; then NCU=/usr/local/cuda/bin/ncu; fi
ncu_state=ok
ncu_note=""
if [ -z "$NCU" ]; then
  ncu_state=missing
  ncu_note="ncu not found (install Nsight Compute or put it on PATH): the ncu columns are n/a"
fi

# The value of one metric in ncu's details output: the last field of the line naming it,
# thousands separators removed. Empty when absent.
metric_value() {
  awk -v m="$1" '$1 == m { v = $NF } END { gsub(",", "", v); print v }' "$2"
}

status=0
rows=()

# profile ID [MISTAKE]: one row of the table, the kernel as written or with one mistake on.
profile() {
  local id=$1 mistake=${2:-}
  local tag=$id break_args=()
  if [ -n "$mistake" ]; then tag="$id+$mistake"; break_args=(--break "$mistake"); fi
  local sim_log="$OUT_DIR/sim_$tag.json"
  local model="n/a" shape="example"
  if "$GEMMSCOPE" sim "$id" "${break_args[@]}" --json > "$sim_log" 2> "$OUT_DIR/sim_$tag.err"; then :; fi
  # Wrong output or hazards exit 1 but still print the counts; only a missing report is an error.
  if grep -q '"bank_conflicts"' "$sim_log"; then
    model=$(sed -n 's/.*"bank_conflicts": *\([0-9][0-9]*\).*/\1/p' "$sim_log" | head -n 1)
    shape=$(tr -d ' \n' < "$sim_log" | sed -n 's/.*"shape":{"k":\([0-9]*\),"m":\([0-9]*\),"n":\([0-9]*\)}.*/\2x\3x\1/p')
    shape=${shape:-example}
  else
    echo "ncu-bank-conflicts: gemmscope sim $id ${break_args[*]} gave no report: $(head -c 300 "$OUT_DIR/sim_$tag.err")" >&2
    status=1
  fi

  local ld="n/a" st="n/a" total="n/a" verdict="-"
  if [ "$ncu_state" = ok ]; then
    local ncu_log="$OUT_DIR/ncu_$tag.log"
    timeout --kill-after=10 "$NCU_TIMEOUT" "$NCU" --metrics "$LD_METRIC,$ST_METRIC" --launch-count 1 \
      "$GEMMSCOPE" bench "$id" "${break_args[@]}" --sizes example --reps 0 --no-cublas --in-process --kernel-timeout 300 \
      > "$ncu_log" 2>&1
    local rc=$?
    if grep -q "ERR_NVGPUCTRPERM" "$ncu_log"; then
      ncu_state=denied
      ncu_note="ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM): run as root or load the driver with NVreg_RestrictProfilingToAdminUsers=0"
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
      verdict="ncu timed out after ${NCU_TIMEOUT} s"
    else
      ld=$(metric_value "$LD_METRIC" "$ncu_log")
      st=$(metric_value "$ST_METRIC" "$ncu_log")
      if [ -n "$ld" ] && [ -n "$st" ]; then
        total=$(awk -v a="$ld" -v b="$st" 'BEGIN { printf "%.0f", a + b }')
        if [ "$model" = "n/a" ]; then verdict="no model count"
        elif [ "$total" = "$model" ]; then verdict="match"
        else verdict="DIFFER"
        fi
      else
        ld="n/a"; st="n/a"
        verdict="no metrics in ncu's output (rc $rc): see $ncu_log"
      fi
    fi
  fi
  rows+=("$(printf '%-40s %-14s %14s %12s %12s %12s  %s' "$tag" "$shape" "$model" "$ld" "$st" "$total" "$verdict")")
}

KERNELS=${KERNELS:-$("$GEMMSCOPE" list | awk 'NR > 1 && $1 ~ /^[0-9]+$/ && $3 != "sm_100a" { print $2 }')}
for id in $KERNELS; do profile "$id"; done
# MISTAKES="ID:MISTAKE ..." adds rows for kernels with a deliberate mistake on (one that
# neither hangs nor faults: ncu profiles one launch of it).
for pair in ${MISTAKES:-}; do profile "${pair%%:*}" "${pair#*:}"; done

echo "shared-memory bank conflicts, whole grid, example shapes (model vs ncu):"
printf '%-40s %-14s %14s %12s %12s %12s  %s\n' kernel shape model ncu_ld ncu_st ncu_total verdict
for row in "${rows[@]}"; do echo "$row"; done
[ -n "$ncu_note" ] && echo "note: $ncu_note"
echo "logs: $OUT_DIR"
exit $status
