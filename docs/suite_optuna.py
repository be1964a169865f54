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

The systems suite (`systems`, `systems-report`, `systems-check`; docs/systems.md and
docs/systems_optuna.md) and its offline anchors (`offline`, `offline-report`; docs/offline_anchors.md):
`offline` runs sequential studies of `--samplers` (gp = GPSampler, which needs Optuna >= 4.2 -
Optuna v4.6.0's source on PYTHONPATH and Debian's python3-torch; tpe-multivariate, tpe, random)
at each `--noise` level (the std as a share of each metric's range, or with `--noise-scale limit`
of |f*| and each limit as `cbandit suite --noise-scale limit`; 0 = noise-free, told to
GPSampler as deterministic_objective) and scores each as an offline study (offline_score: the
best truly feasible evaluation's gap to f*, the trial Optuna reports and whether it truly holds
every limit, late shares that crash and that break a limit; under noise `inside_gaps`, the least gap
of a trial inside every limit by 0.1, 0.2, 0.4 noise stds as docs/certify_bound.go), adding to docs/offline_optuna.json
(kept across invocations, rewritten after every seed) and docs/offline_optuna.md:

    PYTHONPATH=/tmp/optuna46 OMP_NUM_THREADS=1 nice /usr/bin/python3 docs/suite_optuna.py offline \\
        --samplers gp --noise 0,0.05 --seeds 3 --T 200 \\
        --problems vessel-mi,spring,welded-beam,three-bar-truss,speed-reducer,crash,typed
    /usr/bin/python3 docs/suite_optuna.py engineering-values   # problem/testdata/engineering_values.json

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


# The engineering problems of the systems suite (problem/engineering.go),
# stated again from the literature: pressure vessel (Sandgren 1990; Coello
# Coello 2000 eq. for g1-g3, box of Yang et al. 2013), tension-compression
# spring (Arora 1989; Coello Coello 2000), welded beam (Coello Coello 2000,
# the constraints on shear, bending, h <= b, buckling and deflection),
# three-bar truss (Ray & Saini 2001) and SCBO's Ackley in 20-D.
def _vessel(x):
    ts, th, r, l = x
    return 0.6224 * ts * r * l + 1.7781 * th * r * r + 3.1661 * ts * ts * l + 19.84 * ts * ts * r


_VESSEL_CONS = [
    (lambda x: 0.0193 * x[2] - x[0], 0.0),
    (lambda x: 0.00954 * x[2] - x[1], 0.0),
    (lambda x: 1296000 - (math.pi * x[2] ** 2 * x[3] + 4 / 3 * math.pi * x[2] ** 3), 0.0),
]
_VESSEL_PARAMS = [  # thicknesses as integer multiples of 0.0625 in (Coello Coello 2000)
    ("ts", "float", 0.0625, 6.1875, False, 0.0625), ("th", "float", 0.0625, 6.1875, False, 0.0625),
    ("r", "float", 10.0, 200.0, False), ("l", "float", 10.0, 200.0, False),
]


def _spring(x):
    return (x[2] + 2) * x[1] * x[0] ** 2


_SPRING_CONS = [  # d = x0 (wire), D = x1 (coil), N = x2 (active coils)
    (lambda x: 1 - x[1] ** 3 * x[2] / (71785 * x[0] ** 4), 0.0),
    (lambda x: (4 * x[1] ** 2 - x[0] * x[1]) / (12566 * (x[1] * x[0] ** 3 - x[0] ** 4)) + 1 / (5108 * x[0] ** 2) - 1, 0.0),
    (lambda x: 1 - 140.45 * x[0] / (x[1] ** 2 * x[2]), 0.0),
    (lambda x: (x[0] + x[1]) / 1.5 - 1, 0.0),
]
_WB_P, _WB_L, _WB_E, _WB_G = 6000.0, 14.0, 30e6, 12e6


