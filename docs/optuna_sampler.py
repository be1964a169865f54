#!/usr/bin/python3
"""One Optuna script, two samplers: Optuna's default (TPESampler with
constraints_func) and cbandit.optuna.CbanditSampler, on two constrained
problems of the practical-defaults suite. Writes docs/optuna_sampler.json
and prints the table of docs/optuna_sampler.md.

The problems are those of problem/suite.go and docs/suite_reference.py, in
natural units, written again here (that module needs scikit-learn):

- branin: minimise Branin's function over [-5, 10] x [0, 15] subject to
  (x1 - 2.5)^2 + (x2 - 7.5)^2 <= 50 (Gelbart, Snoek & Adams 2014, section 5.1);
  constrained minimum 0.39789 at (pi, 2.275);
- gramacy: minimise 1000 (x1 + x2) + 200 over [0, 1]^2 subject to a
  stress 100 c1 + 500 <= 500 and a temperature 10 c2 + 60 <= 60 with Gramacy
  et al. 2016's c1 = 3/2 - x1 - 2 x2 - 1/2 sin(2 pi (x1^2 - 2 x2)) and
  c2 = x1^2 + x2^2 - 3/2 (section 4.1); constrained minimum 799.79.

The Optuna script is the shape of Optuna's documentation: the objective
stores its constraint values (metric - threshold, <= 0 feasible) with
trial.set_user_attr("constraint", ...), constraints_func returns them, and
the study is optimised for T trials; only the sampler= line differs. The
evaluations are noise-free. Per problem and seed (1..S): TPESampler(seed=s,
constraints_func=...) and CbanditSampler(url, seed=s, constraints_func=...)
(the service's default algorithm for stage-wise constraints), one study at a
time, n_jobs=1 (--jobs 4: four threads, as Optuna's n_jobs=4; then the
order of the trials depends on the threads' timing). Scores: the best feasible value after 25, 50 and T trials
(true values; no noise), its gap to the constrained minimum, the share of
feasible trials, seconds per trial.

    CBANDIT_BIN=/tmp/cbandit-optuna PYTHONPATH=clients/python OMP_NUM_THREADS=1 \\
        nice /usr/bin/python3 docs/optuna_sampler.py --seeds 5 --trials 100
    ... docs/optuna_sampler.py --seeds 5 --trials 100 --jobs 4 --json docs/optuna_sampler_jobs4.json

(CBANDIT_BIN starts `cbandit serve --db memory:` on a free loopback port;
or --url names a running server.)

--crash runs the systems suite's crash problem instead (docs/systems.md:
maximise goodput over threads, batch, model size subject to latency <= 60
ms; past a hidden memory frontier, 48 GB, the evaluation crashes: the
objective raises, Optuna fails the trial, optimize(catch=...) goes on) with
CbanditSampler alone, and prints per seed the share of crashed trials among
the late ones (trial number >= T/2), how the service recorded the crashes
(failed, not abandoned) and the best feasible goodput:

    ... docs/optuna_sampler.py --crash --seeds 5 --trials 80 --jobs 4
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

import optuna

from cbandit.optuna import CbanditSampler


def branin(x):
    a, b, c, r, s, t = 1.0, 5.1 / (4 * math.pi ** 2), 5 / math.pi, 6.0, 10.0, 1 / (8 * math.pi)
    return a * (x[1] - b * x[0] ** 2 + c * x[0] - r) ** 2 + s * (1 - t) * math.cos(x[0]) + s


def branin_cons(x):
    return [(x[0] - 2.5) ** 2 + (x[1] - 7.5) ** 2 - 50.0]


def gramacy(x):
    return 1000.0 * (x[0] + x[1]) + 200.0


def gramacy_cons(x):
    c1 = 1.5 - x[0] - 2 * x[1] - 0.5 * math.sin(2 * math.pi * (x[0] ** 2 - 2 * x[1]))
    c2 = x[0] ** 2 + x[1] ** 2 - 1.5
    return [(100.0 * c1 + 500.0) - 500.0, (10.0 * c2 + 60.0) - 60.0]


PROBLEMS = {
    # name: (lo, hi, objective, constraints, constrained minimum from problem/testdata/suite_values.json)
    "branin": ([-5.0, 0.0], [10.0, 15.0], branin, branin_cons, 0.39788735772973816),
    "gramacy": ([0.0, 0.0], [1.0, 1.0], gramacy, gramacy_cons, 799.7880520100687),
}
CHECKPOINTS = (25, 50)


def constraints(trial):
    return trial.user_attrs["constraint"]


def make_objective(name):
    lo, hi, f, g, _ = PROBLEMS[name]

    def objective(trial):
        x = [trial.suggest_float(f"x{k}", lo[k], hi[k]) for k in range(len(lo))]
        trial.set_user_attr("constraint", g(x))
        return f(x)

    return objective


def run_one(name, sampler_name, seed, trials, url, jobs=1):
    if sampler_name == "tpe":
        sampler = optuna.samplers.TPESampler(seed=seed, constraints_func=constraints)
    else:
        sampler = CbanditSampler(url, seed=seed, constraints_func=constraints)
    study = optuna.create_study(sampler=sampler, direction="minimize")
    t0 = time.time()
    study.optimize(make_objective(name), n_trials=trials, n_jobs=jobs)
    secs = time.time() - t0
    best, curve, feasible = math.inf, [], 0
    for t in study.trials:
        if all(c <= 0 for c in t.system_attrs["constraints"]):
            feasible += 1
            best = min(best, t.value)
        curve.append(best)
    out = {"problem": name, "sampler": sampler_name, "seed": seed, "best": curve[-1],
           "at": {str(c): curve[c - 1] for c in CHECKPOINTS if c <= len(curve)},
           "feasible_share": feasible / len(study.trials), "seconds_per_trial": secs / len(study.trials)}
    if sampler_name == "cbandit":
        out["algorithm"] = sampler.cbandit_study.spec["algorithm"]
    return out


def crash_tau(x):
    t, b, s = x
    return (4 + 0.5 * b) * (1 + 0.1 * s) * (1 + t / 8)


def crash_goodput(x):
    return 1000 * x[0] * x[1] / crash_tau(x) * x[2] / (x[2] + 1)


def crash_memory(x):
    return 0.05 * x[0] * x[1] * x[2] + 2


def crash_objective(trial):
    x = [trial.suggest_float("threads", 1, 32), trial.suggest_float("batch", 1, 32),
         trial.suggest_float("size", 0.5, 8)]
    trial.set_user_attr("constraint", [crash_tau(x) - 60.0])
    if crash_memory(x) > 48:
        raise MemoryError("OOM")
    return crash_goodput(x)


def run_crash(seed, trials, url, jobs):
    sampler = CbanditSampler(url, seed=seed, constraints_func=constraints)
    study = optuna.create_study(sampler=sampler, direction="maximize")
    study.optimize(crash_objective, n_trials=trials, n_jobs=jobs, catch=(MemoryError,))
    late = [t for t in study.trials if t.number >= trials // 2]
    crashed = [t for t in late if t.state == optuna.trial.TrialState.FAIL]
    feasible = [t.value for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE
                and all(c <= 0 for c in t.system_attrs["constraints"])]
    summ = sampler.cbandit_study.summary()
    return {"seed": seed, "late_crash_share": len(crashed) / len(late),
            "crashed": sum(t.state == optuna.trial.TrialState.FAIL for t in study.trials),
            "told_failed": summ.get("failed", 0), "abandoned": summ.get("abandoned", 0),
            "fallbacks": sampler.fallbacks, "best": max(feasible) if feasible else None,
            "algorithm": sampler.cbandit_study.spec["algorithm"]}


def start_server(binary):
    proc = subprocess.Popen([binary, "serve", "--db", "memory:", "--addr", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    m = re.search(r"listening on (http://\S+)", proc.stdout.readline())
    if not m:
        proc.kill()
        sys.exit("cbandit serve did not start")
    return proc, m.group(1)


def mean(xs):
    return sum(xs) / len(xs)


def table(rows, trials):
    lines = [f"| problem | sampler | best feasible after {CHECKPOINTS[0]} | after {CHECKPOINTS[1]} | after {trials} "
             f"(mean ± sd over seeds) | gap to the minimum after {trials} | per seed after {trials} | feasible trials | ms/trial |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in PROBLEMS:
        opt = PROBLEMS[name][4]
        for s in ("tpe", "cbandit"):
            rs = [r for r in rows if r["problem"] == name and r["sampler"] == s]
            if not rs:
                continue
            b = [r["best"] for r in rs]
            m = mean(b)
            sd = math.sqrt(sum((v - m) ** 2 for v in b) / max(1, len(b) - 1))
            label = "TPESampler" if s == "tpe" else f"CbanditSampler ({rs[0]['algorithm']})"
            lines.append(f"| {name} | {label} | {mean([r['at']['25'] for r in rs]):.4g} | {mean([r['at']['50'] for r in rs]):.4g} "
                         f"| {m:.4g} ± {sd:.2g} | {m - opt:.3g} | {', '.join(f'{v:.4g}' for v in b)} "
                         f"| {100 * mean([r['feasible_share'] for r in rs]):.0f} % | {1000 * mean([r['seconds_per_trial'] for r in rs]):.0f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a running cbandit serve (default: start one from CBANDIT_BIN)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1, help="study.optimize's n_jobs (threads; > 1: not deterministic)")
    ap.add_argument("--json", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "optuna_sampler.json"))
    ap.add_argument("--crash", action="store_true", help="the crash problem with CbanditSampler: late crash share")
    a = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    proc, url = (None, a.url) if a.url else start_server(os.environ["CBANDIT_BIN"])
    if a.crash:
        try:
            rs = [run_crash(seed, a.trials, url, a.jobs) for seed in range(1, a.seeds + 1)]
        finally:
            if proc:
                proc.terminate()
                proc.wait()
        for r in rs:
            print(f"crash seed {r['seed']} ({r['algorithm']}): late crash share {100 * r['late_crash_share']:.1f} %, "
                  f"crashed {r['crashed']} (told failed {r['told_failed']}, abandoned {r['abandoned']}), "
                  f"fallbacks {r['fallbacks']}, best feasible {r['best']}")
        print(f"crash, {a.trials} trials, n_jobs={a.jobs}, {a.seeds} seeds: late crash share "
              f"{100 * mean([r['late_crash_share'] for r in rs]):.1f} % (mean over seeds)")
        return
    rows = []
    try:
        for name in PROBLEMS:
            for seed in range(1, a.seeds + 1):
                for s in ("tpe", "cbandit"):
                    rows.append(run_one(name, s, seed, a.trials, url, a.jobs))
                    r = rows[-1]
                    print(f"{name} seed {seed} {s}: best feasible {r['best']:.6g}", file=sys.stderr)
    finally:
        if proc:
            proc.terminate()
            proc.wait()
    with open(a.json, "w") as fh:
        json.dump({"optuna": optuna.__version__, "trials": a.trials, "seeds": a.seeds, "jobs": a.jobs, "runs": rows}, fh, indent=1)
    print(table(rows, a.trials))


if __name__ == "__main__":
    main()
