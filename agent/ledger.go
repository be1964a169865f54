package agent

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/model"
)

// Ledger assigns decision IDs and matches feedback to decisions. Reward and
// costs of a decision are each accepted once; a second report of either is an
// error, as is an unknown ID.
type Ledger struct {
	m       int
	next    int64
	entries []entry   // index = ID-1
	open    []int64   // pending decisions (not fully observed, not abandoned), in ID order
	done    []int64   // fully observed decisions, in ID order (trustRegion replays them)
	fail    *failures // the failure model of a GP agent (learnFailures); nil: failures teach nothing
}

type entry struct {
	action    bandit.Action
	round     int
	gotReward bool
	gotCosts  bool
	abandoned bool
	failed    bool // the evaluation failed (bandit.Feedback.Failed)
	extra     int  // agent-defined tag (e.g. the epoch a decision belongs to)
	reward    float64
	costs     []float64 // the observed values (trust region: trustRegion)
}

// NewLedger returns a ledger for an agent with m constraints.
func NewLedger(m int) *Ledger { return &Ledger{m: m, next: 1} }

// Record stores a decision and returns it with its new ID.
func (l *Ledger) Record(round int, a bandit.Action, tag int) bandit.Decision {
	id := l.next
	l.next++
	a.X = append([]float64(nil), a.X...)
	l.entries = append(l.entries, entry{action: a, round: round, extra: tag})
	l.open = append(l.open, id)
	return bandit.Decision{ID: id, Round: round, Action: a}
}

// close drops id from the pending decisions (in ID order: a binary search).
func (l *Ledger) close(id int64) {
	if k, ok := slices.BinarySearch(l.open, id); ok {
		l.open = slices.Delete(l.open, k, k+1)
	}
}

// Abandon marks a pending decision as abandoned (its evaluation failed or
// was given up): it is pending no more, and feedback for it is refused.
func (l *Ledger) Abandon(id int64) error {
	if id < 1 || id >= l.next {
		return fmt.Errorf("abandon id = %d: unknown decision (decisions so far: 1..%d)", id, l.next-1)
	}
	e := &l.entries[id-1]
	if e.abandoned {
		return nil
	}
	e.abandoned = true
	l.close(id)
	return nil
}

// Pending returns the actions of the (at most n, the most recent) pending
// decisions that still await a reward (costs false) or costs (costs true),
// oldest first; n < 0: all of them.
func (l *Ledger) Pending(costs bool, n int) []bandit.Action {
	var out []bandit.Action
	for k := len(l.open) - 1; k >= 0 && (n < 0 || len(out) < n); k-- {
		e := &l.entries[l.open[k]-1]
		if (costs && !e.gotCosts) || (!costs && !e.gotReward) {
			out = append(out, e.action)
		}
	}
	slices.Reverse(out)
	return out
}

// Open is the number of pending decisions.
func (l *Ledger) Open() int { return len(l.open) }

// Accepted is feedback matched to its decision.
type Accepted struct {
	Action bandit.Action
	Round  int
	Tag    int
	// Reward is set when the feedback brings a (first) reward.
	Reward    float64
	HasReward bool
	// Costs is set when it brings (first) costs.
	Costs []float64
	// Failed: the evaluation failed (no reward, no costs).
	Failed bool
	// Complete: this feedback completes the decision, its reward and costs
	// are both in (Ledger.Observed has them): an agent that learns once per
	// decision waits for it.
	Complete bool
}

