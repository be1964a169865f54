package service

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// askEvent is the log entry of a decision. Replay re-runs Decide and checks
// that it gives the same decision. Key, Req and Of record an idempotent ask
// (on the first decision of the answer: Of decisions from this one).
type askEvent struct {
	ID     int64     `json:"id"`
	Round  int       `json:"round"`
	Arm    int       `json:"arm"`
	X      []float64 `json:"x,omitempty"`
	Policy []float64 `json:"policy,omitempty"`
	// Arms and Sample are what the ask carried: a contextual round's action
	// set, a full-information round's constraint sample.
	Arms   [][]float64 `json:"arms,omitempty"`
	Sample [][]float64 `json:"sample,omitempty"`
	Key    string      `json:"key,omitempty"`
	Req    string      `json:"req,omitempty"`
	Of     int         `json:"of,omitempty"`
	// Imposed marks a decision a person made: "queued" (an enqueued point,
	// the head of the queue) or "measured" (a past measurement).
	Imposed string `json:"imposed,omitempty"`
}

// enqueueEvent is the log entry of a point a person asked to try next.
type enqueueEvent struct {
	X []float64 `json:"x"`
}

// tellEvent is the log entry of an observation: the metric values as the
// client sent them (only the parts that were new). An idempotent tell also
// records its key, request hash and answer (then the values may be absent:
// a re-send under a new key).
type tellEvent struct {
	ID     int64                `json:"id"`
	Reward *float64             `json:"reward,omitempty"`
	Costs  []float64            `json:"costs,omitempty"`
	Failed bool                 `json:"failed,omitempty"`
	Reason string               `json:"reason,omitempty"`
	Key    string               `json:"key,omitempty"`
	Req    string               `json:"req,omitempty"`
	Resp   *api.ObserveResponse `json:"resp,omitempty"`
}

// abandonEvent is the log entry of an abandoned decision.
type abandonEvent struct {
	ID     int64  `json:"id"`
	Reason string `json:"reason"`
}

// decState is one decision and what has been observed of it.
type decState struct {
	round     int
	epoch     int
	arm       int
	x         []float64
	policy    []float64
	created   time.Time
	reward    *float64
	costs     []float64
	observed  time.Time // of the last observation
	abandoned bool
	failed    bool
	reason    string // the failure's
}

// idemRecord is what an Idempotency-Key was used for.
type idemRecord struct {
	op    string // "ask" or "tell"
	req   string // hash of the request
	first int64  // ask: first decision of the answer
	count int    // ask: number of decisions
	resp  *api.ObserveResponse
}

// live is a study held in memory: its agent and the decisions, as they
// stand after the first n events of its log. mu serialises every use.
type live struct {
	mu      sync.Mutex
	id      string
	name    string
	created time.Time
	spec    api.StudySpec
	b       *built
	agent   bandit.Agent // the current epoch's; nil until needed
	n       int64
	chain   [32]byte // hash chain of the first n events
	decs    []decState
	keys    map[string]idemRecord
	// epoch is the index of the agent's run; its decisions are rounds
	// epochStart+1 … epochStart+epochLen.
	epoch, epochStart, epochLen int
	abandoned                   int
	// snapshots: the log length of the latest one taken or loaded, and the
	// agent time spent since.
	snapN   int64
	sinceSn float64
	bytes   int64 // measured size of the agent state (0: not measured)
	// measurements of bytes: the log length and agent time since the last
	// one, and what it cost (maybeMeasure)
	measureN     int64
	sinceMeasure float64
	measureCost  float64
	// stale marks an agent that may be ahead of or apart from the log (a
	// failed append): it is dropped and rebuilt by replay.
	stale bool
	m     *metrics
	// queue holds the enqueued points not yet suggested, oldest first.
	queue [][]float64
	// vecBytes and keyBytes count the heap of the decisions' vectors and
	// of the idempotency keys (weight).
	vecBytes, keyBytes int64
	// limitLogged: a refusal at a limit was logged (once per study).
	limitLogged bool
	// shape is the fingerprint of the agent's types in epoch shapeEpoch-1
	// (0: not computed).
	shape      string
	shapeEpoch int
	// readOnly is set when this build's algorithm does not replay the log
	// (a replayed decision differs): the study is rebuilt without its agent,
	// kept readable and observable, and makes no decision (restore).
	readOnly *apiError
}

