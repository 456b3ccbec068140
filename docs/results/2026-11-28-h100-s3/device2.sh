#!/usr/bin/env bash
# Device call 2 (about 5 minutes): the shared-memory pipe's rate, the clock under wgmma + TMA
# after 20 launches back to back (as bench times a GEMM), the launch probes again; and the clock
# each Hopper step actually ran at (its timeline's clock64 over %globaltimer) beside its time at
# 8192^3, to tell the model's cycles from its clock.
#   OUT=/tmp/out bash docs/results/<this folder>/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
W=$(mktemp -d); mkdir -p $W/timelines
timeout 200 $B/gemmscope_timing_probes --only lds_ launch sm_clock_under_wgmma --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
for ks in hopper_tma_wgmma_64:8192 hopper_tile_128:8192 hopper_producer_consumer:8192 hopper_two_consumers:8192 \
          hopper_persistent:8192 hopper_fewer_arrivals:8192 hopper_cluster_multicast:8192 hopper_tma_store:8192 \
          hopper_tma_store:4096 simt_naive:4096 simt_blocktile_1d:4096 simt_vectorized:4096 ampere_cp_async:4096 \
          ampere_ldmatrix:4096; do
  k=${ks%%:*}; s=${ks##*:}
  timeout 90 $B/gemmscope bench $k --sizes $s --reps 20 --timeline $W/timelines/$k-$s.timeline.json \
    --timeline-ctas wave --timeline-capacity 64 --json $W/timelines/$k-$s.bench.json >> $OUT/timeline-bench.log 2>&1
  echo "timeline $k $s rc=$?" >> $OUT/status.txt
done
python3 - $W/timelines $OUT/clocks.json <<'PY'
import json, sys, glob, os
rows = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.timeline.json"))):
    t = json.load(open(f))
    b = json.load(open(f.replace(".timeline.json", ".bench.json")))["results"][0]
    ws = [w for w in t["warps"] if w.get("ns")]
    rows.append({"kernel": t["kernel"], "shape": t["shape"], "clock_ghz": t["clock_ghz"], "warps": len(ws),
                 "clock_min": min(w["cycles"] / w["ns"] for w in ws), "clock_max": max(w["cycles"] / w["ns"] for w in ws),
                 "plain_ms": t["overhead"].get("plain_ms"), "bench_ms": b["ms"], "tflops": b["tflops"],
                 "cublas_tflops": b.get("cublas_tflops")})
json.dump(rows, open(sys.argv[2], "w"), indent=1)
for r in rows: print(r)
PY
cat $OUT/status.txt; cat $OUT/probes.log
