"""The client: :class:`Client`, :class:`Study`, :class:`Trial`, :class:`APIError` and :class:`TransportError`."""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import math
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Type, Union

__all__ = ["APIError", "TransportError", "Client", "Study", "Trial"]

log = logging.getLogger("cbandit")

# Answers worth asking again (with the same Idempotency-Key): the server was
# overloaded, restarting or behind a proxy that lost it.
RETRY_STATUSES = frozenset({429, 502, 503, 504})
# The most a request waits between its attempts in all, in seconds: a 503
# (the service's store restarting or failing over) is waited out within it,
# beyond ``retries``.
RETRY_BUDGET = 30.0
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})


def _non_finite(reward: Optional[float], costs: Optional[Sequence[float]]) -> str:
    """Names the first NaN or infinite value of a measurement ("reward = nan", "costs[1] = inf"), or ""."""
    if reward is not None and not math.isfinite(reward):
        return f"reward = {reward}"
    for j, c in enumerate(costs or ()):
        if not math.isfinite(c):
            return f"costs[{j}] = {c}"
    return ""


def _reason(e: BaseException) -> str:
    """A failure's reason from an exception: its type and first line, at most 200 bytes."""
    text = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
    raw = text.encode("utf-8")[:200]
    return raw.decode("utf-8", errors="ignore")


class APIError(Exception):
    """An error answer of the service, or a failure to reach it (:class:`TransportError`).

    Attributes:
        status: the HTTP status (0 when no answer came).
        code: the API's error code, e.g. ``"invalid_argument"``, ``"not_found"``;
            for a :class:`TransportError` ``"unreachable"``, ``"connection_lost"``
            or ``"timeout"``.
        field: the request field the error names, e.g. ``"parameters[0].low"``
            (empty when there is none).
        message: what is wrong, with the offending value.
        attempts: how many times the request was sent (more than 1 after retries).
    """

    def __init__(self, status: int, code: str, field: str, message: str) -> None:
        self.status = status
        self.code = code
        self.field = field
        self.message = message
        self.attempts = 1
        where = f" {field}:" if field else ""
        super().__init__(f"{status} {code}:{where} {message}")


class TransportError(APIError):
    """No answer: the connection was refused, dropped, reset or timed out.

    A subclass of :class:`APIError` with ``status`` 0. ``code`` says what
    happened: ``"unreachable"`` (the request was not delivered: connection
    refused, unknown host), ``"connection_lost"`` (the connection broke after
    the request was sent: the server may have applied it) or ``"timeout"``.

    Attributes:
        delivered: False when the request certainly did not reach the server.
        cause: the exception of the standard library behind it.
    """

    def __init__(self, code: str, message: str, delivered: bool, cause: Optional[BaseException] = None) -> None:
        super().__init__(0, code, "", message)
        self.delivered = delivered
        self.cause = cause


@dataclass
class Trial:
    """One suggestion to run.

    Attributes:
        decision_id: the decision's ID, to tell its metrics.
        round: the round of the study it was made in.
        x: the point, in the space's coordinates (for a study defined by
            parameters: their encoding in the learner's unit cube).
        params: the parameters' values by name (studies defined by
            parameters): float as ``float``, int as ``int``, categorical as
            the choice; empty otherwise.
        arm: the index of the point among the space's points or candidates
            (-1 for a point of a native box).
        missing: for a trial of :meth:`Study.pending`, what it still waits
            for: ``["reward"]``, ``["costs"]`` or both.
        raw: the suggestion (or decision record) as the API returned it.
    """

    decision_id: int
    round: int
    x: List[float]
    params: Dict[str, Any] = field(default_factory=dict)
    arm: int = -1
    missing: List[str] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Trial":
        return cls(decision_id=int(d["decision_id"]), round=int(d["round"]), x=list(d.get("x") or []),
                   params=dict(d.get("params") or {}), arm=int(d.get("arm", -1)), raw=dict(d))


