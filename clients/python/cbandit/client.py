"""The client: :class:`Client`, :class:`Study`, :class:`Trial` and :class:`APIError`."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

__all__ = ["APIError", "Client", "Study", "Trial"]


class APIError(Exception):
    """An error answer of the service (or a failure to reach it).

    Attributes:
        status: the HTTP status (0 when the server could not be reached).
        code: the API's error code, e.g. ``"invalid_argument"``, ``"not_found"``.
        field: the request field the error names, e.g. ``"parameters[0].low"``
            (empty when there is none).
        message: what is wrong, with the offending value.
    """

    def __init__(self, status: int, code: str, field: str, message: str) -> None:
        self.status = status
        self.code = code
        self.field = field
        self.message = message
        where = f" {field}:" if field else ""
        super().__init__(f"{status} {code}:{where} {message}")


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
        raw: the suggestion as the API returned it.
    """

    decision_id: int
    round: int
    x: List[float]
    params: Dict[str, Any] = field(default_factory=dict)
    arm: int = -1
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Trial":
        return cls(decision_id=int(d["decision_id"]), round=int(d["round"]), x=list(d.get("x") or []),
                   params=dict(d.get("params") or {}), arm=int(d.get("arm", -1)), raw=dict(d))


class Client:
    """A connection to a cbandit service.

    Args:
        url: the server's base URL, e.g. ``"http://127.0.0.1:8080"``.
        token: the bearer token, when the server was started with one
            (``cbandit serve --token`` or ``CBANDIT_TOKEN``).
        timeout: seconds to wait for each answer.
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: Any = None,
                headers: Optional[Mapping[str, str]] = None, raw: bool = False) -> Any:
        """Sends one request and returns the decoded JSON answer (or bytes with ``raw``).

        Raises:
            APIError: for an error answer, or when the server cannot be reached.
        """
        data = None
        hdrs = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            hdrs["Content-Type"] = "application/json"
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        hdrs.update(headers or {})
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as e:
            payload = e.read()
            try:
                err = json.loads(payload)["error"]
                raise APIError(int(err.get("status", e.code)), str(err.get("code", "")),
                               str(err.get("field", "")), str(err.get("message", ""))) from None
            except (ValueError, KeyError, TypeError):
                raise APIError(e.code, "http_error", "", payload.decode("utf-8", "replace")[:500]) from None
        except urllib.error.URLError as e:
            raise APIError(0, "unreachable", "", f"{self.url}: {e.reason}") from None
        if raw:
            return payload
        return json.loads(payload) if payload else None

    def create_study(self, name: str, *, space: Optional[Mapping[str, Any]] = None,
                     parameters: Optional[Sequence[Mapping[str, Any]]] = None,
                     objective: Any = None, constraints: Optional[Sequence[Mapping[str, Any]]] = None,
                     algorithm: str = "ckb-ucb", seed: int = 0, **more: Any) -> "Study":
        """Creates a study and returns it.

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
            algorithm: an algorithm of ``cbandit list`` (default ``"ckb-ucb"``).
            seed: the study's seed.
            **more: further fields of the study definition (``horizon``,
                ``params``, ``prior``, ``epoch``, ``full_info``), see the
                server's ``/openapi.json``.

        Raises:
            APIError: an invalid definition (status 400, naming the field) or a
                name already taken (409).
        """
        if isinstance(objective, str):
            objective = {"name": objective}
        spec: Dict[str, Any] = {"name": name, "objective": objective or {"name": "objective"},
                                "constraints": list(constraints or []), "algorithm": algorithm, "seed": seed}
        if space is not None:
            spec["space"] = dict(space)
        if parameters is not None:
            spec["parameters"] = [dict(p) for p in parameters]
        spec.update(more)
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
        found = self.request("GET", "/studies?name=" + urllib.parse.quote(name_or_id, safe=""))["studies"]
        if not found:
            raise APIError(404, "not_found", "name", f"no study with ID or name {name_or_id!r}")
        return Study(self, found[0])

    def studies(self) -> List["Study"]:
        """Lists the server's studies (every page of ``GET /studies``)."""
        out: List["Study"] = []
        after = ""
        while True:
            path = "/studies" + ("?after=" + urllib.parse.quote(after, safe="") if after else "")
            page = self.request("GET", path)
            out += [Study(self, s) for s in page["studies"]]
            after = page.get("next") or ""
            if not after:
                return out


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

    def ask(self, idempotency_key: Optional[str] = None, **round_input: Any) -> Trial:
        """Asks for the next trial.

        Args:
            idempotency_key: makes a retry answer the same trial.
            **round_input: ``arms`` (contextual studies) or
                ``constraint_sample`` (full-information studies).
        """
        return self.ask_many(1, idempotency_key, **round_input)[0]

    def ask_many(self, count: int, idempotency_key: Optional[str] = None, **round_input: Any) -> List[Trial]:
        """Asks for ``count`` trials at once (at most 100)."""
        body: Dict[str, Any] = {"count": count}
        body.update(round_input)
        headers = {"Idempotency-Key": json.dumps(idempotency_key)} if idempotency_key else None
        answer = self.client.request("POST", self._path("/suggestions"), body, headers)
        trials = [Trial._from(s) for s in answer["suggestions"]]
        # JSON does not tell 2.0 from 2: a float parameter's value is a float.
        floats = [p["name"] for p in self.spec.get("parameters") or [] if p.get("type") == "float"]
        for t in trials:
            for name in floats:
                if name in t.params:
                    t.params[name] = float(t.params[name])
        return trials

    def tell(self, trial: Any, reward: Optional[float] = None, costs: Optional[Sequence[float]] = None,
             idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        """Tells the measured metrics of a trial (or of a decision ID).

        Reward and costs may come together or separately, late and in any
        order; re-sending the same values is a no-op.

        Args:
            trial: a :class:`Trial` or its ``decision_id``.
            reward: the objective metric as measured.
            costs: the constraint metrics as measured, in the order of the
                study's constraints.
        """
        did = trial.decision_id if isinstance(trial, Trial) else int(trial)
        body: Dict[str, Any] = {"decision_id": did}
        if reward is not None:
            body["reward"] = float(reward)
        if costs is not None:
            body["costs"] = [float(c) for c in costs]
        headers = {"Idempotency-Key": json.dumps(idempotency_key)} if idempotency_key else None
        return self.client.request("POST", self._path("/observations"), body, headers)

    def abandon(self, trial: Any) -> Dict[str, Any]:
        """Abandons a pending trial: it takes no observation."""
        did = trial.decision_id if isinstance(trial, Trial) else int(trial)
        return self.client.request("DELETE", self._path(f"/decisions/{did}"))

    def summary(self) -> Dict[str, Any]:
        """The study's summary: rounds, pending, violations, the best feasible decision."""
        return self.client.request("GET", self._path("/summary"))

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
        self.client.request("DELETE", self._path())
