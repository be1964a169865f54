package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/report"
)

// Metric keys (../shared/DESIGN.md).
const (
	Regret         = "regret"
	ViolationSoft  = "violation_soft"
	ViolationHard  = "violation_hard"
	ViolationCount = "violation_count"
	Cost           = "cost"
	// Failures is the share of the evaluations so far that failed
	// (problem.Crasher), recorded for problems with a crash region only.
	Failures = "failures"
)

// Algo is one algorithm of a run.
type Algo struct {
	// Label names the algorithm in outputs (defaults to ID). Two entries may
	// share an ID with different parameters and labels.
	Label  string
	ID     string
	Params bandit.Params
}

// Delay draws, for one decision, after how many rounds its reward and its
// costs arrive (0 = before the next decision).
type Delay func(rng *rand.Rand) (reward, costs int)

// Spec describes a run.
type Spec struct {
	Problem       string
	ProblemParams bandit.Params
	Algos         []Algo
	Trials        int
	Horizon       int
	Seed          uint64
	// Workers is the number of parallel (trial, agent) jobs; 0 means GOMAXPROCS.
	Workers int
	// CurvePoints is how many rounds of each curve are recorded (evenly
	// spaced, always including the last); 0 means 200.
	CurvePoints int
	// Delay, when set, delays feedback (Guo et al. §5, §7).
	Delay Delay
	// Past are measurements made before the run (cbandit run --past): every
	// agent is told them first, as decisions a person made
	// (bandit.Imposer) with their values; the run's T rounds follow, and
	// only they are scored.
	Past []Past
	// Defaults names the defaults the algorithms ran with ("practical" or
	// "paper"), for the outputs.
	Defaults string
	// Batch q > 1: decisions come q at a time, and their feedback arrives
	// after the q-th (a batch of parallel evaluations). Async q > 1: q
	// workers, each decision's feedback arrives just before the decision q
	// rounds later (q − 1 pending at every decision). Rounds stay
	// evaluations: regret and violation are per evaluation.
	Batch, Async int
	// Shard i/n runs only the jobs j with j % n == i (0-based), for array
	// jobs; zero value runs everything.
	Shard, Shards int
	// Progress, when set, is called with the number of rounds completed
	// since its previous call (from several goroutines).
	Progress func(rounds int)
}

// Past is one past measurement: the action, and the reward and constraint
// values g_1..g_m (g ≤ 0 feasible) measured there.
type Past struct {
	Action bandit.Action
	Reward float64
	G      []float64
	// Failed marks an evaluation that failed (no reward, no G), with its
	// Reason.
	Failed bool
	Reason string
}

// Job is the recorded outcome of one (trial, algorithm) job: every metric at
// the recorded rounds. Shards write their jobs; [Collect] aggregates them.
type Job struct {
	Algorithm string `json:"algorithm"`
	Trial     int    `json:"trial"`
	// SecondsPerRound is the mean wall time of Decide + Observe.
	SecondsPerRound float64 `json:"seconds_per_round"`
	// Metrics[m][k] is metric m at the k-th recorded round.
	Metrics map[string][]float64 `json:"metrics"`
	// Diagnostics are the agent's own numbers at the end of the trial
	// ([bandit.Diagnostics]); nil when the agent reports none.
	Diagnostics map[string]float64 `json:"diagnostics,omitempty"`
}

// Output is the result of Run (or of [Collect] over merged shards).
type Output struct {
	// Results is the aggregate over trials; empty for a sharded run, whose
	// jobs are combined later by [Collect].
	Results report.Results
	// Rounds are the recorded rounds (1-based).
	Rounds []int
	// Metrics are the recorded metric keys, in output order.
	Metrics []string
	// Jobs are the jobs this run executed, in (trial, algorithm list) order.
	Jobs []Job
	// PerTrial[label][metric][trial][k] is trial's value at Rounds[k]
	// (complete runs only).
	PerTrial map[string]map[string][][]float64
	// Seconds[label][trial] is the mean wall time per round (complete runs only).
	Seconds map[string][]float64
}