// newLive prepares the study before any event (the agent is built on first
// use).
func newLive(rec store.Study, m *metrics) (*live, error) {
	l := &live{id: rec.ID, name: rec.Name, created: rec.Created, m: m, keys: map[string]idemRecord{}}
	if err := json.Unmarshal(rec.Spec, &l.spec); err != nil {
		return nil, fmt.Errorf("study %s: stored definition: %w", rec.ID, err)
	}
	b, e := build(&l.spec)
	if e != nil {
		return nil, fmt.Errorf("study %s: stored definition: %v", rec.ID, e)
	}
	l.b = b
	l.epochLen = l.epochLength(0)
	return l, nil
}

// horizon is the current limit on decisions (0: open-ended).
func (l *live) horizon() int { return l.spec.Horizon }

// epochLength is the number of rounds of epoch k: the doubling trick for an
// open-ended study (Epoch·2^k), else the rounds between successive
// horizons (RaisedFrom, then Horizon).
func (l *live) epochLength(k int) int {
	if l.spec.Horizon == 0 {
		e := l.spec.Epoch
		if e <= 0 {
			e = DefaultEpoch
		}
		if k > 30 {
			k = 30
		}
		return e << k
	}
	bounds := append(append([]int(nil), l.spec.RaisedFrom...), l.spec.Horizon)
	if k >= len(bounds) {
		return 0 // beyond the horizon
	}
	if k == 0 {
		return bounds[0]
	}
	return bounds[k] - bounds[k-1]
}

// epochSeed is the agent's seed in epoch k (the study's seed in epoch 0).
func (l *live) epochSeed(k int) uint64 {
	if k == 0 {
		return l.spec.Seed
	}
	return seed.Derive(l.spec.Seed, "epoch", k)
}

// ensureAgent builds the current epoch's agent if there is none.
func (l *live) ensureAgent() error {
	if l.agent != nil {
		return nil
	}
	a, e := l.b.newAgent(&l.spec, l.epochLen, l.epochSeed(l.epoch))
	if e != nil {
		return fmt.Errorf("study %s: stored definition: %v", l.id, e)
	}
	l.agent = a
	return nil
}

// nextRound advances the epoch when round t (1-based, global) starts a new
// one; it reports whether it did.
func (l *live) nextRound(t int) (bool, error) {
	if t <= l.epochStart+l.epochLen {
		return false, nil
	}
	n := l.epochLength(l.epoch + 1)
	if n <= 0 {
		return false, fmt.Errorf("round %d is beyond the horizon %d", t, l.horizon())
	}
	l.epoch++
	l.epochStart += l.epochLen
	l.epochLen = n
	l.agent = nil
	return true, nil
}

func (l *live) hashEvent(ev store.Event) {
	h := sha256.New()
	h.Write(l.chain[:])
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(ev.Seq))
	h.Write(b[:])
	h.Write([]byte(ev.Kind))
	h.Write([]byte{0})
	h.Write(ev.Data)
	copy(l.chain[:], h.Sum(nil))
}

// applyAll applies log events in order; they must follow the first n. With
// light set the agent is not run: only the decisions, observations and keys
// are rebuilt (the prefix covered by a snapshot).
func (l *live) applyAll(evs []store.Event, light bool) error {
	for _, ev := range evs {
		if err := l.applyEvent(ev, light); err != nil {
			return err
		}
	}
	return nil
}

// applyEvent applies the next log event (see applyAll).
func (l *live) applyEvent(ev store.Event, light bool) error {
	light = light || l.readOnly != nil // its agent does not replay the log
	if ev.Seq != l.n+1 {
		return fmt.Errorf("study %s: log event %d follows %d: gap in the log", l.id, ev.Seq, l.n)
	}
	if err := l.apply(ev, light); err != nil {
		return fmt.Errorf("study %s: replay of log event %d: %w", l.id, ev.Seq, err)
	}
	l.appended(ev)
	return nil
}

// appended counts an event that is now part of the log.
func (l *live) appended(ev store.Event) {
	l.hashEvent(ev)
	l.n++
	if ev.Kind == store.KindTell {
		var t tellEvent
		if json.Unmarshal(ev.Data, &t) == nil && t.ID >= 1 && t.ID <= int64(len(l.decs)) && (t.Reward != nil || t.Costs != nil || t.Failed) {
			l.decs[t.ID-1].observed = ev.Time
		}
	}
}

