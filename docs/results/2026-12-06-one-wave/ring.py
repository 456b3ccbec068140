import json, statistics, sys
S=int(sys.argv[2]) if len(sys.argv)>2 else 3
d=json.load(open(sys.argv[1])); ev=d['events']
def seq(w, kind): return [e[4] for e in ev if e[3]==w and e[0]==kind]
# producer warp 0: per K block: mbar_wait_begin/end (empty), tma_issue (2 per block)
pwb=seq(0,'mbar_wait_begin'); pwe=seq(0,'mbar_wait_end'); ti=seq(0,'tma_issue')[0::2]
c4e=seq(4,'mma_wait_end'); c8e=seq(8,'mma_wait_end')
c4fb=seq(4,'mbar_wait_begin'); c4fe=seq(4,'mbar_wait_end')
n=min(len(pwe),len(c4e),len(c8e),len(ti),len(c4fe))
rel_to_wake=[]; wake_to_issue=[]; issue_to_full=[]; waited=0
for p in range(S, n):
    rel=max(c4e[p-S], c8e[p-S])
    if pwb[p] < rel:  # the producer was waiting when the release came
        waited+=1
        rel_to_wake.append(pwe[p]-rel)
    wake_to_issue.append(ti[p]-pwe[p])
    issue_to_full.append(c4fe[p]-ti[p])
med=lambda x: statistics.median(x) if x else None
print(sys.argv[1], 'passes',n,'producer waited on',waited, 'release->producer wake',med(rel_to_wake),'wake->issue',med(wake_to_issue),'issue->consumer full-wait end',med(issue_to_full))
