#!/usr/bin/env python3
"""Step 13's hand-offs and waits from `gemmscope timeline --json` files (GPU or --model):

    python3 timeline-handoff.py tl8192_s3.json [...]   (call1/timelines.tgz holds the card's)

Per file (warp 0 the producer, warp 4 the first consumer warp): the median cycles from a
consumer's wgmma wait returning (it then arrives on empty[s]) to the producer's wait on that
stage returning, where the producer was already waiting; the consumer's full-wait; the K period
past the first fill.
"""
import json
import sys
for f in [a for a in sys.argv[1:] if not a.endswith(".trace.json")]:
    d=json.load(open(f))
    cols=d['columns']; ev=d['events']
    K=cols.index('kind'); W=cols.index('warp'); C=cols.index('cycle'); N=cols.index('ns')
    s=int(d['params'].get('stages',4)) if isinstance(d.get('params'),dict) else None
    if s is None:
        import re; s=int(re.search(r'stages=(\d)',json.dumps(d['params'])).group(1))
    iss=[e for e in ev if e[K]=='tma_issue' and e[W]==0][::2]
    fw=[e for e in ev if e[K]=='mbar_wait_end' and e[W]==4]
    fb=[e for e in ev if e[K]=='mbar_wait_begin' and e[W]==4]
    mwe=[e for e in ev if e[K]=='mma_wait_end' and e[W]==4]
    pwe=[e for e in ev if e[K]=='mbar_wait_end' and e[W]==0]
    pwb=[e for e in ev if e[K]=='mbar_wait_begin' and e[W]==0]
    n=min(len(iss),len(fw))
    ho=sorted(pwe[b+s][C]-mwe[b][C] for b in range(len(mwe)) if b+s<len(pwe) and pwb[b+s][C]<mwe[b][C])
    cw=sorted(fw[i][C]-fb[i][C] for i in range(s,len(fw)))
    span_c=fw[-1][C]-fw[s][C]
    med=lambda x:x[len(x)//2] if x else None
    print(f.split('/')[-1],'stages',s,'handoff med',med(ho),'consumer full-wait med',med(cw),'mean %.0f'%(sum(cw)/len(cw)),'period %.0f'%(span_c/(len(fw)-1-s)))
