// The ask pipeline (POST /studies/{id}/suggestions): idempotency keys, parsing, limits, expiry of pending decisions, deciding and committing.

package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// idempotencyKey reads the Idempotency-Key header (draft-ietf-httpapi-
// idempotency-key-header: a structured-field string, quoted; a bare token
// is accepted too).
func idempotencyKey(r *http.Request) (string, *apiError) {
	vs := r.Header.Values("Idempotency-Key")
	if len(vs) == 0 {
		return "", nil
	}
	if len(vs) > 1 {
		return "", invalid("Idempotency-Key", "is given %d times, at most once allowed", len(vs))
	}
	k := strings.TrimSpace(vs[0])
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	if k == "" || len(k) > MaxIdempotencyKey {
		return "", invalid("Idempotency-Key", "is %d bytes long: want 1 to %d", len(k), MaxIdempotencyKey)
	}
	for _, c := range []byte(k) {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", invalid("Idempotency-Key", "%q: only printable ASCII without quotes or backslashes is accepted", k)
		}
	}
	return k, nil
}

// requestHash fingerprints a decoded request: the same key with another
// request is refused.
func requestHash(op string, v any) string {
	b, _ := json.Marshal(v)
	h := sha256.Sum256(append([]byte(op+"\n"), b...))
	return hex.EncodeToString(h[:16])
}

func keyReused(key string) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, code: "idempotency_key_reused", field: "Idempotency-Key",
		msg: fmt.Sprintf("%q was used for another request to this study (same key, different body or endpoint)", key)}
}

// refreshSpec re-reads the study's definition when it may have been raised
// by PATCH on another replica.
func (s *Server) refreshSpec(ctx context.Context, l *live) error {
	rec, err := s.st.Get(ctx, l.id)
	if err != nil {
		return err
	}
	var sp api.StudySpec
	if err := json.Unmarshal(rec.Spec, &sp); err != nil {
		return fmt.Errorf("study %s: stored definition: %w", l.id, err)
	}
	if sp.Horizon > l.spec.Horizon {
		l.spec.Horizon, l.spec.RaisedFrom = sp.Horizon, sp.RaisedFrom
	}
	return nil
}

