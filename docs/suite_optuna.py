#!/usr/bin/python3
"""Optuna's constrained TPE on the practical-defaults suite (docs/parallel.md, docs/defaults.md).

The peer a user would pick instead of cbandit, run on the suite's own
problems with the suite's noise, horizon, seeds and scoring. The problems,
their facts (ranges, optimum), the noisy measurement of round t and the
scores are those of docs/suite_reference.py, imported as a module (not
copied): the noise of round t comes from the reference's stream of
(seed, problem, t), so this script meets the same noise as the scikit-learn
reference loop (not the Go runner's, which draws from its own generator).

Per problem, unit system ("natural", and "scaled": every metric m -> 1000 m
+ 50, thresholds likewise), seed (1..3) and mode, one Optuna study:

- sampler: `optuna.samplers.TPESampler(seed=seed, constraints_func=...)`,
  defaults otherwise (independent TPE, 10 random startup trials, 24 EI
  candidates, default gamma); in the parallel modes also
  `constant_liar=True` (Optuna's answer to pending trials: a running trial
  counts as the worst observation, and, with constraints, as infeasible
  with infinite violation);
- the search space: one FloatDistribution per coordinate over the box;
- the study's direction is the problem's goal (every suite objective is
  minimised); the value told is the noisy objective in the unit system;
- the constraints are metric - threshold <= 0 computed from the noisy
  observations in the unit system (as a user would give them), stored as a
  user attribute before `study.tell` and returned by `constraints_func`.

Modes (T evaluations in every mode; "round t" is the t-th suggestion, in
the order asked, and its noise is that of round t):

- `sequential`: ask one trial, tell it, T times;
- `batch-4`, `batch-8`: ask q trials, then tell all q (in the order asked);
  q parallel workers emulated deterministically;
- `async-4`, `async-8`: q workers: ask q trials, then repeatedly tell the
  oldest running trial and ask a new one (q - 1 trials pending at every ask
  after the first q);
- controls, only when named in --modes: `batch-4-nolie`, `batch-8-nolie`,
  `async-4-nolie`, the same without `constant_liar`.

Scores (suite/doc.go, docs/suite.md; the reference's `score`): on the true
noise-free functions in natural units over rounds t > T/2: late normalised
regret = mean (f* - f(x_t)) / range(f), late violation = mean max_j
[g_j(x_t)]+ / range(g_j) (per round). For the parallel modes also the
fraction of the T suggestions that lie within 1e-3 x the box diameter
(Euclidean, in the box's own coordinates) of a trial still running when it
was asked (docs/parallel.md's duplicate measure); in the unit cube as well in the
JSON. Mean over seeds.

Run by hand from the repository root with Debian's python and optuna
(apt-get install python3-optuna python3-sklearn; Optuna 3.1.0), never in CI:

    OMP_NUM_THREADS=1 nice /usr/bin/python3 docs/suite_optuna.py run
    OMP_NUM_THREADS=1 nice /usr/bin/python3 docs/suite_optuna.py run --modes sequential,batch-4,batch-8,async-4 \\
        --seeds 10 --units natural --json docs/suite_optuna_seeds10.json --md docs/suite_optuna_seeds10.md
    /usr/bin/python3 docs/suite_optuna.py report     # docs/suite_optuna.md again from the JSON
    OMP_NUM_THREADS=1 nice /usr/bin/python3 docs/suite_optuna.py run --modes batch-4-nolie,batch-8-nolie,async-4-nolie \\
        --json /tmp/nolie.json --md /tmp/nolie.md
    /usr/bin/python3 docs/suite_optuna.py merge /tmp/nolie.json   # its modes added to docs/suite_optuna.{json,md}

`run` writes docs/suite_optuna.json (every seed; rewritten after every
problem, so an interrupted run keeps what it did) and docs/suite_optuna.md;
docs/suite_optuna.md also sets the 10-seed run beside the 3-seed one when
docs/suite_optuna_seeds10.json exists (--compare). The defaults run about
7 minutes, the controls 4 and the 10-seed run 9 on one core here.
"""

import argparse
import importlib.util
import json
import math
import os
import sys
import time
import warnings

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("suite_reference", os.path.join(HERE, "suite_reference.py"))
ref = importlib.util.module_from_spec(_spec)
try:
    _spec.loader.exec_module(ref)
except ImportError as _e:  # scipy/scikit-learn absent: only the systems commands run
    ref, _REF_ERROR = None, _e

MODES = {  # name -> (kind, q, constant_liar)
    "sequential": ("sequential", 1, False),
    "batch-4": ("batch", 4, True),
    "batch-8": ("batch", 8, True),
    "async-4": ("async", 4, True),
    "async-8": ("async", 8, True),
    # controls, not in the default run: the same without the constant liar
    "batch-4-nolie": ("batch", 4, False),
    "batch-8-nolie": ("batch", 8, False),
    "async-4-nolie": ("async", 4, False),
}
DEFAULT_MODES = "sequential,batch-4,batch-8,async-4,async-8"
UNITS = ("natural", "scaled")
DUP_FRACTION = 1e-3  # of the box diameter

# The quoted figures for sequential TPE (late normalised regret).
ISSUE25 = {"hartmann6": 0.127, "ackley3": 0.252, "pressure-vessel": 0.078,
           "gardner": 0.106, "gramacy": 0.045, "branin": 0.021}


