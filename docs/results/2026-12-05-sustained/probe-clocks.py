#!/usr/bin/env python3
"""The clock probes of a `gemmscope_timing_probes --only sm_clock_under --json` run, in one table:
each row's clock, launch time and, for the streaming rows, the TMA's bytes a cycle an SM.
  probe-clocks.py probes-clock.json"""
import json, sys
d = json.load(open(sys.argv[1]))
rows = {p['name']: p for p in d['probes']}
print(f"card: {d.get('device')}")
print("| probe | figure | launch ms |")
print("|---|---:|---:|")
for n, p in rows.items():
    g = p.get('gpu')
    print(f"| {n} | {g:.1f} {p['unit']} | {p.get('ms', 0):.2f} |" if g is not None else f"| {n} | {p.get('gpu_error','-')} | |")
# The TMA alone: 48000 rounds of 4 boxes of 32 KiB a CTA over the launch.
t = rows.get('sm_clock_under_tma_capped')
if t and t.get('gpu'):
    bps = 48000 * 4 * 32768 / (t['ms'] * 1e-3)
    print(f"\nTMA alone: {bps/1e9:.1f} GB/s an SM, {bps*132/1e12:.2f} TB/s in all, {bps/(t['gpu']*1e6):.1f} B a cycle an SM at its clock")