// expire returns the abandon events of the decisions pending for longer
// than the TTL.
func (s *Server) expire(l *live, now time.Time) ([]store.Event, error) {
	if s.opt.PendingTTL <= 0 {
		return nil, nil
	}
	cut := now.Add(-s.opt.PendingTTL)
	var evs []store.Event
	for i := range l.decs {
		d := &l.decs[i]
		if !d.created.Before(cut) {
			break // decisions are in creation order
		}
		if d.abandoned || l.complete(d) {
			continue
		}
		ev, err := newEvent(store.KindAbandon, abandonEvent{ID: int64(i + 1), Reason: "ttl"})
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// ask is a parsed POST /studies/{id}/suggestions.
type ask struct {
	study string
	key   string // the Idempotency-Key, if any
	hash  string // the request's fingerprint, for the key
	req   api.SuggestRequest
}

// asked is what an ask made under the study's lock.
type asked struct {
	sugg     []api.Suggestion
	ids      []int64 // the decisions made, in order
	replayed bool    // answered from the log by the idempotency key
}

// suggest answers POST /studies/{id}/suggestions in steps: parse the
// request; under the study's lock, check the round's input, answer a known
// idempotency key from the log, check the horizon and the server's limits,
// abandon expired decisions, decide, commit the decisions to the log; then
// answer.
func (s *Server) suggest(w http.ResponseWriter, r *http.Request) error {
	a, e := parseAsk(r, s.opt.MaxAskCount)
	if e != nil {
		return e
	}
	var out asked
	err := s.withStudy(r.Context(), a.study, false, func(l *live) error {
		var err error
		out, err = s.askStudy(r.Context(), l, a)
		return err
	})
	if err != nil {
		return err
	}
	if out.replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	return writeJSON(w, http.StatusOK, api.SuggestResponse{Suggestions: out.sugg})
}

// parseAsk reads the ask's study, idempotency key and body.
func parseAsk(r *http.Request, maxCount int) (ask, *apiError) {
	a := ask{study: r.PathValue("id")}
	var e *apiError
	if a.key, e = idempotencyKey(r); e != nil {
		return a, e
	}
	body, e := readBody(r)
	if e != nil {
		return a, e
	}
	if a.req, e = decodeSuggest(body, maxCount); e != nil {
		return a, e
	}
	a.hash = requestHash("ask", a.req)
	return a, nil
}

// askStudy runs an ask on the live study l, under its lock, and commits
// the decisions: the log's time of each becomes its creation time.
func (s *Server) askStudy(ctx context.Context, l *live, a ask) (asked, error) {
	if e := l.checkRound(a.req); e != nil {
		return asked{}, e
	}
	if h := l.horizon(); h > 0 && len(l.decs)+a.req.Count > h {
		if err := s.refreshSpec(ctx, l); err != nil {
			return asked{}, err
		}
	}
	var out asked
	evs, err := s.update(ctx, l, func() ([]store.Event, error) {
		var evs []store.Event // a store may run this again: out starts afresh
		var err error
		out, evs, err = s.decideAsk(ctx, l, a)
		return evs, err
	})
	if err != nil {
		return asked{}, err
	}
	k := 0
	for _, ev := range evs { // the log's time of each decision, in the order asked
		if ev.Kind == store.KindAsk && k < len(out.ids) {
			l.decs[out.ids[k]-1].created = ev.Time
			k++
		}
	}
	return out, nil
}

// decideAsk is an ask's work under the store's lock, with l up to date with
// the log: the answer to a known idempotency key, else the events to
// append — expired decisions abandoned, then the decisions. Events returned
// with an error changed the live study, which the error drops (update).
func (s *Server) decideAsk(ctx context.Context, l *live, a ask) (asked, []store.Event, error) {
	out, replayed, e := l.replayAsk(a)
	if e != nil {
		return asked{}, nil, e
	}
	if replayed {
		return out, nil, nil
	}
	if l.readOnly != nil {
		return asked{}, nil, l.readOnly
	}
	if e := s.admitAsk(l, a.req.Count); e != nil {
		return asked{}, nil, e
	}
	now := time.Now().UTC()
	evs, err := s.abandonExpired(l, now)
	if err != nil {
		return asked{}, evs, err
	}
	return s.decideLoop(ctx, l, a, now, evs)
}

// replayAsk answers an ask whose idempotency key the study knows with the
// decisions it made then (ok); a key used for another request is refused.
func (l *live) replayAsk(a ask) (asked, bool, *apiError) {
	if a.key == "" {
		return asked{}, false, nil
	}
	rec, ok := l.keys[a.key]
	if !ok {
		return asked{}, false, nil
	}
	if rec.op != "ask" || rec.req != a.hash {
		return asked{}, false, keyReused(a.key)
	}
	out := asked{replayed: true}
	for i := rec.first - 1; i < rec.first-1+int64(rec.count) && i < int64(len(l.decs)); i++ {
		out.sugg = append(out.sugg, l.suggestion(int(i)))
	}
	return out, true, nil
}

// admitAsk refuses an ask of count decisions beyond the study's horizon or
// the server's limits.
func (s *Server) admitAsk(l *live, count int) *apiError {
	if h := l.horizon(); h > 0 && len(l.decs)+count > h {
		return conflict("horizon_reached", "count",
			"the study has made %d of its %d decisions (horizon): %d more requested; PATCH /studies/%s raises the horizon",
			len(l.decs), h, count, l.id)
	}
	return s.checkLimits(l, count)
}

// abandonExpired abandons the decisions pending beyond the TTL and returns
// their events.
func (s *Server) abandonExpired(l *live, now time.Time) ([]store.Event, error) {
	evs, err := s.expire(l, now)
	if err != nil {
		return nil, err
	}
	for _, ev := range evs {
		var a abandonEvent
		if err := json.Unmarshal(ev.Data, &a); err != nil {
			return evs, internal(fmt.Errorf("study %s: an expired decision's event: %w", l.id, err))
		}
		if err := l.abandon(a.ID, false); err != nil {
			return evs, algorithmFailed(l.id, fmt.Errorf("abandon: %w", err))
		}
	}
	return evs, nil
}

// decideLoop makes the ask's decisions — a point a person enqueued first,
// else the agent's — and appends their events to evs. Before each it
// checks that the client still waits and that the ask is within its time;
// if not, nothing is committed: the error drops the live study (its
// events moved it), which is rebuilt from the log as it was.
func (s *Server) decideLoop(ctx context.Context, l *live, a ask, now time.Time, evs []store.Event) (asked, []store.Event, error) {
	var out asked
	count := a.req.Count
	begin := time.Now()
	for k := 0; k < count; k++ {
		if err := ctx.Err(); err != nil {
			s.metrics.refused("client_gone")
			s.log.Info("ask stopped: the client went away", "study", l.id, "count", count, "decided", k,
				"seconds", time.Since(begin).Seconds())
			return out, evs, &apiError{status: 499, code: "client_gone", field: "count",
				msg: fmt.Sprintf("the client closed the request after %d of %d decisions; none was committed", k, count)}
		}
		if el := time.Since(begin); k > 0 && s.opt.MaxAskTime > 0 && el > s.opt.MaxAskTime {
			s.metrics.refused("ask_time_limit")
			s.log.Warn("ask stopped at the time limit", "study", l.id, "count", count, "decided", k,
				"seconds", el.Seconds(), "limit", s.opt.MaxAskTime)
			return out, evs, &apiError{status: http.StatusUnprocessableEntity, code: "ask_time_limit", field: "count",
				msg: fmt.Sprintf("= %d: the ask had made %d decision(s) in %.1f s, beyond this server's limit of %v per ask (--max-ask-time); none was committed: ask for fewer at a time (count ≤ %d)",
					count, k, el.Seconds(), s.opt.MaxAskTime, max(k-1, 1))}
		}
		var d askEvent
		var err error
		if len(l.queue) > 0 { // a point a person enqueued comes first
			d, err = l.impose(now, l.queue[0], imposedQueued)
		} else {
			d, err = l.decide(now, roundInput{arms: a.req.Arms, sample: a.req.ConstraintSample})
		}
		if err != nil {
			return out, evs, algorithmFailed(l.id, fmt.Errorf("decide: %w", err))
		}
		if k == 0 && a.key != "" {
			d.Key, d.Req, d.Of = a.key, a.hash, count
			l.setKey(a.key, idemRecord{op: "ask", req: a.hash, first: d.ID, count: count})
		}
		ev, err := newEvent(store.KindAsk, d)
		if err != nil {
			return out, evs, err
		}
		evs = append(evs, ev)
		out.sugg = append(out.sugg, l.suggestion(int(d.ID-1)))
		out.ids = append(out.ids, d.ID)
	}
	return out, evs, nil
}

// checkLimits refuses an ask of count decisions that would take the study
// beyond a limit of the server; the first refusal of each study is logged.
func (s *Server) checkLimits(l *live, count int) *apiError {
	var e *apiError
	if m := s.opt.MaxDecisions; m > 0 && len(l.decs)+count > m {
		e = conflict("decision_limit", "count",
			"= %d: the study has made %d decisions, this server keeps at most %d per study (--max-decisions): %d more can be asked; an operator can raise the limit, or continue in a new study",
			count, len(l.decs), m, max(m-len(l.decs), 0))
	}
	if m := s.opt.MaxStudyBytes; e == nil && m > 0 && l.weight() > m {
		e = conflict("model_limit", "count",
			"the study holds %.0f MiB in memory (its algorithm's state after %d decisions of its current run, and its decisions), beyond this server's limit of %.0f MiB per study (--max-study-mib); an operator can raise the limit; or continue in a new study (fewer points or dimensions, or a horizon: each run of the algorithm starts empty)",
			float64(l.weight())/(1<<20), len(l.decs)-l.epochStart, float64(m)/(1<<20))
	}
	if e == nil {
		return nil
	}
	s.metrics.refused(e.code)
	if !l.limitLogged {
		l.limitLogged = true
		s.log.Warn("study at a limit: asks refused", "study", l.id, "code", e.code, "err", e.msg)
	}
	return e
}

// decodeSuggest reads an ask. A count left out means one decision, as
// Optuna's study.ask() and Ax's get_next_trial() hand out one trial; an
// explicit 0 is refused (400, field count) like any count below 1, never
// answered with one: asking for none is a caller's bug (a free-worker count
// gone to 0) to surface, and an ask that decides nothing has no use.
func decodeSuggest(body []byte, maxCount int) (api.SuggestRequest, *apiError) {
	// The request with its count as a pointer: absent or null is nil.
	var in struct {
		api.SuggestRequest
		Count *int `json:"count"`
	}
	if body != nil {
		if e := decodeJSON(body, &in); e != nil {
			return in.SuggestRequest, e
		}
	}
	req := in.SuggestRequest
	req.Count = 1
	if in.Count != nil {
		req.Count = *in.Count
	}
	if req.Count < 1 || req.Count > maxCount {
		return req, invalid("count", "= %d: must be in [1, %d] (this server's limit per ask, --max-ask-count)", req.Count, maxCount)
	}
	for _, m := range []struct {
		field string
		v     [][]float64
	}{{"arms", req.Arms}, {"constraint_sample", req.ConstraintSample}} {
		if m.v == nil {
			continue
		}
		if req.Count != 1 {
			return req, invalid("count", "= %d: an ask with %s is for one round (count 1)", req.Count, m.field)
		}
		if len(m.v) == 0 || len(m.v) > MaxPoints {
			return req, invalid(m.field, "has %d rows: want 1 to %d", len(m.v), MaxPoints)
		}
		for i, row := range m.v {
			if e := checkVector(fmt.Sprintf("%s[%d]", m.field, i), row); e != nil {
				return req, e
			}
		}
	}
	return req, nil
}

// checkRound checks an ask's round input against the study: a contextual
// study needs the round's arms (prior.safe among them), a full-information
// study the constraint sample at every point; other studies take neither.
func (l *live) checkRound(req api.SuggestRequest) *apiError {
	sp := &l.spec
	if sp.Space.Type == api.SpaceContextual {
		if req.Arms == nil {
			return invalid("arms", "is required: a contextual study of dimension %d needs the round's actions as feature vectors of %d coordinates, prior.safe %v among them", sp.Space.Dim, sp.Space.Dim, sp.Prior.Safe)
		}
		L := l.b.Info.Stage.L
		for i, a := range req.Arms {
			if len(a) != sp.Space.Dim {
				return invalid(fmt.Sprintf("arms[%d]", i), "has %d coordinates, the study's actions have %d (space.dim)", len(a), sp.Space.Dim)
			}
			n := 0.0
			for _, v := range a {
				n += v * v
			}
			if math.Sqrt(n) > L*(1+1e-12) {
				return invalid(fmt.Sprintf("arms[%d]", i), "has norm %v above prior.L = %v (Pacchiano et al. Ass. 3)", math.Sqrt(n), L)
			}
		}
		if pointIndex(req.Arms, sp.Prior.Safe) < 0 {
			return invalid("arms", "must contain the safe action prior.safe = %v (Pacchiano et al. Ass. 5: x₀ is in every round's action set)", sp.Prior.Safe)
		}
	} else if req.Arms != nil {
		return invalid("arms", "applies to contextual studies only (this one has a %s space)", sp.Space.Type)
	}
	if sp.FullInfo {
		n, m := len(l.b.Points), len(sp.Constraints)
		if req.ConstraintSample == nil {
			return invalid("constraint_sample", "is required: a full-information study needs this round's %d constraint metrics at each of its %d points", m, n)
		}
		if len(req.ConstraintSample) != n {
			return invalid("constraint_sample", "has %d rows, the study has %d points (one row of %d constraint metrics per point)", len(req.ConstraintSample), n, m)
		}
		for i, row := range req.ConstraintSample {
			if len(row) != m {
				return invalid(fmt.Sprintf("constraint_sample[%d]", i), "has %d values, the study has %d constraints", len(row), m)
			}
		}
	} else if req.ConstraintSample != nil {
		return invalid("constraint_sample", "applies to full-information studies only (full_info)")
	}
	return nil
}
