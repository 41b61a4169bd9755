import sys,re,subprocess
cg, fn, lib = sys.argv[1], sys.argv[2], sys.argv[3]
counts={}; cur_fn=None; last=0; skip=False; fnames={}
def name(s):
    m=re.match(r'\((\d+)\)(?:\s+(.*))?',s)
    if m:
        if m.group(2): fnames[m.group(1)]=m.group(2)
        return fnames.get(m.group(1))
    return s
for line in open(cg):
    line=line.rstrip('\n')
    if line.startswith('fn='): cur_fn=name(line[3:]); continue
    if line.startswith('cfn='): name(line[4:]); continue
    if line.startswith('calls='): skip=True; continue
    if not line or line[0] not in '0123456789+-*': continue
    parts=line.split(); a=parts[0]
    if a.startswith('0x'): addr=int(a,16)
    elif a[0]=='+': addr=last+int(a[1:],0)
    elif a[0]=='-': addr=last-int(a[1:],0)
    elif a=='*': addr=last
    else: continue
    last=addr
    if skip: skip=False; continue
    if cur_fn==fn and len(parts)>=3: counts[addr]=counts.get(addr,0)+int(parts[2])
dis=subprocess.run(['objdump','-d','--no-show-raw-insn',lib],capture_output=True,text=True).stdout
lines=[]; inf=False
for l in dis.splitlines():
    if l.endswith('<%s>:'%fn): inf=True; continue
    if inf and not l.strip(): break
    if inf: lines.append(l)
base=int(lines[0].split(':')[0],16); cbase=min(counts)
off=base-cbase  # assume the function's first instruction executed
n=int(sys.argv[4]) if len(sys.argv)>4 else 200
for l in lines:
    a=int(l.split(':')[0],16)-off
    c=counts.get(a,0)
    if c: print("%6.2f %s"%(c/n,l))