// Accept validates fb and returns what it newly reports.
func (l *Ledger) Accept(fb bandit.Feedback) (Accepted, error) {
	if fb.ID < 1 || fb.ID >= l.next {
		return Accepted{}, fmt.Errorf("feedback id = %d: unknown decision (decisions so far: 1..%d)", fb.ID, l.next-1)
	}
	if err := fb.Validate(l.m); err != nil {
		return Accepted{}, err
	}
	e := &l.entries[fb.ID-1]
	if e.abandoned {
		return Accepted{}, fmt.Errorf("feedback id = %d: the decision was abandoned", fb.ID)
	}
	if e.failed {
		return Accepted{}, fmt.Errorf("feedback id = %d: the evaluation was reported failed", fb.ID)
	}
	if fb.Failed {
		if e.gotReward || e.gotCosts {
			return Accepted{}, fmt.Errorf("feedback id = %d: failed: the decision already has observed values", fb.ID)
		}
		e.failed = true
		l.close(fb.ID)
		if l.fail != nil {
			if err := l.fail.observe(l, e.action, 1); err != nil {
				return Accepted{}, err
			}
		}
		return Accepted{Action: e.action, Round: e.round, Tag: e.extra, Failed: true}, nil
	}
	if l.fail != nil && !e.gotReward && !e.gotCosts {
		if err := l.fail.observe(l, e.action, 0); err != nil {
			return Accepted{}, err
		}
	}
	if fb.HasReward && e.gotReward {
		return Accepted{}, fmt.Errorf("feedback id = %d: reward already observed", fb.ID)
	}
	if fb.Costs != nil && e.gotCosts {
		return Accepted{}, fmt.Errorf("feedback id = %d: costs already observed", fb.ID)
	}
	acc := Accepted{Action: e.action, Round: e.round, Tag: e.extra}
	if fb.HasReward {
		e.gotReward, e.reward = true, fb.Reward
		acc.Reward, acc.HasReward = fb.Reward, true
	}
	if fb.Costs != nil {
		e.gotCosts, e.costs = true, slices.Clone(fb.Costs)
		acc.Costs = fb.Costs
	}
	if e.gotReward && (e.gotCosts || l.m == 0) {
		acc.Complete = true
		l.close(fb.ID)
		k, _ := slices.BinarySearch(l.done, fb.ID)
		l.done = slices.Insert(l.done, k, fb.ID)
	}
	return acc, nil
}

// Observed returns the reward and costs observed for decision id (valid
// once its feedback is complete, Accepted.Complete); costs is the ledger's
// own copy, to read, not to keep or change.
func (l *Ledger) Observed(id int64) (reward float64, costs []float64) {
	e := &l.entries[id-1]
	return e.reward, e.costs
}

// Decisions is the number of decisions made.
func (l *Ledger) Decisions() int { return int(l.next - 1) }

