"""An Optuna sampler backed by a cbandit study: :class:`CbanditSampler`.

Change one line of an Optuna script -- ``sampler=CbanditSampler(url)`` -- and
its trials are suggested by an algorithm of a ``cbandit serve``::

    import optuna
    from cbandit.optuna import CbanditSampler

    sampler = CbanditSampler("http://127.0.0.1:8080", constraints_func=constraints)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=100, n_jobs=4)

The Optuna study stays Optuna's: its storage, trials, states, constraint
values (``system_attrs["constraints"]``, as Optuna's own samplers store
them) and visualisations. Behind it, one cbandit study per Optuna study:

- the search space: the distributions every completed trial shares
  (Optuna's intersection search space, as BoTorchSampler infers it), as
  typed parameters -- float (log), int (log), a stepped float or int as the
  int index of its grid, categorical;
- the objective: the study's direction (one objective);
- the constraints: the values of ``constraints_func`` as metrics with
  threshold 0 (Optuna's convention: a value <= 0 is feasible), of the kind
  given (``"stage-wise"`` by default: every trial feasible);
- each trial: one decision asked in ``sample_relative`` for all the space's
  parameters at once, its ID stored in the trial's ``system_attrs``
  (``"cbandit:decision_id"``); a running trial is a pending decision, so
  parallel workers (``n_jobs``, several processes on one storage) get
  distinct suggestions;
- ``after_trial`` tells the outcome: a complete trial's value and
  constraint values; a failed trial (the objective raised or returned NaN;
  also a complete one with an infinite value, which JSON cannot carry) as a
  failed evaluation with its reason (or abandoned, ``failed="abandon"``); a
  pruned trial abandoned (or failed, ``pruned="failed"``). A trial sampled
  outside the service (before the space is known, or when the service
  could not be reached) is recorded as a past measurement once complete,
  under an idempotency key, so a re-send records it once.
- the space is fixed when the cbandit study is made: a parameter that
  first appears later is sampled by ``independent_sampler``, with a
  warning once per parameter.
- no request to the service is made while holding the lock the ``n_jobs``
  threads share: one slow answer holds up only its own trial.

What to deploy at the end: ``sampler.recommendation()`` (or
``sampler.recommended_params``), the configuration the cbandit study's model
believes best among the evaluated ones with P(every limit holds) >= 0.95,
with its posterior. Not ``study.best_trial``: in Optuna 3.1 (through 3.6)
``best_trial`` is the trial with the best value among the complete ones,
whatever its constraint values (``Study.best_trial`` reads
``storage.get_best_trial``, which never looks at ``constraints_func``);
from Optuna 4.0 it falls back to the best feasible trial when the
best-valued one is infeasible. Either way it is one observation, which a
lucky draw of the noise can make.

Several processes sharing an Optuna storage find the same cbandit study: its
name comes from the Optuna study's name and the start time of its trial 0
(``study_name`` overrides it), and the space it was created with is stored
in the Optuna study's ``system_attrs`` (``"cbandit:study"``).

Needs Optuna >= 3.1; the rest of the ``cbandit`` package does not import it.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import sys
import threading
import uuid
import warnings
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import optuna
from optuna.distributions import (BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution,
                                  distribution_to_json, json_to_distribution)
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from .client import APIError, Client, Study, TransportError, _non_finite, _reason

try:  # Optuna >= 3.2
    from optuna.search_space import IntersectionSearchSpace
except ImportError:  # Optuna 3.1
    from optuna.samplers import IntersectionSearchSpace

__all__ = ["CbanditSampler"]

# Keys in Optuna's system_attrs. "constraints" is the key Optuna's own
# samplers store constraint values under (optuna.samplers._base).
CONSTRAINTS_KEY = "constraints"
DECISION_KEY = "cbandit:decision_id"
SUGGESTED_KEY = "cbandit:params"
ADDED_KEY = "cbandit:added"
# A trial completed before any process had the cbandit study: the process
# that ran it records it once it has the study (no other process does).
OWED_KEY = "cbandit:owed"
STUDY_KEY = "cbandit:study"
# A failed trial's reason as the sampler found it (the exception, the NaN),
# for whichever process records it as a past failure.
FAIL_REASON_KEY = "cbandit:fail_reason"
# A random token of the Optuna study, in the idempotency keys of its asks
# and past measurements: trial numbers are unique only within one Optuna
# study, and several may share a cbandit study (study_name=...).
TOKEN_KEY = "cbandit:token"

KINDS = ("stage-wise", "cumulative", "long-term")
EVALUATIONS = ("offline", "live")
OUTCOMES = ("failed", "abandon")
MAX_NAME = 200  # the service's longest name
MAX_REASON = 200  # bytes of a failure's reason (bandit.MaxReasonLen)
MAX_EXACT = 2.0 ** 53  # a JSON number that round-trips as an integer


class _Param:
    """One Optuna distribution as a typed parameter of the service, and back."""

    def __init__(self, name: str, dist: BaseDistribution) -> None:
        self.name = name
        self.dist = dist
        self.grid = 0.0  # the step of a stepped float or int, else 0
        if isinstance(dist, FloatDistribution):
            if dist.step is None:
                self.spec = {"name": name, "type": "float", "low": dist.low, "high": dist.high, "log": dist.log}
            else:
                # A stepped float is the int index k of low + k*step: exact
                # in binary whatever the step, and the same encoding as an
                # int with a step > 1 (the service's own "step" rounds in
                # floating point).
                self.grid = dist.step
                n = int(round((dist.high - dist.low) / dist.step))
                self.spec = {"name": name, "type": "int", "low": 0, "high": n}
        elif isinstance(dist, IntDistribution):
            if dist.step == 1:
                self.spec = {"name": name, "type": "int", "low": dist.low, "high": dist.high, "log": dist.log}
            else:
                self.grid = dist.step
                self.spec = {"name": name, "type": "int", "low": 0, "high": (dist.high - dist.low) // dist.step}
        elif isinstance(dist, CategoricalDistribution):
            self.choices = _json_choices(dist.choices)
            self.spec = {"name": name, "type": "categorical", "choices": self.choices}
        else:
            raise ValueError(f"parameter {name!r}: distribution {dist!r}: CbanditSampler takes "
                             "FloatDistribution, IntDistribution and CategoricalDistribution")
        if self.spec.get("log") is False:
            del self.spec["log"]

    def from_service(self, v: Any) -> Any:
        """The Optuna value of the service's value v."""
        d = self.dist
        if isinstance(d, CategoricalDistribution):
            for i, c in enumerate(self.choices):
                if isinstance(c, bool) == isinstance(v, bool) and c == v:
                    return d.choices[i]
            raise ValueError(f"parameter {self.name!r}: the service suggested {v!r}, not one of {self.choices}")
        if self.grid:
            k = int(round(float(v)))
            if isinstance(d, IntDistribution):
                return min(d.high, d.low + k * d.step)
            return min(d.high, max(d.low, d.low + k * d.step))
        if isinstance(d, IntDistribution):
            return min(d.high, max(d.low, int(round(float(v)))))
        return min(d.high, max(d.low, float(v)))

    def to_service(self, v: Any) -> Any:
        """The service's value of the Optuna value v (None when v is outside the distribution)."""
        d = self.dist
        try:
            internal = d.to_internal_repr(v)
        except (ValueError, TypeError):
            return None
        if not d._contains(internal):
            return None
        if isinstance(d, CategoricalDistribution):
            return self.choices[int(internal)]
        if self.grid:
            return int(round((float(v) - d.low) / self.grid))
        if isinstance(d, IntDistribution):
            return int(v)
        return float(v)