def _wb_cost(x):
    return 1.10471 * x[0] ** 2 * x[1] + 0.04811 * x[2] * x[3] * (14 + x[1])


def _wb_tau(x):
    x1, x2, x3, _ = x
    t1 = _WB_P / (math.sqrt(2) * x1 * x2)
    r = math.sqrt(x2 ** 2 / 4 + ((x1 + x3) / 2) ** 2)
    j = 2 * (math.sqrt(2) * x1 * x2 * (x2 ** 2 / 12 + ((x1 + x3) / 2) ** 2))
    t2 = _WB_P * (_WB_L + x2 / 2) * r / j
    return math.sqrt(t1 ** 2 + 2 * t1 * t2 * x2 / (2 * r) + t2 ** 2)


def _wb_buckling(x):
    x3, x4 = x[2], x[3]
    pc = 4.013 * _WB_E * math.sqrt(x3 ** 2 * x4 ** 6 / 36) / _WB_L ** 2 * (1 - x3 / (2 * _WB_L) * math.sqrt(_WB_E / (4 * _WB_G)))
    return _WB_P - pc


_WB_CONS = [
    (_wb_tau, 13600.0),
    (lambda x: 6 * _WB_P * _WB_L / (x[3] * x[2] ** 2), 30000.0),
    (lambda x: x[0] - x[3], 0.0),
    (_wb_buckling, 0.0),
    (lambda x: 4 * _WB_P * _WB_L ** 3 / (_WB_E * x[2] ** 3 * x[3]), 0.25),
]


def _truss(x):
    return (2 * math.sqrt(2) * x[0] + x[1]) * 100


_TRUSS_CONS = [  # stresses (kN/cm^2) under P = 2, limit 2
    (lambda x: (math.sqrt(2) * x[0] + x[1]) / (math.sqrt(2) * x[0] ** 2 + 2 * x[0] * x[1]) * 2, 2.0),
    (lambda x: x[1] / (math.sqrt(2) * x[0] ** 2 + 2 * x[0] * x[1]) * 2, 2.0),
    (lambda x: 1 / (x[0] + math.sqrt(2) * x[1]) * 2, 2.0),
]


_TYPED_PARAMS = [  # (name, kind, low, high, log) or (name, "categorical", choices)
    ("workers", "int", 1, 16, False), ("batch", "int", 1, 64, True), ("queue", "int", 1, 8, False),
    ("replicas", "int", 1, 8, False), ("timeout_ms", "float", 10.0, 1000.0, True), ("gc", "float", 0.1, 0.9, False),
    ("compression", "categorical", ("none", "lz4", "zstd")), ("scheduler", "categorical", ("fifo", "fair", "priority")),
]

