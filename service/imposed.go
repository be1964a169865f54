package service

import (
	"fmt"
	"math"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// Decisions a person makes: a point to try next (Optuna's
// enqueue_trial), and a past measurement (add_trial; Ax's attach_trial),
// through bandit.Imposer. Both are log events, so the state stays a pure
// function of the log.

const (
	imposedQueued   = "queued"
	imposedMeasured = "measured"
)

// MaxQueue bounds the points waiting in a study's queue.
const MaxQueue = 1000

// impose records x as the decision of the next round, made by a person.
func (l *live) impose(now time.Time, x []float64, kind string) (askEvent, error) {
	t := len(l.decs) + 1
	if _, err := l.nextRound(t); err != nil {
		return askEvent{}, err
	}
	if err := l.ensureAgent(); err != nil {
		return askEvent{}, err
	}
	imp, ok := l.agent.(bandit.Imposer)
	if !ok {
		return askEvent{}, fmt.Errorf("algorithm %s does not take decisions made by a person", l.spec.Algorithm)
	}
	act := bandit.PointAction(append([]float64(nil), x...))
	arm := -1
	if l.b.Points != nil {
		arm = nearestPoint(l.b.Points, x)
		act = bandit.Action{Arm: arm, X: l.b.Points[arm]}
	}
	local := t - l.epochStart
	d, err := imp.Impose(&bandit.Round{T: local}, act)
	if err != nil {
		return askEvent{}, err
	}
	if d.ID != int64(local) {
		return askEvent{}, fmt.Errorf("agent numbered decision %d as %d", local, d.ID)
	}
	if kind == imposedQueued && len(l.queue) > 0 {
		l.queue = l.queue[1:]
	}
	a := askEvent{ID: int64(t), Round: t, Arm: arm, X: append([]float64(nil), act.X...), Imposed: kind}
	l.decs = append(l.decs, decState{round: t, epoch: l.epoch, arm: a.Arm, x: a.X, created: now})
	return a, nil
}

// nearestPoint is the index of the point of pts nearest to x.
func nearestPoint(pts [][]float64, x []float64) int {
	best, bd := 0, math.Inf(1)
	for i, p := range pts {
		d := 0.0
		for k := range p {
			d += (p[k] - x[k]) * (p[k] - x[k])
		}
		if d < bd {
			best, bd = i, d
		}
	}
	return best
}

// pointOf reads the point of a decision a person makes: its parameters'
// values (a study defined by parameters) or x, checked against the study;
// where the learner picks among candidate points (ints or categoricals, a
// box given as candidates), the nearest candidate, whose values the answer
// gives.
func (l *live) pointOf(req api.TrialRequest) ([]float64, *apiError) {
	x, e := l.rawPointOf(req)
	if e != nil || l.b.Points == nil {
		return x, e
	}
	return append([]float64(nil), l.b.Points[nearestPoint(l.b.Points, x)]...), nil
}

func (l *live) rawPointOf(req api.TrialRequest) ([]float64, *apiError) {
	sp := &l.spec
	if sp.Space.Type == api.SpaceContextual {
		return nil, invalid("space", "a contextual study's actions come with each round: it takes no decision made in advance")
	}
	if sp.Parameters != nil {
		if req.X != nil {
			return nil, invalid("x", "give params: this study is defined by parameters")
		}
		return paramsToX(sp.Parameters, req.Params)
	}
	if req.Params != nil {
		return nil, invalid("params", "this study is defined by a space: give x")
	}
	if e := checkVector("x", req.X); e != nil {
		return nil, e
	}
	switch sp.Space.Type {
	case api.SpacePoints:
		if pointIndex(sp.Space.Points, req.X) < 0 {
			return nil, invalid("x", "= %v is not one of space.points", req.X)
		}
	case api.SpaceBox:
		if len(req.X) != len(sp.Space.Lo) {
			return nil, invalid("x", "has %d coordinates, the box has %d", len(req.X), len(sp.Space.Lo))
		}
		for i, v := range req.X {
			if v < sp.Space.Lo[i] || v > sp.Space.Hi[i] {
				return nil, invalid(fmt.Sprintf("x[%d]", i), "= %v is outside the box [%v, %v]", v, sp.Space.Lo[i], sp.Space.Hi[i])
			}
		}
	}
	return append([]float64(nil), req.X...), nil
}

// paramsToX encodes a person's parameter values in the learner's cube,
// naming the first bad parameter.
func paramsToX(ps []api.Parameter, vals map[string]any) ([]float64, *apiError) {
	if vals == nil {
		return nil, invalid("params", "the parameters' values are required")
	}
	known := map[string]bool{}
	out := make([]any, len(ps))
	for i, p := range ps {
		known[p.Name] = true
		f := "params." + p.Name
		v, ok := vals[p.Name]
		if !ok {
			return nil, invalid(f, "is missing")
		}
		switch p.Type {
		case ParamCategorical:
			found := false
			for _, c := range p.Choices {
				if c == v {
					found = true
				}
			}
			if !found {
				return nil, invalid(f, "= %v is not one of its choices %v", v, p.Choices)
			}
			out[i] = v
		default:
			n, ok := v.(float64)
			if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
				return nil, invalid(f, "= %v: must be a number", v)
			}
			if n < *p.Low || n > *p.High {
				return nil, invalid(f, "= %v is out of range [%v, %v]", n, *p.Low, *p.High)
			}
			if p.Type == ParamInt {
				if n != math.Trunc(n) {
					return nil, invalid(f, "= %v: must be an integer", n)
				}
				out[i] = int64(n)
			} else {
				out[i] = n
			}
		}
	}
	for k := range vals {
		if !known[k] {
			return nil, invalid("params."+k, "is not a parameter of the study")
		}
	}
	return encodeParams(ps, out), nil
}