def _transport_error(url: str, e: BaseException) -> TransportError:
    """Names a failure of the standard library's HTTP stack."""
    if isinstance(e, urllib.error.URLError):
        # urllib wraps only the errors of connecting and sending: a request
        # that failed there was not delivered whole, so the server did not
        # act on it.
        reason = e.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            return TransportError("unreachable", f"{url}: connecting timed out ({reason})", False, e)
        return TransportError("unreachable", f"{url}: {reason}", False, e)
    if isinstance(e, (TimeoutError, socket.timeout)):
        return TransportError("timeout", f"{url}: no answer in time ({e or 'timed out'})", True, e)
    if isinstance(e, ConnectionRefusedError):
        return TransportError("unreachable", f"{url}: {e}", False, e)
    what = type(e).__name__
    return TransportError("connection_lost", f"{url}: the connection broke before the answer was read ({what}: {e})", True, e)


class Client:
    """A connection to a cbandit service.

    Args:
        url: the server's base URL, e.g. ``"http://127.0.0.1:8080"``.
        token: the bearer token, when the server was started with one
            (``cbandit serve --token`` or ``CBANDIT_TOKEN``).
        timeout: seconds to wait for each answer.
        retries: how many times a request is sent again after a transport
            failure or a 429/502/503/504 answer (see :meth:`request` for
            which requests); 0 turns retries off.
        backoff: the first wait between attempts, in seconds; it doubles at
            each attempt (with jitter: a random 50 to 100 % of it), up to
            ``max_backoff``. A ``Retry-After`` answer header is honoured up to
            ``max_backoff``.
        max_backoff: the longest wait between two attempts, in seconds.
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 30.0,
                 retries: int = 4, backoff: float = 0.25, max_backoff: float = 8.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        self.max_backoff = max_backoff

    def _once(self, method: str, path: str, data: Optional[bytes], hdrs: Mapping[str, str]) -> Tuple[bytes, Optional[str]]:
        """Sends one request: the body, or raises APIError (with the Retry-After header of an error answer)."""
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=dict(hdrs))
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.read(), None
        except urllib.error.HTTPError as e:
            try:
                payload = e.read()
            except (http.client.HTTPException, OSError) as e2:
                raise _transport_error(self.url, e2) from None
            retry_after = e.headers.get("Retry-After") if e.headers else None
            try:
                err = json.loads(payload)["error"]
                exc = APIError(int(err.get("status", e.code)), str(err.get("code", "")),
                               str(err.get("field", "")), str(err.get("message", "")))
            except (ValueError, KeyError, TypeError, AttributeError):
                exc = APIError(e.code, "http_error", "", payload.decode("utf-8", "replace")[:500])
            exc.retry_after = retry_after  # type: ignore[attr-defined]
            raise exc from None
        except (http.client.HTTPException, OSError) as e:
            # RemoteDisconnected, ConnectionResetError, ConnectionRefusedError,
            # BrokenPipeError, socket timeouts, IncompleteRead, URLError, ssl errors.
            raise _transport_error(self.url, e) from None

    def _wait(self, attempt: int, err: APIError) -> float:
        delay = min(self.max_backoff, self.backoff * (2 ** attempt)) * random.uniform(0.5, 1.0)
        ra = getattr(err, "retry_after", None)
        if ra:
            try:
                delay = float(ra)
            except ValueError:
                when = email.utils.parsedate_to_datetime(ra)
                delay = when.timestamp() - time.time() if when else delay
            delay = min(self.max_backoff, max(0.0, delay))
        return delay

    def request(self, method: str, path: str, body: Any = None,
                headers: Optional[Mapping[str, str]] = None, raw: bool = False,
                retry: Optional[bool] = None) -> Any:
        """Sends a request and returns the decoded JSON answer (or bytes with ``raw``).

        A request is sent again, up to :attr:`retries` times with bounded
        exponential backoff, when it did not reach the server (connection
        refused), and — if it is safe to repeat — when the connection broke,
        timed out, or the server answered 429, 502, 503 or 504. Safe to
        repeat: GET, HEAD, PUT, PATCH, DELETE, and any request with an
        ``Idempotency-Key`` header (the server answers a repeated key with
        the first answer); ``retry=True`` or ``False`` overrides that. A 503
        (the service's store unavailable: its database restarting or failing
        over) is asked again beyond ``retries`` times, honouring Retry-After,
        while the waits add up to at most :data:`RETRY_BUDGET` seconds.

        Raises:
            APIError: for an error answer.
            TransportError: (a subclass of APIError) when no answer came.
        """
        data = None
        hdrs = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            hdrs["Content-Type"] = "application/json"
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        hdrs.update(headers or {})
        if retry is None:
            retry = method.upper() in IDEMPOTENT_METHODS or any(k.lower() == "idempotency-key" for k in hdrs)
        attempt = 0
        waited = 0.0
        while True:
            try:
                payload, _ = self._once(method, path, data, hdrs)
                break
            except APIError as e:
                e.attempts = attempt + 1
                if isinstance(e, TransportError):
                    again = not e.delivered or retry
                else:
                    again = retry and e.status in RETRY_STATUSES
                outage = self.retries > 0 and not isinstance(e, TransportError) and e.status == 503
                if not again or (attempt >= self.retries and not outage):
                    raise
                delay = self._wait(attempt, e)
                if waited + delay > RETRY_BUDGET:
                    raise
                log.info("cbandit: %s %s: %s; attempt %d in %.2f s", method, path, e, attempt + 2, delay)
                time.sleep(delay)
                waited += delay
                attempt += 1
        if raw:
            return payload
        try:
            return json.loads(payload) if payload else None
        except ValueError:
            raise APIError(200, "bad_response", "", f"{method} {path}: the answer is not JSON: {payload[:200]!r}") from None

    def create_study(self, name: str, *, space: Optional[Mapping[str, Any]] = None,
                     parameters: Optional[Sequence[Mapping[str, Any]]] = None,
                     objective: Any = None, constraints: Optional[Sequence[Mapping[str, Any]]] = None,
                     algorithm: Optional[str] = None, seed: int = 0, evaluations: Optional[str] = None,
                     load_if_exists: bool = False, **more: Any) -> "Study":
        """Creates a study and returns it (or, with ``load_if_exists``, the study of that name).

        Args:
            name: a name unique on the server (it finds the study again).
            space: a space, e.g. ``{"type": "box", "lo": [0, 0], "hi": [1, 1]}``;
                or give ``parameters``.
            parameters: named, typed parameters, e.g.
                ``[{"name": "lr", "type": "float", "low": 1e-4, "high": 1, "log": True},
                {"name": "opt", "type": "categorical", "choices": ["adam", "sgd"]}]``.
            objective: the objective metric: ``{"name": "accuracy", "goal": "maximize"}``,
                or just its name.
            constraints: ``[{"name": "latency", "threshold": 0.5, "kind": "long-term"}]``.
            algorithm: an algorithm of ``cbandit list``; none: the server chooses
                one from the constraints' kinds and says why (``algorithm_choice``).
            seed: the study's seed.
            evaluations: what counts: ``"live"`` (every evaluation is served to
                real traffic, so limits count at every round) or ``"offline"``
                (a harness or a benchmark: only the final configuration counts;
                evaluations may break limits while searching, failures still
                cost). None: the server's default, live.
            load_if_exists: when a study of that name exists with the same
                definition, return it (resume: its decisions are kept), as
                Optuna's ``create_study(load_if_exists=True)``; when its
                definition differs, the APIError (409,
                ``"definition_differs"``) names the first differing field
                with both values. Such a create is safe to send again, so it
                is retried after a lost answer.
            **more: further fields of the study definition (``horizon``,
                ``params``, ``prior``, ``epoch``, ``full_info``), see the
                server's ``/openapi.json``.

        Creating is not repeated after a connection that broke once the
        request was sent (it may have been created: :meth:`get_study` finds
        it), unless ``load_if_exists``.

        Raises:
            APIError: an invalid definition (status 400, naming the field), a
                name already taken (409 ``"duplicate_name"``), or with
                ``load_if_exists`` taken by another definition (409
                ``"definition_differs"``).
        """
        if isinstance(objective, str):
            objective = {"name": objective}
        spec: Dict[str, Any] = {"name": name, "objective": objective or {"name": "objective"},
                                "constraints": list(constraints or []), "seed": seed}
        if algorithm:
            spec["algorithm"] = algorithm
        if evaluations is not None:
            spec["evaluations"] = evaluations
        if space is not None:
            spec["space"] = dict(space)
        if parameters is not None:
            spec["parameters"] = [dict(p) for p in parameters]
        spec.update(more)
        if load_if_exists:
            return Study(self, self.request("POST", "/studies?load_if_exists=true", spec, retry=True))
        return Study(self, self.request("POST", "/studies", spec))

    def get_study(self, name_or_id: str) -> "Study":
        """Returns the study with this ID, or else with this name.

        Raises:
            APIError: status 404, field ``"name"``, when there is none.
        """
        try:
            return Study(self, self.request("GET", "/studies/" + urllib.parse.quote(name_or_id, safe="")))
        except APIError as e:
            if e.status != 404:
                raise
        found = _studies_of(self.request("GET", "/studies?name=" + urllib.parse.quote(name_or_id, safe="")))
        if not found:
            raise APIError(404, "not_found", "name", f"no study with ID or name {name_or_id!r}")
        return Study(self, found[0])

    def studies(self) -> List["Study"]:
        """Lists the server's studies (every page, when the list comes in pages)."""
        out: List[Study] = []
        path = "/studies"
        seen = set()
        while True:
            answer = self.request("GET", path)
            out.extend(Study(self, s) for s in _studies_of(answer))
            nxt = answer.get("next") if isinstance(answer, dict) else None
            if not nxt:
                return out
            nxt = str(nxt)
            if nxt.startswith("/"):
                path = nxt
            elif nxt.startswith(("http://", "https://")):
                u = urllib.parse.urlsplit(nxt)
                path = u.path + ("?" + u.query if u.query else "")
            else:
                path = "/studies?after=" + urllib.parse.quote(nxt, safe="")
            if path in seen:
                return out
            seen.add(path)