// StageCoster is implemented by stage-wise problems (Pacchiano et al.) to report the
// per-round expected cost of a decision, recorded as the "cost" metric.
type StageCoster interface {
	StageCost(r *bandit.Round, d bandit.Decision) (float64, error)
}

func (s *Spec) validate() error {
	if s.Horizon <= 0 {
		return fmt.Errorf("horizon = %d: must be at least 1", s.Horizon)
	}
	if s.Trials <= 0 {
		return fmt.Errorf("trials = %d: must be at least 1", s.Trials)
	}
	if len(s.Algos) == 0 {
		return errors.New("no algorithms given (use --algos a,b,c)")
	}
	if s.Shards < 0 || (s.Shards > 0 && (s.Shard < 0 || s.Shard >= s.Shards)) {
		return fmt.Errorf("shard = %d/%d: want i/n with 0 ≤ i < n", s.Shard, s.Shards)
	}
	seen := map[string]bool{}
	for i := range s.Algos {
		a := &s.Algos[i]
		if a.Label == "" {
			a.Label = a.ID
		}
		if seen[a.Label] {
			return fmt.Errorf("algorithm %q appears twice: give each entry its own label", a.Label)
		}
		seen[a.Label] = true
		if _, err := agent.Lookup(a.ID); err != nil {
			return err
		}
	}
	if _, err := problem.Lookup(s.Problem); err != nil {
		return err
	}
	return nil
}

// recordRounds returns n evenly spaced rounds in [1, T] ending at T.
func recordRounds(T, n int) []int {
	if n <= 0 {
		n = 200
	}
	if n > T {
		n = T
	}
	out := make([]int, 0, n)
	for k := 1; k <= n; k++ {
		r := int(math.Round(float64(k) * float64(T) / float64(n)))
		if r < 1 {
			r = 1
		}
		if len(out) > 0 && r <= out[len(out)-1] {
			continue
		}
		out = append(out, r)
	}
	return out
}

type job struct{ trial, algo int }

// AgentSeed is the seed of the agent labelled label in trial i: its own
// randomness (Thompson draws, tie-breaking) depends on (seed, trial, label)
// only, never on its position in the list or on the other algorithms.
func AgentSeed(base uint64, trial int, label string) uint64 {
	return seed.Derive(base, "agent\x00"+label, trial)
}

// Streams of trial i that every algorithm of the trial shares (common random
// numbers): round t's action set and full-information sample come from
// RoundSeed, its noisy observation from NoiseSeed and its feedback delays
// from DelaySeed, each derived from (seed, trial, t) alone. A problem draws
// the noise of cost 1..m and of the reward in a fixed order that does not
// depend on the action, so every algorithm meets the same noise value in the
// same round for the same metric.
func RoundSeed(base uint64, trial, t int) uint64 { return seed.Derive(base, "round", trial, t) }

// NoiseSeed: see [RoundSeed].
func NoiseSeed(base uint64, trial, t int) uint64 { return seed.Derive(base, "noise", trial, t) }

// DelaySeed: see [RoundSeed].
func DelaySeed(base uint64, trial, t int) uint64 { return seed.Derive(base, "delay", trial, t) }

// ProblemSeed is the seed of trial i's problem instance.
func ProblemSeed(base uint64, trial int) uint64 { return seed.Derive(base, "problem", trial) }

// checkAlgo builds algorithm a on a problem that discloses info, and says
// why it cannot: an unknown algorithm; a problem its declaration does not
// fit (agent.Spec.Fits) or its factory refuses with default parameters;
// else a bad parameter, named first with its value.
func checkAlgo(a Algo, spec Spec, info bandit.Info) error {
	s, err := agent.Lookup(a.ID)
	if err != nil {
		return err
	}
	misfit := func(err error) error {
		return fmt.Errorf("algorithm %s does not run on problem %s: %w (cbandit list --fits shows which do)", a.Label, spec.Problem, err)
	}
	if len(s.Can.Domains) > 0 { // an undeclared algorithm: its factory decides
		if err := s.Fits(info); err != nil {
			return misfit(err)
		}
	}
	cfg := agent.Config{Info: info, Horizon: spec.Horizon, Params: a.Params, Seed: AgentSeed(spec.Seed, 0, a.Label)}
	if _, err := agent.New(a.ID, cfg); err != nil {
		cfg.Params = nil
		if _, err0 := agent.New(a.ID, cfg); err0 != nil {
			return misfit(err0)
		}
		return fmt.Errorf("%w (algorithm %s on problem %s)", err, a.Label, spec.Problem)
	}
	return nil
}