VESSEL_OPT, VESSEL_XOPT = 5885.3327736164611, [0.7781686413751054, 0.38464916262790183, 40.319618724098724, 200]
VESSEL_MI_OPT, VESSEL_MI_XOPT = 6059.7143350484357, [0.8125, 0.4375, 42.09844559585492, 176.63659584243942]
SPRING_OPT, SPRING_XOPT = 0.012665232788319426, [0.05168906183027902, 0.35671775778269976, 11.288964697310947]
WB_OPT, WB_XOPT = 1.724852308600263, [0.2057296397839639, 3.4704886656735545, 9.036623910357804, 0.2057296397860797]
TRUSS_OPT, TRUSS_XOPT = 263.89584337646841, [0.7886751345948128, 0.4082482904638632]

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
    dict(name="vessel", lo=[0.0625, 0.0625, 10, 10], hi=[6.1875, 6.1875, 200, 200], obj=_vessel, goal="minimize",
         cons=_VESSEL_CONS, opt=VESSEL_OPT, xopt=VESSEL_XOPT),
    dict(name="vessel-mi", params=_VESSEL_PARAMS, obj=_vessel, goal="minimize", cons=_VESSEL_CONS,
         opt=VESSEL_MI_OPT, xopt=VESSEL_MI_XOPT),
    dict(name="spring", lo=[0.05, 0.25, 2], hi=[2, 1.3, 15], obj=_spring, goal="minimize", cons=_SPRING_CONS,
         opt=SPRING_OPT, xopt=SPRING_XOPT),
    dict(name="welded-beam", lo=[0.1, 0.1, 0.1, 0.1], hi=[2, 10, 10, 2], obj=_wb_cost, goal="minimize",
         cons=_WB_CONS, opt=WB_OPT, xopt=WB_XOPT),
    dict(name="three-bar-truss", lo=[0.1, 0.1], hi=[1, 1], obj=_truss, goal="minimize", cons=_TRUSS_CONS,
         opt=TRUSS_OPT, xopt=TRUSS_XOPT),
    dict(name="ackley20", lo=[-5] * 20, hi=[10] * 20, obj=_ackley, goal="minimize",
         cons=[(lambda x: sum(x), 0.0), (_l2norm, 5.0)], opt=0.0, xopt=[0.0] * 20),
]
# problem.SuiteProblem.LimitScales: the size at the optimum of what a zero limit bounds.
_VESSEL_SCALES = [0.0193 * VESSEL_XOPT[2], 0.00954 * VESSEL_XOPT[2], 1296000.0]
for _p in SYSTEMS:
    _p["limit_scales"] = {"vessel": _VESSEL_SCALES, "vessel-mi": _VESSEL_SCALES, "spring": [1.0] * 4,
                          "welded-beam": [13600.0, 30000.0, 0.205730, 6000.0, 0.25]}.get(_p["name"])
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
        elif len(q) > 5:  # a stepped float: the nearest lo + k*step (problem.SuiteProblem.SnapParams)
            y[k] = float(min(max(q[2] + round((y[k] - q[2]) / q[5]) * q[5], q[2]), q[3]))
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
            assert c(x) <= t + 1e-7 * max(1, abs(t)), (p["name"], c(x), t)
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


def systems_observe(k, p, fa, x, seed, t, noise=0.02, scale="range"):
    """Noisy metrics at x in round t (natural units; std noise x each range, 2 % by default, or with
    scale "limit" x |f*| and each limit: noise_stds), from a stream of (seed, 100 + problem index,
    round); exact with noise 0 (cbandit suite --noise-free)."""
    m = len(p["cons"])
    noise = noise_stds(p, fa, noise, scale)
    z = np.random.default_rng([seed, 100 + k, t, 11]).standard_normal(1 + m)
    return p["obj"](x) + noise[0] * z[0], [p["cons"][j][0](x) + noise[1 + j] * z[1 + j] for j in range(m)]


def noise_stds(p, fa, level, scale="range"):
    """suite.noiseStds (objective first here): level x each metric's range over the box, or with
    scale "limit" x |f*| and each constraint's limit_scales entry or |threshold| (--noise-scale)."""
    if scale == "limit":
        cs = p.get("limit_scales") or [abs(thr) for _, thr in p["cons"]]
        if p["opt"] == 0 or min(cs) <= 0:
            sys.exit("%s: no scale for a noise relative to f* or a limit" % p["name"])
        return [level * abs(p["opt"])] + [level * c for c in cs]
    return [level * (fa["obj_range"][1] - fa["obj_range"][0])] + [level * (r[1] - r[0]) for r in fa["cons_range"]]


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


def _gap(p, fa, f):
    """(f - f*)/|f*| for a minimised objective, (f* - f)/|f*| for a maximised one; absolute when f* = 0."""
    sign = 1.0 if p["goal"] == "maximize" else -1.0
    return sign * (fa["opt"] - f) / (abs(fa["opt"]) if fa["opt"] != 0 else 1.0)


