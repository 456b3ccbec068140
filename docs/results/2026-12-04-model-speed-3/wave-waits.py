# Step 13's first wave, recorded by device5.sh (gemmscope timeline ... --ctas wave --json), per
# ring depth: each CTA's consumer (warp 4) span, its waits on the full barriers (line 177 of
# kernels/hopper_parts.cpp) and wgmma waits, its K loop (first to last K pass); per k-block, the
# producer's last TMA issue of the block to the consumer's wait end, and the consumer's wait.
#   python3 wave-waits.py wave-s3.json wave-s4.json
import json, sys

def q(v, x):
    return sorted(v)[int(x * (len(v) - 1))]

for path in sys.argv[1:]:
    ev = json.load(open(path))['events']
    per, issues, wends, wbeg, waits = {}, {}, {}, {}, []
    for kind, inst, cta, warp, cyc, ns, line, f, role in ev:
        if warp == 0 and kind == 'tma_issue':
            issues.setdefault(cta, []).append(cyc)
        if warp != 4:
            continue
        p = per.setdefault(cta, {'start': cyc, 'end': 0, 'wait': 0, 'wb': None, 'mw': 0, 'mb': None, 'kp': []})
        p['end'] = max(p['end'], cyc)
        if kind == 'mbar_wait_begin' and line == 177:
            p['wb'] = cyc
        if kind == 'mbar_wait_end' and line == 177 and p['wb'] is not None:
            p['wait'] += cyc - p['wb']
            waits.append(cyc - p['wb'])
            wends.setdefault(cta, []).append(cyc)
            p['wb'] = None
        if kind == 'mma_wait_begin':
            p['mb'] = cyc
        if kind == 'mma_wait_end' and p['mb'] is not None:
            p['mw'] += cyc - p['mb']
            p['mb'] = None
        if kind == 'k_pass':
            p['kp'].append(cyc)
    print(f'== {path}: {len(per)} CTAs (cycles of each one\'s SM)')
    rows = [('consumer span', [p['end'] - p['start'] for p in per.values()]),
            ('full-barrier waits', [p['wait'] for p in per.values()]),
            ('wgmma waits', [p['mw'] for p in per.values()]),
            ('K loop (first..last pass)', [p['kp'][-1] - p['kp'][0] for p in per.values()])]
    for name, v in rows:
        print(f'  {name:27s} p10 {q(v, .1):6d} p50 {q(v, .5):6d} p90 {q(v, .9):6d} max {max(v):6d} mean {sum(v) / len(v):8.0f}')
    lat = []
    for cta, iss in issues.items():
        we = wends.get(cta, [])
        per_kb = len(iss) // max(len(we), 1)
        lat += [we[kb] - iss[kb * per_kb + per_kb - 1] for kb in range(len(we))]
    print(f'  per k-block: last TMA issue to the consumer\'s wait end p10 {q(lat, .1)} p50 {q(lat, .5)} p90 {q(lat, .9)} '
          f'p99 {q(lat, .99)}')
    print(f'  per k-block: consumer full-barrier wait p50 {q(waits, .5)} p75 {q(waits, .75)} p90 {q(waits, .9)} '
          f'p99 {q(waits, .99)} mean {sum(waits) / len(waits):.0f}, over 300 cycles {sum(w > 300 for w in waits) / len(waits):.2f}')
