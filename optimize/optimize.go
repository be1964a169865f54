package optimize

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/space"
)

// Func is one's own function: at p it returns the objective's value and
// the constraint metrics, one per Options.Constraints in order (nil or
// empty without constraints). An error means the evaluation failed (a
// crash, an out-of-memory, a timeout): the algorithm is told so
// (bandit.Feedback.Failed, the error's text as the reason), and the
// evaluation counts toward the horizon. A value that is NaN or ±Inf fails
// the evaluation the same way, the reason naming the value (Study.Tell).
type Func func(p Point) (objective float64, metrics []float64, err error)

// Point is where to evaluate.
type Point struct {
	// Round is the evaluation's number, from 1.
	Round int
	// X are the coordinates: in the box, one of Points, or with Parameters
	// their encoding in the unit cube (package space).
	X []float64
	// Values are the parameters' values by name (nil without Parameters).
	Values Values
}

// Values are named parameters' values: float64 for a float, int64 for an
// int, the choice itself for a categorical.
type Values map[string]any

// Float returns a float's (or an int's) value; 0 when name is neither.
func (v Values) Float(name string) float64 {
	switch x := v[name].(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return 0
}

// Int returns an int's value; 0 when name is not an int.
func (v Values) Int(name string) int {
	x, _ := v[name].(int64)
	return int(x)
}

// Choice returns a categorical's choice (nil when name is unknown).
func (v Values) Choice(name string) any { return v[name] }

// Param is a named, typed parameter (package space: the encoding the
// service and the clients share).
type Param = space.Param

// Float is a float parameter in [low, high].
func Float(name string, low, high float64) Param { return space.Float(name, low, high) }

// LogFloat is a float parameter in [low, high] searched on a log scale.
func LogFloat(name string, low, high float64) Param { return space.LogFloat(name, low, high) }

// SteppedFloat is a float parameter taking the values low + k·step.
func SteppedFloat(name string, low, high, step float64) Param {
	return space.SteppedFloat(name, low, high, step)
}

// Int is an int parameter in [low, high].
func Int(name string, low, high int) Param { return space.Int(name, low, high) }

// LogInt is an int parameter in [low, high] searched on a log scale.
func LogInt(name string, low, high int) Param { return space.LogInt(name, low, high) }

// Categorical is a parameter taking one of the choices.
func Categorical(name string, choices ...any) Param { return space.Categorical(name, choices...) }

// DefaultCandidates is the size of the candidate set of Parameters when
// one is used (Options.Candidates 0 with an algorithm that takes no box),
// the service's default too (learner.DefaultCandidates).
const DefaultCandidates = learner.DefaultCandidates

// Constraint is metric ≤ Max on the metric of the same position.
type Constraint struct {
	// Name names the metric in errors (optional).
	Name string
	// Max is the limit: the metric is feasible when ≤ Max.
	Max float64
	// Kind is which violation the algorithm keeps small. Empty: the
	// strictest kind the algorithm keeps (DefaultKind), StageWise when
	// Options.Algorithm is empty.
	Kind Kind
}

// Algorithm is a registered algorithm ID (`cbandit list`); the defaults
// Choose picks are named here.
type Algorithm string

// The algorithms Choose picks (agent.Caps.DefaultFor).
const (
	Config  Algorithm = "config"   // stage-wise limits
	CEI     Algorithm = "cei"      // stage-wise limits on a typed space
	SafeOpt Algorithm = "safeopt"  // stage-wise limits with a safe point on points
	RPOLUCB Algorithm = "rpol-ucb" // cumulative violation
	CKBUCB  Algorithm = "ckb-ucb"  // long-term (average) constraints
	IGPUCB  Algorithm = "igp-ucb"  // no constraints
)

// Options configure Run and NewStudy.
type Options struct {
	// Lo and Hi bound the box x lives in; or give Points or Parameters.
	Lo, Hi []float64
	// Points are a finite set of candidate x, instead of a box.
	Points [][]float64
	// Parameters are named, typed parameters (Int, Float, LogFloat,
	// Categorical, …), instead of a box: the algorithm searches the unit
	// cube of their encoding (package space, as the service does), ints,
	// steps and categoricals as the values they take and floats refined (a
	// mixed space, docs/typed.md), unless Candidates is given.
	Parameters []Param
	// Candidates, when > 0, makes the algorithm choose among that many
	// exact encodings of Parameters fixed at the start (space.Candidates)
	// instead of searching their space; 0: the space itself, or
	// DefaultCandidates for a named algorithm that takes no box.
	Candidates int
	// Minimize minimises the objective (the default maximises it).
	Minimize bool
	// Constraints are the limits on the metrics Func returns.
	Constraints []Constraint
	// Algorithm is the algorithm to run; empty: chosen from the
	// constraints' kinds (Choose), and Result.Reason says why.
	Algorithm Algorithm
	// Horizon is the number of evaluations T (required); a failed one
	// counts.
	Horizon int
	// Workers is how many evaluations Run makes at once (0: 1). Each
	// worker asks for a point as soon as its own evaluation ends and tells
	// its values as soon as they are back, so a slow evaluation idles no
	// other worker; the points are distinct, since the algorithm decides
	// knowing the pending ones. The trials then depend on the order in
	// which evaluations finish: with more than one worker, the same
	// options and seed may give other trials, unless Batches is set.
	Workers int
	// Batches makes Run with several Workers ask Workers points together,
	// evaluate them concurrently and tell their values in decision order
	// once all are back: slower (each batch waits for its slowest
	// evaluation), but the trials depend on the options and the seed
	// alone, never on which evaluation finishes first. One worker is
	// reproducible either way.
	Batches bool
	// Seed seeds the algorithm's own randomness: same options and seed,
	// same sequence of x for the same values (with several Workers, when
	// Batches is set).
	Seed uint64
	// Params are the algorithm's parameters by name, as on the command
	// line (`cbandit list --verbose`), for those who tune it; nil: its
	// defaults. (Parameters, above, are one's own function's.)
	Params map[string]string
	// Evaluations says what counts: Offline (the default here: one's own
	// function is evaluated, and only the configuration kept at the end
	// counts; evaluations may break the limits while searching, failures
	// still cost) or Live (every evaluation counts, as when each is served
	// to real traffic). With no Algorithm it picks the default declared
	// for it (learner.Choose).
	Evaluations string
}

// Trial is one evaluation.
type Trial struct {
	// Round is the evaluation's number, from 1.
	Round int
	// ID names the decision for Tell, Fail and Abandon.
	ID int64
	// X are the coordinates (with Parameters, their encoding).
	X []float64
	// Values are the parameters' values (with Parameters).
	Values Values
	// Objective and Metrics are the values told (after Tell).
	Objective float64
	Metrics   []float64
	// Feasible: told, and every metric within its limit.
	Feasible bool
	// Failed: the evaluation failed (Fail, or a value NaN or ±Inf), for
	// Reason.
	Failed bool
	Reason string
	// Abandoned: the evaluation was given up (Abandon), or failed with an
	// algorithm that does not take failures.
	Abandoned bool
	told      bool
}

// Result is what Run returns.
type Result struct {
	// Algorithm ran; Reason says why in a line when it was chosen.
	Algorithm Algorithm
	Reason    string
	// Kinds are the constraints' kinds, with the defaults filled in.
	Kinds []Kind
	// Evaluations is what counted (Options.Evaluations, its default filled
	// in).
	Evaluations string
	// Recommendation is the configuration the algorithm's models believe
	// best among the evaluated ones with P(every limit holds) ≥ 0.95
	// (learner.RecommendLevel), with the posterior of each metric; nil when
	// the algorithm names none (it does not implement bandit.Recommender,
	// or no configuration reaches the level). Best is the best observation.
	Recommendation *Recommendation
	// Best is the feasible trial with the best objective (nil when no
	// trial was feasible).
	Best *Trial
	// Trials are every evaluation in order.
	Trials []Trial
	// Failed is the number of failed evaluations.
	Failed int
}

// Recommendation is the configuration the algorithm's models believe best
// among the evaluated ones, with P(every limit holds) ≥ 0.95
// (learner.RecommendLevel): posterior mean and standard deviation of the
// objective (in its own direction and units) and of each constraint's
// metric.
type Recommendation struct {
	// ID is a trial that evaluated it.
	ID int64
	// X are its coordinates (with Parameters, their encoding); Values the
	// parameters' values.
	X      []float64
	Values Values
	// Objective and Metrics are posterior moments, one Metrics entry per
	// constraint; Feasible is P(every limit holds).
	Objective Moments
	Metrics   []Moments
	Feasible  float64
}

// Moments are a posterior mean and standard deviation.
type Moments = bandit.Moments

// Recommend returns the study's recommendation so far (nil when the
// algorithm names none).
func (s *Study) Recommend() *Recommendation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recommend()
}

