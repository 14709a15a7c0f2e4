#!/usr/bin/env python3
# Evidence behind analysis/stats/stats_tests.c stats__gap_test(): how often smooth,
# unimodal samples (lognormal, exponential, Pareto, normal, gamma, uniform,
# and a lognormal with 60 % of the runs at zero; 40-300 runs) reach
# p <= 0.001 when the threshold is placed as xlprobe places it (median + 1
# sigma labels on a noisy latency, best single split of the function time).
# Two rules, both Sidak-corrected for the n/2 places on one side of the
# median: "at" tests the split at the threshold only; "search" (what
# xlprobe does) tests, when the runs past the threshold are the minority,
# every split from the threshold down to the median (of the runs above
# zero, when some are at zero: an atom) and keeps the smallest p.
# Run: python3 tools/gap-test-sim.py [SEED] [TRIALS]   (minutes; seeded)
import math, random, sys

def p_at(y, s, n):
    # the split between y[s] and y[s+1], against every spacing on its minority side
    k = s + 1
    gap = y[k] - y[s]
    if n - k <= k:
        sp = [y[i + 1] - y[i] for i in range(k, n - 1)]
    else:
        sp = [y[i + 1] - y[i] for i in range(0, s)]
    c = len(sp)
    if c < 1 or gap <= 0:
        return 1.0
    sp.sort()
    kk = (c + 1) // 2
    med = sp[kk - 1]
    if med <= 0:
        return 0.0
    r = gap / med
    p1 = math.exp(math.lgamma(c + 1) - math.lgamma(c - kk + 1) - math.lgamma(c + 1 + r) +
                  math.lgamma(c - kk + 1 + r))
    return -math.expm1(((n + 1) // 2) * math.log1p(-p1)) if p1 < 1 else 1.0

def gap_p(v, thr, rule):
    n = len(v)
    y = sorted(math.log(max(x, 1)) for x in v)
    lt = math.log(max(thr, 1))
    k = sum(1 for t in y if t <= lt)
    if k < 2 or n - k < 2:
        return 1.0
    if rule == 'at':
        return p_at(y, k - 1, n)
    if n - k > k:
        return p_at(y, k - 1, n)  # the runs past the threshold are the majority
    z = sum(1 for t in y if t <= 0)
    last = max((n - 1) // 2, z + (n - z - 1) // 2 if z < n else 0)
    return min(p_at(y, s, n) for s in range(k - 1, min(last, k - 1) - 1, -1))

rnd = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
trials = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
dists = {
    'lognorm.3': lambda: math.exp(rnd.gauss(0, 0.3)),
    'lognorm1': lambda: math.exp(rnd.gauss(0, 1)),
    'exp': lambda: 1 + rnd.expovariate(1),
    'pareto1.5': lambda: rnd.paretovariate(1.5),
    'normal': lambda: max(0.01, 10 + rnd.gauss(0, 1)),
    'gamma2': lambda: rnd.gammavariate(2, 1),
    'unif': lambda: 1 + rnd.random(),
    'zero60+lognorm': lambda: 0 if rnd.random() < 0.6 else math.exp(rnd.gauss(0, 1)),
}
for n in (40, 100, 300):
    for name, f in dists.items():
        hits = {'at': 0, 'search': 0}
        for _ in range(trials):
            t = [f() for _ in range(n)]
            lat = [1 + x + abs(rnd.gauss(0, 0.05 * (1 + x))) for x in t]
            med = sorted(lat)[n // 2]
            mu = sum(lat) / n
            sd = math.sqrt(sum((x - mu) ** 2 for x in lat) / n)
            slow = [l > med + sd for l in lat]
            # the tree's split on t: the best single threshold by misclassification
            idx = sorted(range(n), key=lambda i: t[i])
            ns = sum(slow)
            cum, best = 0, None
            for j in range(n - 1):
                cum += slow[idx[j]]
                err = cum + ((n - 1 - j) - (ns - cum))
                if best is None or err < best[0]:
                    best = (err, (t[idx[j]] + t[idx[j + 1]]) / 2)
            for rule in hits:
                hits[rule] += gap_p([x * 1e6 for x in t], best[1] * 1e6, rule) <= 0.001
        print(n, name, {k: v / trials for k, v in hits.items()}, flush=True)