def offline_score(p, fa, xs, obs):
    """The offline scores (docs/systems.md): the best truly feasible value found (noise-free truth)
    and its signed gap to f*; the recommendation as Optuna makes it (study.best_trial with
    constraints: the best observed value among the trials observed feasible) - its true gap and
    whether it truly holds every limit; shares of late evaluations (t > T/2) that crash (crash_late), that
    crash or break a limit (bad_late), that run and break one (break_late; suite.SystemsScore's keys)."""
    sign = 1.0 if p["goal"] == "maximize" else -1.0
    T = len(xs)
    best, rec = None, None
    late, crash_late, bad_late = 0, 0, 0
    for t, (x, o) in enumerate(zip(xs, obs), start=1):
        is_late = t > T // 2
        late += is_late
        if o is None:
            crash_late += is_late
            bad_late += is_late
            continue
        ok = all(c(x) <= thr for c, thr in p["cons"])
        if not ok:
            bad_late += is_late
        elif best is None or sign * p["obj"](x) > sign * best:
            best = p["obj"](x)
        if all(g <= 0 for g in o[1]) and (rec is None or sign * o[0] > sign * rec[1]):
            rec = (x, o[0])
    r = {"offline_best": best, "offline_gap": None if best is None else _gap(p, fa, best),
         "crash_late": crash_late / late, "bad_late": bad_late / late,
         "break_late": (bad_late - crash_late) / late, "rec": None}
    if rec is not None:
        x = rec[0]
        r["rec"] = {"x": list(x), "value": p["obj"](x), "gap": _gap(p, fa, p["obj"](x)),
                    "feasible": bool(all(c(x) <= thr for c, thr in p["cons"]) and not _crashes(p, x))}
    return r


def inside_gaps(p, fa, xs, stds):
    """docs/certify_bound.go's figures for these trials: for t = 0.1, 0.2, 0.4, the least true gap
    of a trial that runs and holds every limit by t noise stds (None: no such trial)."""
    out = {}
    for t in (0.1, 0.2, 0.4):
        gaps = [_gap(p, fa, p["obj"](x)) for x in xs if not _crashes(p, x)
                and all(thr - c(x) >= t * s for (c, thr), s in zip(p["cons"], stds))]
        out["%.1f" % t] = min(gaps) if gaps else None
    return out


def _made_on():
    """What a GPSampler run's last bits may depend on beyond the script and Optuna: torch's
    version and the CPU (docs/offline.md: an anchor that did not repeat on another machine)."""
    torch = sys.modules.get("torch")
    cpu = ""
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), "")
    return {"torch": torch.__version__ if torch else None, "cpu": cpu}


def systems_run_one(k, p, fa, seed, T, sampler_name, noise_free=False, noise=None, noise_scale="range"):
    """One sequential study; noise: the noise level (share of each range; default 2 %, 0 with
    noise_free). The result has the systems scores and the offline ones (offline_score)."""
    if noise is None:
        noise = 0.0 if noise_free else 0.02
    d = len(p["lo"])
    names, dists = [], {}
    if "params" in p:
        for q in p["params"]:
            names.append(q[0])
            if q[1] == "int":
                dists[q[0]] = IntDistribution(q[2], q[3], log=q[4])
            elif q[1] == "float":
                dists[q[0]] = FloatDistribution(q[2], q[3], log=q[4], step=q[5] if len(q) > 5 else None)
            else:
                dists[q[0]] = CategoricalDistribution(list(q[2]))
    else:
        for j in range(d):
            names.append("x%d" % j)
            dists["x%d" % j] = FloatDistribution(float(p["lo"][j]), float(p["hi"][j]))
    if sampler_name == "random":
        sampler = optuna.samplers.RandomSampler(seed=seed)
    elif sampler_name == "gp":
        # Optuna >= 4.2; deterministic_objective: Optuna's own switch for noise-free values.
        sampler = optuna.samplers.GPSampler(seed=seed, constraints_func=constraints_func,
                                            deterministic_objective=noise == 0)
    else:
        sampler = optuna.samplers.TPESampler(seed=seed, constraints_func=constraints_func,
                                             multivariate=sampler_name == "tpe-multivariate")
    study = optuna.create_study(direction=p["goal"], sampler=sampler)
    thr = [t for _, t in p["cons"]]
    xs, obs = [], []  # obs: (observed objective, observed constraints g <= 0) or None for a crash
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
            obs.append(None)
            continue
        fobs, cobs = systems_observe(k, p, fa, x, seed, t, noise, noise_scale)
        trial.set_user_attr("constraints", [float(cobs[j] - thr[j]) for j in range(len(thr))])
        study.tell(trial, float(fobs))
        obs.append((float(fobs), [float(cobs[j] - thr[j]) for j in range(len(thr))]))
    secs = time.time() - t0
    r = systems_score(p, fa, xs)
    r.update(offline_score(p, fa, xs, obs))
    if noise > 0:
        r["inside_gaps"] = inside_gaps(p, fa, xs, noise_stds(p, fa, noise, noise_scale)[1:])
    r.update(seed=seed, s_per_trial=secs / T, made_on=_made_on())
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

