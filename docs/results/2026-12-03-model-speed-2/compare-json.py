# Base against new `gemmscope sim --json`, every field but `seconds`, for every kernel whose id
# starts with one of PREFIXES at 256^3 and 512^3 (integer and random inputs) and each of its
# mistakes:  python3 compare-json.py BASE_GEMMSCOPE NEW_GEMMSCOPE simt,ampere,hopper,blackwell [-v]
import json,subprocess,sys
base,new=sys.argv[1],sys.argv[2]
pref=sys.argv[3].split(',')
lst=json.loads(subprocess.run([new,'list','--json'],capture_output=True,text=True).stdout)
ks=lst if isinstance(lst,list) else lst.get('kernels',lst)
cases=[]
for k in ks:
  if not any(k['id'].startswith(p) for p in pref): continue
  for shape in [('256','256','256'),('512','512','512')]:
    for inp in ['int','random']:
      cases.append([k['id'],'--m',shape[0],'--n',shape[1],'--k',shape[2],'--inputs',inp])
  for m in k.get('mistakes',[]):
    mid=m if isinstance(m,str) else (m.get('id') or m.get('name'))
    cases.append([k['id'],'--break',mid])
def strip(x):
  if isinstance(x,dict): return {k:strip(v) for k,v in x.items() if k not in ('seconds',)}
  if isinstance(x,list): return [strip(v) for v in x]
  return x
bad=0
for c in cases:
  outs=[]
  for b in (base,new):
    p=subprocess.run([b,'sim']+c+['--json'],capture_output=True,text=True)
    try: outs.append((p.returncode,strip(json.loads(p.stdout))))
    except Exception: outs.append((p.returncode,p.stdout[-200:]+p.stderr[-200:]))
  same=outs[0]==outs[1]
  bad+= not same
  if not same or '-v' in sys.argv: print('SAME' if same else 'DIFF',' '.join(c),outs[1][0])
print('differ:',bad,'of',len(cases))
