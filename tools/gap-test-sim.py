#!/usr/bin/env python3
# Evidence behind analysis/evidence.c ev__gap_test(): how often smooth,
# unimodal samples (lognormal, exponential, Pareto, normal, gamma, uniform;
# 40-300 runs) reach p <= 0.001 when the split is placed as xlprobe places
# it (median + 1 sigma labels on a noisy latency, best single split of the
# function time), with three Sidak corrections: none ("one"), the n/2 places
# on one side of the median ("half", what xlprobe uses), all n-1 ("full").
# Run: python3 tools/gap-test-sim.py   (a few minutes; seeded)
import math, random
def gap_p(v, thr, m_mode):
    n=len(v); y=sorted(math.log(max(x,1)) for x in v); lt=math.log(thr)
    k=sum(1 for t in y if t<=lt)
    if k<2 or n-k<2: return 1.0
    split=k-1; gap=y[k]-y[split]
    w=n//2
    if n-k<=k: lo=k; hi=min(k+w,n-1)
    else: hi=split; lo=max(split-w,0)
    c=hi-lo
    if c<1 or gap<=0: return 1.0
    sp=sorted(y[i+1]-y[i] for i in range(lo,hi))
    k=(c+1)//2
    med=sp[k-1]
    if med<=0: return 0.0
    r=gap/med; p1=1.0
    for j in range(1,k+1): p1*= (c-j+1)/(c-j+1+r)
    m={'full':n-1,'half':n//2,'one':1}[m_mode]
    return -math.expm1(m*math.log1p(-p1)) if p1<1 else 1.0
random.seed(1)
dists={'lognorm.3':lambda:math.exp(random.gauss(0,0.3)),'lognorm1':lambda:math.exp(random.gauss(0,1)),
 'exp':lambda:1+random.expovariate(1),'pareto1.5':lambda:random.paretovariate(1.5),'normal':lambda:max(0.01,10+random.gauss(0,1)),
 'gamma2':lambda:random.gammavariate(2,1),'unif':lambda:1+random.random()}
for n in (40,100,300):
  for name,f in dists.items():
    cnt={'full':0,'half':0,'one':0}; T=1500
    for _ in range(T):
        t=[f() for _ in range(n)]
        lat=[x+abs(random.gauss(0,0.05*x)) for x in t]
        med=sorted(lat)[n//2]; mu=sum(lat)/n; sd=math.sqrt(sum((x-mu)**2 for x in lat)/n)
        lthr=med+sd
        slow=[l>lthr for l in lat]
        # tree split on t: best single threshold by misclassification
        idx=sorted(range(n),key=lambda i:t[i]); best=None
        ns=sum(slow); cum=0
        for j in range(n-1):
            cum+=slow[idx[j]]
            err=cum+((n-1-j)-(ns-cum))
            if best is None or err<best[0]: best=(err,(t[idx[j]]+t[idx[j+1]])/2)
        thr=best[1]
        for mm in cnt: cnt[mm]+= gap_p([x*1e6 for x in t],thr*1e6,mm)<=0.001
    print(n,name,{k:v/T for k,v in cnt.items()})