OFFLINE_SAMPLERS = ("gp", "tpe-multivariate", "tpe", "random")


def run_offline(args):
    """Offline scores (offline_score) per sampler, noise level, problem and seed, added to --json
    (kept across invocations: one sampler and noise level a run) and rewritten after every seed."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    check_systems()
    out = {"optuna": optuna.__version__, "numpy": np.__version__, "python": sys.version.split()[0], "runs": {}}
    if os.path.exists(args.json):
        with open(args.json) as fh:
            out = _normalise(json.load(fh))
    out["optuna"] = optuna.__version__
    names = args.problems.split(",") if args.problems else [p["name"] for p in SYSTEMS]
    probs = [(k, p) for k, p in enumerate(SYSTEMS) if p["name"] in names]
    probs.sort(key=lambda kp: names.index(kp[1]["name"]))
    for s in args.samplers.split(","):
        if s not in OFFLINE_SAMPLERS:
            sys.exit("unknown sampler %s (have %s)" % (s, ", ".join(OFFLINE_SAMPLERS)))
        for noise in (float(v) for v in args.noise.split(",")):
            key = "%s noise %g" % (s, noise) + (" limit" if args.noise_scale == "limit" else "")
            cmd = "docs/suite_optuna.py " + " ".join(sys.argv[1:])
            cell = out["runs"].setdefault(key, {"sampler": s, "noise": noise, "noise_scale": args.noise_scale, "T": args.T, "problems": {}, "made_by": cmd})
            if cmd not in cell["made_by"]:
                cell["made_by"] += "; " + cmd
            for k, p in probs:
                fa = systems_facts(p)
                res = cell["problems"].setdefault(p["name"], {"opt": p["opt"], "per_seed": []})
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    r = systems_run_one(k, p, fa, seed, args.T, s, noise=noise, noise_scale=args.noise_scale)
                    # this seed replaces an earlier run of it; seeds stay in order
                    res["per_seed"] = sorted([q for q in res["per_seed"] if q["seed"] != seed] + [r], key=lambda q: q["seed"])
                    print("%s %s seed %d: best gap %s rec %s bad late %.3f %.0f ms/trial" % (
                        key, p["name"], seed, r["offline_gap"], r["rec"] and (r["rec"]["gap"], r["rec"]["feasible"]),
                        r["bad_late"], 1e3 * r["s_per_trial"]), file=sys.stderr, flush=True)
                    with open(args.json, "w") as fh:
                        json.dump(out, fh, indent=1)
                        fh.write("\n")
                    write_offline_md(out, args.md)


def _normalise(out):
    """break_late from bad_late and crash_late: the first records had break_late = bad_late."""
    for cell in out["runs"].values():
        for res in cell["problems"].values():
            for r in res["per_seed"]:
                r["break_late"] = r["bad_late"] - r["crash_late"]
    return out


def _mean_worst(vals, worst=max):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "–"
    return "%.4g / %.4g" % (float(np.mean(vals)), worst(vals))


def write_offline_md(out, path):
    L = ["# Offline anchors: Optuna's samplers on the systems suite", "",
         "Made by `docs/suite_optuna.py offline` (Optuna %s, Python %s; the commands are in each section)."
         " Sequential ask/tell, T trials; the value told is the objective and the constraints are metric −"
         " threshold ≤ 0 (`constraints_func`), with Gaussian noise of std (noise level) × the metric's range"
         " over the box, natural units; a crash is told as `TrialState.FAIL`. `gp` = `GPSampler(seed,"
         " constraints_func, deterministic_objective=(noise = 0))`; `tpe-multivariate` ="
         " `TPESampler(seed, constraints_func, multivariate=True)`. Scores on the true noise-free functions"
         " (docs/systems.md, offline): **best gap** = (best − f*)/|f*| of the best truly feasible"
         " evaluation (sign flipped for a maximised objective; absolute when f* = 0); **rec gap** = the"
         " same for the trial Optuna reports (`study.best_trial`: best observed value among the trials"
         " observed feasible), **rec ok** = how many seeds' reported trial truly holds every limit;"
         " **crash late**, **bad late** = share of evaluations t > T/2 that crash, that crash or break"
         " a limit. Cells: mean / worst over the seeds (worst = largest); – where no seed has one."
         % (out["optuna"], out["python"]), ""]
    for key, cell in out["runs"].items():
        L += ["## %s (T = %d)" % (key, cell["T"]), "", "`%s`" % cell["made_by"], "",
              "| problem | f* | seeds | best gap | rec gap | rec ok | crash late | bad late | s/trial |",
              "|---|---|---|---|---|---|---|---|---|"]
        for name, res in cell["problems"].items():
            per = res["per_seed"]
            if not per:
                continue
            recs = [r["rec"] for r in per if r["rec"] is not None]
            L.append("| %s | %.8g | %d | %s | %s | %d/%d | %s | %s | %.2f |" % (
                name, res["opt"], len(per), _mean_worst([r["offline_gap"] for r in per]),
                _mean_worst([q["gap"] for q in recs]), sum(q["feasible"] for q in recs), len(per),
                _mean_worst([r["crash_late"] for r in per]), _mean_worst([r["bad_late"] for r in per]),
                float(np.mean([r["s_per_trial"] for r in per]))))
        L += ["", "Per seed (best gap, rec gap with ✓ when it truly holds every limit, bad late):", ""]
        for name, res in cell["problems"].items():
            L.append("- %s: %s" % (name, ", ".join("(%s, %s, %.3f)" % (
                "–" if r["offline_gap"] is None else "%.4g" % r["offline_gap"],
                "–" if r["rec"] is None else "%.4g%s" % (r["rec"]["gap"], " ✓" if r["rec"]["feasible"] else " ✗"),
                r["bad_late"]) for r in res["per_seed"])))
        L.append("")
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n")


def _cbandit_rows(path):
    """Per-problem per-seed offline scores of a `cbandit suite --set systems --evaluations offline`
    summary.json, in offline_score's keys."""
    with open(path) as fh:
        s = json.load(fh)
    out = {}
    for c in s["cells"]:
        per = []
        for r in c["runs"]:
            sy = r["systems"]
            rec = sy.get("recommendation") or {}
            per.append({"seed": r["seed"], "offline_gap": sy["gap"], "crash_late": sy["failed_late"],
                        "break_late": sy.get("break_late", sy["bad_late"] - sy["failed_late"]),
                        "rec": {"gap": rec.get("gap"), "feasible": rec.get("feasible", False)} if rec.get("present") else None,
                        "s_per_trial": r["seconds_per_round"]})
        out[c["problem"]] = {"algorithm": c["algorithm"], "opt": c["systems"]["natural"]["opt"], "per_seed": per}
    return s, out


