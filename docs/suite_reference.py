#!/usr/bin/python3
"""Independent reference for the practical-defaults suite.

Two jobs, both independent of the Go code (the problems are written again
here from their papers, not translated from problem/suite.go):

1. `values`: write problem/testdata/suite_values.json: for every suite
   problem, its objective and constraint metrics (natural units) at 20
   fixed points of its box, the ranges of every metric over the box (a
   Halton sample of HALTON_N points, the same definition problem/suite.go
   uses) and the constrained optimum (dense Halton search + SLSQP). The Go
   test problem/suite_test.go compares its definitions with these numbers.

2. `run`: the issue's "60-line Python loop": scikit-learn GPs on
   standardised metrics (normalize_y=True) with a fitted
   ConstantKernel * Matern(nu=2.5, ARD) + WhiteKernel, refit every round
   (L-BFGS-B warm-started from the previous round's fit, no restarts: a
   full-restart fit made the run take about an hour);
   beta = 2; an optimistic feasible set over 1,500 random points of the box
   (points whose lower confidence bound of every constraint is <= 0; if
   none, the point of smallest summed LCB violation); the UCB of the
   objective maximised over it. Round 1 plays a random point of the box.
   Same scoring as `cbandit suite` (suite/doc.go): T = 200, 3 seeds, both
   unit systems ("natural" and "scaled": every metric m -> 1000 m + 50),
   noise std 2 % of each metric's range. Writes docs/suite_reference.md.

Run with Debian's python (sklearn 1.2.1, numpy, scipy):
    OMP_NUM_THREADS=1 nice /usr/bin/python3 docs/suite_reference.py values
    OMP_NUM_THREADS=1 nice /usr/bin/python3 docs/suite_reference.py run
CI never runs this script; it only reads the JSON it wrote.
"""

import json
import math
import sys
import time
import warnings

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

HALTON_N = 20000
PRIMES = [2, 3, 5, 7, 11, 13]

# ---------------------------------------------------------------- problems
# Each problem: box, objective metric (natural units) with its goal,
# constraint metrics with thresholds (metric <= threshold).


def gardner1_obj(x):
    # Gardner et al. 2014 (ICML), simulation 1: cos(2 x1) cos(x2) + sin(x1),
    # minimised; stated units: latency in ms = 100 * f + 300.
    return 100.0 * (math.cos(2 * x[0]) * math.cos(x[1]) + math.sin(x[0])) + 300.0


def gardner1_power(x):
    # constraint cos(x1) cos(x2) - sin(x1) sin(x2) <= 0.5; stated units:
    # power in W = 400 * c + 1500, threshold 400 * 0.5 + 1500 = 1700 W.
    c = math.cos(x[0]) * math.cos(x[1]) - math.sin(x[0]) * math.sin(x[1])
    return 400.0 * c + 1500.0


def gramacy_obj(x):
    # Gramacy et al. 2016 §4.1: minimise x1 + x2; stated units: dollars
    # = 1000 (x1 + x2) + 200.
    return 1000.0 * (x[0] + x[1]) + 200.0


def gramacy_stress(x):
    # c1 = 3/2 - x1 - 2 x2 - 1/2 sin(2 pi (x1^2 - 2 x2)) <= 0; stated
    # units: kPa = 100 c1 + 500, threshold 500.
    c1 = 1.5 - x[0] - 2 * x[1] - 0.5 * math.sin(2 * math.pi * (x[0] ** 2 - 2 * x[1]))
    return 100.0 * c1 + 500.0


def gramacy_temp(x):
    # c2 = x1^2 + x2^2 - 3/2 <= 0; stated units: degC = 10 c2 + 60,
    # threshold 60.
    return 10.0 * (x[0] ** 2 + x[1] ** 2 - 1.5) + 60.0


def branin(x):
    a, b, c, r, s, t = 1.0, 5.1 / (4 * math.pi ** 2), 5 / math.pi, 6.0, 10.0, 1 / (8 * math.pi)
    return a * (x[1] - b * x[0] ** 2 + c * x[0] - r) ** 2 + s * (1 - t) * math.cos(x[0]) + s


