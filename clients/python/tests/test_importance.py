"""Study.importance() against a live ``cbandit serve``: a parameter the
objective ignores ranks last, the importances sum to 1, a second call gives
the same numbers, and too few observations are a 409 that says so."""

from __future__ import annotations

import math
import unittest

import cbandit
from serving import server_url, stop_servers

URL = ""


def setUpModule() -> None:
    global URL
    URL = server_url()


def tearDownModule() -> None:
    stop_servers()


def halton(i: int, base: int) -> float:
    f, r = 1.0, 0.0
    while i > 0:
        f /= base
        r += f * (i % base)
        i //= base
    return r


class ImportanceTest(unittest.TestCase):
    def test_ignored_parameter_ranks_last(self) -> None:
        client = cbandit.Client(URL)
        study = client.create_study("py-importance", parameters=[
            {"name": "lr", "type": "float", "low": 1e-4, "high": 1, "log": True},
            {"name": "opt", "type": "categorical", "choices": ["sgd", "adam"]},
            {"name": "ignored", "type": "float", "low": -1, "high": 1},
        ], objective={"name": "loss", "goal": "minimize"}, horizon=100)

        def add(i: int) -> None:
            p = {"lr": 10 ** (-4 + 4 * halton(i, 2)), "opt": ["sgd", "adam"][int(2 * halton(i, 3))],
                 "ignored": -1 + 2 * halton(i, 5)}
            loss = (math.log10(p["lr"]) + 2) ** 2 + (0.7 if p["opt"] == "sgd" else 0)
            study.add_trial(loss, params=p)

        for i in range(1, 6):
            add(i)
        with self.assertRaises(cbandit.APIError) as ctx:
            study.importance()
        self.assertEqual((ctx.exception.status, ctx.exception.code, ctx.exception.field), (409, "too_few_observations", "observations"))
        for i in range(6, 31):
            add(i)
        imp = study.importance()
        self.assertEqual(imp["method"], "fanova-gp")
        self.assertEqual(imp["observations"], 30)
        names = [p["parameter"] for p in imp["parameters"]]
        self.assertEqual(sorted(names), ["ignored", "lr", "opt"])
        self.assertEqual(names[-1], "ignored", imp)
        self.assertLess(imp["parameters"][-1]["importance"], 0.05, imp)
        self.assertAlmostEqual(sum(p["importance"] for p in imp["parameters"]), 1.0, places=9)
        self.assertEqual(study.importance(), imp)


if __name__ == "__main__":
    unittest.main()
