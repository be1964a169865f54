"""Tests of cbandit.optuna.CbanditSampler: Optuna studies against a live ``cbandit serve``.

Needs Optuna (Debian's python3-optuna: run with /usr/bin/python3). Without
it the module is skipped with a message -- unless CBANDIT_REQUIRE_OPTUNA is
set (CI sets it once the install succeeded), then the import error fails it.
The server: one ``cbandit serve --db memory:`` from CBANDIT_BIN for most
tests, and one on an SQLite file, killed and restarted on the same file and
port, for the restart test.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import unittest
import warnings
from pathlib import Path

try:
    import optuna
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
    from optuna.trial import TrialState
except ImportError as e:  # pragma: no cover - depends on the machine
    if os.environ.get("CBANDIT_REQUIRE_OPTUNA"):
        raise
    print(f"test_optuna: skipped, Optuna is not importable here ({e}); run with /usr/bin/python3 (python3-optuna)")
    raise unittest.SkipTest(f"Optuna is not importable: {e}")

import cbandit
from cbandit.optuna import DECISION_KEY, CbanditSampler, _Param
from serving import start_server, stop_servers

URL = ""
HERE = Path(__file__).resolve().parent


def setUpModule() -> None:
    global URL
    if not os.environ.get("CBANDIT_BIN"):
        raise unittest.SkipTest("set CBANDIT_BIN (a cbandit binary): the Optuna tests start their own servers")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    URL = start_server()[1]


def tearDownModule() -> None:
    stop_servers()


# Optuna's constrained-optimisation example (the FAQ "How can I optimize a
# model with some constraints?"), with one objective.
def objective(trial):
    x = trial.suggest_float("x", -15, 30)
    y = trial.suggest_float("y", -15, 30)
    c0 = (x - 5) ** 2 + y ** 2 - 25
    c1 = -((x - 8) ** 2) - (y + 3) ** 2 + 7.7
    trial.set_user_attr("constraint", (c0, c1))
    return 4 * x ** 2 + 4 * y ** 2


def constraints(trial):
    return trial.user_attrs["constraint"]


def decisions_by_id(sampler: CbanditSampler) -> dict:
    return {d["decision_id"]: d for d in sampler.cbandit_study.decisions()}


class SamplerTest(unittest.TestCase):
    def check_consistent(self, study: "optuna.Study", sampler: CbanditSampler, n: int) -> None:
        """Every Optuna trial is in the cbandit study: as its decision or as a past measurement."""
        trials = study.get_trials()
        self.assertEqual(len(trials), n)
        for t in trials:
            self.assertEqual(t.state, TrialState.COMPLETE, t)
            self.assertEqual(tuple(t.system_attrs["constraints"]), tuple(t.user_attrs["constraint"]))
        ids = [t.system_attrs[DECISION_KEY] for t in trials if DECISION_KEY in t.system_attrs]
        self.assertEqual(len(ids), len(set(ids)), "two trials share a decision")
        self.assertGreaterEqual(len(ids), n // 2, "most trials come from the service")
        summ = sampler.cbandit_study.summary()
        self.assertEqual(summ["rounds"], n)  # decisions asked + past measurements recorded
        self.assertEqual(summ["reward_observed"], n)
        self.assertEqual(summ["pending"], 0)
        recs = decisions_by_id(sampler)
        for t in trials:
            if DECISION_KEY in t.system_attrs:
                d = recs[t.system_attrs[DECISION_KEY]]
                self.assertAlmostEqual(d["reward"], t.value, places=9)
                self.assertEqual(len(d["costs"]), 2)
                for a, b in zip(d["costs"], t.user_attrs["constraint"]):
                    self.assertAlmostEqual(a, b, places=9)
                for name in ("x", "y"):
                    self.assertAlmostEqual(d["params"][name], t.params[name], places=9)

    def test_optuna_constrained_example_with_four_jobs(self) -> None:
        sampler = CbanditSampler(URL, seed=3, constraints_func=constraints)  # the one changed line
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=40, n_jobs=4)
        self.check_consistent(study, sampler, 40)
        self.assertEqual(sampler.fallbacks, 0)
        spec = sampler.cbandit_study.spec
        self.assertEqual(spec["objective"], {"name": "objective", "goal": "minimize"})
        self.assertEqual([(c["name"], c["threshold"], c["kind"]) for c in spec["constraints"]],
                         [("c0", 0, "stage-wise"), ("c1", 0, "stage-wise")])
        self.assertEqual([p["name"] for p in spec["parameters"]], ["x", "y"])
        self.assertTrue(spec["name"].startswith("optuna:" + study.study_name + ":"))
        # Optuna's own reading of the study is unchanged.
        feasible = [t for t in study.trials if all(c <= 0 for c in t.system_attrs["constraints"])]
        self.assertTrue(feasible, "no feasible trial in 40")
        self.assertEqual(study.best_trial.value, min(t.value for t in study.trials))

    def test_doc_example(self) -> None:
        doc = (HERE.parents[2] / "docs" / "optuna_sampler.md").read_text()
        code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
        self.assertIn('CbanditSampler("http://127.0.0.1:8080", constraints_func=constraints)', code)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(code.replace("http://127.0.0.1:8080", URL), {"__name__": "doc_example"})
        self.assertRegex(out.getvalue(), r"^\{'x': .*, 'y': .*\} \(.*, .*\)\n$")

    def test_recommendation(self) -> None:
        # Minimise x + y on [0, 1]^2 under x + y >= 0.5 (c = 0.5 - x - y <= 0),
        # noise-free; trial 0, enqueued at (0, 0), has the best value and
        # breaks the limit.
        def obj(trial):
            x, y = trial.suggest_float("x", 0, 1), trial.suggest_float("y", 0, 1)
            trial.set_user_attr("c", (0.5 - x - y,))
            return x + y

        sampler = CbanditSampler(URL, seed=13, constraints_func=lambda t: t.user_attrs["c"])
        self.assertIsNone(sampler.recommendation())  # no cbandit study yet
        study = optuna.create_study(sampler=sampler)
        study.enqueue_trial({"x": 0.0, "y": 0.0})
        study.optimize(obj, n_trials=25)
        self.assertEqual(sampler.cbandit_study.spec["evaluations"], "offline")  # the sampler's default
        rec = sampler.recommendation(study)
        self.assertIsNotNone(rec, "no recommendation after 25 noise-free trials")
        self.assertEqual(sampler.recommended_params, rec["params"])
        self.assertEqual(set(rec["params"]), {"x", "y"})
        self.assertGreaterEqual(rec["feasible"], 0.95)
        self.assertEqual([c["name"] for c in rec["constraints"]], ["c0"])
        t = rec["trial"]
        self.assertIsNotNone(t, "the recommendation's trial is not found")
        self.assertEqual(t.system_attrs.get(DECISION_KEY), rec["decision_id"])
        self.assertEqual(t.params, rec["params"])
        # The trial truly holds the limit; the posterior there is its value.
        self.assertLessEqual(t.system_attrs["constraints"][0], 0)
        self.assertLess(abs(rec["value"] - t.value), 1e-3 + 3 * rec["value_std"])
        self.assertLess(abs(rec["constraints"][0]["mean"] - t.system_attrs["constraints"][0]), 1e-3 + 3 * rec["constraints"][0]["std"])
        # Optuna 3.1's best_trial is the best value, feasible or not (from
        # Optuna 4.0 the best feasible one: study.best_trial reads the
        # constraints there).
        if optuna.__version__.startswith("3."):
            self.assertEqual(study.best_trial.number, 0)
            self.assertGreater(study.best_trial.system_attrs["constraints"][0], 0)
        # A process that ran no trial finds it through the Optuna study.
        other = CbanditSampler(URL, constraints_func=lambda t: t.user_attrs["c"])
        self.assertEqual(other.recommendation(study)["decision_id"], rec["decision_id"])
        with self.assertRaises(ValueError):
            CbanditSampler(URL, evaluations="sometimes")

    def test_running_trials_are_pending_decisions(self) -> None:
        sampler = CbanditSampler(URL, seed=5, constraints_func=constraints, algorithm="config")
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=3)
        running = [study.ask() for _ in range(4)]
        for t in running:
            t.suggest_float("x", -15, 30)
            t.suggest_float("y", -15, 30)
        summ = sampler.cbandit_study.summary()
        self.assertEqual(summ["pending"], 4)
        ids = [study._storage.get_trial_system_attrs(t._trial_id)[DECISION_KEY] for t in running]
        self.assertEqual(len(set(ids)), 4)
        points = {(t.params["x"], t.params["y"]) for t in running}
        self.assertEqual(len(points), 4, "parallel trials got the same point")
        # One of each ending: complete, failed, pruned, and one more complete.
        t0, t1, t2, t3 = running
        t0.set_user_attr("constraint", (-1.0, -2.0))
        study.tell(t0, 12.5)
        t1.set_user_attr("fail_reason", "OOM")
        study.tell(t1, state=TrialState.FAIL)
        t2.set_user_attr("constraint", (0.5, -1.0))
        study.tell(t2, state=TrialState.PRUNED)
        t3.set_user_attr("constraint", (0.25, -1.0))
        study.tell(t3, 7.0)
        self.assertEqual(sampler.cbandit_study.summary()["pending"], 0)
        recs = decisions_by_id(sampler)
        d0, d1, d2, d3 = (recs[i] for i in ids)
        self.assertEqual((d0["reward"], d0["costs"]), (12.5, [-1.0, -2.0]))
        self.assertEqual((d3["reward"], d3["costs"]), (7.0, [0.25, -1.0]))
        if sampler.failed_supported:
            self.assertTrue(d1.get("failed"), d1)
            self.assertEqual(d1.get("reason"), "OOM")
        else:
            self.assertTrue(d1.get("abandoned"), d1)  # a service without failed observations
        self.assertNotIn("reward", d1)
        self.assertTrue(d2.get("abandoned"), d2)  # pruned="abandon" (the default)
        self.assertNotIn("reward", d2)
        # Optuna keeps its states and the pruned trial's constraints.
        states = [study._storage.get_trial(t._trial_id).state for t in running]
        self.assertEqual(states, [TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED, TrialState.COMPLETE])
        self.assertEqual(study._storage.get_trial(t2._trial_id).system_attrs["constraints"], (0.5, -1.0))

    def test_failed_trials_in_optimize(self) -> None:
        sampler = CbanditSampler(URL, seed=7, constraints_func=constraints, pruned="failed")

        def crashy(trial):
            value = objective(trial)
            if trial.number in (6, 9):
                trial.set_user_attr("fail_reason", f"crash in trial {trial.number}")
                raise RuntimeError("the evaluation crashed")
            if trial.number == 11:
                raise optuna.TrialPruned()
            return value

        study = optuna.create_study(sampler=sampler)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the fallback's warning, on a service without failures
            study.optimize(crashy, n_trials=15, catch=(RuntimeError,))
        states = [t.state for t in study.trials]
        self.assertEqual([i for i, s in enumerate(states) if s == TrialState.FAIL], [6, 9])
        self.assertEqual(states[11], TrialState.PRUNED)
        recs = decisions_by_id(sampler)
        for n in (6, 9, 11):
            d = recs[study.trials[n].system_attrs[DECISION_KEY]]
            self.assertNotIn("reward", d)
            if sampler.failed_supported:
                self.assertTrue(d.get("failed"), d)
                want = "Optuna trial 11 pruned" if n == 11 else f"crash in trial {n}"
                self.assertEqual(d.get("reason"), want)
            else:
                self.assertTrue(d.get("abandoned"), d)
        summ = sampler.cbandit_study.summary()
        self.assertEqual(summ["pending"], 0)
        self.assertEqual(summ["reward_observed"], 12)

    def test_enqueued_trials_are_past_measurements(self) -> None:
        sampler = CbanditSampler(URL, seed=12, constraints_func=constraints)
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=3)
        study.enqueue_trial({"x": 1.0, "y": 0.5})  # every parameter: no decision asked
        study.enqueue_trial({"x": 2.0})  # y from the decision: x differs from it, so it is given up
        study.optimize(objective, n_trials=3)
        t3, t4, t5 = study.trials[3:]
        self.assertNotIn(DECISION_KEY, t3.system_attrs)
        self.assertEqual(t3.params, {"x": 1.0, "y": 0.5})
        self.assertEqual(t4.params["x"], 2.0)
        self.assertIn(DECISION_KEY, t5.system_attrs)
        recs = decisions_by_id(sampler)
        self.assertTrue(recs[t4.system_attrs[DECISION_KEY]].get("abandoned"))
        past = [d for d in recs.values() if d.get("reward") is not None and d["params"] == {"x": 1.0, "y": 0.5}]
        self.assertEqual(len(past), 1)
        self.assertAlmostEqual(past[0]["reward"], t3.value)
        past = [d for d in recs.values() if d.get("reward") is not None and d["params"] == t4.params]
        self.assertEqual(len(past), 1)
        summ = sampler.cbandit_study.summary()
        self.assertEqual((summ["reward_observed"], summ["pending"], summ["abandoned"]), (6, 0, 1))

    def test_constraints_func_raising(self) -> None:
        sampler = CbanditSampler(URL, seed=8, constraints_func=constraints)

        def forgetful(trial):
            value = objective(trial)
            if trial.number == 4:
                trial.set_user_attr("constraint", None)  # constraints_func returns None: not a sequence
            return value

        study = optuna.create_study(sampler=sampler)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with self.assertRaises(TypeError):  # Optuna's behaviour: the error reaches optimize
                study.optimize(forgetful, n_trials=8)
        self.assertEqual(len(study.trials), 5)
        last = study.trials[4]
        self.assertIsNone(last.system_attrs["constraints"])
        d = decisions_by_id(sampler)[last.system_attrs[DECISION_KEY]]
        self.assertTrue(d.get("abandoned"), d)
        self.assertEqual(sampler.cbandit_study.summary()["pending"], 0)

    def test_typed_parameters(self) -> None:
        sampler = CbanditSampler(URL, seed=11)  # no constraints: the service chooses the algorithm
        seen = []

        def typed(trial):
            lr = trial.suggest_float("lr", 1e-4, 1.0, log=True)
            drop = trial.suggest_float("drop", 0.0, 0.5, step=0.1)
            units = trial.suggest_int("units", 16, 64, step=16)
            layers = trial.suggest_int("layers", 1, 8, log=True)
            opt = trial.suggest_categorical("opt", ["adam", "sgd", None])
            seen.append((lr, drop, units, layers, opt))
            return (math.log10(lr) + 2) ** 2 + drop + abs(units - 32) / 16 + abs(layers - 3) + (opt != "adam")

        study = optuna.create_study(sampler=sampler, direction="minimize")
        study.optimize(typed, n_trials=20)
        spec = sampler.cbandit_study.spec
        by = {p["name"]: p for p in spec["parameters"]}
        self.assertEqual(by["lr"], {"name": "lr", "type": "float", "low": 1e-4, "high": 1.0, "log": True})
        self.assertEqual(by["drop"], {"name": "drop", "type": "int", "low": 0, "high": 5})  # index of 0.1 k
        self.assertEqual(by["units"], {"name": "units", "type": "int", "low": 0, "high": 3})  # 16 + 16 k
        self.assertEqual(by["layers"], {"name": "layers", "type": "int", "low": 1, "high": 8, "log": True})
        self.assertEqual(by["opt"], {"name": "opt", "type": "categorical", "choices": ["'adam'", "'sgd'", "None"]})
        for t in study.trials:
            self.assertEqual(t.state, TrialState.COMPLETE)
            for name, value in t.params.items():
                d = t.distributions[name]
                self.assertTrue(d._contains(d.to_internal_repr(value)), (name, value))
        recs = decisions_by_id(sampler)
        told = [t for t in study.trials if DECISION_KEY in t.system_attrs]
        self.assertGreaterEqual(len(told), 15)
        for t in told:
            d = recs[t.system_attrs[DECISION_KEY]]
            self.assertAlmostEqual(d["params"]["drop"] * 0.1, t.params["drop"], places=12)
            self.assertEqual(16 + 16 * d["params"]["units"], t.params["units"])
            self.assertEqual(d["params"]["opt"], repr(t.params["opt"]))
        self.assertEqual(sampler.cbandit_study.summary()["rounds"], 20)

    def test_parameter_round_trip(self) -> None:
        cases = [
            (FloatDistribution(-2.0, 3.0), [-2.0, 0.123, 3.0]),
            (FloatDistribution(1e-5, 1e2, log=True), [1e-5, 0.37, 100.0]),
            (FloatDistribution(0.0, 1.0, step=0.25), [0.0, 0.25, 0.75, 1.0]),
            (IntDistribution(-3, 9), [-3, 0, 9]),
            (IntDistribution(2, 20, step=3), [2, 5, 20]),
            (IntDistribution(1, 1024, log=True), [1, 7, 1024]),
            (CategoricalDistribution(["a", "b"]), ["a", "b"]),
            (CategoricalDistribution([2, 2.5, True, "x"]), [2, 2.5, True, "x"]),
            (CategoricalDistribution([1, 1.0 + 1e-16, False]), [1, False]),  # 1 and 1.0 collide in JSON
            (CategoricalDistribution([None, "", "a"]), [None, "", "a"]),
        ]
        for dist, values in cases:
            p = _Param("p", dist)
            for v in values:
                enc = p.to_service(v)
                self.assertIsNotNone(enc, (dist, v))
                back = p.from_service(json.loads(json.dumps(enc)))
                self.assertEqual(back, v, (dist, v, enc))
                self.assertIs(type(back), type(v), (dist, v, enc))
        self.assertIsNone(_Param("p", IntDistribution(0, 4)).to_service(5))
        self.assertIsNone(_Param("p", CategoricalDistribution(["a"])).to_service("b"))
        self.assertEqual(_Param("p", CategoricalDistribution([1, 1.0 + 1e-16])).spec["choices"], ["1", "1.0"])

    def test_rdb_storage_two_processes_and_visualisation(self) -> None:
        tmp = tempfile.mkdtemp(prefix="cbandit-optuna-")
        storage = f"sqlite:///{tmp}/optuna.db"
        optuna.create_study(study_name="two-workers", storage=storage)
        worker = textwrap.dedent(f"""
            import sys, optuna
            sys.path[:0] = [{str(HERE)!r}]
            from test_optuna import objective, constraints
            from cbandit.optuna import CbanditSampler
            optuna.logging.set_verbosity(optuna.logging.WARNING)
            study = optuna.load_study(study_name="two-workers", storage={storage!r},
                                      sampler=CbanditSampler({URL!r}, seed=2, constraints_func=constraints))
            study.optimize(objective, n_trials=12, n_jobs=2)
        """)
        env = dict(os.environ, CBANDIT_REQUIRE_OPTUNA="1")
        env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        procs = [subprocess.Popen([sys.executable, "-c", worker], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True) for _ in range(2)]
        for p in procs:
            out, _ = p.communicate(timeout=600)
            self.assertEqual(p.returncode, 0, out)
        sampler = CbanditSampler(URL, seed=2, constraints_func=constraints)
        study = optuna.load_study(study_name="two-workers", storage=storage, sampler=sampler)
        study.optimize(objective, n_trials=1)  # this process finds the same cbandit study
        self.check_consistent(study, sampler, 25)
        named = [s for s in cbandit.Client(URL).studies() if s.name == sampler.cbandit_study.name]
        self.assertEqual(len(named), 1)
        # Optuna's visualisation reads the study as usual.
        if optuna.visualization.is_available():
            fig = optuna.visualization.plot_optimization_history(study)
            ys = [y for trace in fig.data for y in (trace.y or ()) if y is not None]
            self.assertIn(study.best_value, ys)
            vis = optuna.visualization
            for plot in (vis.plot_slice, vis.plot_contour, vis.plot_parallel_coordinate, vis.plot_edf):
                self.assertTrue(plot(study).data, plot.__name__)
        else:
            print("test_optuna: plotly is not installed: plot_optimization_history not tried")
        try:
            import pandas  # noqa: F401
        except ImportError:
            print("test_optuna: pandas is not installed: trials_dataframe not tried")
        else:
            df = study.trials_dataframe()
            self.assertEqual(len(df), 25)


class LosingClient(cbandit.Client):
    """A client whose first POST of a past measurement reaches the server
    and loses the answer (a connection broken after the request was sent)."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.armed = False
        self.lost = 0

    def _once(self, method, path, data, hdrs):
        out = super()._once(method, path, data, hdrs)
        if method == "POST" and path.endswith("/trials") and self.armed and self.lost == 0:
            self.lost += 1
            raise cbandit.TransportError("connection_lost", "fake: the answer was lost", True)
        return out