// ObserveModels adds what acc newly reports to the posterior models: the
// reward to f, cost j to g[j]. Every GP-based agent's Observe ends with it.
// When two or more of them refresh on this observation (the rebuild and
// refit of the doubling schedule) and each owns its factorisation (an
// Adaptive), they are observed concurrently: the same numbers, a refit
// round's wait divided by up to the number of models. Then
// every model is given its value and the first error in model order is
// returned; otherwise the first error stops the rest.
func ObserveModels(acc Accepted, f model.Model, g []model.Model) error {
	var ms []model.Model
	var ys []float64
	if acc.HasReward {
		ms, ys = append(ms, f), append(ys, acc.Reward)
	}
	for j, c := range acc.Costs {
		ms, ys = append(ms, g[j]), append(ys, c)
	}
	if !refreshTogether(ms) {
		for i, m := range ms {
			if err := m.Observe(acc.Action, ys[i]); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() { errs[i] = m.Observe(acc.Action, ys[i]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// refreshTogether reports whether ms are all Adaptive models (each owning
// its factorisation) and two or more refresh on their next observation.
func refreshTogether(ms []model.Model) bool {
	n := 0
	for _, m := range ms {
		a, ok := m.(*model.Adaptive)
		if !ok {
			return false
		}
		if a.Refreshes() {
			n++
		}
	}
	return n >= 2
}

// anyFeasible reports whether an evaluation observed so far met every
// limit (every cost ≤ 0).
func (l *Ledger) anyFeasible() bool {
	for _, id := range l.done {
		e := &l.entries[id-1]
		if !e.failed && e.gotCosts && !slices.ContainsFunc(e.costs, func(c float64) bool { return c > 0 }) {
			return true
		}
	}
	return false
}

// replicatesDiffer reports, for the reward and then each cost, whether two
// fully observed evaluations of one configuration (equal coordinates, bit
// for bit) gave different values: the metric is noisy, however small its
// noise beside its spread (a deterministic metric repeats its value).
func (l *Ledger) replicatesDiffer() []bool {
	out := make([]bool, 1+l.m)
	groups, _ := l.repeats()
	for _, g := range groups {
		for j, ys := range g.ys {
			for _, y := range ys[min(len(ys), 1):] {
				out[j] = out[j] || y != ys[0]
			}
		}
	}
	return out
}

// group is one configuration's observations (repeats).
type group struct {
	key string // pointKey
	n   int
	ys  [][]float64 // per metric: f, g_1..g_m
}

// mean is the mean of metric j's observations in g (NaN when none).
func (g *group) mean(j int) float64 {
	if len(g.ys[j]) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, y := range g.ys[j] {
		sum += y
	}
	return sum / float64(len(g.ys[j]))
}

// repeats groups the observed, not failed decisions by configuration
// (pointKey), first observed first, and returns them with their index by key.
func (l *Ledger) repeats() ([]*group, map[string]*group) {
	var order []*group
	byKey := make(map[string]*group, len(l.done))
	var key []byte
	for _, id := range l.done {
		e := &l.entries[id-1]
		if e.failed || e.action.X == nil {
			continue
		}
		key = pointKey(key, e.action.X)
		g, ok := byKey[string(key)]
		if !ok {
			g = &group{key: string(key), ys: make([][]float64, 1+l.m)}
			byKey[g.key] = g
			order = append(order, g)
		}
		g.n++
		if e.gotReward {
			g.ys[0] = append(g.ys[0], e.reward)
		}
		for j := range l.m {
			if e.gotCosts {
				g.ys[1+j] = append(g.ys[1+j], e.costs[j])
			}
		}
	}
	return order, byKey
}

// pointKey appends x's bits to key[:0]: configurations equal bit for bit
// share a key.
func pointKey(key []byte, x []float64) []byte {
	key = key[:0]
	for _, v := range x {
		key = binary.LittleEndian.AppendUint64(key, math.Float64bits(v))
	}
	return key
}

// pureError returns, for f and each g_j, the pooled variance of the
// observations repeated at one configuration about their configuration's
// mean (Σ (y − ȳ)² / Σ (n − 1) over the observed, not failed
// configurations; 0 without a repeat: regression's pure error, Draper &
// Smith 1998, §2.1), its degrees of freedom Σ (n − 1), and each
// configuration's observations (its group, by pointKey).
func (l *Ledger) pureError() (pe, df []float64, byKey map[string]*group) {
	groups, byKey := l.repeats()
	ss, df := make([]float64, 1+l.m), make([]float64, 1+l.m)
	for _, g := range groups {
		for j, ys := range g.ys {
			if len(ys) < 2 {
				continue
			}
			mean := g.mean(j)
			for _, y := range ys {
				ss[j] += (y - mean) * (y - mean)
			}
			df[j] += float64(len(ys) - 1)
		}
	}
	for j := range ss {
		if df[j] > 0 {
			ss[j] /= df[j]
		}
	}
	return ss, df, byKey
}

// repeated reports whether two decisions recorded (pending or observed,
// failed included, abandoned not) share a configuration.
func (l *Ledger) repeated() bool {
	seen := make(map[string]bool, len(l.entries))
	var key []byte
	for i := range l.entries {
		e := &l.entries[i]
		if e.abandoned || e.action.X == nil {
			continue
		}
		if key = pointKey(key, e.action.X); seen[string(key)] {
			return true
		}
		seen[string(key)] = true
	}
	return false
}
