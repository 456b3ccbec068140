#!/usr/bin/env bash
# Which SM clock the bench's timed launches run at (issue 29). The model picks a clock per kernel
# from the timing probes (engine/model/machines.hpp: clock_no_tensor / clock_tensor_l2 /
# clock_tensor_hbm); NVML's reported clock during bench runs read lower on the H200 at 8192^3
# (1515-1575 MHz against the 1642-1717 the rule gives). Here each step runs as bench runs it
# (paired rounds with cuBLAS, the power soak), then with --timeline: the instrumented kernel timed
# in alternation with the plain one, then recorded once. The record's clock_ghz is the median over
# the traced CTA's warps of %clock64 over %globaltimer: the SMs' own count of cycles in a launch
# that follows the bench's back-to-back launches.
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-clock/clock-in-launch.sh
B=${B:-build/carry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT/runs"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$OUT/runs/smi.txt" 2>&1
run() {  # run ID SIZE
  local f="$OUT/runs/$1-$2"
  timeout 120 "$B/gemmscope" bench "$1" --sizes "$2" --reps 20 --timeline "$f.timeline.json" --json "$f.bench.json" \
    > "$f.log" 2>&1
  echo "$1 $2 rc=$?" >> "$OUT/runs/status.txt"
  rm -f "$f.timeline.json.trace.json"
}
for id in simt_naive simt_blocktile_1d simt_warptile ampere_ldmatrix hopper_tma_wgmma_64 hopper_tile_128 \
          hopper_producer_consumer hopper_persistent hopper_fewer_arrivals hopper_stmatrix_epilogue; do
  run $id 4096
done
for id in ampere_ldmatrix hopper_tile_128 hopper_fewer_arrivals hopper_stmatrix_epilogue; do run $id 8192; done
python3 - "$OUT/runs" <<'PY' | tee "$OUT/clock-summary.txt"
import json, os, sys
d = sys.argv[1]
print(f"{'kernel':26} {'size':>5} {'ms':>8} {'TFLOP/s':>8} {'xcuBLAS':>8} {'SM MHz (clock64)':>17} {'NVML MHz':>9} {'W':>5}")
for f in sorted(os.listdir(d)):
    if not f.endswith(".bench.json"): continue
    try:
        r = json.load(open(os.path.join(d, f)))["results"][0]
        t = json.load(open(os.path.join(d, f.replace(".bench.json", ".timeline.json"))))
    except Exception as e:
        print(f, "unreadable:", e); continue
    c = r.get("conditions") or {}
    print(f"{r['kernel']:26} {r['shape']['m']:5} {r['ms']['median']:8.3f} {r['tflops']['median']:8.1f} "
          f"{r.get('ratio_vs_cublas') or 0:8.3f} {1000 * t.get('clock_ghz', 0):17.1f} "
          f"{(c.get('sm_clock_reported_mhz') or {}).get('median', 0):9} {(c.get('power_w') or {}).get('median', 0):5.0f}")
PY
cd "$OUT" && tar czf clock-runs.tgz runs && rm -rf runs
