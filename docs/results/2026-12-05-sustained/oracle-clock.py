#!/usr/bin/env python3
"""Re-times each prediction of timing-validate.py's predictions.json at the SM clock bench counted:
the parts in the memory system's bytes (L2, HBM, stores) keep their seconds, the others their cycles.
  oracle-clock.py predictions.json"""
import json,sys,statistics
d=json.load(open(sys.argv[1]))
mem=('L2','HBM','stores')
by={}
for r in d['rows']:
    p=r['prediction']; hz0=p['clock_mhz']; hz=r.get('counted_clock_mhz') or hz0
    parts=p['parts']; c0=max(parts.values())
    c1=max((v*hz/hz0 if k in mem else v) for k,v in parts.items())
    t0=1.0/r['predicted']  # proportional to seconds
    t1=t0*(c1/c0)*(hz0/hz)
    pred=1.0/t1
    err=pred/r['measured']-1
    by.setdefault(r['shape'],[]).append((r['kernel'],err,hz0,hz))
for s,rows in by.items():
    print(s)
    for k,e,a,b in rows: print(f"  {k:28s} {100*e:+6.1f}%  clock {a:.0f}->{b:.0f}")
    errs=[abs(e) for _,e,_,_ in rows]
    print('  median |err| %.1f%% max %.1f%% within15 %d/%d'%(100*statistics.median(errs),100*max(errs),sum(e<=.15 for e in errs),len(errs)))