// recommend is Recommend, the mutex held.
func (s *Study) recommend() *Recommendation {
	r := s.l.Recommend(s.ag)
	if r == nil {
		return nil
	}
	return &Recommendation{ID: r.Decision, X: r.X, Values: Values(r.Values), Objective: r.Objective,
		Metrics: r.Constraints, Feasible: r.Feasible}
}

// Study is an ask/tell optimisation in process: Ask for a point, evaluate
// it wherever and whenever, Tell its values (or Fail, or Abandon); several
// points may be pending at once, and the algorithm decides knowing them
// (GP algorithms condition on them, so concurrent asks get distinct
// points). Safe for concurrent use: a mutex orders the calls, and the
// trials follow the order in which they reach it.
type Study struct {
	mu     sync.Mutex
	o      Options
	ag     bandit.Agent
	res    Result
	l      *learner.Learner
	points [][]float64
	sign   float64
	round  int
	index  map[int64]int
	best   int // index of the best feasible trial, −1 before one
}

// NewStudy checks the options, chooses the algorithm when none is named,
// and builds it (learner.New: the one place a definition becomes a learner,
// the service's too).
func NewStudy(o Options) (*Study, error) {
	if o.Horizon < 1 {
		return nil, fmt.Errorf("optimize: Horizon = %d: must be at least 1", o.Horizon)
	}
	if o.Workers < 0 {
		return nil, fmt.Errorf("optimize: Workers = %d: must be at least 0 (0: one at a time)", o.Workers)
	}
	box := len(o.Lo) > 0 || len(o.Hi) > 0
	switch {
	case len(o.Parameters) > 0 && (box || len(o.Points) > 0):
		return nil, errors.New("optimize: give Parameters, Lo and Hi (a box) or Points, only one of them")
	case len(o.Points) > 0 && box:
		return nil, errors.New("optimize: give Lo and Hi (a box) or Points, not both")
	case len(o.Parameters) == 0 && len(o.Points) == 0 && (len(o.Lo) == 0 || len(o.Lo) != len(o.Hi)):
		return nil, fmt.Errorf("optimize: Lo and Hi: %d and %d bounds, want as many as x has coordinates (at least 1)", len(o.Lo), len(o.Hi))
	case len(o.Parameters) == 0 && o.Candidates != 0:
		return nil, fmt.Errorf("optimize: Candidates = %d: applies to Parameters only", o.Candidates)
	}
	for j, c := range o.Constraints {
		if err := ValidKind(c.Kind); err != nil {
			return nil, fmt.Errorf("optimize: Constraints[%d]: %w", j, err)
		}
		if math.IsNaN(c.Max) || math.IsInf(c.Max, 0) {
			return nil, fmt.Errorf("optimize: Constraints[%d].Max = %v: must be finite", j, c.Max)
		}
	}
	ev := o.Evaluations
	if ev == "" {
		ev = Offline
	}
	if err := learner.CheckEvaluations(ev); err != nil {
		return nil, fmt.Errorf("optimize: Evaluations: %w", err)
	}
	def := learner.Definition{
		Space: learner.Space{Lo: o.Lo, Hi: o.Hi, Points: o.Points, Parameters: o.Parameters,
			Native: box, Candidates: o.Candidates},
		Minimize: o.Minimize, Algorithm: string(o.Algorithm), Params: bandit.Params(o.Params),
		Seed: o.Seed, Horizon: o.Horizon, Evaluations: ev,
	}
	for _, c := range o.Constraints {
		def.Constraints = append(def.Constraints, learner.Constraint{Name: c.Name, Threshold: c.Max, Kind: c.Kind})
	}
	l, ag, err := learner.New(def)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", optionsError(err))
	}
	s := &Study{o: o, sign: l.Sign, index: map[int64]int{}, points: l.Points, best: -1, l: l, ag: ag}
	s.res.Algorithm, s.res.Kinds, s.res.Evaluations = Algorithm(l.Algorithm), l.Kinds, ev
	if l.Choice != nil {
		s.res.Reason = l.Choice.Brief
	}
	return s, nil
}