class BlockingClient(cbandit.Client):
    """A client whose first POST of a past measurement waits until release
    is set (a slow service), recording whether it was set in time."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.armed = False
        self.blocking = threading.Event()
        self.release = threading.Event()
        self.released: list = []

    def _once(self, method, path, data, hdrs):
        if method == "POST" and path.endswith("/trials") and self.armed and not self.blocking.is_set():
            self.blocking.set()
            self.released.append(self.release.wait(60))
        return super()._once(method, path, data, hdrs)


class LosslessTest(unittest.TestCase):
    def test_nan_and_inf_values_are_failed_evaluations(self) -> None:
        sampler = CbanditSampler(URL, seed=21, constraints_func=constraints)

        def sometimes_nan(trial):
            value = objective(trial)
            if trial.number % 5 == 4:
                return float("nan")  # Optuna fails the trial
            if trial.number == 7:
                return float("inf")  # Optuna completes it; JSON has no infinity
            if trial.number == 8:
                raise RuntimeError("boom")
            return value

        study = optuna.create_study(sampler=sampler)
        study.optimize(sometimes_nan, n_trials=20, catch=(RuntimeError,))
        states = [t.state for t in study.trials]
        self.assertEqual(len(states), 20)
        self.assertEqual([i for i, s in enumerate(states) if s == TrialState.FAIL], [4, 8, 9, 14, 19])
        recs = decisions_by_id(sampler)
        for n in (4, 7, 8, 9, 14, 19):
            d = recs[study.trials[n].system_attrs[DECISION_KEY]]
            self.assertTrue(d.get("failed"), (n, d))
            want = {7: "gave reward = inf", 8: "RuntimeError: boom"}.get(n, "the objective returned nan")
            self.assertIn(want, d.get("reason", ""), n)
        summ = sampler.cbandit_study.summary()
        self.assertEqual((summ["rounds"], summ["failed"], summ["pending"], summ["abandoned"]), (20, 6, 0, 0))

    def test_failures_sampled_outside_the_service_are_past_failures(self) -> None:
        sampler = CbanditSampler(URL, seed=26, constraints_func=constraints)

        def first_crashes(trial):
            value = objective(trial)
            if trial.number in (0, 2):  # sampled at random: no cbandit study yet, or no space
                raise MemoryError("OOM")
            return value

        study = optuna.create_study(sampler=sampler)
        study.optimize(first_crashes, n_trials=6, catch=(MemoryError,))
        self.assertNotIn(DECISION_KEY, study.trials[0].system_attrs)
        recs = decisions_by_id(sampler)
        failed = [d for d in recs.values() if d.get("failed")]
        self.assertEqual(len(failed), 2, recs)
        self.assertEqual({d.get("reason") for d in failed}, {"MemoryError: OOM"})
        t0 = study.trials[0]
        self.assertTrue(any(abs(d["params"]["x"] - t0.params["x"]) < 1e-9 for d in failed))
        summ = sampler.cbandit_study.summary()
        self.assertEqual((summ["rounds"], summ["failed"], summ["reward_observed"], summ["pending"]), (6, 2, 4, 0))

    def test_past_measurement_resent_after_a_lost_answer_is_recorded_once(self) -> None:
        client = LosingClient(URL, retries=0)  # the sampler re-sends it itself, before the next ask
        sampler = CbanditSampler(client=client, seed=22, constraints_func=constraints)
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=3)
        study.enqueue_trial({"x": 1.0, "y": 0.5})  # a past measurement once complete
        client.armed = True
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            study.optimize(objective, n_trials=3)
        self.assertEqual(client.lost, 1)
        self.assertIn("not recorded yet", "\n".join(str(w.message) for w in caught))
        past = [d for d in sampler.cbandit_study.decisions() if d["params"] == {"x": 1.0, "y": 0.5}]
        self.assertEqual(len(past), 1)
        summ = sampler.cbandit_study.summary()
        self.assertEqual((summ["rounds"], summ["reward_observed"], summ["pending"]), (6, 6, 0))
        self.assertEqual(sampler._untold, [])
        self.assertEqual(len(study.trials), 6)

    def test_two_optuna_studies_on_one_cbandit_study(self) -> None:
        samplers = [CbanditSampler(URL, seed=23 + k, constraints_func=constraints, study_name="shared-by-two")
                    for k in range(2)]
        studies = [optuna.create_study(sampler=s) for s in samplers]
        for st in studies:
            st.optimize(objective, n_trials=6)
        self.assertEqual(samplers[0].cbandit_study.id, samplers[1].cbandit_study.id)
        ids = [[t.system_attrs.get(DECISION_KEY) for t in st.trials] for st in studies]
        asked = [i for per in ids for i in per if i is not None]
        self.assertEqual(len(asked), len(set(asked)), f"the two Optuna studies share decisions: {ids}")
        recs = decisions_by_id(samplers[0])
        for st in studies:
            for t in st.trials:
                if DECISION_KEY in t.system_attrs:
                    self.assertAlmostEqual(recs[t.system_attrs[DECISION_KEY]]["reward"], t.value, places=9)
        summ = samplers[0].cbandit_study.summary()
        self.assertEqual((summ["rounds"], summ["reward_observed"], summ["pending"]), (12, 12, 0))

    def test_a_slow_request_holds_up_only_its_own_trial(self) -> None:
        client = BlockingClient(URL)
        sampler = CbanditSampler(client=client, seed=24, constraints_func=constraints)
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=4)
        study.enqueue_trial({"x": 2.0, "y": 1.0})  # its record as a past measurement blocks
        client.armed = True
        done_while_blocked = []
        lock = threading.Lock()

        def counting(trial):
            value = objective(trial)
            if client.blocking.is_set() and not client.release.is_set():
                with lock:
                    done_while_blocked.append(trial.number)
                    if len(done_while_blocked) >= 6:
                        client.release.set()
            return value

        study.optimize(counting, n_trials=16, n_jobs=4)
        self.assertEqual(client.released, [True], "the other jobs stopped while one request was slow")
        self.assertGreaterEqual(len(done_while_blocked), 6)
        summ = sampler.cbandit_study.summary()
        self.assertEqual((summ["rounds"], summ["pending"]), (20, 0))

    def test_a_parameter_after_the_first_trials_is_warned_of_once(self) -> None:
        sampler = CbanditSampler(URL, seed=25, constraints_func=constraints)

        def growing(trial):
            value = objective(trial)
            if trial.number >= 4:
                value += trial.suggest_float("z", 0, 1)
            return value

        study = optuna.create_study(sampler=sampler)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            study.optimize(growing, n_trials=10)
        about = [str(w.message) for w in caught if "'z'" in str(w.message)]
        self.assertEqual(len(about), 1, about)
        self.assertIn("not in the cbandit study's space (x, y)", about[0])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RestartTest(unittest.TestCase):
    def test_server_killed_and_restarted_mid_study(self) -> None:
        db = os.path.join(tempfile.mkdtemp(prefix="cbandit-optuna-"), "cbandit.db")
        port = free_port()
        flags = ("--db", "sqlite:" + db, "--addr", f"127.0.0.1:{port}")
        proc, url = start_server(*flags)
        server = {"proc": proc}
        restarted = threading.Event()

        def restart() -> None:
            server["proc"] = start_server(*flags)[0]
            restarted.set()

        def killing(trial):
            value = objective(trial)
            if trial.number == 12:
                server["proc"].kill()  # no goodbye: as a crash
                server["proc"].wait()
                # Back in a moment: meanwhile the other worker's ask or tell
                # meets a closed port and the client retries.
                threading.Timer(0.5, restart).start()
            return value

        client = cbandit.Client(url, retries=20, backoff=0.1, max_backoff=1.0)  # up to ~10 s
        sampler = CbanditSampler(client=client, seed=9, constraints_func=constraints)
        study = optuna.create_study(sampler=sampler)
        study.optimize(killing, n_trials=30, n_jobs=2)
        self.assertTrue(restarted.wait(30))
        self.assertNotEqual(server["proc"].pid, proc.pid)
        SamplerTest.check_consistent(self, study, sampler, 30)
        self.assertEqual(sampler.fallbacks, 0)
        after = [t for t in study.trials if t.number > 12 and DECISION_KEY in t.system_attrs]
        self.assertGreaterEqual(len(after), 15, "the sampler did not carry on with the service")

    def test_service_down_longer_than_the_retries(self) -> None:
        db = os.path.join(tempfile.mkdtemp(prefix="cbandit-optuna-"), "cbandit.db")
        flags = ("--db", "sqlite:" + db, "--addr", f"127.0.0.1:{free_port()}")
        proc, url = start_server(*flags)
        sampler = CbanditSampler(client=cbandit.Client(url, retries=0), seed=4, constraints_func=constraints)
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=5)
        told = study.ask()
        value = objective(told)
        proc.kill()
        proc.wait()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            study.tell(told, value)  # not delivered: queued
            study.optimize(objective, n_trials=2)  # sampled at random, recorded later
        messages = "\n".join(str(w.message) for w in caught)
        self.assertIn("not delivered", messages)
        self.assertIn("is sampled by RandomSampler", messages)
        self.assertEqual(sampler.fallbacks, 2)
        start_server(*flags)
        study.optimize(objective, n_trials=3)
        SamplerTest.check_consistent(self, study, sampler, 11)
        self.assertEqual(sampler._untold, [])


if __name__ == "__main__":
    unittest.main()