// Run executes the spec. It checks every algorithm against a first problem
// instance before starting, so configuration errors surface at once. A
// sharded run (Shards > 0) returns its jobs only; [Collect] combines the jobs
// of all shards into the output the unsharded run gives.
func Run(ctx context.Context, spec Spec) (*Output, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	// Fail fast on bad problem or algorithm parameters. Each check agent is
	// dropped before the next is built and the heap is collected before the
	// jobs start, so the check never doubles the peak memory of a run.
	p0, err := problem.New(spec.Problem, spec.ProblemParams, ProblemSeed(spec.Seed, 0))
	if err != nil {
		return nil, err
	}
	_, stageWise := p0.(StageCoster)
	_, crashes := p0.(problem.Crasher)
	for _, a := range spec.Algos {
		info := p0.Info()
		info.Horizon = spec.Horizon
		if err := checkAlgo(a, spec, info); err != nil {
			return nil, err
		}
	}
	p0 = nil
	runtime.GC()
	rounds := recordRounds(spec.Horizon, spec.CurvePoints)
	metrics := []string{Regret, ViolationSoft, ViolationHard, ViolationCount}
	if stageWise {
		metrics = append(metrics, Cost)
	}
	if crashes {
		metrics = append(metrics, Failures)
	}

	jobs := spec.jobs()
	results := make([]*Job, len(jobs))
	workers := spec.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan int)
	var wg sync.WaitGroup
	var errOnce sync.Once
	var firstErr error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range ch {
				j := jobs[k]
				res, err := runOne(ctx, &spec, j, rounds, metrics, stageWise)
				if err != nil {
					errOnce.Do(func() {
						firstErr = fmt.Errorf("trial %d, algorithm %s: %w", j.trial, spec.Algos[j.algo].Label, err)
						cancel()
					})
					continue
				}
				results[k] = res
			}
		}()
	}
