import json, sys, subprocess
def phases(path):
    d = json.load(open(path))
    ev = d['events']
    w4 = [e for e in ev if e[3] == 4]
    kp = [e[4] for e in w4 if e[0] == 'k_pass']
    tma0 = [e[4] for e in ev if e[0] == 'tma_issue']
    mw = [e for e in w4 if e[0] == 'mbar_wait_end']
    st = [e[4] for e in ev if e[0] == 'tma_store']
    end = max(w['cycles'] for w in d['warps'])
    first_tma = min(tma0) if tma0 else None
    first_wait_end = mw[0][4] if mw else None
    return dict(first_tma=first_tma, first_full=first_wait_end, kpass_first=kp[0] if kp else None,
                kpass_last=kp[-1] if kp else None, n_kpass=len(kp), stores=(min(st), max(st)) if st else None, end=end,
                ghz=d['clock_ghz'])
for p in sys.argv[1:]:
    print(p, phases(p))