// canImpose refuses an algorithm that takes no decision made by a person.
func (l *live) canImpose() *apiError {
	if l.readOnly != nil {
		return l.readOnly
	}
	if err := l.ensureAgent(); err != nil {
		return algorithmFailed(l.id, err)
	}
	if _, ok := l.agent.(bandit.Imposer); !ok {
		return invalid("algorithm", "= %q takes no decision made by a person (enqueued points, past measurements)", l.spec.Algorithm)
	}
	return nil
}

func decodeTrial(body []byte, measured bool) (api.TrialRequest, *apiError) {
	var req api.TrialRequest
	if body == nil {
		return req, invalid("body", "a point (params or x) is required")
	}
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	if !measured {
		if req.Reward != nil || req.Costs != nil {
			return req, invalid("reward", "an enqueued point has no values yet: POST /studies/{id}/trials records a past measurement")
		}
		if req.Failed || req.Reason != "" {
			return req, invalid("failed", "an enqueued point has no outcome yet: POST /studies/{id}/trials records a past failure")
		}
		return req, nil
	}
	if req.Failed {
		return req, checkPastFailure(req)
	}
	if req.Reason != "" {
		return req, invalid("reason", "= %q: given only with \"failed\": true", clip(req.Reason, 200))
	}
	if req.Reward == nil {
		return req, invalid("reward", "a past measurement needs its reward")
	}
	if e := checkMagnitude("reward", *req.Reward); e != nil {
		return req, e
	}
	if e := checkVector("costs", req.Costs); e != nil {
		return req, e
	}
	return req, nil
}

// checkPastFailure checks a past evaluation that failed: no values, a
// short UTF-8 reason.
func checkPastFailure(req api.TrialRequest) *apiError {
	switch {
	case req.Reward != nil || req.Costs != nil:
		return invalid("failed", "a failed evaluation carries no reward and no costs")
	case len(req.Reason) > bandit.MaxReasonLen:
		return invalid("reason", "has %d bytes: at most %d", len(req.Reason), bandit.MaxReasonLen)
	case !utf8.ValidString(req.Reason):
		return invalid("reason", "must be UTF-8 text")
	}
	return nil
}