feed:
	for k := range jobs {
		select {
		case ch <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	done := make([]Job, len(results))
	for k, r := range results {
		done[k] = *r
	}
	if spec.Shards > 0 {
		return &Output{Rounds: rounds, Metrics: metrics, Jobs: done}, nil
	}
	return Collect(&spec, rounds, metrics, done)
}

// jobs lists the (trial, algorithm) jobs of this run in grid order: trial
// major, algorithms in list order; a shard i/n keeps every n-th from the i-th.
func (s *Spec) jobs() []job {
	var jobs []job
	idx := 0
	for tr := 0; tr < s.Trials; tr++ {
		for a := range s.Algos {
			if s.Shards == 0 || idx%s.Shards == s.Shard {
				jobs = append(jobs, job{tr, a})
			}
			idx++
		}
	}
	return jobs
}

func runOne(ctx context.Context, spec *Spec, j job, rounds []int, metrics []string, stageWise bool) (*Job, error) {
	p, err := problem.New(spec.Problem, spec.ProblemParams, ProblemSeed(spec.Seed, j.trial))
	if err != nil {
		return nil, err
	}
	info := p.Info()
	info.Horizon = spec.Horizon
	a := spec.Algos[j.algo]
	n0 := len(spec.Past)
	ag, err := agent.New(a.ID, agent.Config{Info: info, Horizon: spec.Horizon + n0, Params: a.Params,
		Seed: AgentSeed(spec.Seed, j.trial, a.Label)})
	if err != nil {
		return nil, err
	}
	if n0 > 0 {
		imp, ok := ag.(bandit.Imposer)
		if !ok {
			return nil, fmt.Errorf("%s takes no past measurements (decisions made by a person)", a.ID)
		}
		for k, pm := range spec.Past {
			d, err := imp.Impose(&bandit.Round{T: k + 1}, pm.Action)
			if err == nil {
				fb := bandit.Feedback{ID: d.ID, Reward: pm.Reward, HasReward: true, Costs: append([]float64(nil), pm.G...)}
				if pm.Failed {
					fb = bandit.Feedback{ID: d.ID, Failed: true, Reason: pm.Reason}
				}
				err = ag.Observe(fb)
			}
			if err != nil {
				return nil, fmt.Errorf("past measurement %d: %w", k+1, err)
			}
		}
	}
	roundStream, noiseStream, delayStream := seed.NewStream(), seed.NewStream(), seed.NewStream()
	m := info.M
	sc, _ := p.(StageCoster)
	crasher, _ := p.(problem.Crasher)
	var failed float64

	vals := make([][]float64, len(metrics))
	for k := range vals {
		vals[k] = make([]float64, 0, len(rounds))
	}
	var regret, hard, count float64
	gsum := make([]float64, m)
	costs := make([]float64, m)
	armCosts := make([]float64, m)
	expG := make([]float64, m)
	var q pendingQueue
	var elapsed time.Duration
	next := 0
	progressEvery := 1000
	sinceProgress := 0
	for t := 1; t <= spec.Horizon; t++ {
		if t%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		start := time.Now()
		for _, fb := range q.due(t) {
			if err := ag.Observe(fb); err != nil {
				return nil, fmt.Errorf("round %d: observe: %w", t, err)
			}
		}
		r := p.Round(roundStream.At(RoundSeed(spec.Seed, j.trial, t)), t)
		ar := r
		if n0 > 0 { // the agent's round follows the past measurements
			c := *r
			c.T = n0 + t
			ar = &c
		}
		d, err := ag.Decide(ar)
		elapsed += time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("round %d: decide: %w", t, err)
		}
		// Score with the noise-free functions.
		var f float64
		if d.Policy != nil {
			f, err = expectedTruth(p, r, info.Domain, d.Policy, expG, armCosts)
			copy(costs, expG)
		} else {
			f, err = p.Truth(r, d.Action, costs)
		}
		if err != nil {
			return nil, fmt.Errorf("round %d: %w", t, err)
		}
		regret += p.Optimum(r) - f
		violated := false
		for k := 0; k < m; k++ {
			gsum[k] += costs[k]
			if costs[k] > 0 {
				hard += costs[k]
				violated = true
			}
		}
		if violated {
			count++
		}
		var stage float64
		if sc != nil {
			if stage, err = sc.StageCost(r, d); err != nil {
				return nil, fmt.Errorf("round %d: %w", t, err)
			}
		}
		// A crash: a failed evaluation instead of noisy feedback, delivered
		// when the reward would have been.
		reason := ""
		if crasher != nil {
			reason = crasher.Crash(r, d.Action)
		}
		var rew float64
		if reason == "" {
			// Noisy feedback.
			if rew, err = p.Observe(noiseStream.At(NoiseSeed(spec.Seed, j.trial, t)), r, d.Action, costs); err != nil {
				return nil, fmt.Errorf("round %d: %w", t, err)
			}
		}
		start = time.Now()
		switch {
		case reason != "":
			failed++
			fb := bandit.Feedback{ID: d.ID, Failed: true, Reason: reason}
			switch {
			case spec.Batch > 1:
				q.push(((t-1)/spec.Batch+1)*spec.Batch+1, fb)
			case spec.Async > 1:
				q.push(t+spec.Async, fb)
			case spec.Delay == nil:
				err = ag.Observe(fb)
			default:
				dr, _ := spec.Delay(delayStream.At(DelaySeed(spec.Seed, j.trial, t)))
				q.push(t+1+dr, fb)
			}
		case spec.Batch > 1 || spec.Async > 1:
			at := t + spec.Async // the decision q rounds later
			if spec.Batch > 1 {
				at = ((t-1)/spec.Batch+1)*spec.Batch + 1 // after the batch
			}
			q.push(at, bandit.Feedback{ID: d.ID, Reward: rew, HasReward: true, Costs: append([]float64(nil), costs...)})
		case spec.Delay == nil:
			err = ag.Observe(bandit.Feedback{ID: d.ID, Reward: rew, HasReward: true, Costs: costs})
		default:
			dr, dc := spec.Delay(delayStream.At(DelaySeed(spec.Seed, j.trial, t)))
			q.push(t+1+dr, bandit.Feedback{ID: d.ID, Reward: rew, HasReward: true})
			q.push(t+1+dc, bandit.Feedback{ID: d.ID, Costs: append([]float64(nil), costs...)})
		}
		elapsed += time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("round %d: observe: %w", t, err)
		}
		if next < len(rounds) && rounds[next] == t {
			var soft float64
			for _, s := range gsum {
				if s > 0 {
					soft += s * s
				}
			}
			vals[0] = append(vals[0], regret)
			vals[1] = append(vals[1], math.Sqrt(soft))
			vals[2] = append(vals[2], hard)
			vals[3] = append(vals[3], count)
			if stageWise {
				vals[4] = append(vals[4], stage)
			}
			if crasher != nil {
				vals[len(vals)-1] = append(vals[len(vals)-1], failed/float64(t))
			}
			next++
		}
		sinceProgress++
		if spec.Progress != nil && sinceProgress == progressEvery {
			spec.Progress(sinceProgress)
			sinceProgress = 0
		}
	}
	if spec.Progress != nil && sinceProgress > 0 {
		spec.Progress(sinceProgress)
	}
	res := &Job{Algorithm: a.Label, Trial: j.trial, Metrics: map[string][]float64{},
		SecondsPerRound: elapsed.Seconds() / float64(spec.Horizon)}
	for k, name := range metrics {
		res.Metrics[name] = vals[k]
	}
	if dg, ok := ag.(bandit.Diagnostics); ok {
		if d := dg.Diagnostics(); len(d) > 0 {
			res.Diagnostics = maps.Clone(d)
		}
	}
	return res, nil
}

