// The tell handlers: observations (POST …/observations) and abandoning a decision.

package service

import (
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// decodeObservation decodes an observation and checks what can be checked
// without the study: finite values.
func decodeObservation(body []byte) (api.Observation, *apiError) {
	var o api.Observation
	if body == nil {
		return o, invalid("body", "an observation is required")
	}
	if e := decodeJSON(body, &o); e != nil {
		return o, e
	}
	if e := checkDecisionID(body, o.DecisionID); e != nil {
		return o, e
	}
	if o.DecisionID < 1 {
		return o, invalid("decision_id", "= %d: must be a decision ID (≥ 1)", o.DecisionID)
	}
	if o.Reward != nil {
		if e := checkMagnitude("reward", *o.Reward); e != nil {
			return o, e
		}
	}
	if e := checkVector("costs", o.Costs); e != nil {
		return o, e
	}
	if e := checkVector("x", o.X); e != nil {
		return o, e
	}
	if len(o.Costs) == 0 {
		o.Costs = nil
	}
	if o.Failed {
		switch {
		case o.Reward != nil || o.Costs != nil:
			return o, invalid("failed", "a failed evaluation carries no reward and no costs")
		case len(o.Reason) > bandit.MaxReasonLen:
			return o, invalid("reason", "has %d bytes: at most %d", len(o.Reason), bandit.MaxReasonLen)
		case !utf8.ValidString(o.Reason):
			return o, invalid("reason", "must be UTF-8 text")
		}
		return o, nil
	}
	if o.Reason != "" {
		return o, invalid("reason", "= %q: given only with \"failed\": true", o.Reason)
	}
	if o.Reward == nil && o.Costs == nil {
		return o, invalid("reward", "an observation carries a reward, costs, or both; this one has neither")
	}
	return o, nil
}

func (s *Server) observe(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	key, e := idempotencyKey(r)
	if e != nil {
		return e
	}
	body, e := readBody(r)
	if e != nil {
		return e
	}
	o, e := decodeObservation(body)
	if e != nil {
		return e
	}
	hash := requestHash("tell", o)
	var resp api.ObserveResponse
	replayed := false
	err := s.withStudy(r.Context(), id, false, func(l *live) error {
		if m := len(l.spec.Constraints); o.Costs != nil && len(o.Costs) != m {
			return invalid("costs", "has %d values, the study has %d constraints", len(o.Costs), m)
		}
		_, err := s.update(r.Context(), l, func() ([]store.Event, error) {
			if key != "" {
				if rec, ok := l.keys[key]; ok {
					if rec.op != "tell" || rec.req != hash || rec.resp == nil {
						return nil, keyReused(key)
					}
					resp, replayed = *rec.resp, true
					return nil, nil
				}
			}
			resp = api.ObserveResponse{DecisionID: o.DecisionID, Applied: []string{}}
			if o.DecisionID > int64(len(l.decs)) {
				return nil, notFound("decision_id", "= %d: no such decision (decisions so far: 1..%d)", o.DecisionID, len(l.decs))
			}
			d := &l.decs[o.DecisionID-1]
			if d.abandoned {
				return nil, conflict("abandoned", "decision_id", "= %d: the decision was abandoned and takes no observation", o.DecisionID)
			}
			if o.X != nil && !equalVec(o.X, d.x) {
				return nil, invalid("x", "= %v differs from the point of decision %d, %v", o.X, o.DecisionID, d.x)
			}
			t := tellEvent{ID: o.DecisionID}
			switch {
			case o.Failed && d.failed && o.Reason != d.reason:
				return nil, conflictingReason(o, d.reason)
			case o.Failed && d.failed:
				resp.Duplicate = append(resp.Duplicate, "failed")
			case o.Failed && (d.reward != nil || d.costs != nil):
				return nil, conflict("observed", "failed", "decision %d already has observed values: a failure replaces them, it does not follow them", o.DecisionID)
			case o.Failed:
				t.Failed, t.Reason = true, o.Reason
				resp.Applied = append(resp.Applied, "failed")
			case d.failed:
				return nil, conflict("failed", "decision_id", "= %d: the evaluation was reported failed and takes no values", o.DecisionID)
			}
			if o.Reward != nil {
				switch {
				case d.reward == nil:
					t.Reward = o.Reward
					resp.Applied = append(resp.Applied, "reward")
				case *d.reward == *o.Reward:
					resp.Duplicate = append(resp.Duplicate, "reward")
				default:
					return nil, conflict("conflicting_observation", "reward",
						"= %v: decision %d already has reward %v", *o.Reward, o.DecisionID, *d.reward)
				}
			}
			if o.Costs != nil {
				switch {
				case d.costs == nil:
					t.Costs = o.Costs
					resp.Applied = append(resp.Applied, "costs")
				case equalVec(d.costs, o.Costs):
					resp.Duplicate = append(resp.Duplicate, "costs")
				default:
					return nil, conflict("conflicting_observation", "costs",
						"= %v: decision %d already has costs %v", o.Costs, o.DecisionID, d.costs)
				}
			}
			if key != "" {
				r := resp
				t.Key, t.Req, t.Resp = key, hash, &r
			} else if t.Reward == nil && t.Costs == nil && !t.Failed {
				return nil, nil // an idempotent re-send: nothing to record
			}
			if err := l.observe(t, false); err != nil {
				return nil, algorithmFailed(l.id, fmt.Errorf("observe: %w", err))
			}
			if key != "" {
				l.setKey(key, idemRecord{op: "tell", req: hash, resp: t.Resp})
			}
			ev, err := newEvent(store.KindTell, t)
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
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	return writeJSON(w, http.StatusOK, resp)
}

// abandonDecision answers DELETE /studies/{id}/decisions/{did}: a pending
// decision is abandoned (it takes no observation and counts as abandoned in
// the summary). Repeating it answers the same.
func (s *Server) abandonDecision(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	v := r.PathValue("did")
	did, err := strconv.ParseInt(v, 10, 64)
	if err != nil || did < 1 {
		return invalid("decision_id", "= %q: must be a decision ID (≥ 1)", v)
	}
	err = s.withStudy(r.Context(), id, false, func(l *live) error {
		_, err := s.update(r.Context(), l, func() ([]store.Event, error) {
			if did > int64(len(l.decs)) {
				return nil, notFound("decision_id", "= %d: no such decision (decisions so far: 1..%d)", did, len(l.decs))
			}
			d := &l.decs[did-1]
			if d.abandoned {
				return nil, nil
			}
			if l.complete(d) {
				return nil, conflict("observed", "decision_id", "= %d: the decision has all its observations: nothing to abandon", did)
			}
			if err := l.abandon(did, false); err != nil {
				return nil, algorithmFailed(l.id, fmt.Errorf("abandon: %w", err))
			}
			ev, err := newEvent(store.KindAbandon, abandonEvent{ID: did, Reason: "deleted"})
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
	return writeJSON(w, http.StatusOK, api.AbandonResponse{DecisionID: did, Abandoned: true})
}