func (l *live) apply(ev store.Event, light bool) error {
	switch ev.Kind {
	case store.KindAsk:
		var a askEvent
		if err := json.Unmarshal(ev.Data, &a); err != nil {
			return err
		}
		var got askEvent
		var err error
		switch {
		case light:
			got, err = l.record(a, ev.Time)
			if a.Imposed == imposedQueued && len(l.queue) > 0 {
				l.queue = l.queue[1:]
			}
		case a.Imposed != "":
			got, err = l.impose(ev.Time, a.X, a.Imposed)
		default:
			got, err = l.decide(ev.Time, roundInput{arms: a.Arms, sample: a.Sample})
		}
		if err != nil {
			return err
		}
		if got.ID != a.ID || got.Arm != a.Arm || !equalVec(got.X, a.X) {
			return &divergedError{fmt.Sprintf("replay diverged: decision %d is arm %d %v, the log says decision %d arm %d %v (did the algorithm change?)",
				got.ID, got.Arm, got.X, a.ID, a.Arm, a.X), a.ID}
		}
		if a.Key != "" {
			l.setKey(a.Key, idemRecord{op: "ask", req: a.Req, first: a.ID, count: max(a.Of, 1)})
		}
		return nil
	case store.KindTell:
		var t tellEvent
		if err := json.Unmarshal(ev.Data, &t); err != nil {
			return err
		}
		if err := l.observe(t, light); err != nil {
			return err
		}
		if t.Key != "" {
			l.setKey(t.Key, idemRecord{op: "tell", req: t.Req, resp: t.Resp})
		}
		return nil
	case store.KindEnqueue:
		var e enqueueEvent
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			return err
		}
		l.queue = append(l.queue, e.X)
		return nil
	case store.KindAbandon:
		var a abandonEvent
		if err := json.Unmarshal(ev.Data, &a); err != nil {
			return err
		}
		return l.abandon(a.ID, light)
	}
	return fmt.Errorf("unknown event kind %q", ev.Kind)
}

// divergedError is a replayed decision that differs from the logged one:
// this build's algorithm is not the one that wrote the log.
type divergedError struct {
	msg string
	id  int64 // the decision
}

func (e *divergedError) Error() string { return e.msg }

// roundInput is what an ask tells the agent about its round.
type roundInput struct {
	arms   [][]float64 // contextual: this round's actions
	sample [][]float64 // full information: constraint metrics at every point
}

// decide makes the next decision.
func (l *live) decide(now time.Time, in roundInput) (askEvent, error) {
	t := len(l.decs) + 1
	if _, err := l.nextRound(t); err != nil {
		return askEvent{}, err
	}
	if err := l.ensureAgent(); err != nil {
		return askEvent{}, err
	}
	local := t - l.epochStart
	round := &bandit.Round{T: local, Arms: in.arms}
	if in.sample != nil {
		thresh := l.b.Thresh
		round.ConstraintSample = func(a bandit.Action, dst []float64) {
			if a.Arm < 0 || a.Arm >= len(in.sample) {
				for j := range dst {
					dst[j] = math.NaN() // refused by the agent: no such point
				}
				return
			}
			for j := range dst {
				dst[j] = in.sample[a.Arm][j] - thresh[j]
			}
		}
	}
	start := time.Now()
	d, err := l.agent.Decide(round)
	el := time.Since(start).Seconds()
	l.m.decide.observe(el)
	l.sinceSn += el
	l.sinceMeasure += el
	if err != nil {
		return askEvent{}, err
	}
	if d.ID != int64(local) {
		return askEvent{}, fmt.Errorf("agent numbered decision %d as %d", local, d.ID)
	}
	x := d.Action.X
	arm := d.Action.Arm
	switch {
	case in.arms != nil: // contextual: the round's action, or a point of its segment
		if len(x) == 0 && arm >= 0 && arm < len(in.arms) {
			x = in.arms[arm]
		}
	case l.b.Info.Stage != nil && l.b.Info.Stage.StarConvex: // a point of a segment [x₀, x_arm]
		if len(x) == 0 && arm >= 0 && arm < len(l.b.Points) {
			x = l.b.Points[arm]
		}
	case arm >= 0 && arm < len(l.b.Points):
		x = l.b.Points[arm]
	}
	if len(x) == 0 {
		return askEvent{}, fmt.Errorf("agent chose arm %d without a point", d.Action.Arm)
	}
	if arm < 0 { // the safe point x₀, or a point named by its coordinates
		if in.arms != nil {
			arm = pointIndex(in.arms, x)
		} else if l.b.Points != nil {
			arm = pointIndex(l.b.Points, x)
		}
	}
	a := askEvent{ID: int64(t), Round: t, Arm: arm, X: append([]float64(nil), x...), Policy: d.Policy, Arms: in.arms, Sample: in.sample}
	l.decs = append(l.decs, decState{round: t, epoch: l.epoch, arm: a.Arm, x: a.X, policy: a.Policy, created: now})
	l.vecBytes += allocSize(8*len(a.X)) + allocSize(8*len(a.Policy))
	return a, nil
}

