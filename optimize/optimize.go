package optimize

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// Func is one's own function: at x it returns the objective's value and the
// constraint metrics, one per Options.Constraints in order (nil or empty
// without constraints). Values must be finite.
type Func func(x []float64) (objective float64, metrics []float64)

// Constraint is metric ≤ Max on the metric of the same position.
type Constraint struct {
	// Name names the metric in errors (optional).
	Name string
	// Max is the limit: the metric is feasible when ≤ Max.
	Max float64
	// Kind is which violation the algorithm keeps small. Empty: the
	// strictest kind the algorithm keeps (DefaultKind), PerRound when
	// Options.Algorithm is empty.
	Kind Kind
}

// Algorithm is a registered algorithm ID (`cbandit list`); the defaults
// Choose picks are named here.
type Algorithm string

// The algorithms Choose picks (agent.Caps.DefaultFor).
const (
	Config  Algorithm = "config"   // per-round limits
	SafeOpt Algorithm = "safeopt"  // per-round limits with a safe point on points
	RPOLUCB Algorithm = "rpol-ucb" // cumulative violation
	CKBUCB  Algorithm = "ckb-ucb"  // long-term (average) constraints
	IGPUCB  Algorithm = "igp-ucb"  // no constraints
)

// Options configure Run and NewStudy.
type Options struct {
	// Lo and Hi bound the box x lives in; or give Points.
	Lo, Hi []float64
	// Points are a finite set of candidate x, instead of a box.
	Points [][]float64
	// Minimize minimises the objective (the default maximises it).
	Minimize bool
	// Constraints are the limits on the metrics Func returns.
	Constraints []Constraint
	// Algorithm is the algorithm to run; empty: chosen from the
	// constraints' kinds (Choose), and Result.Reason says why.
	Algorithm Algorithm
	// Horizon is the number of evaluations T (required).
	Horizon int
	// Seed seeds the algorithm's own randomness: same options and seed,
	// same sequence of x for the same values.
	Seed uint64
	// Params are the algorithm's parameters by name, as on the command
	// line (`cbandit list --verbose`), for those who tune it; nil: its
	// defaults.
	Params map[string]string
}

// Trial is one evaluation.
type Trial struct {
	// Round is the evaluation's number, from 1.
	Round int
	// ID names the decision for Tell.
	ID int64
	X  []float64
	// Objective and Metrics are the values told (after Tell).
	Objective float64
	Metrics   []float64
	// Feasible: every metric within its limit.
	Feasible bool
	told     bool
}

// Result is what Run returns.
type Result struct {
	// Algorithm ran; Reason says why when it was chosen.
	Algorithm Algorithm
	Reason    string
	// Kinds are the constraints' kinds, with the defaults filled in.
	Kinds []Kind
	// Best is the feasible trial with the best objective (nil when no
	// trial was feasible).
	Best *Trial
	// Trials are every evaluation in order.
	Trials []Trial
}

// Study is an ask/tell optimisation in process: Ask for an x, evaluate it
// wherever and whenever, Tell its values; several x may be pending at
// once. Not safe for concurrent use.
type Study struct {
	o      Options
	ag     bandit.Agent
	res    Result
	points [][]float64
	sign   float64
	round  int
	index  map[int64]int
	best   int // index of the best feasible trial, −1 before one
}

// NewStudy checks the options, chooses the algorithm when none is named,
// and builds it.
func NewStudy(o Options) (*Study, error) {
	if o.Horizon < 1 {
		return nil, fmt.Errorf("optimize: Horizon = %d: must be at least 1", o.Horizon)
	}
	var dom domain.Domain
	var err error
	kind := agent.DomainBox
	switch {
	case len(o.Points) > 0 && (len(o.Lo) > 0 || len(o.Hi) > 0):
		return nil, errors.New("optimize: give Lo and Hi (a box) or Points, not both")
	case len(o.Points) > 0:
		dom, err = domain.NewFinite(o.Points)
		kind = agent.DomainFinite
	case len(o.Lo) == 0 || len(o.Lo) != len(o.Hi):
		return nil, fmt.Errorf("optimize: Lo and Hi: %d and %d bounds, want as many as x has coordinates (at least 1)", len(o.Lo), len(o.Hi))
	default:
		dom, err = domain.NewBox(o.Lo, o.Hi)
	}
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	s := &Study{o: o, sign: 1, index: map[int64]int{}, points: o.Points, best: -1}
	if o.Minimize {
		s.sign = -1
	}
	kinds := make([]Kind, len(o.Constraints))
	for j, c := range o.Constraints {
		if err := ValidKind(c.Kind); err != nil {
			return nil, fmt.Errorf("optimize: Constraints[%d]: %w", j, err)
		}
		if math.IsNaN(c.Max) || math.IsInf(c.Max, 0) {
			return nil, fmt.Errorf("optimize: Constraints[%d].Max = %v: must be finite", j, c.Max)
		}
		kinds[j] = c.Kind
	}
	name := string(o.Algorithm)
	if name == "" {
		ch, err := Choose(kinds, false, kind)
		if err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
		name, s.res.Reason, s.res.Kinds = ch.Algorithm, ch.Reason, ch.Kinds
	} else {
		spec, err := agent.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
		s.res.Kinds = make([]Kind, len(kinds))
		for j, k := range kinds {
			if k == "" {
				k = DefaultKind(&spec)
			} else if err := CheckKeeps(spec, k); err != nil {
				return nil, fmt.Errorf("optimize: Constraints[%d]: %w", j, err)
			}
			s.res.Kinds[j] = k
		}
	}
	s.res.Algorithm = Algorithm(name)
	s.ag, err = agent.New(name, agent.Config{Info: info(dom, len(o.Constraints)), Horizon: o.Horizon,
		Params: bandit.Params(o.Params), Seed: o.Seed})
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	return s, nil
}

