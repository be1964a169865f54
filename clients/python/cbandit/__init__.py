"""Python client of the cbandit ask/tell service (``cbandit serve``).

Standard library only. A study is a search space -- named, typed parameters
or a ``space`` -- an objective metric, constraint metrics with thresholds and
an algorithm; each round you ask for a trial, run it, and tell its metrics::

    import cbandit

    client = cbandit.Client("http://127.0.0.1:8080", token=None)
    study = client.create_study(
        name="tuning",
        parameters=[{"name": "lr", "type": "float", "low": 1e-4, "high": 1, "log": True},
                    {"name": "layers", "type": "int", "low": 1, "high": 8}],
        objective={"name": "accuracy"},
        constraints=[{"name": "latency", "threshold": 0.5}],
        algorithm="ckb-ucb", seed=1)
    trial = study.ask()
    study.tell(trial, reward=0.9, costs=[0.3])

or let ``study.optimize(fn, n_trials=40, n_workers=4)`` run that loop.

Errors of the API are raised as :class:`APIError`, carrying its HTTP
status, code, the request field it names and the message; a request that
got no answer (connection refused, dropped or reset, timed out) raises
:class:`TransportError`, a subclass of :class:`APIError`. Asks and tells
carry idempotency keys and are retried with bounded backoff.
"""

from .client import APIError, Client, Study, TransportError, Trial

__all__ = ["APIError", "Client", "Study", "TransportError", "Trial"]
__version__ = "0.2.0"