// record takes a logged decision without running the agent (light replay).
func (l *live) record(a askEvent, now time.Time) (askEvent, error) {
	t := len(l.decs) + 1
	if _, err := l.nextRound(t); err != nil {
		return askEvent{}, err
	}
	got := askEvent{ID: int64(t), Round: t, Arm: a.Arm, X: a.X, Policy: a.Policy}
	l.decs = append(l.decs, decState{round: t, epoch: l.epoch, arm: a.Arm, x: a.X, policy: a.Policy, created: now})
	l.vecBytes += allocSize(8*cap(a.X)) + allocSize(8*cap(a.Policy))
	return got, nil
}

// observe hands an observation to the agent (when the decision is of the
// current epoch, light is not set and the study is not read-only) and
// records it. The caller has checked that its parts are new.
func (l *live) observe(t tellEvent, light bool) error {
	if t.ID < 1 || t.ID > int64(len(l.decs)) {
		return fmt.Errorf("observation of unknown decision %d", t.ID)
	}
	d := &l.decs[t.ID-1]
	if t.Reward == nil && t.Costs == nil && !t.Failed {
		return nil // an idempotency record only
	}
	if d.epoch == l.epoch && !light && l.readOnly == nil {
		if err := l.ensureAgent(); err != nil {
			return err
		}
		fb := bandit.Feedback{ID: t.ID - int64(l.epochStart), Failed: t.Failed, Reason: t.Reason}
		if t.Reward != nil {
			fb.HasReward, fb.Reward = true, l.b.Sign**t.Reward
		}
		if t.Costs != nil {
			fb.Costs = make([]float64, len(t.Costs))
			for j, c := range t.Costs {
				fb.Costs[j] = c - l.b.Thresh[j]
			}
		}
		start := time.Now()
		err := l.agent.Observe(fb)
		el := time.Since(start).Seconds()
		l.m.observe.observe(el)
		l.sinceSn += el
		l.sinceMeasure += el
		if err != nil {
			return err
		}
	}
	if t.Failed {
		d.failed, d.reason = true, t.Reason
		l.vecBytes += int64(len(t.Reason))
	}
	if t.Reward != nil {
		d.reward = ptr(*t.Reward)
		l.vecBytes += 8
	}
	if t.Costs != nil {
		d.costs = append([]float64(nil), t.Costs...)
		l.vecBytes += allocSize(8 * len(d.costs))
	}
	return nil
}

// abandon marks a pending decision as abandoned.
func (l *live) abandon(id int64, light bool) error {
	if id < 1 || id > int64(len(l.decs)) {
		return fmt.Errorf("abandon of unknown decision %d", id)
	}
	d := &l.decs[id-1]
	if d.abandoned {
		return nil
	}
	d.abandoned = true
	l.abandoned++
	// The agent learns it is pending no more (bandit.Abandoner), so a GP
	// agent stops conditioning on it; a decision of an earlier epoch
	// belongs to an agent that no longer runs.
	if d.epoch == l.epoch && !light && l.readOnly == nil {
		if err := l.ensureAgent(); err != nil {
			return err
		}
		if ab, ok := l.agent.(bandit.Abandoner); ok {
			return ab.Abandon(id - int64(l.epochStart))
		}
	}
	return nil
}

// complete reports whether every observation of decision d has arrived.
func (l *live) complete(d *decState) bool {
	return d.failed || d.reward != nil && (len(l.spec.Constraints) == 0 || d.costs != nil)
}

func (l *live) recordOf(i int) api.DecisionRecord {
	d := l.decs[i]
	r := api.DecisionRecord{DecisionID: int64(i + 1), Round: d.round, X: d.x, Arm: d.arm, Policy: d.policy,
		Params: l.params(d.x), Created: d.created, Reward: d.reward, Costs: d.costs, Abandoned: d.abandoned,
		Failed: d.failed, Reason: d.reason}
	if !d.observed.IsZero() {
		t := d.observed
		r.Observed = &t
	}
	return r
}

// params decodes a point into the study's parameter values (nil for a
// study defined by a space).
func (l *live) params(x []float64) map[string]any {
	if len(l.spec.Parameters) == 0 {
		return nil
	}
	return decodeParams(l.spec.Parameters, x)
}