def offline_doc(args):
    """docs/offline_anchors.md: the anchors of --json beside the cbandit summaries named in args.files
    (label=path), per problem: mean / worst over the seeds and every seed."""
    with open(args.json) as fh:
        anchors = _normalise(json.load(fh))
    rows = {}  # problem -> [(label, noise, per_seed, opt)]
    for key, cell in anchors["runs"].items():
        for name, res in cell["problems"].items():
            rows.setdefault(name, []).append(("Optuna %s" % cell["sampler"], cell["noise"], res["per_seed"]))
    cmds = []
    for spec in args.files:
        label, path = spec.split("=", 1)
        s, per = _cbandit_rows(path)
        noise = 0.0 if s.get("noise_free") else s.get("noise", 0.02)
        cmds.append((label, noise, path, s))
        for name, res in per.items():
            rows.setdefault(name, []).append(("cbandit %s (%s)" % (res["algorithm"], label), noise, res["per_seed"]))
    L = ["# Offline: what the final configuration is worth", "",
         "The anchors an offline algorithm must beat on the systems suite's problems (docs/systems.md):"
         " Optuna's GPSampler (Optuna %s, 3 seeds) and multivariate TPE (10 seeds), and cbandit with"
         " today's defaults (`config` on a box, `cei` on typed parameters; 10 seeds; both rows on typed and"
         " vessel-mi), T = 200 sequential evaluations, noise-free and at 5 %%"
         " noise (std 0.05 of each metric's range over the box). Scores on the true noise-free functions"
         " (docs/systems.md, \"Live and offline\"): **best gap** = (best − f*)/|f*| of the best truly"
         " feasible evaluation ((f* − best)/|f*| for crash and typed, which are maximised); **rec gap**"
         " = the same for the configuration the optimiser reports at the end (Optuna: `study.best_trial`,"
         " the best observed value among trials observed feasible; cbandit: the summary's"
         " `recommendation`, absent until the service has it), **rec ok** = seeds whose reported"
         " configuration truly holds every limit; **bad late** = share of evaluations t > T/2 that"
         " crash or break a limit (offline they may; they show what the search spends). Cells: mean /"
         " worst seed (largest). A negative rec gap with rec ok below the seeds is a reported"
         " configuration that looks better than f* because it breaks a limit."
         % anchors["optuna"], "",
         "Commands:", "",
         "- Optuna: see each section of docs/offline_optuna.md (`docs/suite_optuna.py offline …`).",
         ]
    for label, noise, path, s in cmds:
        L.append("- cbandit (%s): `cbandit suite --set systems --problems %s --algos %s --seeds %d --horizon %d"
                 " --units natural %s --evaluations offline --workers 1 --out DIR` (summary: `%s`)" % (
                     label, ",".join(s["problems"]), ",".join(s["algorithms"]), s["seeds"], s["horizon"],
                     "--noise-free" if s.get("noise_free") else "--noise %g" % noise, path))
    L.append("")
    for name in sorted(rows, key=lambda n: [p["name"] for p in SYSTEMS].index(n) if n in [p["name"] for p in SYSTEMS] else 99):
        L += ["## %s" % name, "",
              "| noise | optimiser | seeds | best gap | rec gap | rec ok | bad late |", "|---|---|---|---|---|---|---|"]
        for label, noise, per in sorted(rows[name], key=lambda r: (r[1], r[0])):
            recs = [r["rec"] for r in per if r.get("rec")]
            bads = [r["crash_late"] + r["break_late"] for r in per]
            L.append("| %g | %s | %d | %s | %s | %d/%d | %s |" % (
                noise, label, len(per), _mean_worst([r["offline_gap"] for r in per]),
                _mean_worst([q["gap"] for q in recs if q.get("gap") is not None]),
                sum(bool(q.get("feasible")) for q in recs), len(per), _mean_worst(bads)))
        L.append("")
        for label, noise, per in sorted(rows[name], key=lambda r: (r[1], r[0])):
            L.append("- noise %g, %s, best gap per seed: %s" % (noise, label, ", ".join(
                "–" if r["offline_gap"] is None else "%.4g" % r["offline_gap"] for r in per)))
        L.append("")
    with open(args.md, "w") as fh:
        fh.write("\n".join(L) + "\n")