// optionsError names an Options field where the learner names a
// definition's field.
func optionsError(err error) error {
	var le *learner.Error
	if !errors.As(err, &le) {
		return err
	}
	f := le.Field
	switch {
	case strings.HasPrefix(f, "constraints["):
		f = "Constraints[" + strings.TrimPrefix(strings.SplitN(f, "]", 2)[0], "constraints[") + "]"
	case f == "space.candidates":
		f = "Candidates"
	default: // the error names the parameter, the algorithm or its parameter
		return le.Err
	}
	if strings.HasPrefix(le.Err.Error(), "= ") {
		return fmt.Errorf("%s %w", f, le.Err)
	}
	return fmt.Errorf("%s: %w", f, le.Err)
}

// Algorithm returns the algorithm the study runs and, when it was chosen,
// why (one line).
func (s *Study) Algorithm() (Algorithm, string) { return s.res.Algorithm, s.res.Reason }

// Ask returns the next point to evaluate, as a Trial whose ID Tell, Fail
// and Abandon take. Every Ask spends one evaluation of the horizon.
func (s *Study) Ask() (Trial, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.round >= s.o.Horizon {
		return Trial{}, fmt.Errorf("optimize: the study's %d evaluations are all asked (Horizon)", s.o.Horizon)
	}
	d, err := s.ag.Decide(&bandit.Round{T: s.round + 1})
	if err != nil {
		return Trial{}, fmt.Errorf("optimize: round %d: %w", s.round+1, err)
	}
	s.round++
	x := d.Action.X
	if x == nil && s.points != nil {
		x = s.points[d.Action.Arm]
	}
	t := Trial{Round: s.round, ID: d.ID, X: slices.Clone(x)}
	if len(s.o.Parameters) > 0 {
		v, err := space.Decode(s.o.Parameters, x)
		if err != nil {
			return Trial{}, fmt.Errorf("optimize: round %d: %w", s.round, err)
		}
		t.Values = v
	}
	s.index[d.ID] = len(s.res.Trials)
	s.res.Trials = append(s.res.Trials, t)
	return cloneTrial(t), nil
}