def constraints_func(trial):
    return trial.user_attrs["constraints"]


def run_one(pi, p, fa, seed, units, T, mode):
    """One study; returns the scores, the duplicate fractions and the time."""
    kind, q, liar = MODES[mode]
    d = len(p["lo"])
    lo, hi = np.array(p["lo"], float), np.array(p["hi"], float)
    diam = float(np.linalg.norm(hi - lo))
    thr = ref.thresholds(p, units)
    m = len(p["cons"])
    names = ["x%d" % k for k in range(d)]
    dists = {names[k]: FloatDistribution(float(lo[k]), float(hi[k])) for k in range(d)}
    sampler = optuna.samplers.TPESampler(seed=seed, constraints_func=constraints_func,
                                         constant_liar=liar)
    study = optuna.create_study(direction=p["goal"], sampler=sampler)

    xs = []  # the suggestions in the order asked (round t = index + 1)
    running = []  # (trial, t, x), oldest first
    dup, dup_unit = 0, 0

    def ask():
        nonlocal dup, dup_unit
        trial = study.ask(dists)
        x = np.array([trial.params[n] for n in names])
        if running:
            P = np.array([r[2] for r in running])
            if np.min(np.linalg.norm(P - x, axis=1)) <= DUP_FRACTION * diam:
                dup += 1
            if np.min(np.linalg.norm((P - x) / (hi - lo), axis=1)) <= DUP_FRACTION * math.sqrt(d):
                dup_unit += 1
        xs.append(x)
        running.append((trial, len(xs), x))

    def tell_oldest():
        trial, t, x = running.pop(0)
        fobs, cobs = ref.observe(pi, p, fa, x, seed, t, units)
        trial.set_user_attr("constraints", [float(cobs[j] - thr[j]) for j in range(m)])
        study.tell(trial, float(fobs))

    t0 = time.time()
    if kind == "sequential":
        for _ in range(T):
            ask()
            tell_oldest()
    elif kind == "batch":
        while len(xs) < T:
            for _ in range(min(q, T - len(xs))):
                ask()
            while running:
                tell_oldest()
    else:  # async
        for _ in range(min(q, T)):
            ask()
        while running:
            tell_oldest()
            if len(xs) < T:
                ask()
    secs = time.time() - t0
    assert len(xs) == T and len(study.trials) == T
    assert all(tr.state == optuna.trial.TrialState.COMPLETE for tr in study.trials)
    reg, vio = ref.score(p, fa, xs, T)
    return {"seed": seed, "regret": reg, "violation": vio, "dup": dup / T, "dup_unit_cube": dup_unit / T,
            "s_per_trial": secs / T}


def run(args):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    facts = ref.load_facts()
    modes = args.modes.split(",")
    for mo in modes:
        if mo not in MODES:
            sys.exit("unknown mode %s (have %s)" % (mo, ", ".join(MODES)))
    probs = [(pi, p) for pi, p in enumerate(ref.PROBLEMS) if not args.problems or p["name"] in args.problems.split(",")]
    out = {"made_by": "docs/suite_optuna.py " + " ".join(sys.argv[1:]), "optuna": optuna.__version__, "numpy": np.__version__,
           "python": sys.version.split()[0], "T": args.T, "seeds": list(range(1, args.seeds + 1)),
           "units": args.units.split(","), "dup_fraction_of_diameter": DUP_FRACTION, "modes": {},
           "wall_seconds": {}}
    start = time.time()
    for mo in modes:
        t_mode = time.time()
        out["modes"][mo] = {}
        for pi, p in probs:
            res = {}
            for units in out["units"]:
                per = []
                for s in out["seeds"]:
                    r = run_one(pi, p, facts[p["name"]], s, units, args.T, mo)
                    per.append(r)
                    print("%s %s %s seed %d: regret %.4f violation %.4f dup %.3f %.1f ms/trial" % (
                        mo, p["name"], units, s, r["regret"], r["violation"], r["dup"], 1e3 * r["s_per_trial"]),
                        file=sys.stderr, flush=True)
                res[units] = {"regret": float(np.mean([r["regret"] for r in per])),
                              "violation": float(np.mean([r["violation"] for r in per])),
                              "dup": float(np.mean([r["dup"] for r in per])),
                              "dup_unit_cube": float(np.mean([r["dup_unit_cube"] for r in per])),
                              "s_per_trial": float(np.mean([r["s_per_trial"] for r in per])),
                              "per_seed": per}
            out["modes"][mo][p["name"]] = res
            out["wall_seconds"][mo] = time.time() - t_mode
            out["wall_seconds"]["total"] = time.time() - start
            with open(args.json, "w") as fh:
                json.dump(out, fh, indent=1)
                fh.write("\n")
    write_md(out, args.md, load_compare(args.compare))