def _json_choices(choices: Sequence[Any]) -> List[Any]:
    """A categorical's choices as the service takes them (strings, numbers,
    booleans, distinct as JSON values); their repr when they are not."""
    def plain(c: Any) -> bool:
        if isinstance(c, bool):
            return True
        if isinstance(c, (int, float)):
            return math.isfinite(c) and abs(c) < MAX_EXACT
        return isinstance(c, str) and c.strip() != "" and c.isprintable()

    def key(c: Any) -> str:
        return "b%s" % c if isinstance(c, bool) else ("n%r" % float(c) if isinstance(c, (int, float)) else "s" + c)

    if all(plain(c) for c in choices) and len({key(c) for c in choices}) == len(choices):
        return list(choices)
    labels = [repr(c) for c in choices]
    if len(set(labels)) == len(labels) and all(len(s) <= MAX_NAME and s.isprintable() for s in labels):
        return labels
    return [f"choice {i}" for i in range(len(choices))]


class CbanditSampler(BaseSampler):
    """An Optuna sampler whose suggestions come from a cbandit study.

    Args:
        url: the service's base URL (``cbandit serve``), e.g.
            ``"http://127.0.0.1:8080"``.
        algorithm: an algorithm of ``cbandit list``; none: the service
            chooses one for the constraints' kind and says why (the study's
            ``algorithm_choice``).
        seed: the cbandit study's seed and the seed of the random sampler
            used outside it; none: a random seed.
        constraints_func: as for Optuna's samplers: a function of a
            ``FrozenTrial`` returning a sequence of floats, each <= 0 when
            the trial is feasible. Called after each complete or pruned
            trial; its values are stored in the trial's
            ``system_attrs["constraints"]`` and told as constraint metrics
            with threshold 0.
        token: the service's bearer token, if it has one.
        constraint_kind: which violation the algorithm keeps small:
            ``"stage-wise"`` (every trial feasible), ``"cumulative"`` or
            ``"long-term"``; one kind for all constraints, or a sequence with
            one per constraint.
        constraint_names: the constraint metrics' names (default ``c0``,
            ``c1``, ...).
        algorithm_params: the algorithm's parameters by name, e.g.
            ``{"beta-f": 2}`` (``cbandit list --verbose``).
        study_name: the cbandit study's name; default: derived from the
            Optuna study's name and the start of its trial 0.
        failed: what a failed trial (``TrialState.FAIL``: the objective
            raised or returned NaN) tells: ``"failed"`` (a failed evaluation:
            the algorithm learns to avoid where evaluations fail) or
            ``"abandon"`` (it teaches nothing). The reason sent is the
            trial's user attribute ``"fail_reason"`` if set.
        pruned: what a pruned trial tells: ``"abandon"`` (default) or
            ``"failed"``.
        independent_sampler: samples the parameters outside the cbandit
            study's space and the trials before the space is known; default
            ``RandomSampler(seed)``.
        client: a :class:`cbandit.Client` to use instead of one made from
            ``url`` and ``token`` (timeouts, retries).
        study_options: further fields of the cbandit study's definition
            (``horizon``, ``prior``, ``space``: ``{"candidates": 512}``).
        evaluations: what counts (docs/evaluations.md): ``"offline"``
            (default: an Optuna objective is a function evaluated while
            searching; only the configuration deployed at the end counts,
            so a trial may break a limit while searching, and a failed
            trial still costs one) or ``"live"`` (every trial is served to
            real traffic: limits hold at every trial, regret counts).

    What to deploy: :meth:`recommendation` (:attr:`recommended_params`),
    the configuration the model believes best among those evaluated with
    P(every limit holds) >= 0.95. ``study.best_trial`` is a single
    observation, and Optuna 3.1's ignores ``constraints_func``: it is the
    best value among the complete trials, feasible or not.

    The service's answers are retried by the client (backoff, idempotency
    keys). When it still cannot be reached, or answers 5xx, a trial is
    sampled by ``independent_sampler`` (with a warning) and recorded in the
    cbandit study once the service answers again; tells that could not be
    delivered are sent again before the next ask.
    """

    def __init__(self, url: Optional[str] = None, algorithm: Optional[str] = None, seed: Optional[int] = None,
                 constraints_func: Optional[Callable[[FrozenTrial], Sequence[float]]] = None, *,
                 token: Optional[str] = None, constraint_kind: Any = "stage-wise",
                 constraint_names: Optional[Sequence[str]] = None,
                 algorithm_params: Optional[Mapping[str, Any]] = None, study_name: Optional[str] = None,
                 failed: str = "failed", pruned: str = "abandon",
                 independent_sampler: Optional[BaseSampler] = None, client: Optional[Client] = None,
                 study_options: Optional[Mapping[str, Any]] = None, evaluations: str = "offline") -> None:
        if client is None:
            if not url:
                raise ValueError("url is required (the service's base URL, e.g. 'http://127.0.0.1:8080') unless client is given")
            client = Client(url, token=token)
        kinds = [constraint_kind] if isinstance(constraint_kind, str) else list(constraint_kind)
        for k in kinds:
            if k not in KINDS:
                raise ValueError(f"constraint_kind = {k!r}: accepted are {', '.join(KINDS)}")
        if failed not in OUTCOMES:
            raise ValueError(f"failed = {failed!r}: accepted are {', '.join(OUTCOMES)}")
        if pruned not in OUTCOMES:
            raise ValueError(f"pruned = {pruned!r}: accepted are {', '.join(OUTCOMES)}")
        if evaluations not in EVALUATIONS:
            raise ValueError(f"evaluations = {evaluations!r}: accepted are {', '.join(EVALUATIONS)}")
        self.client = client
        self.algorithm = algorithm
        self.seed = seed if seed is not None else random.SystemRandom().randrange(1, 2 ** 31)
        self.constraints_func = constraints_func
        self.constraint_kind = constraint_kind if isinstance(constraint_kind, str) else list(constraint_kind)
        self.constraint_names = list(constraint_names) if constraint_names is not None else None
        self.algorithm_params = dict(algorithm_params or {})
        self.study_name = study_name
        self.failed = failed
        self.pruned = pruned
        self.study_options = dict(study_options or {})
        self.evaluations = evaluations
        self._independent = independent_sampler or RandomSampler(seed=seed)
        self._intersection = IntersectionSearchSpace()
        self._lock = threading.RLock()  # held briefly, never over a request
        self._attach_lock = threading.RLock()  # held while the cbandit study is found or made
        self._study: Optional[Study] = None
        self._params: Optional[List[_Param]] = None
        self._space: Optional[Dict[str, BaseDistribution]] = None
        self._untold: List[Tuple[str, int, Dict[str, Any]]] = []
        # (trial ID, values, constraint values, failure reason or None)
        self._owed: List[Tuple[int, Optional[Sequence[float]], Optional[Tuple[float, ...]], Optional[str]]] = []
        self.failed_supported = True  # False once the service refused a failed observation
        self.fallbacks = 0  # trials sampled outside the service because it could not answer
        self._token: Optional[str] = None
        self._outside: set = set()  # parameters outside the space, warned of

    # -- pickling (Optuna copies samplers in some paths): no lock, no live state
    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        del state["_attach_lock"]
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._attach_lock = threading.RLock()

    @property
    def cbandit_study(self) -> Optional[Study]:
        """The cbandit study behind the Optuna study (None before the space is known)."""
        return self._study

    def recommendation(self, study: Optional[optuna.Study] = None) -> Optional[Dict[str, Any]]:
        """What to deploy: the configuration the cbandit study's model
        believes best among the evaluated ones with P(every limit holds) >=
        0.95 (the service's summary, ``"recommendation"``), in Optuna's
        terms; None while it names none (too few trials, none believed
        feasible with probability 0.95, an algorithm without a model of the
        evaluated configurations) or before the cbandit study exists.

        Returns a dict:

        - ``"params"``: the configuration as Optuna's parameter values
          (``trial.params``), ready for ``study.enqueue_trial`` or deployment;
        - ``"value"``, ``"value_std"``: the posterior mean and standard
          deviation of the objective there, in its own direction and units;
        - ``"constraints"``: per value of ``constraints_func``, ``{"name",
          "mean", "std"}``, the posterior of that value (feasible when <= 0,
          Optuna's convention);
        - ``"feasible"``: the posterior probability that every limit holds;
        - ``"decision_id"``: the cbandit decision that evaluated it;
        - ``"trial"``: with ``study`` given, the Optuna ``FrozenTrial`` that
          evaluated it (found by its decision ID, else by its parameters),
          or None.

        Unlike ``study.best_trial`` (the best single observation; in Optuna
        3.1 regardless of ``constraints_func``), a lucky draw of the noise
        does not make it.

        Args:
            study: the Optuna study; needed only in a process that has not
                run a trial of it (the cbandit study is found from it), and
                to find the trial.
        """
        if self._study is None and study is not None and self._stored(study) is not None:
            self._attach(study, {})
        cb = self._study
        if cb is None or self._params is None:
            return None
        rec = cb.recommendation()
        if not rec or rec.get("params") is None:
            return None
        vals = rec["params"]
        params = {p.name: p.from_service(vals[p.name]) for p in self._params if p.name in vals}
        obj = rec.get("objective") or {}
        out: Dict[str, Any] = {
            "params": params,
            "value": obj.get("mean"),
            "value_std": obj.get("std"),
            "constraints": [dict(c) for c in rec.get("constraints") or []],
            "feasible": rec.get("feasible"),
            "decision_id": rec.get("decision_id"),
            "trial": None,
        }
        if study is not None:
            out["trial"] = _trial_of(study, out["decision_id"], params)
        return out

    @property
    def recommended_params(self) -> Optional[Dict[str, Any]]:
        """The recommendation's parameters (``recommendation()["params"]``), or None."""
        rec = self.recommendation()
        return rec["params"] if rec else None

    def reseed_rng(self) -> None:
        self._independent.reseed_rng()

    # -- the search space

    def infer_relative_search_space(self, study: optuna.Study, trial: FrozenTrial) -> Dict[str, BaseDistribution]:
        if study._is_multi_objective():
            raise ValueError("CbanditSampler takes one objective; this study has "
                             f"{len(study.directions)} (directions {[d.name for d in study.directions]})")
        with self._lock:
            if self._space is not None:
                return OrderedDict(self._space)
            stored = self._stored(study)
            if stored is not None:
                return OrderedDict(stored[2])
            space = self._intersection.calculate(study, ordered_dict=True)
        # One-valued distributions need no suggestion (Optuna gives their value).
        return OrderedDict((n, d) for n, d in space.items() if not d.single())

    def _stored(self, study: optuna.Study) -> Optional[Tuple[str, str, Dict[str, BaseDistribution]]]:
        """The (id, name, space) another process stored in the Optuna study."""
        rec = study._storage.get_study_system_attrs(study._study_id).get(STUDY_KEY)
        if not rec:
            return None
        space = OrderedDict((n, json_to_distribution(s)) for n, s in rec["space"])
        return rec["id"], rec["name"], space

    def _derived_name(self, study: optuna.Study) -> str:
        if self.study_name:
            return self.study_name
        first = study.get_trials(deepcopy=False)[0]
        start = first.datetime_start.isoformat() if first.datetime_start else "0"
        name = f"optuna:{study.study_name}:{start}"
        if len(name.encode("utf-8")) > MAX_NAME or not name.isprintable():
            h = hashlib.sha256(study.study_name.encode("utf-8")).hexdigest()[:16]
            name = f"optuna:{h}:{start}"
        return name

    def _n_constraints(self, study: optuna.Study) -> Optional[int]:
        """How many constraint values constraints_func gives (None: not known yet)."""
        if self.constraints_func is None:
            return 0
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            con = t.system_attrs.get(CONSTRAINTS_KEY)
            if con is not None:
                return len(con)
        return None

    def _attach(self, study: optuna.Study, space: Mapping[str, BaseDistribution]) -> bool:
        """Finds or creates the cbandit study for space; False when it cannot be made yet.

        Its requests are made under _attach_lock only: the threads that wait
        there need the study anyway."""
        with self._attach_lock:
            if self._study is not None:
                return True
            stored = self._stored(study)
            if stored is not None:
                sid, _, sspace = stored
                self._study = self.client.get_study(sid)
                self._use(sspace)
                return True
            if not space:
                return False
            m = self._n_constraints(study)
            if m is None:
                return False
            params = [_Param(n, d) for n, d in space.items()]
            kinds = self.constraint_kind if isinstance(self.constraint_kind, list) else [self.constraint_kind] * m
            if len(kinds) != m:
                raise ValueError(f"constraint_kind has {len(kinds)} entries; constraints_func gives {m} values")
            names = self.constraint_names or [f"c{j}" for j in range(m)]
            if len(names) != m:
                raise ValueError(f"constraint_names has {len(names)} entries; constraints_func gives {m} values")
            goal = "minimize" if study.direction == StudyDirection.MINIMIZE else "maximize"
            name = self._derived_name(study)
            more = dict(self.study_options)
            if self.algorithm_params:
                more["params"] = dict(self.algorithm_params)
            created = True
            try:
                cb = self.client.create_study(
                    name, parameters=[p.spec for p in params], objective={"name": "objective", "goal": goal},
                    constraints=[{"name": n, "threshold": 0.0, "kind": k} for n, k in zip(names, kinds)],
                    algorithm=self.algorithm, seed=self.seed, evaluations=self.evaluations, **more)
            except APIError as e:
                if e.status != 409:
                    raise
                # Another worker created it first: find it by name.
                created = False
                cb = self.client.get_study(name)
                stored = self._stored(study)
                if stored is not None:
                    self._study = cb
                    self._use(stored[2])
                    return True
                have = [dict(p) for p in cb.spec.get("parameters") or []]
                want = [dict(p.spec) for p in params]
                if _norm(have) != _norm(want):
                    raise ValueError(f"the cbandit study {name!r} exists with parameters {have}; this study's "
                                     f"space gives {want}: name another (study_name=...)") from None
            self._study = cb
            self._use(OrderedDict(space))
            rec = {"id": cb.id, "name": cb.name, "space": [[n, distribution_to_json(d)] for n, d in space.items()]}
            study._storage.set_study_system_attr(study._study_id, STUDY_KEY, rec)
            if created:
                # The trials that ended before the study existed (sampled at
                # random) become its past measurements, failures too.
                for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.FAIL)):
                    if DECISION_KEY not in t.system_attrs and ADDED_KEY not in t.system_attrs and OWED_KEY not in t.system_attrs:
                        if t.state == TrialState.COMPLETE:
                            self._add_past(study, t, t.values)
                        elif self.failed == "failed":
                            self._add_past(study, t, None, failure=_fail_reason(t, t.system_attrs.get(FAIL_REASON_KEY)))
            return True

    def _use(self, space: Mapping[str, BaseDistribution]) -> None:
        self._space = OrderedDict(space)
        self._params = [_Param(n, d) for n, d in space.items()]

    # -- sampling

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: Dict[str, BaseDistribution]) -> Dict[str, Any]:
        if not search_space:
            return {}
        fixed = trial.system_attrs.get("fixed_params") or {}
        if fixed and all(n in fixed for n in search_space):
            return {}  # an enqueued trial (study.enqueue_trial): recorded as a past measurement once complete
        try:
            if not self._attach(study, search_space):
                return {}
            self._pay_owed(study)
            self._flush()
            assert self._study is not None and self._params is not None
            # One key per Optuna trial: a retried ask gets the same decision.
            sug = self._study.ask(idempotency_key=self._key(study, "trial", trial.number))
        except APIError as e:
            if isinstance(e, TransportError) or e.status >= 500 or (e.status == 409 and e.code == "horizon_reached"):
                self.fallbacks += 1
                warnings.warn(f"CbanditSampler: trial {trial.number} is sampled by {type(self._independent).__name__}: "
                              f"the service did not suggest one ({e})")
                return {}
            raise
        params = {p.name: p.from_service(sug.params[p.name]) for p in self._params}
        study._storage.set_trial_system_attr(trial._trial_id, DECISION_KEY, sug.decision_id)
        study._storage.set_trial_system_attr(trial._trial_id, SUGGESTED_KEY,
                                             {p.name: p.dist.to_internal_repr(params[p.name]) for p in self._params})
        return params

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        space = self._space
        if space is not None and param_name not in space and param_name not in self._outside:
            with self._lock:
                warn = param_name not in self._outside
                self._outside.add(param_name)
            if warn:
                warnings.warn(f"CbanditSampler: parameter {param_name!r} is not in the cbandit study's space "
                              f"({', '.join(space) or 'empty'}), fixed from the parameters every trial completed "
                              f"before it had: it is sampled by {type(self._independent).__name__}, and the "
                              "algorithm does not learn from it. Suggest every parameter from the first trial on, "
                              "or start another study (study_name=...)")
        return self._independent.sample_independent(study, trial, param_name, param_distribution)

    def _key(self, study: optuna.Study, what: str, number: int) -> str:
        """An idempotency key for one Optuna trial: unique across the Optuna
        studies that share a cbandit study (the study's random token)."""
        if self._token is None:
            attrs = study._storage.get_study_system_attrs(study._study_id)
            token = attrs.get(TOKEN_KEY)
            if not token:
                token = uuid.uuid4().hex[:16]
                study._storage.set_study_system_attr(study._study_id, TOKEN_KEY, token)
            self._token = str(token)
        return f"optuna-{self._token}-{what}-{number}"

    # -- telling

    def after_trial(self, study: optuna.Study, trial: FrozenTrial, state: TrialState,
                    values: Optional[Sequence[float]]) -> None:
        try:
            constraints = None
            if self.constraints_func is not None and state in (TrialState.COMPLETE, TrialState.PRUNED):
                try:
                    constraints = self._constraints(study, trial)
                except Exception:
                    # No constraint values: the decision teaches nothing.
                    did = study._storage.get_trial_system_attrs(trial._trial_id).get(DECISION_KEY)
                    if did is not None:
                        self._send(study, "abandon", int(did), {})
                    raise
            self._tell(study, trial, state, values, constraints)
        finally:
            self._independent.after_trial(study, trial, state, values)

    def _constraints(self, study: optuna.Study, trial: FrozenTrial) -> Optional[Tuple[float, ...]]:
        """Calls constraints_func and stores its values where Optuna's samplers do."""
        con = None
        try:
            raw = self.constraints_func(trial)  # type: ignore[misc]
            if not isinstance(raw, (tuple, list)):
                warnings.warn(f"Constraints should be a sequence of floats but got {type(raw).__name__}.")
            con = tuple(float(c) for c in raw)
            if any(math.isnan(c) for c in con):
                raise ValueError(f"trial {trial.number}: constraints_func gave {con}: constraint values cannot be NaN")
        finally:
            study._storage.set_trial_system_attr(trial._trial_id, CONSTRAINTS_KEY, con)
        return con

    def _tell(self, study: optuna.Study, trial: FrozenTrial, state: TrialState,
              values: Optional[Sequence[float]], constraints: Optional[Tuple[float, ...]]) -> None:
        if self._owed and self._study is not None:
            self._pay_owed(study)
        attrs = study._storage.get_trial_system_attrs(trial._trial_id)
        did = attrs.get(DECISION_KEY)
        if did is None:
            failure = None
            if state == TrialState.FAIL and self.failed == "failed":
                # A failed trial the service did not suggest: a past failure.
                failure = _fail_reason(trial, _optuna_failure(trial))
                study._storage.set_trial_system_attr(trial._trial_id, FAIL_REASON_KEY, failure)
            if state == TrialState.COMPLETE or failure is not None:
                if self._study is None and self._stored(study) is not None:
                    self._attach(study, {})
                if self._study is not None:
                    self._pay_owed(study)
                    self._add_past(study, trial, values, constraints, failure=failure)
                elif trial.state == TrialState.RUNNING:
                    # No cbandit study yet, and another process may be
                    # creating it now, after its scan of the complete
                    # trials: marked, so that scan skips it, and kept (paid
                    # by whichever thread next has the study).
                    study._storage.set_trial_system_attr(trial._trial_id, OWED_KEY, True)
                    with self._lock:
                        self._owed.append((trial._trial_id, values, constraints, failure))
            return
        did = int(did)
        if state == TrialState.COMPLETE and not self._ran_suggestion(trial, attrs.get(SUGGESTED_KEY) or {}):
            # The objective did not run the suggested point (its ranges
            # changed, or fixed parameters): the decision is given up and the
            # point it ran recorded as a past measurement.
            self._send(study, "abandon", did, {})
            self._add_past(study, trial, values, constraints)
            return
        reason = None
        if state == TrialState.COMPLETE:
            body: Dict[str, Any] = {"reward": float(values[0])}  # type: ignore[index]
            if self.constraints_func is not None:
                if constraints is None:
                    self._send(study, "abandon", did, {})
                    return
                body["costs"] = list(constraints)
            bad = _non_finite(body["reward"], body.get("costs"))
            if not bad:
                self._send(study, "tell", did, body)
                return
            # Optuna completes a trial valued inf; JSON has no infinity: a
            # failed evaluation, as a NaN would be.
            state, reason = TrialState.FAIL, f"Optuna trial {trial.number} gave {bad}"
        if state == TrialState.FAIL or state == TrialState.PRUNED:
            how = self.failed if state == TrialState.FAIL else self.pruned
            if how == "abandon":
                self._send(study, "abandon", did, {})
            else:
                if state == TrialState.PRUNED:
                    reason = trial.user_attrs.get("fail_reason") or f"Optuna trial {trial.number} pruned"
                else:
                    reason = _fail_reason(trial, reason or _optuna_failure(trial))
                self._send(study, "failed", did, {"reason": _clip(str(reason), MAX_REASON)})

    def _ran_suggestion(self, trial: FrozenTrial, suggested: Mapping[str, Any]) -> bool:
        for name, internal in suggested.items():
            if name not in trial.params:
                continue  # a parameter the objective did not use: the point is still the decision's
            d = trial.distributions[name]
            if d.to_internal_repr(trial.params[name]) != internal:
                return False
        return True

    def _send(self, ostudy: optuna.Study, kind: str, did: int, body: Dict[str, Any]) -> None:
        """Sends one outcome; queues it for later when the service cannot be reached."""
        if self._study is None:
            # A trial asked by another process, told by this one.
            self._attach(ostudy, {})
        study = self._study
        if study is None:
            warnings.warn(f"CbanditSampler: decision {did}: no cbandit study recorded in the Optuna study; {kind} not sent")
            return
        try:
            self._deliver(study, kind, did, body)
        except APIError as e:
            if isinstance(e, TransportError) or e.status >= 500:
                warnings.warn(f"CbanditSampler: decision {did}: {kind} not delivered ({e}); it is sent again before the next ask")
                with self._lock:
                    self._untold.append((kind, did, body))
                return
            raise

    def _deliver(self, study: Study, kind: str, did: int, body: Dict[str, Any]) -> None:
        key = f"optuna-{kind}-{did}"
        if kind == "add" and body.get("failed"):  # did is the Optuna trial's number
            study.add_trial(params=body["params"], idempotency_key=body.get("key"), failed=True, reason=body["reason"])
        elif kind == "add":
            study.add_trial(body["reward"], costs=body["costs"], params=body["params"], idempotency_key=body.get("key"))
        elif kind == "tell":
            study.tell(did, reward=body["reward"], costs=body.get("costs"), idempotency_key=key)
        elif kind == "abandon":
            study.abandon(did)
        elif kind == "failed":
            if self.failed_supported:
                try:
                    study.tell(did, failed=True, reason=body["reason"], idempotency_key=key)
                    return
                except APIError as e:
                    if e.status != 400:
                        raise
                    # A service without failed observations: abandon instead.
                    self.failed_supported = False
                    warnings.warn(f"CbanditSampler: the service refused a failed observation ({e}); "
                                  "failed trials are abandoned instead")
            study.abandon(did)

    def _flush(self) -> None:
        """Sends again the outcomes that could not be delivered."""
        with self._lock:
            pending, self._untold = self._untold, []
            study = self._study
        for i, (kind, did, body) in enumerate(pending):
            try:
                self._deliver(study, kind, did, body)  # type: ignore[arg-type]
            except APIError as e:
                if isinstance(e, TransportError) or e.status >= 500:
                    with self._lock:
                        self._untold[:0] = pending[i:]
                    raise
                warnings.warn(f"CbanditSampler: {kind} {did} refused by the service ({e}); dropped")

    def _pay_owed(self, study: optuna.Study) -> None:
        """Records this process's trials that completed before it had the cbandit study (OWED_KEY)."""
        with self._lock:
            owed, self._owed = self._owed, []
        for tid, values, constraints, failure in owed:
            self._add_past(study, study._storage.get_trial(tid), values, constraints, failure=failure)

    def _add_past(self, study: optuna.Study, trial: FrozenTrial, values: Optional[Sequence[float]],
                  constraints: Optional[Tuple[float, ...]] = None, failure: Optional[str] = None) -> None:
        """Records a trial the service did not suggest as a past measurement:
        complete (values), or failed (failure: its reason)."""
        if self._study is None or self._params is None or not (values or failure is not None):
            return
        if self.constraints_func is not None and failure is None:
            if constraints is None:
                constraints = trial.system_attrs.get(CONSTRAINTS_KEY)
            if constraints is None:
                return
        vals = {}
        for p in self._params:
            if p.name in trial.params:
                v = p.to_service(trial.params[p.name])
            elif p.dist.single():
                v = p.to_service(p.dist.to_external_repr(0) if isinstance(p.dist, CategoricalDistribution) else p.dist.low)
            else:
                v = None
            if v is None:
                return  # outside the study's space: nothing to record
            vals[p.name] = v
        if trial.state == TrialState.RUNNING:
            # Marked first, so that a creator scanning the complete trials skips it.
            study._storage.set_trial_system_attr(trial._trial_id, ADDED_KEY, True)
        key = self._key(study, "add", trial.number)
        if failure is not None:
            body: Dict[str, Any] = {"failed": True, "reason": _clip(failure, MAX_REASON), "params": vals, "key": key}
        else:
            body = {"reward": float(values[0]), "costs": [float(c) for c in constraints or ()], "params": vals,  # type: ignore[index]
                    "key": key}
            bad = _non_finite(body["reward"], body["costs"])
            if bad:  # JSON cannot carry it: a past failure
                body = {"failed": True, "reason": f"Optuna trial {trial.number} gave {bad}", "params": vals, "key": key}
        try:
            self._deliver(self._study, "add", trial.number, body)
        except APIError as e:
            if isinstance(e, TransportError) or e.status >= 500:
                warnings.warn(f"CbanditSampler: trial {trial.number} not recorded yet ({e}); it is sent again before the next ask")
                with self._lock:
                    self._untold.append(("add", trial.number, body))
                return
            warnings.warn(f"CbanditSampler: trial {trial.number} not recorded in the cbandit study ({e})")

    def __repr__(self) -> str:
        return f"CbanditSampler(url={self.client.url!r}, algorithm={self.algorithm!r}, seed={self.seed})"