// cloneTrial copies what a caller could modify.
func cloneTrial(t Trial) Trial {
	t.X, t.Metrics = slices.Clone(t.X), slices.Clone(t.Metrics)
	if t.Values != nil {
		v := make(Values, len(t.Values))
		for k, x := range t.Values {
			v[k] = x
		}
		t.Values = v
	}
	return t
}

// pending returns the asked trial id, refusing one that is unknown, told,
// failed or abandoned.
func (s *Study) pending(id int64) (int, error) {
	i, ok := s.index[id]
	if !ok {
		return 0, fmt.Errorf("optimize: no trial %d was asked", id)
	}
	switch t := &s.res.Trials[i]; {
	case t.Abandoned:
		return 0, fmt.Errorf("optimize: trial %d was abandoned", id)
	case t.told:
		return 0, fmt.Errorf("optimize: trial %d was already told", id)
	}
	return i, nil
}

// Tell gives the values at the trial with this ID (from Ask): the
// objective and one metric per constraint. A value that is NaN or ±Inf
// makes the trial failed, as Optuna marks a trial whose objective returns
// NaN: the algorithm is told as by Fail, the reason naming the first such
// value (`objective returned NaN`, `metric "latency" returned +Inf`), and
// Tell returns nil. (Optuna keeps ±Inf as a value; a GP cannot.)
func (s *Study) Tell(id int64, objective float64, metrics []float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.pending(id)
	if err != nil {
		return err
	}
	if len(metrics) != len(s.o.Constraints) {
		return fmt.Errorf("optimize: trial %d: %d metrics, the study has %d constraints", id, len(metrics), len(s.o.Constraints))
	}
	if reason := s.nonFinite(objective, metrics); reason != "" {
		return s.fail(i, id, reason)
	}
	costs := make([]float64, len(metrics))
	feasible := true
	for j, v := range metrics {
		costs[j] = v - s.o.Constraints[j].Max
		feasible = feasible && costs[j] <= 0
	}
	if err := s.ag.Observe(bandit.Feedback{ID: id, Reward: s.sign * objective, HasReward: true, Costs: costs}); err != nil {
		return fmt.Errorf("optimize: trial %d: %w", id, err)
	}
	t := &s.res.Trials[i]
	t.Objective, t.Metrics, t.Feasible, t.told = objective, slices.Clone(metrics), feasible, true
	if feasible && (s.best < 0 || s.sign*objective > s.sign*s.res.Trials[s.best].Objective) {
		s.best = i
	}
	return nil
}