def write_md(out, path, compare=None):
    """The report; compare: another run's JSON (e.g. more seeds), shown beside this one by mode."""
    T, seeds = out["T"], len(out["seeds"])
    units_run = out.get("units", list(UNITS))
    both = len(units_run) == 2
    L = [
        "# The practical-defaults suite: Optuna's constrained TPE",
        "",
        "Made by `OMP_NUM_THREADS=1 nice /usr/bin/python3 %s` (Optuna %s, numpy %s,"
        " Python %s; Debian's `python3-optuna`), which imports the problems, the noisy measurement and the"
        " scoring of `docs/suite_reference.py`. Every study: `TPESampler(seed=seed, constraints_func=...)`,"
        " defaults otherwise (`constant_liar=True` in the parallel modes); one float parameter per"
        " coordinate over the box; direction = the problem's goal (minimise); the value told is the"
        " noisy objective and the constraints are noisy metric − threshold ≤ 0, both in the study's unit"
        " system. T = %d, %d seeds (TPE seed = suite seed), unit systems: %s; noise std 2 %% of each"
        " metric's range (the reference's stream of (seed, problem, round), so the same noise as"
        " docs/suite_reference.md, not as the Go runs). Scores over rounds t > T/2 on the true functions"
        " in natural units: late regret = mean (f* − f(x_t)) / range(f); late violation = mean max_j"
        " [g_j(x_t)]⁺ / range(g_j) (per round). Mean over seeds; Δ = scaled − natural. Round t is the"
        " t-th suggestion in the order asked."
        % (out["made_by"], out["optuna"], out["numpy"], out["python"], T, seeds, ", ".join(units_run)),
        "",
        "Modes: `sequential` (ask, tell); `batch-q` (ask q trials, then tell all q); `async-q` (q workers:"
        " keep q trials running, tell the oldest, ask a new one); `*-nolie`: the same without"
        " `constant_liar` (controls). **dup** = fraction of the T suggestions within %g × the box diameter"
        " (Euclidean, box coordinates) of a trial running when it was asked (docs/parallel.md's measure; 0 by"
        " construction in `sequential`)." % out["dup_fraction_of_diameter"],
        "",
        "How to read it:",
        "",
        "- TPE uses only the order of the objective values and of the summed positive constraint values"
        " (feasible trials first, by objective; infeasible ones by summed violation); m ↦ 1000·m + 50"
        " keeps both orders, so the two unit systems give the same suggestions and Δ = 0.",
        "- With `constant_liar=True` Optuna 3.1 counts a running trial as the worst one: objective +∞"
        " and, with constraints, infeasible with violation +∞. It lands in the \"above\" Parzen"
        " estimator, which steers new samples away from it; the number of \"below\" trials is set by the"
        " completed trials only. The 10 random startup trials count completed trials, so in `batch-8`"
        " the first 16 suggestions are random.",
        "- dup in box coordinates: on pressure-vessel the box diameter (≈ 233) is set by L ∈ [10, 240],"
        " so the tolerance is loose in Tₛ, Tₕ ∈ [0, 1]; the JSON also has `dup_unit_cube` (distance in"
        " the unit cube ≤ 10⁻³·√d).",
        "- A few seeds are few for TPE: per seed, late regret on gramacy is either ≈ 0 or ≈ 0.12 (the"
        " run settles near the global minimum or near the local one at (0, 0.75)); on hartmann6 it ranges"
        " from 0.10 to 0.50 (e.g. seed 1 of `batch-4` stays in another basin, late x ≈ (0.40, 0.73, 0.06,"
        " 0.53, 0.11, 0.08)); differences between modes of that size are within the seed-to-seed spread"
        " (see the comparison with more seeds below, where there is one).",
        "",
    ]
    for mo, probs in out["modes"].items():
        kind, q, liar = MODES[mo]
        L.append("## %s (constant_liar=%s)" % (mo, liar))
        L.append("")
        cols = []
        for u in units_run:
            cols += ["regret (%s)" % u, "violation (%s)" % u]
        if both:
            cols += ["Δ regret", "Δ violation"]
        if kind != "sequential":
            cols += ["dup (%s)" % u for u in units_run]
        cols.append("ms/trial")
        L += ["| problem | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
        for name, res in probs.items():
            cells = []
            for u in units_run:
                cells += ["%.4f" % res[u]["regret"], "%.4f" % res[u]["violation"]]
            if both:
                n, sc = res["natural"], res["scaled"]
                cells += ["%+.4f" % (sc["regret"] - n["regret"]), "%+.4f" % (sc["violation"] - n["violation"])]
            if kind != "sequential":
                cells += ["%.3f" % res[u]["dup"] for u in units_run]
            cells.append("%.1f" % (1e3 * np.mean([res[u]["s_per_trial"] for u in units_run])))
            L.append("| %s | " % name + " | ".join(cells) + " |")
        L += ["", "Wall time of the mode (%d studies of %d trials): %.0f s." % (
            len(probs) * len(units_run) * seeds, T, out["wall_seconds"].get(mo, float("nan"))), ""]
    u0 = units_run[0]
    if len(out["modes"]) > 1:
        L += ["## Late regret / late violation (%s units) by mode" % u0, ""]
        mos = list(out["modes"])
        L.append("| problem | " + " | ".join(mos) + " |")
        L.append("|---|" + "---|" * len(mos))
        for name in next(iter(out["modes"].values())):
            L.append("| %s | " % name + " | ".join(
                "%.4f / %.4f" % (out["modes"][mo][name][u0]["regret"], out["modes"][mo][name][u0]["violation"])
                if name in out["modes"][mo] else "" for mo in mos) + " |")
        L += ["", "(mean over seeds)", ""]
    if "sequential" in out["modes"]:
        seq = out["modes"]["sequential"]
        L += ["## Sequential TPE against the quoted figures", "",
              "| problem | quoted | this run: regret (%s) | seeds: min … max | late violation |" % u0,
              "|---|---|---|---|---|"]
        for name, v in ISSUE25.items():
            if name not in seq:
                continue
            per = [r["regret"] for r in seq[name][u0]["per_seed"]]
            L.append("| %s | %.3f | %.4f | %.4f … %.4f | %.4f |" % (
                name, v, seq[name][u0]["regret"], min(per), max(per), seq[name][u0]["violation"]))
        over = [name for name in seq if seq[name][u0]["violation"] > 0.01]
        L += ["", "Late violation above 0.01 (the bar for cbandit, docs/defaults.md): %s." % (", ".join(over) or "none"), ""]
    if compare is not None:
        L += ["## Beside a run over %d seeds (%s units; %s)" % (
            len(compare["seeds"]), ", ".join(compare.get("units", list(UNITS))), compare.get("file", "")), "",
              "Late regret / late violation, natural units, mean over seeds; ± is the standard error of the"
              " mean over the %d seeds. Seeds 1–%d of both runs are the same studies." % (
                  len(compare["seeds"]), min(len(compare["seeds"]), seeds)), "",
              "| problem | mode | %d seeds | %d seeds |" % (seeds, len(compare["seeds"])), "|---|---|---|---|"]
        for name in next(iter(compare["modes"].values())):
            for mo, probs in compare["modes"].items():
                if name not in probs or mo not in out["modes"] or name not in out["modes"][mo]:
                    continue
                a, b = out["modes"][mo][name]["natural"], probs[name]["natural"]
                rb = [r["regret"] for r in b["per_seed"]]
                L.append("| %s | %s | %.4f / %.4f | %.4f ± %.4f / %.4f |" % (
                    name, mo, a["regret"], a["violation"], b["regret"],
                    np.std(rb, ddof=1) / math.sqrt(len(rb)) if len(rb) > 1 else float("nan"), b["violation"]))
        L.append("")
    L += ["## Per seed (regret, violation, dup)", ""]
    for mo, probs in out["modes"].items():
        for name, res in probs.items():
            for units in units_run:
                L.append("- %s, %s, %s: %s" % (mo, name, units, ", ".join(
                    "(%.4f, %.4f, %.3f)" % (r["regret"], r["violation"], r["dup"]) for r in res[units]["per_seed"])))
    L.append("")
    ws = out["wall_seconds"]
    L.append("Wall time: %s; total %.0f s, on one core of a shared 2-core machine." % (", ".join(
        "%s %.0f s" % (k, v) for k, v in ws.items() if k != "total"), ws.get("total", float("nan"))))
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n")


def load_compare(path):
    if not path:
        return None
    with open(path) as fh:
        o = json.load(fh)
    o["file"] = path
    return o


def merge(args):
    """Add the modes of other runs' JSON files (same T, seeds, units) to --json; rewrite --md."""
    with open(args.json) as fh:
        out = json.load(fh)
    for path in args.files:
        with open(path) as fh:
            o = json.load(fh)
        for k in ("T", "seeds", "optuna", "dup_fraction_of_diameter"):
            if o.get(k) != out.get(k):
                sys.exit("%s: %s differs (%r, %r)" % (path, k, o.get(k), out.get(k)))
        if o.get("units", list(UNITS)) != out.get("units", list(UNITS)):
            sys.exit("%s: units differ" % path)
        out["modes"].update(o["modes"])
        out["made_by"] += "; " + o["made_by"] + "; docs/suite_optuna.py merge " + path
        for k, v in o["wall_seconds"].items():
            if k == "total":
                out["wall_seconds"]["total"] = out["wall_seconds"].get("total", 0.0) + v
            else:
                out["wall_seconds"][k] = v
    with open(args.json, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    write_md(out, args.md, load_compare(args.compare))



# ---------------------------------------------------------------------------
# The systems suite (problem/systems.go, docs/systems.md), stated again here
# independently of the Go code: the problems, their Halton ranges and
# optima, and the systems scores of suite/systems.go (best feasible value
# within T, gap to f*, shares of evaluations that crashed, or crashed or
# broke a limit). Samplers: TPE (independent, Optuna's default), TPE with
# multivariate=True (Falkner et al. 2018's joint Parzen estimators), and
# random search; sequential ask/tell, natural units.

def _crash_tau(x):
    t, b, s = x
    return (4 + 0.5 * b) * (1 + 0.1 * s) * (1 + t / 8)


def _crash_goodput(x):
    s = x[2]
    return 1000 * x[0] * x[1] / _crash_tau(x) * s / (s + 1)


def _crash_memory(x):
    return 0.05 * x[0] * x[1] * x[2] + 2


_COMP_THR, _COMP_CPU, _COMP_MEM = (1, 0.97, 0.9), (1, 1.1, 1.4), (1, 0.6, 0.4)
_SCHED_THR, _SCHED_LAT = (1, 0.95, 0.9), (1, 0.85, 0.75)


def _typed_parts(x):
    w, b, q, r = (round(v) for v in x[:4])
    c, s = int(round(x[6])), int(round(x[7]))
    base = r ** 0.8 * 100 * w / (1 + w / 6) * b / (1 + b / 16) * (1 + 0.4 * q / (q + 2)) * _COMP_THR[c] * _SCHED_THR[s]
    lat = (2 + 0.8 * b * _COMP_CPU[c]) * (1 + 0.08 * q) * (1 + w / (3 * r)) * _SCHED_LAT[s]
    mem = 2.5 * r + 0.02 * w * b * r * _COMP_MEM[c] + 0.1 * q * r
    return base, lat, mem


def _typed_thr(x):
    base, _, _ = _typed_parts(x)
    return base * math.exp(-0.1 * math.log(x[4] / 200) ** 2) * (1 - 0.5 * (x[5] - 0.6) ** 2)


def _typed_lat(x):
    return _typed_parts(x)[1] * (1 + 0.3 * x[5])


def _typed_mem(x):
    return _typed_parts(x)[2] * (1.5 - x[5])


def _speed(x):
    x1, x2, x3, x4, x5, x6, x7 = x
    return (0.7854 * x1 * x2 ** 2 * (3.3333 * x3 ** 2 + 14.9334 * x3 - 43.0934) - 1.508 * x1 * (x6 ** 2 + x7 ** 2)
            + 7.4777 * (x6 ** 3 + x7 ** 3) + 0.7854 * (x4 * x6 ** 2 + x5 * x7 ** 2))


_SPEED_CONS = [  # metric <= threshold (Lemonge et al. 2010 section 4.2; BoTorch's SpeedReducer)
    (lambda x: 27 / (x[0] * x[1] ** 2 * x[2]), 1.0),
    (lambda x: 397.5 / (x[0] * x[1] ** 2 * x[2] ** 2), 1.0),
    (lambda x: 1.93 * x[3] ** 3 / (x[1] * x[2] * x[5] ** 4), 1.0),
    (lambda x: 1.93 * x[4] ** 3 / (x[1] * x[2] * x[6] ** 4), 1.0),
    (lambda x: math.sqrt((745 * x[3] / (x[1] * x[2])) ** 2 + 16.9e6) / (0.1 * x[5] ** 3), 1100.0),
    (lambda x: math.sqrt((745 * x[4] / (x[1] * x[2])) ** 2 + 157.5e6) / (0.1 * x[6] ** 3), 850.0),
    (lambda x: x[1] * x[2], 40.0),
    (lambda x: -x[0] / x[1], -5.0),
    (lambda x: x[0] / x[1], 12.0),
    (lambda x: (1.5 * x[5] + 1.9) / x[3], 1.0),
    (lambda x: (1.1 * x[6] + 1.9) / x[4], 1.0),
]


def _ackley(x):
    d = len(x)
    return (-20 * math.exp(-0.2 * math.sqrt(sum(v * v for v in x) / d))
            - math.exp(sum(math.cos(2 * math.pi * v) for v in x) / d) + 20 + math.e)


def _l2norm(x):
    return math.sqrt(sum(v * v for v in x))


def _levy(x):
    w = [1 + (v - 1) / 4 for v in x]
    f = math.sin(math.pi * w[0]) ** 2
    for wi in w[:-1]:
        f += (wi - 1) ** 2 * (1 + 10 * math.sin(math.pi * wi + 1) ** 2)
    return f + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)


_TYPED_PARAMS = [  # (name, kind, low, high, log) or (name, "categorical", choices)
    ("workers", "int", 1, 16, False), ("batch", "int", 1, 64, True), ("queue", "int", 1, 8, False),
    ("replicas", "int", 1, 8, False), ("timeout_ms", "float", 10.0, 1000.0, True), ("gc", "float", 0.1, 0.9, False),
    ("compression", "categorical", ("none", "lz4", "zstd")), ("scheduler", "categorical", ("fifo", "fair", "priority")),
]

# f* and a point attaining it, as problem.SuiteFacts states them (Go); the
# script re-evaluates both with the definitions above (check_systems) and
# enumerates typed's optimum itself.
SYSTEMS = [
    dict(name="crash", lo=[1, 1, 0.5], hi=[32, 32, 8], obj=_crash_goodput, goal="maximize",
         cons=[(_crash_tau, 60.0)], hidden=(_crash_memory, 48.0, "OOM"),
         opt=4618.8789513625798, xopt=[19.914854659021305, 19.91485766048999, 2.3197088503065997]),
    dict(name="typed", params=_TYPED_PARAMS, obj=_typed_thr, goal="maximize",
         cons=[(_typed_lat, 50.0), (_typed_mem, 16.0)],
         opt=14100.418751351808, xopt=[14, 15, 2, 6, 200, 0.89117199391172, 2, 0]),
    dict(name="ackley10", lo=[-5] * 10, hi=[10] * 10, obj=_ackley, goal="minimize",
         cons=[(lambda x: sum(x), 0.0), (_l2norm, 5.0)], opt=0.0, xopt=[0.0] * 10),
    dict(name="speed-reducer", lo=[2.6, 0.7, 17, 7.3, 7.8, 2.9, 5.0], hi=[3.6, 0.8, 28, 8.3, 8.3, 3.9, 5.5], obj=_speed,
         goal="minimize", cons=_SPEED_CONS, opt=2996.34816496853,
         xopt=[3.500000000000001, 0.7, 17, 7.300000000000014, 7.8, 3.350214666096449, 5.286683229757916]),
    dict(name="levy20", lo=[-10] * 20, hi=[10] * 20, obj=_levy, goal="minimize",
         cons=[(lambda x: sum(x), 20.0), (_l2norm, 5.0)], opt=0.0, xopt=[1.0] * 20),
]
for _p in SYSTEMS:
    if "params" in _p:
        _p["lo"] = [q[2] if q[1] != "categorical" else 0 for q in _p["params"]]
        _p["hi"] = [q[3] if q[1] != "categorical" else len(q[2]) - 1 for q in _p["params"]]

SAMPLERS = ("tpe", "tpe-multivariate", "random")
SYSTEMS_HALTON_N = 20000  # problem.SuiteHaltonN


def _primes(n):
    out, c = [], 2
    while len(out) < n:
        if all(c % p for p in out):
            out.append(c)
        c += 1
    return out


def _halton(n, d):
    """Points i = 1..n of the Halton sequence in [0,1)^d (bases 2, 3, 5, ...)."""
    out = np.zeros((n, d))
    for k, b in enumerate(_primes(d)):
        idx = np.arange(1, n + 1)
        f, r = np.ones(n), np.zeros(n)
        while np.any(idx > 0):
            f = f / b
            r = r + f * (idx % b)
            idx = idx // b
        out[:, k] = r
    return out


def _snap(p, x):
    if "params" not in p:
        return list(x)
    y = list(x)
    for k, q in enumerate(p["params"]):
        if q[1] == "int":
            y[k] = float(min(max(round(y[k]), q[2]), q[3]))
        elif q[1] == "categorical":
            y[k] = float(min(max(round(y[k]), 0), len(q[2]) - 1))
    return y


def systems_facts(p):
    """Ranges of every metric over the (snapped) Halton sample of SYSTEMS_HALTON_N points."""
    lo, hi = np.array(p["lo"], float), np.array(p["hi"], float)
    pts = [_snap(p, x) for x in lo + (hi - lo) * _halton(SYSTEMS_HALTON_N, len(lo))]
    vals = np.array([[p["obj"](x)] + [c(x) for c, _ in p["cons"]] for x in pts])
    a, b = vals.min(axis=0), vals.max(axis=0)
    return {"obj_range": [a[0], b[0]], "cons_range": [[a[j], b[j]] for j in range(1, len(a))], "opt": p["opt"]}


def _crashes(p, x):
    h = p.get("hidden")
    return h[2] if h is not None and not h[0](x) <= h[1] else ""


def check_systems():
    """The stated optima: attained at the stated points (1e-9), which run and meet every limit
    (speed-reducer to 1e-9 relative); typed's optimum by a numpy enumeration of its discrete values."""
    for p in SYSTEMS:
        x = p["xopt"]
        f = p["obj"](x)
        assert abs(f - p["opt"]) <= 1e-9 * max(1, abs(p["opt"])), (p["name"], f, p["opt"])
        assert not _crashes(p, x), p["name"]
        for c, t in p["cons"]:
            assert c(x) <= t + 1e-9 * max(1, abs(t)), (p["name"], c(x), t)
    # typed: for each discrete combination the best timeout is 200 ms and the best gc is 0.6 clipped
    # to the interval the limits allow (docs/systems.md).
    W, B, Q, R, C, S = np.meshgrid(np.arange(1, 17), np.arange(1, 65), np.arange(1, 9), np.arange(1, 9),
                                   np.arange(3), np.arange(3), indexing="ij")
    ct, cc, cm, st, sl = (np.array(v) for v in (_COMP_THR, _COMP_CPU, _COMP_MEM, _SCHED_THR, _SCHED_LAT))
    base = R ** 0.8 * 100 * W / (1 + W / 6) * B / (1 + B / 16) * (1 + 0.4 * Q / (Q + 2)) * ct[C] * st[S]
    lat = (2 + 0.8 * B * cc[C]) * (1 + 0.08 * Q) * (1 + W / (3 * R)) * sl[S]
    mem = 2.5 * R + 0.02 * W * B * R * cm[C] + 0.1 * Q * R
    lo, hi = np.maximum(0.1, 1.5 - 16 / mem), np.minimum(0.9, (50 / lat - 1) / 0.3)
    gc = np.clip(0.6, lo, hi)
    f = np.where(lo <= hi, base * (1 - 0.5 * (gc - 0.6) ** 2), -np.inf)
    typed = next(p for p in SYSTEMS if p["name"] == "typed")
    assert abs(f.max() - typed["opt"]) <= 1e-9 * typed["opt"], (f.max(), typed["opt"])


def systems_observe(k, p, fa, x, seed, t, noise_free=False):
    """Noisy metrics at x in round t (natural units; std 2 % of each range), from a stream of
    (seed, 100 + problem index, round); exact with noise_free (cbandit suite --noise-free)."""
    m = len(p["cons"])
    noise = [0.02 * (fa["obj_range"][1] - fa["obj_range"][0])] + [0.02 * (r[1] - r[0]) for r in fa["cons_range"]]
    if noise_free:
        noise = [0.0] * (1 + m)
    z = np.random.default_rng([seed, 100 + k, t, 11]).standard_normal(1 + m)
    return p["obj"](x) + noise[0] * z[0], [p["cons"][j][0](x) + noise[1 + j] * z[1 + j] for j in range(m)]


def systems_score(p, fa, xs):
    """suite.ScoreSystems: best feasible value within T and its gap; shares failed / failed or broke a limit."""
    T = len(xs)
    sign = 1.0 if p["goal"] == "maximize" else -1.0
    best, failed, bad, failed_late, bad_late, late = None, 0, 0, 0, 0, 0
    for t, x in enumerate(xs, start=1):
        is_late = t > T // 2
        late += is_late
        if _crashes(p, x):
            failed, bad = failed + 1, bad + 1
            failed_late, bad_late = failed_late + is_late, bad_late + is_late
            continue
        if not all(c(x) <= thr for c, thr in p["cons"]):
            bad += 1
            bad_late += is_late
            continue
        f = p["obj"](x)
        if best is None or sign * f > sign * best:
            best = f
    gap = None
    if best is not None:
        gap = abs(best - fa["opt"]) / (abs(fa["opt"]) if fa["opt"] != 0 else 1.0)
    return {"best": best, "gap": gap, "failed": failed / T, "failed_late": failed_late / late,
            "bad": bad / T, "bad_late": bad_late / late}


def systems_run_one(k, p, fa, seed, T, sampler_name, noise_free=False):
    d = len(p["lo"])
    names, dists = [], {}
    if "params" in p:
        for q in p["params"]:
            names.append(q[0])
            if q[1] == "int":
                dists[q[0]] = IntDistribution(q[2], q[3], log=q[4])
            elif q[1] == "float":
                dists[q[0]] = FloatDistribution(q[2], q[3], log=q[4])
            else:
                dists[q[0]] = CategoricalDistribution(list(q[2]))
    else:
        for j in range(d):
            names.append("x%d" % j)
            dists["x%d" % j] = FloatDistribution(float(p["lo"][j]), float(p["hi"][j]))
    if sampler_name == "random":
        sampler = optuna.samplers.RandomSampler(seed=seed)
    else:
        sampler = optuna.samplers.TPESampler(seed=seed, constraints_func=constraints_func,
                                             multivariate=sampler_name == "tpe-multivariate")
    study = optuna.create_study(direction=p["goal"], sampler=sampler)
    thr = [t for _, t in p["cons"]]
    xs = []
    t0 = time.time()
    for t in range(1, T + 1):
        trial = study.ask(dists)
        x = []
        for j, n in enumerate(names):
            v = trial.params[n]
            if "params" in p and p["params"][j][1] == "categorical":
                v = p["params"][j][2].index(v)
            x.append(float(v))
        xs.append(x)
        if _crashes(p, x):
            # A crash: the trial fails (Optuna's samplers learn nothing from it).
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        fobs, cobs = systems_observe(k, p, fa, x, seed, t, noise_free)
        trial.set_user_attr("constraints", [float(cobs[j] - thr[j]) for j in range(len(thr))])
        study.tell(trial, float(fobs))
    secs = time.time() - t0
    r = systems_score(p, fa, xs)
    r.update(seed=seed, s_per_trial=secs / T)
    return r


def run_systems(args):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    check_systems()
    samplers = args.samplers.split(",")
    for s in samplers:
        if s not in SAMPLERS:
            sys.exit("unknown sampler %s (have %s)" % (s, ", ".join(SAMPLERS)))
    probs = [(k, p) for k, p in enumerate(SYSTEMS) if not args.problems or p["name"] in args.problems.split(",")]
    out = {"made_by": "docs/suite_optuna.py " + " ".join(sys.argv[1:]), "optuna": optuna.__version__,
           "numpy": np.__version__, "python": sys.version.split()[0], "T": args.T, "noise_free": args.noise_free,
           "seeds": list(range(1, args.seeds + 1)), "samplers": {}, "wall_seconds": {}}
    start = time.time()
    facts = {p["name"]: systems_facts(p) for _, p in probs}
    for s in samplers:
        t_s = time.time()
        out["samplers"][s] = {}
        for k, p in probs:
            per = []
            for seed in out["seeds"]:
                r = systems_run_one(k, p, facts[p["name"]], seed, args.T, s, args.noise_free)
                per.append(r)
                print("%s %s seed %d: best %s gap %s failed %.3f bad %.3f bad late %.3f %.1f ms/trial" % (
                    s, p["name"], seed, r["best"], r["gap"], r["failed"], r["bad"], r["bad_late"],
                    1e3 * r["s_per_trial"]), file=sys.stderr, flush=True)
            found = [r for r in per if r["best"] is not None]
            out["samplers"][s][p["name"]] = {
                "opt": p["opt"], "runs": len(per), "found": len(found),
                "best": float(np.mean([r["best"] for r in found])) if found else None,
                "gap": float(np.mean([r["gap"] for r in found])) if found else None,
                "gap_median": float(np.median([r["gap"] for r in found])) if found else None,
                **{key: float(np.mean([r[key] for r in per])) for key in ("failed", "failed_late", "bad", "bad_late", "s_per_trial")},
                "per_seed": per}
            out["wall_seconds"][s] = time.time() - t_s
            out["wall_seconds"]["total"] = time.time() - start
            with open(args.json, "w") as fh:
                json.dump(out, fh, indent=1)
                fh.write("\n")
    write_systems_md(out, args.md)


def write_systems_md(out, path):
    T, seeds = out["T"], len(out["seeds"])
    L = ["# The systems suite: Optuna's TPE (independent and multivariate) and random search", "",
         "Made by `OMP_NUM_THREADS=1 nice /usr/bin/python3 %s` (Optuna %s, numpy %s, Python %s). Every study:"
         " sequential ask/tell, T = %d, seeds 1–%d (sampler seed = suite seed); `TPESampler(seed, constraints_func)`"
         " with `multivariate=False` (tpe) or `True` (tpe-multivariate), or `RandomSampler(seed)`; typed's study"
         " has Optuna's own int (log for batch), float (log for timeout_ms) and categorical distributions; a crash"
         " is told as `TrialState.FAIL`. The value told is the noisy objective, the constraints noisy metric −"
         " threshold (noise std 2 %% of each metric's range over the box, natural units). Scores on the true"
         " functions: best = best feasible objective within T, mean over the seeds that found one (found); gap ="
         " |best − f*|/|f*| (absolute when f* = 0), mean and median over the same seeds; failed = share of the T"
         " evaluations that crashed; bad = share that crashed or broke a limit; late = over t > T/2; shares mean"
         " over seeds." % (out["made_by"], out["optuna"], out["numpy"], out["python"], T, seeds), ""]
    if out.get("noise_free"):
        L += ["**Noise-free** (`--noise-free`): the values told are the true metrics, as `cbandit suite --noise-free` tells them.", ""]
    L += ["| problem | sampler | f* | best | gap (mean) | gap (median) | found | failed | failed late | bad | bad late | ms/trial |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    names = list(next(iter(out["samplers"].values())))
    for name in names:
        for s, probs in out["samplers"].items():
            r = probs.get(name)
            if r is None:
                continue
            fmt = lambda v, f: "–" if v is None else f % v
            L.append("| %s | %s | %.6g | %s | %s | %s | %d/%d | %.3f | %.3f | %.3f | %.3f | %.1f |" % (
                name, s, r["opt"], fmt(r["best"], "%.6g"), fmt(r["gap"], "%.4g"), fmt(r["gap_median"], "%.4g"),
                r["found"], r["runs"], r["failed"], r["failed_late"], r["bad"], r["bad_late"], 1e3 * r["s_per_trial"]))
    L += ["", "## Per seed (best, failed, bad)", ""]
    for s, probs in out["samplers"].items():
        for name, r in probs.items():
            L.append("- %s, %s: %s" % (s, name, ", ".join(
                "(%s, %.3f, %.3f)" % ("–" if q["best"] is None else "%.6g" % q["best"], q["failed"], q["bad"])
                for q in r["per_seed"])))
    ws = out["wall_seconds"]
    L += ["", "Wall time: %s; total %.0f s, on one core of a shared 2-core machine." % (", ".join(
        "%s %.0f s" % (k, v) for k, v in ws.items() if k != "total"), ws.get("total", float("nan")))]
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n")

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["run", "report", "merge", "systems", "systems-report", "systems-check"])
    ap.add_argument("files", nargs="*", help="merge: JSON files of other runs to add to --json")
    ap.add_argument("--modes", default=DEFAULT_MODES, help="comma-separated, of: " + ", ".join(MODES))
    ap.add_argument("--problems", default="", help="comma-separated names (default: all six)")
    ap.add_argument("--samplers", default=",".join(SAMPLERS), help="systems: comma-separated, of: " + ", ".join(SAMPLERS))
    ap.add_argument("--T", type=int, default=200)
    ap.add_argument("--noise-free", action="store_true", help="systems: tell the metrics without noise (cbandit suite --noise-free)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--units", default=",".join(UNITS), help="natural,scaled (default both)")
    ap.add_argument("--json", default="docs/suite_optuna.json")
    ap.add_argument("--md", default="docs/suite_optuna.md")
    ap.add_argument("--compare", default=None,
                    help="another run's JSON shown beside by mode (default: docs/suite_optuna_seeds10.json when"
                         " writing docs/suite_optuna.md and it exists)")
    args = ap.parse_args()
    if args.compare is None and args.md == "docs/suite_optuna.md" and os.path.exists("docs/suite_optuna_seeds10.json"):
        args.compare = "docs/suite_optuna_seeds10.json"
    if args.cmd.startswith("systems"):
        if args.json == "docs/suite_optuna.json":
            args.json = "docs/systems_optuna.json"
        if args.md == "docs/suite_optuna.md":
            args.md = "docs/systems_optuna.md"
        if args.cmd == "systems":
            run_systems(args)
        elif args.cmd == "systems-check":
            check_systems()
            print("systems: stated optima attained and feasible; typed's optimum enumerated")
        else:
            with open(args.json) as fh:
                write_systems_md(json.load(fh), args.md)
    elif ref is None:
        sys.exit("docs/suite_reference.py does not import (%s): install python3-scipy python3-sklearn" % _REF_ERROR)
    elif args.cmd == "run":
        run(args)
    elif args.cmd == "merge":
        merge(args)
    else:
        with open(args.json) as fh:
            write_md(json.load(fh), args.md, load_compare(args.compare))


if __name__ == "__main__":
    main()