def branin_disc(x):
    # Gelbart, Snoek & Adams 2014 §5.1: (x1 - 2.5)^2 + (x2 - 7.5)^2 <= 50.
    return (x[0] - 2.5) ** 2 + (x[1] - 7.5) ** 2


def ackley(x):
    d = len(x)
    s2 = sum(v * v for v in x) / d
    sc = sum(math.cos(2 * math.pi * v) for v in x) / d
    return -20.0 * math.exp(-0.2 * math.sqrt(s2)) - math.exp(sc) + 20.0 + math.e


def ackley_sum(x):
    # Eriksson & Poloczek 2021 (SCBO) §5: c1 = sum x_i <= 0.
    return float(sum(x))


def ackley_norm(x):
    # SCBO §5: c2 = ||x||_2 - 5 <= 0, written as ||x||_2 <= 5.
    return math.sqrt(sum(v * v for v in x))


def pv_cost(x):
    # Pressure vessel (Sandgren 1990; Coello & Mezura-Montes 2002):
    # x = (Ts, Th, R, L) in inches, cost in dollars.
    ts, th, r, l = x
    return 0.6224 * ts * r * l + 1.7781 * th * r * r + 3.1661 * ts * ts * l + 19.84 * ts * ts * r


def pv_shell(x):
    return 0.0193 * x[2] - x[0]  # inches, <= 0


def pv_head(x):
    return 0.00954 * x[2] - x[1]  # inches, <= 0


def pv_volume(x):
    r, l = x[2], x[3]
    # volume shortfall 1296000 - (pi R^2 L + 4/3 pi R^3), cubic inches, <= 0
    return 1296000.0 - (math.pi * r * r * l + 4.0 / 3.0 * math.pi * r ** 3)


