"""Tests of the Python client against a live ``cbandit serve``.

The server: ``CBANDIT_URL`` (a running server, no token), or ``CBANDIT_BIN``
(a cbandit binary: ``serve --db memory:`` is started on a free loopback port
for the tests, and a second one with a token).
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import threading
import time
import unittest
from pathlib import Path
from typing import Tuple

import cbandit
from serving import server_url, start_server, stop_servers

URL = ""


def setUpModule() -> None:
    global URL
    URL = server_url()


def tearDownModule() -> None:
    stop_servers()


PARAMETERS = [
    {"name": "lr", "type": "float", "low": 1e-4, "high": 1, "log": True},
    {"name": "layers", "type": "int", "low": 1, "high": 8},
    {"name": "opt", "type": "categorical", "choices": ["adam", "sgd"]},
]


def toy(params: dict) -> Tuple[float, float]:
    """A toy system: accuracy peaks at lr = 1e-2 and 4 layers; latency grows with layers."""
    acc = math.exp(-((math.log10(params["lr"]) + 2) ** 2) / 2) - 0.03 * (params["layers"] - 4) ** 2
    if params["opt"] == "sgd":
        acc -= 0.1
    return acc, params["layers"] / 8


class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = cbandit.Client(URL)

    def test_twenty_rounds_summary_and_lookup(self) -> None:
        study = self.client.create_study(name="py-typed", parameters=PARAMETERS, objective={"name": "accuracy"},
                                         constraints=[{"name": "latency", "threshold": 0.6}],
                                         algorithm="ckb-ucb", seed=4, horizon=50)
        self.assertTrue(study.id.startswith("s-"))
        for i in range(20):
            trial = study.ask()
            self.assertEqual(trial.round, i + 1)
            p = trial.params
            self.assertIsInstance(p["lr"], float)
            self.assertTrue(1e-4 <= p["lr"] <= 1, p)
            self.assertIsInstance(p["layers"], int)
            self.assertNotIsInstance(p["layers"], bool)
            self.assertTrue(1 <= p["layers"] <= 8, p)
            self.assertIn(p["opt"], ("adam", "sgd"))
            self.assertEqual(len(trial.x), 4)  # lr, layers, one-hot opt
            acc, lat = toy(p)
            answer = study.tell(trial, reward=acc, costs=[lat])
            self.assertEqual(answer["applied"], ["reward", "costs"])
        s = study.summary()
        self.assertEqual(s["rounds"], 20)
        self.assertEqual(s["reward_observed"], 20)
        self.assertEqual(s["pending"], 0)
        self.assertIsNotNone(s.get("best"))
        self.assertLessEqual(s["best"]["params"]["layers"] / 8, 0.6)

        again = self.client.get_study("py-typed")
        self.assertEqual(again.id, study.id)
        self.assertEqual([p["name"] for p in again.spec["parameters"]], ["lr", "layers", "opt"])
        self.assertEqual(self.client.get_study(study.id).name, "py-typed")

        decs = study.decisions()
        self.assertEqual([d["decision_id"] for d in decs], list(range(1, 21)))
        rows = list(csv.reader(io.StringIO(study.decisions_csv())))
        self.assertEqual(rows[0][:3], ["decision_id", "round", "arm"])
        self.assertIn("params.layers", rows[0])
        self.assertEqual(len(rows), 21)

    def test_enqueue_and_past_measurements(self) -> None:
        box = {"type": "box", "lo": [0, 0], "hi": [1, 1]}
        study = self.client.create_study(name="py-told", space=box, objective="yield",
                                         constraints=[{"name": "power", "threshold": 0.5, "kind": "cumulative"}],
                                         algorithm="rpol-ucb", seed=3, horizon=60)
        for i in range(20):
            x = [(i % 5) / 4, (i // 5) / 3]
            t = study.add_trial(reward=1 - (x[0] - 0.4) ** 2 - (x[1] - 0.6) ** 2, costs=[x[0]], x=x)
            self.assertEqual((t.decision_id, t.x), (i + 1, x))
        s = study.summary()
        self.assertEqual((s["rounds"], s["reward_observed"], s["pending"]), (20, 20, 0))
        answer = study.enqueue(x=[0.1, 0.9])
        self.assertEqual(answer["queued"], 1)
        self.assertEqual(study.ask().x, [0.1, 0.9])
        with self.assertRaises(cbandit.APIError) as e:
            study.enqueue(x=[2, 0])
        self.assertEqual((e.exception.status, e.exception.field), (400, "x[0]"))

    def test_evaluations_and_recommendation(self) -> None:
        box = {"type": "box", "lo": [0, 0], "hi": [1, 1]}
        live = self.client.create_study(name="py-live", space=box, objective="yield", seed=1, horizon=5)
        self.assertEqual(live.spec["evaluations"], "live")  # omitted: the server's default
        off = self.client.create_study(name="py-offline", space=box, objective="yield", seed=1, horizon=5,
                                       constraints=[{"name": "power", "threshold": 0.5}], evaluations="offline")
        self.assertEqual(off.spec["evaluations"], "offline")
        self.assertIn("offline", off.spec["algorithm_choice"])
        t = off.ask()
        off.tell(t, reward=1.0, costs=[0.2])
        rec = off.recommendation()  # None until the algorithm names one
        if rec is not None:
            self.assertEqual(set(rec) >= {"decision_id", "x", "objective", "constraints", "feasible"}, True)
            self.assertGreaterEqual(rec["feasible"], 0.95)
        with self.assertRaises(cbandit.APIError) as e:
            self.client.create_study(name="py-sometimes", space=box, objective="yield", evaluations="sometimes")
        self.assertEqual((e.exception.status, e.exception.field), (400, "evaluations"))

    def test_space_study_partial_and_abandoned(self) -> None:
        study = self.client.create_study(name="py-box", space={"type": "box", "lo": [0, 0], "hi": [1, 1]},
                                         objective="yield", constraints=[{"name": "power", "threshold": 0.5}],
                                         seed=2, horizon=10)
        trials = study.ask_many(3)
        self.assertEqual([t.decision_id for t in trials], [1, 2, 3])
        self.assertEqual(trials[0].params, {})
        study.tell(trials[0], reward=0.5)
        study.tell(trials[0], costs=[0.2])
        self.assertEqual(study.tell(trials[0], reward=0.5)["duplicate"], ["reward"])
        study.abandon(trials[2])
        s = study.summary()
        self.assertEqual((s["rounds"], s["pending"], s["abandoned"]), (3, 1, 1))
        retry = study.ask(idempotency_key="job-1")
        self.assertEqual(study.ask(idempotency_key="job-1").decision_id, retry.decision_id)

    def test_float_values_are_floats(self) -> None:
        """A float parameter's integral value (JSON 5) still reaches Python as a float."""
        study = self.client.create_study(name="py-floats", parameters=[
            {"name": "w", "type": "float", "low": 0, "high": 8}, {"name": "k", "type": "int", "low": 0, "high": 2}],
            objective="f", constraints=[{"name": "g", "threshold": 1}], space={"candidates": 9})
        seen = set()
        for t in study.ask_many(9):
            self.assertIsInstance(t.params["w"], float)
            self.assertIsInstance(t.params["k"], int)
            seen.add(t.params["w"] == int(t.params["w"]))
        self.assertIn(True, seen, "want an integral float among the candidates, to test the coercion")

    def test_errors_carry_status_code_and_field(self) -> None:
        bad = [dict(PARAMETERS[0], low=0)] + PARAMETERS[1:]
        with self.assertRaises(cbandit.APIError) as e:
            self.client.create_study(name="py-bad", parameters=bad, objective="accuracy")
        self.assertEqual((e.exception.status, e.exception.code, e.exception.field),
                         (400, "invalid_argument", "parameters[0].low"))
        self.assertIn("low", str(e.exception))

        with self.assertRaises(cbandit.APIError) as e:
            self.client.get_study("no-such-study")
        self.assertEqual((e.exception.status, e.exception.field), (404, "name"))

        cons = [{"name": "latency", "threshold": 0.6}]
        study = self.client.create_study(name="py-dup", parameters=PARAMETERS, objective="accuracy", constraints=cons)
        with self.assertRaises(cbandit.APIError) as e:
            self.client.create_study(name="py-dup", parameters=PARAMETERS, objective="accuracy", constraints=cons)
        self.assertEqual((e.exception.status, e.exception.code, e.exception.field), (409, "duplicate_name", "name"))

        with self.assertRaises(cbandit.APIError) as e:
            study.tell(99, reward=1.0)
        self.assertEqual((e.exception.status, e.exception.field), (404, "decision_id"))

        with self.assertRaisesRegex(ValueError, "failed=True"):  # refused before sending: JSON has no NaN
            study.tell(study.ask(), reward=float("nan"))

        with self.assertRaises(cbandit.APIError) as e:
            cbandit.Client("http://127.0.0.1:9", timeout=2, retries=1, backoff=0.01).studies()
        self.assertEqual((e.exception.status, e.exception.code), (0, "unreachable"))

    @unittest.skipUnless(os.environ.get("CBANDIT_BIN"), "needs CBANDIT_BIN to start a server with a token")
    def test_token(self) -> None:
        _, url = start_server("--token", "py-secret")
        with self.assertRaises(cbandit.APIError) as e:
            cbandit.Client(url).studies()
        self.assertEqual((e.exception.status, e.exception.code, e.exception.field),
                         (401, "unauthenticated", "Authorization"))
        c = cbandit.Client(url, token="py-secret")
        c.create_study(name="tok", space={"type": "points", "points": [[0], [1]]}, objective="f",
                       constraints=[{"name": "g", "threshold": 1}])
        self.assertEqual([s.name for s in c.studies()], ["tok"])

    def test_readme_example(self) -> None:
        """The README's example runs as printed (against this server, under another study name)."""
        readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
        code = re.search(r"```python\n(.*?)```", readme, re.S)
        self.assertIsNotNone(code)
        assert code is not None
        body = code.group(1)
        top = Path(__file__).resolve().parents[3] / "README.md"
        if top.exists():  # the repository's README shows the same example
            self.assertIn(body, top.read_text(), "README.md and clients/python/README.md differ in the example")
        lines = [ln for ln in body.strip().splitlines() if ln.strip()]
        self.assertLessEqual(len(lines), 11, "the README example should stay about ten lines")
        body = body.replace("http://127.0.0.1:8080", URL).replace('name="toy"', 'name="py-readme"')
        out = io.StringIO()
        from contextlib import redirect_stdout
        with redirect_stdout(out):
            exec(compile(body, "README.md", "exec"), {})
        best = eval(out.getvalue().strip())  # the printed params dict
        self.assertEqual(set(best), {"lr", "layers"})
        self.assertLessEqual(best["layers"], 4)  # feasible: cost = layers/8 <= 0.5

    def test_readme_quickstart(self) -> None:
        """The repository README's service quickstart runs as printed and ends within the latency limit."""
        top = Path(__file__).resolve().parents[3] / "README.md"
        if not top.exists():
            self.skipTest("not in the repository")
        text = top.read_text()
        self.assertIn("### Service quickstart", text)
        code = re.search(r"```python\n(.*?)```", text[text.index("### Service quickstart"):], re.S)
        assert code is not None
        body = code.group(1)
        lines = [ln for ln in body.strip().splitlines() if ln.strip()]
        self.assertLessEqual(len(lines), 18, "the quickstart should stay about fifteen lines")
        self.assertIn('algorithm="config"', body)
        self.assertIn('"kind": "stage-wise"', body)
        body = body.replace("http://127.0.0.1:8080", URL).replace('name="quickstart"', 'name="py-quickstart"')
        out = io.StringIO()
        from contextlib import redirect_stdout
        with redirect_stdout(out):
            exec(compile(body, "README.md", "exec"), {})
        best = eval(out.getvalue().strip())
        self.assertEqual(set(best), {"batch", "threads"})
        self.assertLessEqual(5 + best["batch"] * best["threads"] / 10, 50)


