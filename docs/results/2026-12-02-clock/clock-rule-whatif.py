#!/usr/bin/env python3
"""What-if of the clock rule (issue 29), before the model was rebuilt with the new figures.

For each bench JSON given, the model's own prediction (`gemmscope sim ID --m S --n S --k S
--traced-cta-only --machine h200 --json`, made by the build named in B below) is re-timed at
another clock: the parts in the memory system's bytes (L2, HBM, stores) scale with the clock,
the others are cycles. Three rules, each iterated with the kernel's HBM traffic as the model does:
  current  the model's own clock (the 1.5-ms-launch probes: 1717 MHz from L2, 1642 from HBM);
  capped   the streamed-operand probes held at the power limit: 1596 from L2, 1281 from HBM
           (probes-streamed-*.json), by the kernel's share of the HBM bandwidth (4288 GB/s);
  u        as capped, with the L2 end rising towards the 66-CTA probe's 1699 MHz as the
           kernel keeps the tensor cores busy a smaller share of the time (not adopted: it is
           no better on these runs, and the 99-CTA probe read below the 132-CTA one).
No constant here comes from a step: every clock is a probe's reading.

  clock-rule-whatif.py BENCH.json...     (B=path/to/gemmscope to choose the build)
"""
import json, subprocess, sys, statistics, os
B=os.environ.get('B', 'build/dev/gemmscope')
HBM_BW=None
def sim(k, s):
    return json.loads(subprocess.run([B,'sim',k,'--m',str(s),'--n',str(s),'--k',str(s),'--traced-cta-only',
                                      '--machine','h200','--json'],capture_output=True,check=True).stdout)
def predict(j, rule):
    p=j['prediction']; parts=dict(p['parts']); hz0=p['clock_mhz']*1e6
    mem=('L2','HBM','stores'); bpw=p['bytes_per_wave']
    tensor = parts.get('tensor cores',0)>0
    waves=p['waves']; launch=p['launch_us']*1e-6
    def at(hz):
        q={k:(v*hz/hz0 if k in mem else v) for k,v in parts.items()}
        return max(q.values())
    hz=hz0
    if rule=='current': return j['predicted_seconds'], hz0
    for _ in range(20):
        cyc=at(hz); ws=cyc/hz
        gbs=(bpw['hbm']+bpw['stores'])/ws/1e9
        if not tensor: f=1978e6
        else:
            share=min(max(gbs/4288.0,0),1)  # H200 hbm_bandwidth_gbs checked below
            L2,HBM=1596.0,1281.0
            if rule=='u':
                u=parts['tensor cores']/cyc*min(1.0,p['wave_ctas']/132)
                u=min(max(u,0.5),1.0)
                L2=1699+(1596-1699)*(u-0.5)/0.5
            f=(L2-(L2-HBM)*share)*1e6
        if abs(f-hz)<1e3: break
        hz=f
    cyc=at(hz)
    return waves*cyc/hz+launch, hz
rows=[]
for src in sys.argv[1:]:
    for r in json.load(open(src))['results']:
        if r.get('status') not in (None,'ok') and not r.get('ms'): continue
        k=r['kernel']; s=r['shape']['m']
        try: j=sim(k,s)
        except Exception as e: print('skip',k,s,e); continue
        ms=r['ms']['median']*1e-3
        rows.append((k,s,ms,{rule:predict(j,rule) for rule in ('current','capped','u')}))
for rule in ('current','capped','u'):
    for s in (4096,8192):
        errs=[(v[rule][0]/ms-1)*100 for k,ss,ms,v in rows if ss==s]
        te=[(v[rule][0]/ms-1)*100 for k,ss,ms,v in rows if ss==s and v['current'][1]<1900e6]
        print(f"{rule:8} {s}: median|err| {statistics.median(map(abs,errs)):5.1f}%  within15 {sum(abs(e)<=15 for e in errs)}/{len(errs)}   tensor-only median|err| {statistics.median(map(abs,te)):5.1f}% within15 {sum(abs(e)<=15 for e in te)}/{len(te)}")
for k,s,ms,v in rows:
    print(f"{k:26} {s} meas {ms*1e3:8.3f}  " + "  ".join(f"{rule}:{(v[rule][0]/ms-1)*100:+6.1f}%@{v[rule][1]/1e6:.0f}" for rule in v))
