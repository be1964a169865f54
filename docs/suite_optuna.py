#!/usr/bin/python3
"""Optuna's constrained TPE on the practical-defaults suite (issues 24 and 25).

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
was asked (issue 24's duplicate measure); in the unit cube as well in the
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
from optuna.distributions import FloatDistribution

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("suite_reference", os.path.join(HERE, "suite_reference.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

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

# The figures issue 25 quotes for sequential TPE (late normalised regret).
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
        " (Euclidean, box coordinates) of a trial running when it was asked (issue 24's measure; 0 by"
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
        L += ["## Sequential TPE against the figures issue 25 quotes", "",
              "| problem | issue 25 | this run: regret (%s) | seeds: min … max | late violation |" % u0,
              "|---|---|---|---|---|"]
        for name, v in ISSUE25.items():
            if name not in seq:
                continue
            per = [r["regret"] for r in seq[name][u0]["per_seed"]]
            L.append("| %s | %.3f | %.4f | %.4f … %.4f | %.4f |" % (
                name, v, seq[name][u0]["regret"], min(per), max(per), seq[name][u0]["violation"]))
        over = [name for name in seq if seq[name][u0]["violation"] > 0.01]
        L += ["", "Late violation above 0.01 (issue 25's bar for cbandit): %s." % (", ".join(over) or "none"), ""]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["run", "report", "merge"])
    ap.add_argument("files", nargs="*", help="merge: JSON files of other runs to add to --json")
    ap.add_argument("--modes", default=DEFAULT_MODES, help="comma-separated, of: " + ", ".join(MODES))
    ap.add_argument("--problems", default="", help="comma-separated names (default: all six)")
    ap.add_argument("--T", type=int, default=200)
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
    if args.cmd == "run":
        run(args)
    elif args.cmd == "merge":
        merge(args)
    else:
        with open(args.json) as fh:
            write_md(json.load(fh), args.md, load_compare(args.compare))


if __name__ == "__main__":
    main()