// nonFinite names the first value that is NaN or ±Inf, as a failure's
// reason ("" when every value is finite).
func (s *Study) nonFinite(objective float64, metrics []float64) string {
	if math.IsNaN(objective) || math.IsInf(objective, 0) {
		return fmt.Sprintf("objective returned %v", objective)
	}
	for j, v := range metrics {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			continue
		}
		if name := s.o.Constraints[j].Name; name != "" {
			return fmt.Sprintf("metric %q returned %v", name, v)
		}
		return fmt.Sprintf("metric %d returned %v", j, v)
	}
	return ""
}

// shortReason shortens a failure's cause to its first line and at most
// bandit.MaxReasonLen bytes, cut at a character boundary.
func shortReason(cause string) string {
	for i, r := range cause {
		if r == '\n' || r == '\r' {
			cause = cause[:i]
			break
		}
	}
	if len(cause) <= bandit.MaxReasonLen {
		return cause
	}
	n := bandit.MaxReasonLen
	for n > 0 && !utf8.RuneStart(cause[n]) {
		n--
	}
	return cause[:n]
}

// Fail says that the evaluation of the trial with this ID failed (a crash,
// an out-of-memory, a timeout) for reason (its first line, at most bandit.MaxReasonLen bytes). The
// algorithm is told (bandit.Feedback.Failed); one that refuses a failure is
// told to abandon the decision instead, so it is pending no more. Either
// way the trial is Failed and counts toward the horizon.
func (s *Study) Fail(id int64, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.pending(id)
	if err != nil {
		return err
	}
	return s.fail(i, id, reason)
}

// fail is Fail of the pending trial i, the mutex held.
func (s *Study) fail(i int, id int64, reason string) error {
	reason = shortReason(reason)
	t := &s.res.Trials[i]
	if err := s.ag.Observe(bandit.Feedback{ID: id, Failed: true, Reason: reason}); err != nil {
		ab, ok := s.ag.(bandit.Abandoner)
		if !ok {
			return fmt.Errorf("optimize: trial %d: %w", id, err)
		}
		if aerr := ab.Abandon(id); aerr != nil {
			return fmt.Errorf("optimize: trial %d: the failure: %v; abandoning it: %w", id, err, aerr)
		}
		t.Abandoned = true
	}
	t.Failed, t.Reason, t.told = true, reason, true
	s.res.Failed++
	return nil
}

// Abandon gives up the pending trial with this ID: its evaluation never
// happened and teaches nothing (unlike Fail). It stays in the trials, and
// its evaluation is spent.
func (s *Study) Abandon(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.pending(id)
	if err != nil {
		return err
	}
	ab, ok := s.ag.(bandit.Abandoner)
	if !ok {
		return fmt.Errorf("optimize: trial %d: %s cannot abandon a decision", id, s.res.Algorithm)
	}
	if err := ab.Abandon(id); err != nil {
		return fmt.Errorf("optimize: trial %d: %w", id, err)
	}
	s.res.Trials[i].Abandoned = true
	return nil
}

// Best returns a copy of the feasible trial told so far with the best
// objective (nil when none was feasible).
func (s *Study) Best() *Trial {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.best < 0 {
		return nil
	}
	t := cloneTrial(s.res.Trials[s.best])
	return &t
}

// Result returns a copy of the study's result so far.
func (s *Study) Result() *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.res
	r.Kinds = slices.Clone(s.res.Kinds)
	r.Trials = make([]Trial, len(s.res.Trials))
	for i, t := range s.res.Trials {
		r.Trials[i] = cloneTrial(t)
	}
	if s.best >= 0 {
		r.Best = &r.Trials[s.best]
	}
	r.Recommendation = s.recommend()
	return &r
}