def _studies_of(answer: Any) -> List[Mapping[str, Any]]:
    if isinstance(answer, list):
        return answer
    return list((answer or {}).get("studies") or [])


Metrics = Union[float, int, Tuple[Any, Any], Sequence[Any], Mapping[str, Any]]


class Study:
    """A study on the server; :meth:`Client.create_study` and :meth:`Client.get_study` return one.

    Attributes:
        id: the study's ID.
        name: its name.
        spec: its stored definition (with every default filled in).
    """

    def __init__(self, client: Client, data: Mapping[str, Any]) -> None:
        self.client = client
        self.id: str = data["id"]
        self.spec: Dict[str, Any] = dict(data["spec"])
        self.name: str = self.spec["name"]

    def __repr__(self) -> str:
        return f"Study(id={self.id!r}, name={self.name!r}, algorithm={self.spec.get('algorithm')!r})"

    def _path(self, rest: str = "") -> str:
        return "/studies/" + urllib.parse.quote(self.id, safe="") + rest

    def _trials(self, records: Sequence[Mapping[str, Any]]) -> List[Trial]:
        trials = [Trial._from(s) for s in records]
        # JSON does not tell 2.0 from 2: a float parameter's value is a float.
        floats = [p["name"] for p in self.spec.get("parameters") or [] if p.get("type") == "float"]
        for t in trials:
            for name in floats:
                if name in t.params:
                    t.params[name] = float(t.params[name])
        return trials

    @staticmethod
    def _key(key: Optional[str], op: str) -> Dict[str, str]:
        return {"Idempotency-Key": json.dumps(key or f"py-{op}-{uuid.uuid4().hex}")}

    def ask(self, idempotency_key: Optional[str] = None, **round_input: Any) -> Trial:
        """Asks for the next trial.

        The request carries an ``Idempotency-Key`` (a fresh random one unless
        you give yours) and is retried with it: a retry after a lost answer
        gets the same trial, not a second one.

        Args:
            idempotency_key: your key, e.g. a job ID, to get the same trial
                again after your own process restarted.
            **round_input: ``arms`` (contextual studies) or
                ``constraint_sample`` (full-information studies).
        """
        return self.ask_many(1, idempotency_key, **round_input)[0]

    def ask_many(self, count: int, idempotency_key: Optional[str] = None, **round_input: Any) -> List[Trial]:
        """Asks for ``count`` trials at once (at most 100), idempotently as :meth:`ask`."""
        body: Dict[str, Any] = {"count": count}
        body.update(round_input)
        answer = self.client.request("POST", self._path("/suggestions"), body, self._key(idempotency_key, "ask"))
        return self._trials(answer["suggestions"])

    def tell(self, trial: Any, reward: Optional[float] = None, costs: Optional[Sequence[float]] = None,
             idempotency_key: Optional[str] = None, *, failed: bool = False,
             reason: Optional[str] = None) -> Dict[str, Any]:
        """Tells the measured metrics of a trial (or of a decision ID), or that its evaluation failed.

        Reward and costs may come together or separately, late and in any
        order; re-sending the same values is a no-op. The request carries an
        ``Idempotency-Key`` (fresh unless given) and is retried with it.

        ``failed=True`` says the evaluation ran and produced no metrics (a
        crash, an out-of-memory, a timeout): the body is ``{"decision_id": N,
        "failed": true, "reason": "..."}``. The algorithm learns where
        evaluations fail (a constraint seen only as pass/fail; Gelbart, Snoek
        & Adams 2014) -- unlike :meth:`abandon`, after which the decision
        teaches nothing.

        Args:
            trial: a :class:`Trial` or its ``decision_id``.
            reward: the objective metric as measured.
            costs: the constraint metrics as measured, in the order of the
                study's constraints.
            failed: the evaluation failed; give neither reward nor costs.
            reason: a failure's cause in a few words (``"OOM"``; at most 200
                bytes), only with ``failed``.

        Raises:
            ValueError: a failure with a reward or costs, a reason without
                ``failed``, or a NaN or infinite value (JSON has none: an
                evaluation that produced no number is told ``failed=True``).
        """
        did = trial.decision_id if isinstance(trial, Trial) else int(trial)
        body: Dict[str, Any] = {"decision_id": did}
        if failed:
            if reward is not None or costs is not None:
                raise ValueError(f"decision {did}: failed=True carries no reward and no costs")
            body["failed"] = True
            body["reason"] = "" if reason is None else str(reason)
            return self.client.request("POST", self._path("/observations"), body, self._key(idempotency_key, "tell"))
        if reason is not None:
            raise ValueError(f"decision {did}: reason={reason!r} is given only with failed=True")
        if reward is not None:
            body["reward"] = float(reward)
        if costs is not None:
            body["costs"] = [float(c) for c in costs]
        bad = _non_finite(body.get("reward"), body.get("costs"))
        if bad:
            raise ValueError(f"decision {did}: {bad}: not a number JSON can carry; an evaluation that produced "
                             "no number is told as failed: tell(trial, failed=True, reason=...)")
        return self.client.request("POST", self._path("/observations"), body, self._key(idempotency_key, "tell"))

    def enqueue(self, params: Optional[Mapping[str, Any]] = None, x: Optional[Sequence[float]] = None) -> Dict[str, Any]:
        """Puts a point of your own first in line, as Optuna's ``enqueue_trial``.

        The next :meth:`ask` returns it (after points enqueued before it); the
        algorithm learns from its observation as if it had chosen it. Give
        ``params`` (a study defined by parameters) or ``x`` (a space). Where
        the learner picks among candidate points, the nearest one is used and
        the answer's ``params`` say which.
        """
        body: Dict[str, Any] = {}
        if params is not None:
            body["params"] = dict(params)
        if x is not None:
            body["x"] = [float(v) for v in x]
        return self.client.request("POST", self._path("/enqueue"), body, retry=False)

    def add_trial(self, reward: Optional[float] = None, costs: Sequence[float] = (),
                  params: Optional[Mapping[str, Any]] = None, x: Optional[Sequence[float]] = None,
                  idempotency_key: Optional[str] = None, *, failed: bool = False,
                  reason: Optional[str] = None) -> Trial:
        """Records a past measurement, as Optuna's ``add_trial`` or Ax's ``attach_trial``.

        The point (``params`` or ``x``) and every metric measured there: the
        study holds it as a decision its algorithm made and was told, so the
        models learn from it. ``failed=True`` (with a ``reason``, no metrics)
        records a past evaluation that failed there. Returns the trial it
        became. The request carries an ``Idempotency-Key`` (fresh unless
        given) and is retried with it: a re-send after a lost answer records
        the measurement once.
        """
        body: Dict[str, Any] = {}
        if failed:
            if reward is not None or costs:
                raise ValueError("a past failure (failed=True) carries no reward and no costs")
            body["failed"] = True
            body["reason"] = "" if reason is None else str(reason)
        else:
            if reward is None:
                raise ValueError("a past measurement needs its reward (or failed=True)")
            if reason is not None:
                raise ValueError(f"reason={reason!r} is given only with failed=True")
            body["reward"] = float(reward)
            body["costs"] = [float(c) for c in costs]
            bad = _non_finite(body["reward"], body["costs"])
            if bad:
                raise ValueError(f"a past measurement with {bad}: not a number JSON can carry (failed=True records a failure)")
        if params is not None:
            body["params"] = dict(params)
        if x is not None:
            body["x"] = [float(v) for v in x]
        return Trial._from(self.client.request("POST", self._path("/trials"), body, self._key(idempotency_key, "add")))

    def abandon(self, trial: Any) -> Dict[str, Any]:
        """Abandons a pending trial: it takes no observation. Repeating it is a no-op."""
        did = trial.decision_id if isinstance(trial, Trial) else int(trial)
        return self.client.request("DELETE", self._path(f"/decisions/{did}"))

    def summary(self) -> Dict[str, Any]:
        """The study's summary: rounds, pending, violations, the best feasible decision,
        the recommendation."""
        return self.client.request("GET", self._path("/summary"))

    def recommendation(self) -> Optional[Dict[str, Any]]:
        """What the study's model recommends deploying, or None while it names nothing.

        The evaluated configuration it believes best with P(every limit holds)
        ≥ 0.95: ``decision_id``, ``x``, ``params`` (a study of parameters),
        ``objective`` ``{"mean", "std"}`` in the objective's direction and units,
        ``constraints`` ``[{"name", "mean", "std"}]``, ``feasible`` (the
        probability). Unlike the summary's ``best``, a lucky observation does not
        make it.
        """
        return self.summary().get("recommendation")

    def importance(self) -> Dict[str, Any]:
        """Which parameters matter: ``GET /studies/{id}/importance``.

        The answer's ``parameters`` list ``{"parameter", "importance",
        "first_order"}`` most important first, the importances summing to 1:
        each parameter's share of the variance of a GP fitted to the evaluated
        configurations that its main effect explains (functional ANOVA,
        Hutter, Hoos & Leyton-Brown 2014; ``method`` names it). The same
        decisions give the same numbers. As Optuna's ``get_param_importances``::

            {p["parameter"]: p["importance"] for p in study.importance()["parameters"]}

        Raises :class:`APIError` 409 (``too_few_observations``) before the fit
        has enough evaluated configurations.
        """
        return self.client.request("GET", self._path("/importance"))

    def iter_decisions(self) -> Iterator[Dict[str, Any]]:
        """Yields every decision with what was observed of it, page by page."""
        after = 0
        while True:
            page = self.client.request("GET", self._path(f"/decisions?after={after}&limit=1000"))
            yield from page["decisions"]
            after = page.get("next") or 0
            if not after:
                return

    def decisions(self) -> List[Dict[str, Any]]:
        """Every decision with what was observed of it."""
        return list(self.iter_decisions())

    def pending(self) -> List[Trial]:
        """The trials still waiting for feedback: asked, not abandoned, and
        missing the reward or the costs (each trial's ``missing`` says which).

        After a crash, tell them (:meth:`tell`) or give them up
        (:meth:`abandon`). Reads the summary, then — when it counts pending
        decisions — every decision page by page (the API has no filter for
        pending decisions yet).
        """
        if not self.summary().get("pending"):
            return []
        m = len(self.spec.get("constraints") or [])
        recs = []
        for d in self.iter_decisions():
            if d.get("abandoned"):
                continue
            missing = [k for k, absent in (("reward", d.get("reward") is None), ("costs", m > 0 and d.get("costs") is None)) if absent]
            if missing:
                recs.append((d, missing))
        trials = self._trials([d for d, _ in recs])
        for t, (_, missing) in zip(trials, recs):
            t.missing = missing
        return trials

    def decisions_csv(self) -> str:
        """The decisions as CSV: a header, one row per decision."""
        return self.client.request("GET", self._path("/decisions.csv"), raw=True).decode("utf-8")

    def set_horizon(self, horizon: int) -> "Study":
        """Raises the study's horizon."""
        data = self.client.request("PATCH", self._path(), {"horizon": horizon})
        self.spec = dict(data["spec"])
        return self

    def delete(self) -> None:
        """Deletes the study and its log."""
        try:
            self.client.request("DELETE", self._path())
        except APIError as e:
            if not (e.status == 404 and e.attempts > 1):  # a retry found it deleted by the first attempt
                raise

    def _metrics(self, result: Metrics) -> Tuple[float, Optional[List[float]]]:
        """Reads what an objective function of :meth:`optimize` returned."""
        cons = [c["name"] for c in self.spec.get("constraints") or []]
        obj = (self.spec.get("objective") or {}).get("name", "objective")
        if isinstance(result, Mapping):
            reward = result[obj] if obj in result else result["reward"]
            if "costs" in result:
                costs = result["costs"]
            else:
                costs = [result[c] for c in cons]
        elif isinstance(result, (tuple, list)) and len(result) == 2:
            reward, costs = result
            if isinstance(costs, (int, float)):
                costs = [costs]
        elif isinstance(result, (int, float)) and not isinstance(result, bool):
            reward, costs = result, []
        else:
            raise TypeError(f"the objective function returned {result!r}: want a number, (reward, costs) "
                            f"or a dict with {[obj] + cons}")
        costs = [float(c) for c in costs]
        if len(costs) != len(cons):
            raise ValueError(f"the objective function gave {len(costs)} constraint values, the study has "
                             f"{len(cons)} constraints {cons}")
        return float(reward), (costs if cons else None)

    def _settle(self, trial: Trial, out: Any, exc: Optional[BaseException],
                catch: Tuple[Type[BaseException], ...]) -> Tuple[bool, Optional[BaseException]]:
        """Tells what an evaluation of :meth:`optimize` gave: (complete, the error that stops the loop or None)."""
        if exc is not None:
            interrupted = isinstance(exc, (KeyboardInterrupt, SystemExit))
            try:
                if interrupted:  # the evaluation was stopped, not failed
                    self.abandon(trial)
                else:
                    self.tell(trial, failed=True, reason=_reason(exc))
            except APIError as e2:
                log.warning("cbandit: could not tell trial %d's failure: %s", trial.decision_id, e2)
            if catch and isinstance(exc, catch) and not interrupted:
                log.warning("cbandit: trial %d failed (told as failed): %r", trial.decision_id, exc)
                return False, None
            return False, exc
        try:
            reward, costs = self._metrics(out)
        except BaseException as e:  # noqa: B902 — what fn returned does not fit the study: abandoned
            try:
                self.abandon(trial)
            except APIError as e2:
                log.warning("cbandit: could not abandon trial %d: %s", trial.decision_id, e2)
            return False, e
        bad = _non_finite(reward, costs)
        if bad:
            # No number came out (Optuna: a NaN value fails the trial): a
            # failed evaluation, which the algorithm learns from.
            reason = f"the objective function returned {bad}"
            try:
                self.tell(trial, failed=True, reason=reason)
            except APIError as e:
                return False, e
            log.warning("cbandit: trial %d failed (told as failed): %s", trial.decision_id, reason)
            return False, None
        try:
            self.tell(trial, reward=reward, costs=costs)
        except APIError as e:
            if not isinstance(e, TransportError):
                # Refused: abandoned, so that it is not left pending for good.
                try:
                    self.abandon(trial)
                except APIError as e2:
                    log.warning("cbandit: could not abandon trial %d: %s", trial.decision_id, e2)
            return False, e
        return True, None

    def optimize(self, fn: Callable[[Trial], Metrics], n_trials: Optional[int] = None, n_workers: int = 1, *,
                 timeout: Optional[float] = None,
                 catch: Union[Type[BaseException], Tuple[Type[BaseException], ...]] = (),
                 batch: bool = False) -> List[Trial]:
        """Runs the ask–evaluate–tell loop, as Optuna's ``study.optimize``.

        ``n_workers`` threads each ask for a trial, call ``fn(trial)`` and
        tell what it returns; the server gives parallel workers distinct
        trials (it knows which are pending). ``fn`` returns the reward alone
        (a study without constraints), ``(reward, [cost, ...])``, or a dict
        by metric name (``{"throughput": 812.0, "latency_ms": 41.5}``).

        The workers are asynchronous: each asks for its next trial as soon
        as it has told the last one, and the algorithm takes the trials
        still running as pending decisions. Which point a worker gets then
        depends on which evaluations have ended, so with ``n_workers > 1`` a
        run is the one exception to reproducibility: the same seed can give
        other trials. ``batch=True`` keeps runs reproducible: ``n_workers``
        trials are asked together, evaluated concurrently and told in
        decision order before the next batch is asked (a slow evaluation
        holds up its batch).

        When ``fn`` raises, its trial is told as a failed evaluation with the
        exception as its reason (the algorithm learns to avoid such points;
        KeyboardInterrupt and SystemExit abandon it instead, and so does a
        return value that does not fit the study's metrics). So is a NaN or
        an infinite value returned (as Optuna fails a trial returning NaN),
        and the loop goes on.
        An exception of a type in ``catch`` is logged and the loop goes on;
        any other stops the loop: the other workers finish their trials, and
        the exception is raised. The loop also ends after ``n_trials`` trials,
        after ``timeout`` seconds (no new trial is started), or when the
        study's horizon is reached.

        Returns:
            the trials told complete (with their metrics), in the order they
            finished (``batch``: in decision order).
        """
        if n_workers < 1:
            raise ValueError(f"n_workers = {n_workers}: want at least 1")
        catch_t: Tuple[Type[BaseException], ...] = catch if isinstance(catch, tuple) else (catch,)
        deadline = time.monotonic() + timeout if timeout is not None else None
        if batch:
            return self._optimize_batches(fn, n_trials, n_workers, deadline, catch_t)
        lock = threading.Lock()
        stop = threading.Event()
        started = [0]
        done: List[Trial] = []
        errors: List[BaseException] = []

        def fail(e: BaseException) -> None:
            with lock:
                errors.append(e)
            stop.set()

        def worker() -> None:
            while not stop.is_set():
                with lock:
                    if (n_trials is not None and started[0] >= n_trials) or (deadline is not None and time.monotonic() >= deadline):
                        return
                    started[0] += 1
                try:
                    trial = self.ask()
                except APIError as e:
                    if e.status == 409 and e.code == "horizon_reached":
                        stop.set()
                        return
                    fail(e)
                    return
                out, exc = None, None
                try:
                    out = fn(trial)
                except BaseException as e:  # noqa: B902 — told whatever it is, then judged
                    exc = e
                complete, err = self._settle(trial, out, exc, catch_t)
                if err is not None:
                    fail(err)
                    return
                if complete:
                    with lock:
                        done.append(trial)

        if n_workers == 1:
            worker()
        else:
            threads = [threading.Thread(target=worker, name=f"cbandit-optimize-{i}", daemon=True) for i in range(n_workers)]
            for t in threads:
                t.start()
            try:
                for t in threads:
                    while t.is_alive():
                        t.join(0.2)
            except BaseException:
                stop.set()
                raise
        if errors:
            raise errors[0]
        return done

    def _optimize_batches(self, fn: Callable[[Trial], Metrics], n_trials: Optional[int], n_workers: int,
                          deadline: Optional[float], catch: Tuple[Type[BaseException], ...]) -> List[Trial]:
        """optimize(batch=True): batches of n_workers trials, told in decision order."""
        done: List[Trial] = []
        started = 0
        while n_trials is None or started < n_trials:
            if deadline is not None and time.monotonic() >= deadline:
                break
            count = n_workers if n_trials is None else min(n_workers, n_trials - started)
            try:
                trials = self.ask_many(count)
            except APIError as e:
                if not (e.status == 409 and e.code == "horizon_reached"):
                    raise
                # The last batch is cut to what the horizon leaves.
                s = self.summary()
                left = int(s.get("horizon") or 0) - int(s.get("rounds") or 0)
                if left <= 0 or left >= count:
                    break
                trials = self.ask_many(left)
            started += len(trials)
            results: List[Tuple[Any, Optional[BaseException]]] = [(None, None)] * len(trials)

            def run(i: int) -> None:
                try:
                    results[i] = (fn(trials[i]), None)
                except BaseException as e:  # noqa: B902 — told whatever it is, then judged
                    results[i] = (None, e)

            threads = [threading.Thread(target=run, args=(i,), name=f"cbandit-optimize-{i}", daemon=True)
                       for i in range(1, len(trials))]
            for t in threads:
                t.start()
            run(0)
            for t in threads:
                t.join()
            first_err: Optional[BaseException] = None
            for trial, (out, exc) in zip(trials, results):
                complete, err = self._settle(trial, out, exc, catch)
                if complete:
                    done.append(trial)
                if err is not None and first_err is None:
                    first_err = err
            if first_err is not None:
                raise first_err
        return done