def _trial_of(study: optuna.Study, decision_id: Any, params: Mapping[str, Any]) -> Optional[FrozenTrial]:
    """The complete Optuna trial of a cbandit decision: the one that carries
    its ID, else (a trial recorded as a past measurement) the first whose
    parameters are the given ones."""
    trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    for t in trials:
        if decision_id is not None and t.system_attrs.get(DECISION_KEY) == decision_id:
            return t
    for t in trials:
        if DECISION_KEY not in t.system_attrs and all(t.params.get(k) == v for k, v in params.items()):
            return t
    return None


def _fail_reason(trial: FrozenTrial, found: Optional[str]) -> str:
    """A failed trial's reason: its user attribute "fail_reason", else what was found, else a plain one."""
    return str(trial.user_attrs.get("fail_reason") or found or f"Optuna trial {trial.number} failed")


def _optuna_failure(trial: FrozenTrial) -> Optional[str]:
    """Why Optuna failed this trial, when after_trial runs inside
    study.optimize: the exception the objective raised, or the value Optuna
    refused (NaN), read from the frame of Optuna's _run_trial (its locals
    func_err and value_or_values; None when they are not found)."""
    try:
        f = sys._getframe(1)
        while f is not None:
            if f.f_code.co_name == "_run_trial" and "func_err" in f.f_locals:
                err = f.f_locals.get("func_err")
                if err is not None:
                    return _reason(err)
                v = f.f_locals.get("value_or_values")
                return f"Optuna trial {trial.number}: the objective returned {v!r}"
            f = f.f_back
    except Exception:  # an Optuna of another shape: the plain reason
        return None
    return None


def _norm(params: Sequence[Mapping[str, Any]]) -> str:
    """Parameters compared as JSON values: the service answers 30.0 as 30."""
    def num(v: Any) -> Any:
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    return json.dumps([{k: num(v) for k, v in sorted(p.items()) if not (k == "log" and not v)} for p in params], sort_keys=True)


def _clip(s: str, limit: int) -> str:
    b = s.encode("utf-8")
    if len(b) <= limit:
        return s
    return b[:limit].decode("utf-8", "ignore")