// enqueue: POST /studies/{id}/enqueue — the point is the next suggestion
// (after the points enqueued before it).
func (s *Server) enqueue(w http.ResponseWriter, r *http.Request) error {
	body, e := readBody(r)
	if e != nil {
		return e
	}
	req, e := decodeTrial(body, false)
	if e != nil {
		return e
	}
	var resp api.EnqueueResponse
	err := s.withStudy(r.Context(), r.PathValue("id"), false, func(l *live) error {
		x, e := l.pointOf(req)
		if e != nil {
			return e
		}
		if e := l.canImpose(); e != nil {
			return e
		}
		_, err := s.update(r.Context(), l, func() ([]store.Event, error) {
			if len(l.queue) >= MaxQueue {
				return nil, conflict("queue_full", "params", "the study has %d enqueued points, at most %d", len(l.queue), MaxQueue)
			}
			l.queue = append(l.queue, x)
			resp = api.EnqueueResponse{Queued: len(l.queue), X: x, Params: l.params(x)}
			ev, err := newEvent(store.KindEnqueue, enqueueEvent{X: x})
			if err != nil {
				return nil, err
			}
			return []store.Event{ev}, nil
		})
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, resp)
}

// addTrial: POST /studies/{id}/trials — a past measurement: a decision
// made by a person and its values, as if the algorithm had chosen it. An
// Idempotency-Key makes a re-send answer the trial recorded first (its key
// is kept with the decision's ask event, as an ask's, under a hash of its
// own: the same key on an ask is refused).
func (s *Server) addTrial(w http.ResponseWriter, r *http.Request) error {
	key, e := idempotencyKey(r)
	if e != nil {
		return e
	}
	body, e := readBody(r)
	if e != nil {
		return e
	}
	req, e := decodeTrial(body, true)
	if e != nil {
		return e
	}
	hash := requestHash("trial", req)
	var resp api.Suggestion
	replayed := false
	err := s.withStudy(r.Context(), r.PathValue("id"), false, func(l *live) error {
		if m := len(l.spec.Constraints); len(req.Costs) != m && !req.Failed {
			return invalid("costs", "has %d values, the study has %d constraints: a past measurement gives them all", len(req.Costs), m)
		}
		x, e := l.pointOf(req)
		if e != nil {
			return e
		}
		if e := l.canImpose(); e != nil {
			return e
		}
		evs, err := s.update(r.Context(), l, func() ([]store.Event, error) {
			if rec, ok := l.keys[key]; ok && key != "" {
				if rec.op != "ask" || rec.req != hash || rec.first < 1 || rec.first > int64(len(l.decs)) {
					return nil, keyReused(key)
				}
				resp, replayed = l.suggestion(int(rec.first-1)), true
				return nil, nil
			}
			if h := l.horizon(); h > 0 && len(l.decs) >= h {
				return nil, conflict("horizon_reached", "reward", "the study has made all %d of its decisions (horizon)", h)
			}
			if e := s.checkLimits(l, 1); e != nil {
				return nil, e
			}
			now := time.Now().UTC()
			a, err := l.impose(now, x, imposedMeasured)
			if err != nil {
				return nil, algorithmFailed(l.id, fmt.Errorf("impose: %w", err))
			}
			if key != "" {
				a.Key, a.Req = key, hash
				l.setKey(key, idemRecord{op: "ask", req: hash, first: a.ID, count: 1})
			}
			t := tellEvent{ID: a.ID, Reward: req.Reward, Costs: req.Costs, Failed: req.Failed, Reason: req.Reason}
			if len(req.Costs) == 0 {
				t.Costs = nil
			}
			if err := l.observe(t, false); err != nil {
				return nil, algorithmFailed(l.id, fmt.Errorf("observe: %w", err))
			}
			resp = l.suggestion(int(a.ID - 1))
			ask, err := newEvent(store.KindAsk, a)
			if err != nil {
				return nil, err
			}
			tell, err := newEvent(store.KindTell, t)
			if err != nil {
				return nil, err
			}
			return []store.Event{ask, tell}, nil
		})
		if err == nil && len(evs) > 0 && !replayed {
			// Created is when the log took the decision, as a replay reads it.
			l.decs[resp.DecisionID-1].created = evs[0].Time
		}
		return err
	})
	if err != nil {
		return err
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	return writeJSON(w, http.StatusCreated, resp)
}