class RecoveryTest(unittest.TestCase):
    """pending() after a crash, and optimize()."""

    def setUp(self) -> None:
        self.client = cbandit.Client(URL)

    def test_pending_after_a_crash(self) -> None:
        study = self.client.create_study(name="py-pending", parameters=PARAMETERS, objective="accuracy",
                                         constraints=[{"name": "latency", "threshold": 0.6}], seed=1, horizon=20)
        self.assertEqual(study.pending(), [])
        t = study.ask_many(4)
        study.tell(t[0], reward=0.5, costs=[0.2])  # complete
        study.tell(t[1], reward=0.4)  # costs missing
        study.tell(t[2], costs=[0.3])  # reward missing
        # t[3]: nothing told. A new process finds what is still open:
        again = cbandit.Client(URL).get_study("py-pending")
        pending = again.pending()
        self.assertEqual([p.decision_id for p in pending], [2, 3, 4])
        self.assertEqual([p.missing for p in pending], [["costs"], ["reward"], ["reward", "costs"]])
        self.assertEqual(pending[2].params, t[3].params)
        self.assertIsInstance(pending[2].params["lr"], float)
        again.tell(pending[0], costs=[0.1])
        again.abandon(pending[2])
        self.assertEqual([p.decision_id for p in again.pending()], [3])
        self.assertEqual(again.summary()["pending"], 1)

    def test_optimize_with_workers(self) -> None:
        study = self.client.create_study(name="py-optimize", parameters=PARAMETERS, objective="accuracy",
                                         constraints=[{"name": "latency", "threshold": 0.6}], seed=2, horizon=40)
        calls = []
        lock = threading.Lock()

        def objective(trial: cbandit.Trial) -> dict:
            with lock:
                calls.append(trial.decision_id)
                n = len(calls)
            if n % 5 == 0:
                raise ValueError("the evaluation failed")
            acc, lat = toy(trial.params)
            return {"accuracy": acc, "latency": lat}

        done = study.optimize(objective, n_trials=15, n_workers=3, catch=(ValueError,))
        s = study.summary()
        self.assertEqual(len(calls), 15)
        self.assertEqual(len(set(calls)), 15, "each worker got its own trial")
        self.assertEqual((s["rounds"], s["failed"], s["abandoned"], s["pending"], s["reward_observed"]), (15, 3, 0, 0, 12))
        self.assertEqual(s["failure_reasons"], {"ValueError: the evaluation failed": 3})
        self.assertEqual(len(done), 12)

        # An exception not caught stops the loop and is raised; its trial is told as failed.
        def broken(trial: cbandit.Trial) -> tuple:
            raise KeyError("no such metric")
        with self.assertRaises(KeyError):
            study.optimize(broken, n_trials=5, n_workers=2)
        s = study.summary()
        self.assertEqual(s["pending"], 0)
        self.assertGreaterEqual(s["failed"], 4)
        self.assertLessEqual(s["failed"], 5)

        # The horizon ends the loop without an error; (reward, costs) works too.
        left = 40 - s["rounds"]
        done = study.optimize(lambda t: toy(t.params)[:1] + ([toy(t.params)[1]],), n_trials=100)
        self.assertEqual(len(done), left)
        self.assertEqual(study.summary()["rounds"], 40)

    def test_optimize_nan_is_a_failed_trial(self) -> None:
        study = self.client.create_study(name="py-optimize-nan", parameters=PARAMETERS, objective="accuracy",
                                         constraints=[{"name": "latency", "threshold": 0.6}], seed=5, horizon=40)
        calls = []
        lock = threading.Lock()

        def objective(trial: cbandit.Trial) -> dict:
            with lock:
                calls.append(trial.decision_id)
                n = len(calls)
            acc, lat = toy(trial.params)
            if n % 5 == 0:
                return {"accuracy": float("nan") if n != 10 else float("inf"), "latency": lat}
            return {"accuracy": acc, "latency": lat}

        done = study.optimize(objective, n_trials=15, n_workers=2)  # no catch= needed
        s = study.summary()
        self.assertEqual(len(calls), 15)
        self.assertEqual((s["rounds"], s["failed"], s["pending"], s["reward_observed"]), (15, 3, 0, 12))
        self.assertEqual(s["failure_reasons"], {"the objective function returned reward = nan": 2,
                                                "the objective function returned reward = inf": 1})
        self.assertEqual(len(done), 12)
        # A constraint metric that is NaN fails the trial too.
        study.optimize(lambda t: (0.5, [float("nan")]), n_trials=1)
        self.assertEqual(study.summary()["failure_reasons"].get("the objective function returned costs[0] = nan"), 1)

    def test_optimize_abandons_a_refused_tell(self) -> None:
        study = self.client.create_study(name="py-optimize-refused", parameters=PARAMETERS, objective="accuracy",
                                         constraints=[{"name": "latency", "threshold": 0.6}], seed=7, horizon=5)
        with self.assertRaises(cbandit.APIError) as cm:
            study.optimize(lambda t: (1e300, [0.1]), n_trials=1)  # beyond the service's magnitudes
        self.assertEqual((cm.exception.status, cm.exception.field), (400, "reward"))
        s = study.summary()
        self.assertEqual((s["pending"], s["abandoned"]), (0, 1))

    def test_nan_told_directly(self) -> None:
        study = self.client.create_study(name="py-tell-nan", parameters=PARAMETERS, objective="accuracy",
                                         constraints=[{"name": "latency", "threshold": 0.6}], seed=6, horizon=5)
        trial = study.ask()
        with self.assertRaisesRegex(ValueError, r"reward = nan.*failed=True"):
            study.tell(trial, reward=float("nan"), costs=[0.1])
        with self.assertRaisesRegex(ValueError, r"costs\[0\] = inf"):
            study.tell(trial, reward=1.0, costs=[float("inf")])
        # The raw API refuses NaN (JSON has none) and says how to report a failure.
        with self.assertRaises(cbandit.APIError) as cm:
            self.client.request("POST", f"/studies/{study.id}/observations", {"decision_id": trial.decision_id, "reward": float("nan")})
        self.assertEqual(cm.exception.status, 400)
        self.assertIn('"failed": true', cm.exception.message)
        self.assertEqual(study.summary()["pending"], 1)

    def test_optimize_batches_are_reproducible(self) -> None:
        import random as _random
        runs = []
        for k in range(2):
            study = self.client.create_study(name=f"py-optimize-batch-{k}", parameters=PARAMETERS, objective="accuracy",
                                             constraints=[{"name": "latency", "threshold": 0.6}], seed=8, horizon=30)
            rng = _random.Random(k)  # another finishing order in each run

            def objective(trial: cbandit.Trial) -> tuple:
                time.sleep(rng.uniform(0, 0.02))
                if trial.decision_id == 4:
                    raise ValueError("crash")
                acc, lat = toy(trial.params)
                return acc, [lat]

            done = study.optimize(objective, n_trials=12, n_workers=3, batch=True, catch=(ValueError,))
            self.assertEqual([t.decision_id for t in done], [i for i in range(1, 13) if i != 4])
            runs.append([(d["params"], d.get("reward"), d.get("failed", False)) for d in study.decisions()])
        self.assertEqual(len(runs[0]), 12)
        self.assertEqual(runs[0], runs[1])

    def test_optimize_batch_stops_at_the_horizon(self) -> None:
        study = self.client.create_study(name="py-optimize-batch-horizon", parameters=PARAMETERS, objective="accuracy",
                                         constraints=[{"name": "latency", "threshold": 0.6}], seed=9, horizon=7)
        done = study.optimize(lambda t: (toy(t.params)[0], [toy(t.params)[1]]), n_trials=20, n_workers=3, batch=True)
        self.assertEqual(len(done), 7)
        self.assertEqual(study.summary()["rounds"], 7)

    def test_create_study_load_if_exists(self) -> None:
        params = [dict(p) for p in PARAMETERS]
        kw = dict(parameters=params, objective="accuracy", constraints=[{"name": "latency", "threshold": 0.6}],
                  seed=1, horizon=10)
        first = self.client.create_study("py-resume", load_if_exists=True, **kw)
        first.ask_many(2)
        again = self.client.create_study("py-resume", load_if_exists=True, **kw)
        self.assertEqual(again.id, first.id)
        self.assertEqual(again.summary()["rounds"], 2)
        with self.assertRaises(cbandit.APIError) as cm:
            self.client.create_study("py-resume", **kw)
        self.assertEqual((cm.exception.status, cm.exception.code), (409, "duplicate_name"))
        params[1]["high"] = 9
        with self.assertRaises(cbandit.APIError) as cm:
            self.client.create_study("py-resume", load_if_exists=True, **kw)
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.field), (409, "definition_differs", "load_if_exists"))
        self.assertIn('study "py-resume" exists with a different parameters[1].high (8 vs 9)', str(cm.exception))

    def test_optimize_refuses_what_does_not_fit(self) -> None:
        study = self.client.create_study(name="py-optimize-bad", parameters=PARAMETERS, objective="accuracy",
                                         constraints=[{"name": "latency", "threshold": 0.6}], seed=3, horizon=5)
        with self.assertRaises(ValueError):
            study.optimize(lambda t: 0.5, n_trials=1)  # the constraint's value is missing
        self.assertEqual(study.summary()["abandoned"], 1)


if __name__ == "__main__":
    unittest.main()