// expectedTruth scores a randomised policy over a finite action set by its
// expected reward and expected costs.
func expectedTruth(p problem.Problem, r *bandit.Round, dom domain.Domain, policy []float64, expG, armCosts []float64) (float64, error) {
	for k := range expG {
		expG[k] = 0
	}
	var f float64
	for i, w := range policy {
		if w == 0 {
			continue
		}
		a := bandit.ArmAction(i)
		if r.Arms != nil {
			a.X = r.Arms[i]
		} else if fin, ok := dom.(*domain.Finite); ok && fin.Points != nil {
			a.X = fin.Points[i]
		}
		v, err := p.Truth(r, a, armCosts)
		if err != nil {
			return 0, err
		}
		f += w * v
		for k := range expG {
			expG[k] += w * armCosts[k]
		}
	}
	return f, nil
}

type pending struct {
	due int
	seq int
	fb  bandit.Feedback
}

// pendingQueue holds feedback not yet delivered, in (due, seq) order.
type pendingQueue struct {
	items []pending
	seq   int
}

func (q *pendingQueue) push(due int, fb bandit.Feedback) {
	q.seq++
	q.items = append(q.items, pending{due, q.seq, fb})
}

// due removes and returns the feedback due at or before round t, oldest first.
func (q *pendingQueue) due(t int) []bandit.Feedback {
	if len(q.items) == 0 {
		return nil
	}
	var out []pending
	keep := q.items[:0]
	for _, it := range q.items {
		if it.due <= t {
			out = append(out, it)
		} else {
			keep = append(keep, it)
		}
	}
	q.items = keep
	sort.Slice(out, func(i, j int) bool {
		if out[i].due != out[j].due {
			return out[i].due < out[j].due
		}
		return out[i].seq < out[j].seq
	})
	fbs := make([]bandit.Feedback, len(out))
	for i, it := range out {
		fbs[i] = it.fb
	}
	return fbs
}