H6_ALPHA = [1.0, 1.2, 3.0, 3.2]
H6_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
        [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
H6_P = [[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]]


def hartmann6(x):
    tot = 0.0
    for i in range(4):
        e = 0.0
        for j in range(6):
            e += H6_A[i][j] * (x[j] - H6_P[i][j] * 1e-4) ** 2
        tot += H6_ALPHA[i] * math.exp(-e)
    return -tot


def l2norm(x):
    # Letham et al. 2019 §5.1 (BoTorch ConstrainedHartmann): ||x||_2 <= 1.
    return math.sqrt(sum(v * v for v in x))


PROBLEMS = [
    dict(name="gardner", lo=[0, 0], hi=[6, 6], obj=gardner1_obj, goal="minimize",
         cons=[(gardner1_power, 1700.0)]),
    dict(name="gramacy", lo=[0, 0], hi=[1, 1], obj=gramacy_obj, goal="minimize",
         cons=[(gramacy_stress, 500.0), (gramacy_temp, 60.0)]),
    dict(name="branin", lo=[-5, 0], hi=[10, 15], obj=branin, goal="minimize",
         cons=[(branin_disc, 50.0)]),
    dict(name="ackley3", lo=[-5, -5, -5], hi=[10, 10, 10], obj=ackley, goal="minimize",
         cons=[(ackley_sum, 0.0), (ackley_norm, 5.0)]),
    dict(name="pressure-vessel", lo=[0, 0, 10, 10], hi=[1, 1, 50, 240], obj=pv_cost, goal="minimize",
         cons=[(pv_shell, 0.0), (pv_head, 0.0), (pv_volume, 0.0)]),
    dict(name="hartmann6", lo=[0] * 6, hi=[1] * 6, obj=hartmann6, goal="minimize",
         cons=[(l2norm, 1.0)]),
]


def halton(n, d):
    """Points i = 1..n of the Halton sequence in [0,1)^d (bases 2, 3, 5, ...)."""
    out = np.zeros((n, d))
    for k in range(d):
        b = PRIMES[k]
        idx = np.arange(1, n + 1)
        f = np.ones(n)
        r = np.zeros(n)
        while np.any(idx > 0):
            f = f / b
            r = r + f * (idx % b)
            idx = idx // b
        out[:, k] = r
    return out


def box_points(p, u):
    lo, hi = np.array(p["lo"], float), np.array(p["hi"], float)
    return lo + (hi - lo) * u


def metrics(p, x):
    """Objective and constraint metrics at x (natural units)."""
    return p["obj"](x), [c(x) for c, _ in p["cons"]]


def facts(p):
    """Ranges over the Halton sample and the constrained optimum."""
    d = len(p["lo"])
    pts = box_points(p, halton(HALTON_N, d))
    vals = np.array([[p["obj"](x)] + [c(x) for c, _ in p["cons"]] for x in pts])
    lo, hi = vals.min(axis=0), vals.max(axis=0)
    sign = 1.0 if p["goal"] == "minimize" else -1.0
    thr = np.array([t for _, t in p["cons"]])
    feas = np.all(vals[:, 1:] <= thr, axis=1)
    order = np.argsort(sign * vals[:, 0] + np.where(feas, 0, np.inf))
    best_v, best_x = math.inf, None
    # SLSQP on metrics divided by their ranges (conditioning), from the 20
    # best feasible sample points and the 20 best points overall.
    span = hi - lo
    span[span == 0] = 1.0
    cons = [{"type": "ineq", "fun": (lambda x, c=c, t=t, s=span[j + 1]: (t - c(x)) / s)}
            for j, (c, t) in enumerate(p["cons"])]
    bounds = list(zip(p["lo"], p["hi"]))
    starts = [i for i in order[:20] if feas[i]] + list(np.argsort(sign * vals[:, 0])[:20])
    for i in starts:
        if feas[i] and sign * vals[i, 0] < best_v:
            best_v, best_x = sign * vals[i, 0], pts[i]
        r = minimize(lambda x: sign * p["obj"](x) / span[0], pts[i], method="SLSQP", bounds=bounds,
                     constraints=cons, options={"ftol": 1e-15, "maxiter": 2000})
        x = np.clip(r.x, p["lo"], p["hi"])
        ok = all(c(x) <= t for c, t in p["cons"])
        v = sign * p["obj"](x)
        if ok and v < best_v:
            best_v, best_x = v, x
    return {"obj_range": [lo[0], hi[0]], "cons_range": [[lo[j], hi[j]] for j in range(1, len(lo))],
            "opt": sign * best_v, "xopt": list(best_x)}


def write_values(path):
    rng = np.random.default_rng(20261123)
    out = []
    for p in PROBLEMS:
        d = len(p["lo"])
        xs = box_points(p, rng.random((20, d)))
        fa = facts(p)
        out.append({
            "name": p["name"], "goal": p["goal"], "lo": p["lo"], "hi": p["hi"],
            "thresholds": [t for _, t in p["cons"]],
            "points": [list(x) for x in xs],
            "objective": [p["obj"](x) for x in xs],
            "constraints": [[c(x) for c, _ in p["cons"]] for x in xs],
            "objective_range": fa["obj_range"], "constraint_ranges": fa["cons_range"],
            "optimum": fa["opt"], "optimum_x": fa["xopt"],
        })
        print(p["name"], "optimum", fa["opt"], "at", fa["xopt"], file=sys.stderr)
    with open(path, "w") as fh:
        json.dump({"halton_n": HALTON_N, "made_by": "docs/suite_reference.py values",
                   "problems": out}, fh, indent=1)
        fh.write("\n")


# ---------------------------------------------------------------- the loop

def fit(X, y, prev=None):
    """A GP on standardised y; hyperparameters fitted by scikit-learn's
    L-BFGS-B from the previous round's fit (warm start; no restarts)."""
    d = X.shape[1]
    k = prev if prev is not None else \
        ConstantKernel(1.0, (1e-3, 1e3)) * Matern(length_scale=np.full(d, 0.3), length_scale_bounds=(1e-2, 1e2), nu=2.5) \
        + WhiteKernel(1e-2, (1e-6, 1.0))
    gp = GaussianProcessRegressor(k, normalize_y=True, n_restarts_optimizer=0, random_state=0)
    gp.fit(X, y)
    return gp


def load_facts(path="problem/testdata/suite_values.json"):
    """Ranges and optimum of every problem, by name, from the JSON `values` wrote."""
    with open(path) as fh:
        vals = {q["name"]: q for q in json.load(fh)["problems"]}
    return {name: {"obj_range": q["objective_range"], "cons_range": q["constraint_ranges"], "opt": q["optimum"]}
            for name, q in vals.items()}


def thresholds(p, units):
    """The constraints' thresholds in the unit system (m -> a m + b)."""
    a, b = (1.0, 0.0) if units == "natural" else (1000.0, 50.0)
    return np.array([a * t + b for _, t in p["cons"]])


def observe(pi, p, fa, x, seed, t, units):
    """What the user measures at x in round t: the objective and constraint
    metrics in the unit system plus Gaussian noise of std 2 % of each
    metric's range (times a), from a stream of (seed, problem, round) only."""
    a, b = (1.0, 0.0) if units == "natural" else (1000.0, 50.0)
    m = len(p["cons"])
    noise = [0.02 * (fa["obj_range"][1] - fa["obj_range"][0])] + \
        [0.02 * (r[1] - r[0]) for r in fa["cons_range"]]
    f, c = metrics(p, x)
    z = np.random.default_rng([seed, pi, t, 11]).standard_normal(1 + m)
    fobs = a * f + b + a * noise[0] * z[0]
    cobs = [a * c[j] + b + a * noise[1 + j] * z[1 + j] for j in range(m)]
    return fobs, cobs


def run_one(pi, p, fa, seed, units, T):
    d = len(p["lo"])
    lo, hi = np.array(p["lo"], float), np.array(p["hi"], float)
    m = len(p["cons"])
    thr = thresholds(p, units)
    sign = -1.0 if p["goal"] == "minimize" else 1.0  # reward = sign * objective
    rng = np.random.default_rng([seed, pi, 7])
    U, Y, G = [], [], []
    xs = []
    kern = [None] * (1 + m)
    t0 = time.time()
    for t in range(1, T + 1):
        if t == 1:
            u = rng.random(d)
        else:
            Ua = np.array(U)
            cand = rng.random((1500, d))
            gps = [fit(Ua, np.array(Y), kern[0])] + \
                [fit(Ua, np.array(G)[:, j], kern[1 + j]) for j in range(m)]
            kern = [g.kernel_ for g in gps]
            mf, sf = gps[0].predict(cand, return_std=True)
            lcb = np.zeros((1500, m))
            for j in range(m):
                mg, sg = gps[1 + j].predict(cand, return_std=True)
                lcb[:, j] = mg - 2 * sg
            ok = np.all(lcb <= 0, axis=1)
            if ok.any():
                ucb = np.where(ok, mf + 2 * sf, -np.inf)
                u = cand[int(np.argmax(ucb))]
            else:
                u = cand[int(np.argmin(np.maximum(lcb, 0).sum(axis=1)))]
        x = lo + (hi - lo) * u
        fobs, cobs = observe(pi, p, fa, x, seed, t, units)
        U.append(u)
        Y.append(sign * fobs)
        G.append([cobs[j] - thr[j] for j in range(m)])
        xs.append(x)
    secs = (time.time() - t0) / T
    return score(p, fa, xs, T), secs


def score(p, fa, xs, T):
    """Late normalised regret and per-round violation over rounds t > T/2."""
    sign = -1.0 if p["goal"] == "minimize" else 1.0
    rf = fa["obj_range"][1] - fa["obj_range"][0]
    fstar = sign * fa["opt"]
    late = [x for t, x in enumerate(xs, start=1) if t > T // 2]
    reg, vio = 0.0, 0.0
    for x in late:
        f, c = metrics(p, x)
        reg += (fstar - sign * f) / rf
        v = 0.0
        for j, (_, t) in enumerate(p["cons"]):
            r = fa["cons_range"][j][1] - fa["cons_range"][j][0]
            v = max(v, max(c[j] - t, 0.0) / r)
        vio += v
    return reg / len(late), vio / len(late)


def run_all(T=200, seeds=3, only=None):
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    facts_by_name = load_facts()
    rows = []
    for pi, p in enumerate(PROBLEMS):
        if only and p["name"] not in only:
            continue
        fa = facts_by_name[p["name"]]
        res = {}
        for units in ("natural", "scaled"):
            per = []
            for s in range(1, seeds + 1):
                (rg, vi), secs = run_one(pi, p, fa, s, units, T)
                per.append((rg, vi, secs))
                print(p["name"], units, s, "regret %.4f violation %.4f %.3fs/round" % (rg, vi, secs),
                      file=sys.stderr, flush=True)
            res[units] = per
        rows.append((p["name"], res))
    return rows


def write_report(rows, path, T, seeds):
    lines = [
        "# The practical-defaults suite: scikit-learn reference",
        "",
        "Made by `OMP_NUM_THREADS=1 /usr/bin/python3 docs/suite_reference.py run` (scikit-learn %s,"
        " numpy %s): the practical-defaults loop (GP per metric on standardised values, fitted"
        " ConstantKernel·Matérn-5/2 ARD + WhiteKernel refit every round by scikit-learn's L-BFGS-B,"
        " warm-started from the previous round's fit, no restarts;"
        " β = 2, optimistic feasible set over 1,500 random points, UCB maximised over it; round 1 random),"
        " T = %d, %d seeds, noise std 2 %% of each metric's range. Scores over rounds t > T/2 on the true"
        " functions: late regret = mean (f* − f(x_t)) / range(f); late violation = mean max_j"
        " [g_j(x_t)]⁺ / range(g_j) (per round). Mean over seeds; Δ = scaled − natural."
        % (__import__("sklearn").__version__, np.__version__, T, seeds),
        "",
        "| problem | regret (natural) | violation (natural) | regret (scaled) | violation (scaled) | Δ regret | Δ violation | s/round |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, res in rows:
        n, s = np.array(res["natural"]), np.array(res["scaled"])
        lines.append("| %s | %.4f | %.4f | %.4f | %.4f | %+.4f | %+.4f | %.3f |" % (
            name, n[:, 0].mean(), n[:, 1].mean(), s[:, 0].mean(), s[:, 1].mean(),
            s[:, 0].mean() - n[:, 0].mean(), s[:, 1].mean() - n[:, 1].mean(),
            np.concatenate([n[:, 2], s[:, 2]]).mean()))
    lines += ["", "Per seed (regret, violation):", ""]
    for name, res in rows:
        for units in ("natural", "scaled"):
            lines.append("- %s, %s: %s" % (name, units, ", ".join(
                "(%.4f, %.4f)" % (r, v) for r, v, _ in res[units])))
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "values":
        write_values("problem/testdata/suite_values.json")
    elif cmd == "run":
        T, seeds, only, out = 200, 3, None, "docs/suite_reference.md"
        if len(sys.argv) > 2:
            T = int(sys.argv[2])
        if len(sys.argv) > 3:
            seeds = int(sys.argv[3])
        if len(sys.argv) > 4:
            only = sys.argv[4].split(",")
            unknown = set(only) - {p["name"] for p in PROBLEMS}
            if unknown:
                sys.exit("unknown problems: %s" % ", ".join(sorted(unknown)))
        if len(sys.argv) > 5:
            out = sys.argv[5]
        rows = run_all(T, seeds, only)
        write_report(rows, out, T, seeds)
    else:
        sys.exit("usage: suite_reference.py values | run [T [seeds [problem,... [OUT.md]]]]")
