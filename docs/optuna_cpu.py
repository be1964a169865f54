#!/usr/bin/python3
"""CPU time of Optuna's GPSampler per trial on the systems suite's offline problems (docs/offline.md, "Cost").

The process's user + system time spent in Study.ask and Study.tell over one noise-free study of T
trials (seed 1, docs/suite_optuna.py's systems_run_one: GPSampler(seed, constraints_func,
deterministic_objective=True)), after a 12-trial warm-up study of the same problem, so that torch's
imports and first compilations are off the books; Python's start and the scoring are outside the
timed calls. Run from the repository root with Debian's python (torch) and Optuna 4.6's source:

    PYTHONPATH=/tmp/optuna46 OMP_NUM_THREADS=1 nice /usr/bin/python3 docs/optuna_cpu.py OUT.json crash,vessel 200

Each problem's figures are added to OUT.json (cpu_per_trial: ask + tell; cpu_ask_last50: the mean
ask over the last 50 trials; wall_study: the study's wall time, which the machine's load inflates).
"""
import importlib.util, json, os, resource, sys, time, warnings

sys.path.insert(0, "docs")
spec = importlib.util.spec_from_file_location("suite_optuna", "docs/suite_optuna.py")
so = importlib.util.module_from_spec(spec)
spec.loader.exec_module(so)
import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.filterwarnings("ignore")

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

acc = {"ask": 0.0, "tell": 0.0, "per_ask": []}
_ask, _tell = optuna.study.Study.ask, optuna.study.Study.tell
def ask(self, *a, **k):
    c = cpu(); r = _ask(self, *a, **k); d = cpu() - c
    acc["ask"] += d; acc["per_ask"].append(d); return r
def tell(self, *a, **k):
    c = cpu(); r = _tell(self, *a, **k); acc["tell"] += cpu() - c; return r
optuna.study.Study.ask, optuna.study.Study.tell = ask, tell

out_path, names = sys.argv[1], sys.argv[2].split(",")
T = int(sys.argv[3]) if len(sys.argv) > 3 else 200
out = json.load(open(out_path)) if os.path.exists(out_path) else {}
so.check_systems()
for k, p in enumerate(so.SYSTEMS):
    if p["name"] not in names:
        continue
    fa = so.systems_facts(p)
    so.systems_run_one(k, p, fa, 1, 12, "gp", noise=0.0)  # warm-up
    acc.update(ask=0.0, tell=0.0, per_ask=[])
    c0, w0 = cpu(), time.time()
    r = so.systems_run_one(k, p, fa, 1, T, "gp", noise=0.0)
    c1, w1 = cpu(), time.time()
    pa = acc["per_ask"]
    out[p["name"]] = {"T": T, "cpu_ask_tell": acc["ask"] + acc["tell"], "cpu_per_trial": (acc["ask"] + acc["tell"]) / T,
                      "cpu_study": c1 - c0, "wall_study": w1 - w0, "cpu_ask_last50": sum(pa[-50:]) / 50,
                      "offline_gap": r.get("offline_gap")}
    print(p["name"], json.dumps(out[p["name"]]), flush=True)
    json.dump(out, open(out_path, "w"), indent=1)