ENGINEERING = ("vessel", "vessel-mi", "spring", "welded-beam", "three-bar-truss", "ackley20")


def engineering_values(path):
    """The objective and constraint metrics at a few points of each engineering problem (its
    optimum, the box's centre, Halton points 1 and 2 of the box, snapped), for the Go test
    TestEngineeringValuesMatchPython."""
    out = {}
    for p in SYSTEMS:
        if p["name"] not in ENGINEERING:
            continue
        lo, hi = np.array(p["lo"], float), np.array(p["hi"], float)
        pts = [list(p["xopt"]), _snap(p, list((lo + hi) / 2))]
        pts += [_snap(p, list(lo + (hi - lo) * h)) for h in _halton(2, len(lo))]
        out[p["name"]] = [{"x": [float(v) for v in x], "f": p["obj"](x), "cons": [c(x) for c, _ in p["cons"]]}
                          for x in pts]
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["run", "report", "merge", "systems", "systems-report", "systems-check", "offline",
                                   "offline-report", "engineering-values", "offline-doc"])
    ap.add_argument("files", nargs="*", help="merge: JSON files of other runs to add to --json")
    ap.add_argument("--modes", default=DEFAULT_MODES, help="comma-separated, of: " + ", ".join(MODES))
    ap.add_argument("--problems", default="", help="comma-separated names (default: all six)")
    ap.add_argument("--samplers", default=",".join(SAMPLERS), help="systems: comma-separated, of: " + ", ".join(SAMPLERS))
    ap.add_argument("--T", type=int, default=200)
    ap.add_argument("--noise-free", action="store_true", help="systems: tell the metrics without noise (cbandit suite --noise-free)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=1, help="offline: seeds first-seed .. first-seed + seeds - 1")
    ap.add_argument("--noise", default="0", help="offline: comma-separated noise levels (share of each metric's range)")
    ap.add_argument("--noise-scale", default="range", choices=["range", "limit"],
                    help="offline: what --noise is a share of (cbandit suite --noise-scale)")
    ap.add_argument("--units", default=",".join(UNITS), help="natural,scaled (default both)")
    ap.add_argument("--json", default="docs/suite_optuna.json")
    ap.add_argument("--md", default="docs/suite_optuna.md")
    ap.add_argument("--compare", default=None,
                    help="another run's JSON shown beside by mode (default: docs/suite_optuna_seeds10.json when"
                         " writing docs/suite_optuna.md and it exists)")
    args = ap.parse_args()
    if args.compare is None and args.md == "docs/suite_optuna.md" and os.path.exists("docs/suite_optuna_seeds10.json"):
        args.compare = "docs/suite_optuna_seeds10.json"
    if args.cmd == "engineering-values":
        engineering_values("problem/testdata/engineering_values.json")
    elif args.cmd.startswith("offline"):
        if args.json == "docs/suite_optuna.json":
            args.json = "docs/offline_optuna.json"
        if args.md == "docs/suite_optuna.md":
            # a run into another JSON writes its table beside it, not over docs/offline_optuna.md
            keep = args.json == "docs/offline_optuna.json" or args.cmd == "offline-doc"
            args.md = "docs/offline_optuna.md" if keep else os.path.splitext(args.json)[0] + ".md"
        if args.cmd == "offline":
            run_offline(args)
        elif args.cmd == "offline-doc":
            if args.md == "docs/offline_optuna.md":
                args.md = "docs/offline_anchors.md"
            offline_doc(args)
        else:
            with open(args.json) as fh:
                write_offline_md(_normalise(json.load(fh)), args.md)
    elif args.cmd.startswith("systems"):
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