func (l *live) suggestion(i int) api.Suggestion {
	d := l.decs[i]
	return api.Suggestion{DecisionID: int64(i + 1), Round: d.round, X: d.x, Arm: d.arm, Policy: d.policy, Params: l.params(d.x)}
}

// summary computes the study's summary from its decisions. Every figure is
// finite: observed values are bounded (MaxMagnitude), and a sum that would
// still overflow is reported at ±math.MaxFloat64.
func (l *live) summary() api.Summary {
	s := api.Summary{Rounds: len(l.decs), Abandoned: l.abandoned, Horizon: l.horizon(), Epoch: l.epoch}
	m := len(l.spec.Constraints)
	cs := make([]api.ConstraintSummary, m)
	for j, c := range l.spec.Constraints {
		cs[j] = api.ConstraintSummary{Name: c.Name, Kind: c.Kind, Threshold: c.Threshold}
	}
	bestVal := math.Inf(-1)
	for i := range l.decs {
		d := &l.decs[i]
		if d.reward != nil {
			s.RewardObserved++
			s.RewardSum += *d.reward
		}
		if d.costs != nil {
			s.CostsObserved++
		}
		if !l.complete(d) && !d.abandoned {
			s.Pending++
		}
		if d.failed {
			s.Failed++
			if s.Reasons == nil {
				s.Reasons = map[string]int{}
			}
			s.Reasons[d.reason]++
		}
		feasible := d.costs != nil || m == 0
		for j, c := range d.costs {
			g := c - l.spec.Constraints[j].Threshold
			cs[j].Observed++
			cs[j].CumulativeCost += g
			if g > 0 {
				cs[j].ViolationHard += g
				cs[j].ViolationCount++
				feasible = false
			}
		}
		if feasible && d.reward != nil && l.b.Sign**d.reward > bestVal {
			bestVal = l.b.Sign * *d.reward
			s.Best = &api.Best{DecisionID: int64(i + 1), X: d.x, Params: l.params(d.x), Reward: *d.reward, Costs: d.costs}
		}
	}
	s.RewardSum = clampFinite(s.RewardSum)
	for j := range cs {
		cs[j].CumulativeCost = clampFinite(cs[j].CumulativeCost)
		cs[j].ViolationHard = clampFinite(cs[j].ViolationHard)
		cs[j].ViolationSoft = math.Max(0, cs[j].CumulativeCost)
		switch cs[j].Kind {
		case api.KindCumulative:
			cs[j].Violation = cs[j].ViolationHard
		case api.KindStageWise:
			cs[j].Violation = float64(cs[j].ViolationCount)
		default:
			cs[j].Violation = cs[j].ViolationSoft
		}
	}
	s.Constraints = cs
	s.Recommendation = l.recommendation()
	return s
}

// recommendation is the current run's agent's recommendation
// (learner.Recommend) with the study's decision ID and names; nil when it
// names none or no agent is running.
func (l *live) recommendation() *api.Recommendation {
	if l.agent == nil {
		return nil
	}
	r := l.b.Recommend(l.agent)
	if r == nil {
		return nil
	}
	id := r.Decision + int64(l.epochStart)
	if id < 1 || id > int64(len(l.decs)) {
		return nil
	}
	out := &api.Recommendation{DecisionID: id, X: r.X, Params: l.params(r.X), Objective: r.Objective,
		Constraints: make([]api.ConstraintMoments, len(l.spec.Constraints)), Feasible: r.Feasible}
	for j, c := range l.spec.Constraints {
		out.Constraints[j].Name = c.Name
		if j < len(r.Constraints) {
			out.Constraints[j].Mean, out.Constraints[j].Std = r.Constraints[j].Mean, r.Constraints[j].Std
		}
	}
	return out
}

// clampFinite maps ±Inf to ±math.MaxFloat64 (and NaN, which cannot arise
// from finite inputs, to 0) so that JSON can carry it.
func clampFinite(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return 0
	case math.IsInf(v, 1):
		return math.MaxFloat64
	case math.IsInf(v, -1):
		return -math.MaxFloat64
	}
	return v
}

// setKey records what an Idempotency-Key was used for.
func (l *live) setKey(key string, r idemRecord) {
	if _, ok := l.keys[key]; !ok {
		l.keyBytes += allocSize(len(key)) + allocSize(len(r.req))
		if r.resp != nil {
			l.keyBytes += 96
		}
	}
	l.keys[key] = r
}