// info is what the algorithm is told: the domain, m, and the prior a
// service study gets by default (SE kernel, lengthscale 0.2 × the mean
// side, variance 1, noise variance 0.01, bounds 1). The GP algorithms with
// practical defaults standardise the metrics and fit the kernel, so this
// prior only starts them; the others (safe BO, igp-ucb, …) take it as is.
func info(dom domain.Domain, m int) bandit.Info {
	side := 0.0
	switch d := dom.(type) {
	case *domain.Box:
		for i := range d.Lo {
			side += d.Hi[i] - d.Lo[i]
		}
		side /= float64(len(d.Lo))
	case *domain.Finite:
		for i := range d.Points[0] {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, x := range d.Points {
				lo, hi = math.Min(lo, x[i]), math.Max(hi, x[i])
			}
			side += hi - lo
		}
		side /= float64(len(d.Points[0]))
	}
	if !(side > 0) || math.IsInf(side, 0) {
		side = 1
	}
	k, _ := gp.NewSE(0.2*side, 1) // valid: both > 0
	return bandit.Info{Domain: dom, M: m, Kernel: k, NoiseVar: 0.01, B: 1, G: 1, R: 0.1, RG: 0.1}
}

// Algorithm returns the algorithm the study runs and, when it was chosen,
// why.
func (s *Study) Algorithm() (Algorithm, string) { return s.res.Algorithm, s.res.Reason }

// Ask returns the next x to evaluate, as a Trial whose ID Tell takes.
func (s *Study) Ask() (Trial, error) {
	if s.round >= s.o.Horizon {
		return Trial{}, fmt.Errorf("optimize: the study's %d evaluations are all asked (Horizon)", s.o.Horizon)
	}
	s.round++
	d, err := s.ag.Decide(&bandit.Round{T: s.round})
	if err != nil {
		s.round--
		return Trial{}, fmt.Errorf("optimize: round %d: %w", s.round+1, err)
	}
	x := d.Action.X
	if x == nil && s.points != nil {
		x = s.points[d.Action.Arm]
	}
	t := Trial{Round: s.round, ID: d.ID, X: slices.Clone(x)}
	s.index[d.ID] = len(s.res.Trials)
	s.res.Trials = append(s.res.Trials, t)
	return t, nil
}

// Tell gives the values at the trial with this ID (from Ask): the
// objective and one metric per constraint.
func (s *Study) Tell(id int64, objective float64, metrics []float64) error {
	i, ok := s.index[id]
	if !ok {
		return fmt.Errorf("optimize: no trial %d was asked", id)
	}
	t := &s.res.Trials[i]
	if t.told {
		return fmt.Errorf("optimize: trial %d was already told", id)
	}
	if len(metrics) != len(s.o.Constraints) {
		return fmt.Errorf("optimize: trial %d: %d metrics, the study has %d constraints", id, len(metrics), len(s.o.Constraints))
	}
	if math.IsNaN(objective) || math.IsInf(objective, 0) {
		return fmt.Errorf("optimize: trial %d: objective = %v: must be finite", id, objective)
	}
	costs := make([]float64, len(metrics))
	feasible := true
	for j, v := range metrics {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("optimize: trial %d: metric %d (%s) = %v: must be finite", id, j, s.o.Constraints[j].Name, v)
		}
		costs[j] = v - s.o.Constraints[j].Max
		feasible = feasible && costs[j] <= 0
	}
	if err := s.ag.Observe(bandit.Feedback{ID: id, Reward: s.sign * objective, HasReward: true, Costs: costs}); err != nil {
		return fmt.Errorf("optimize: trial %d: %w", id, err)
	}
	t.Objective, t.Metrics, t.Feasible, t.told = objective, slices.Clone(metrics), feasible, true
	if feasible && (s.best < 0 || s.sign*objective > s.sign*s.res.Trials[s.best].Objective) {
		s.best = i
	}
	return nil
}

// Best returns a copy of the feasible trial told so far with the best
// objective (nil when none was feasible).
func (s *Study) Best() *Trial {
	if s.best < 0 {
		return nil
	}
	t := s.res.Trials[s.best]
	return &t
}

// Run evaluates fn Horizon times at the x the algorithm asks for, one at a
// time, and returns every trial and the best feasible one. It stops early,
// with what it has and ctx's error, when ctx is done.
func Run(ctx context.Context, fn Func, o Options) (*Result, error) {
	s, err := NewStudy(o)
	if err != nil {
		return nil, err
	}
	for range o.Horizon {
		if err := ctx.Err(); err != nil {
			return s.result(), err
		}
		t, err := s.Ask()
		if err != nil {
			return s.result(), err
		}
		obj, ms := fn(slices.Clone(t.X))
		if err := s.Tell(t.ID, obj, ms); err != nil {
			return s.result(), err
		}
	}
	return s.result(), nil
}

// result returns a copy of the study's result, Best pointing into its
// Trials.
func (s *Study) result() *Result {
	r := s.res
	r.Trials = slices.Clone(s.res.Trials)
	if s.best >= 0 {
		r.Best = &r.Trials[s.best]
	}
	return &r
}
