package suite

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/service/api"
)

// Unit systems.
const (
	Natural = "natural"
	Scaled  = "scaled"
)

// ScaledA and ScaledB define the scaled unit system: m ↦ ScaledA·m + ScaledB.
const (
	ScaledA = 1000.0
	ScaledB = 50.0
)

// NoiseFraction is the noise std of every metric as a fraction of its range.
const NoiseFraction = 0.02

// What a noise level is a fraction of (Options.NoiseScale): NoiseRange,
// each metric's range over the box (the suite's convention); NoiseLimit,
// each metric's own size at the optimum — |f*| and each limit
// (problem.SuiteProblem.NoiseScales) — where a range spans orders of
// magnitude and its share would drown the feasible set
// (docs/live_limits.md, "Noise relative to the limits").
const (
	NoiseRange = "range"
	NoiseLimit = "limit"
)

// Defaults of Options: live, the papers' algorithms beside config;
// offline, the default a study gets (Default).
var (
	DefaultAlgorithms        = []string{"ckb-ucb", "rpol-ucb", "config"}
	DefaultOfflineAlgorithms = []string{Default}
	DefaultUnits             = []string{Natural, Scaled}
)

// Default is the algorithm entry whose studies name no algorithm and give
// their constraints no kind: exactly what a study gets that says nothing
// (the service's choice, learner.Choose: live config, cei on typed
// parameters; offline lognei). The tables label it "default (<the chosen
// ID>)".
const Default = "default"

const (
	DefaultHorizon = 200
	DefaultSeeds   = 3
)

// Problem sets: the practical-defaults suite (problem.Suite) and the
// systems suite (problem.SystemsSuite).
const (
	SetDefaults = "defaults"
	SetSystems  = "systems"
)

// Options configure Run. Zero values take the defaults.
type Options struct {
	// Set is the problem set the default Problems come from: SetDefaults
	// ("" too) or SetSystems.
	Set string
	// Problems are suite problem names (problem.Suite or
	// problem.SystemsSuite; default all of Set).
	Problems []string
	// Algorithms are registered algorithm IDs or Default (default
	// DefaultAlgorithms; offline DefaultOfflineAlgorithms).
	Algorithms []string
	// Horizon is T (default DefaultHorizon; at least 2).
	Horizon int
	// Seeds is the number of seeds, FirstSeed..FirstSeed+Seeds−1 (default
	// DefaultSeeds).
	Seeds int
	// FirstSeed is the first seed (default 1): a run's numbers depend on
	// its seed alone, so seeds 11–20 repeat those of a run of 1–20.
	FirstSeed int
	// Units are unit systems, Natural and/or Scaled (default both).
	Units []string
	// Workers is the number of runs in parallel (default GOMAXPROCS).
	Workers int
	// OnRound, when set, is called after every round of every run (from
	// several goroutines at once): progress reporting.
	OnRound func()
	// Batch and Async: parallel evaluations of every job (Job).
	Batch, Async int
	// NoiseFree: metrics without noise (Job).
	NoiseFree bool
	// Noise is the noise std of every metric as a fraction of its range
	// (0: NoiseFraction; NoiseFree sets none).
	Noise float64
	// NoiseScale is what Noise is a fraction of: NoiseRange ("" too) or
	// NoiseLimit.
	NoiseScale string
	// Evaluations is what a study says counts, Live ("" too) or Offline
	// (DESIGN.md, "Live and offline evaluations"): passed in the study's
	// definition (setEvaluations), recorded in
	// summary.json, and the offline scores printed.
	Evaluations string
}

// Job is one run: a study of Horizon rounds.
type Job struct {
	Problem   string `json:"problem"`
	Algorithm string `json:"algorithm"`
	Units     string `json:"units"`
	Seed      int    `json:"seed"`
	// Batch q > 1: ask q decisions at once, then tell them all; Async q > 1:
	// q workers, each telling its decision and asking the next (q − 1
	// pending at every ask). Scores stay per evaluation, in decision order.
	Batch int `json:"batch,omitempty"`
	Async int `json:"async,omitempty"`
	// NoiseFree: the metrics are told as the functions give them (no
	// NoiseFraction noise), as the BO literature's constrained test
	// problems are usually run (BoTorch's SCBO tutorial).
	NoiseFree bool `json:"noise_free,omitempty"`
	// Noise is the noise std as a fraction of each metric's range (0:
	// NoiseFraction, or none with NoiseFree).
	Noise float64 `json:"noise,omitempty"`
	// NoiseScale is what Noise is a fraction of (Options; "": NoiseRange).
	NoiseScale string `json:"noise_scale,omitempty"`
	// Evaluations is the study's evaluation mode (Options).
	Evaluations string `json:"evaluations,omitempty"`
}

// noiseLevel is the job's noise std as a fraction of each range.
func (j Job) noiseLevel() float64 {
	switch {
	case j.NoiseFree:
		return 0
	case j.Noise > 0:
		return j.Noise
	}
	return NoiseFraction
}

// RunResult is the outcome of one job.
type RunResult struct {
	Job
	// Regret and Violation are the late normalised scores (package doc).
	Regret    float64 `json:"regret"`
	Violation float64 `json:"violation"`
	// Duplicates counts suggestions within DuplicateFraction of the box's
	// diameter of a pending decision's point.
	Duplicates int `json:"duplicates"`
	// Points are the suggestions in decision order (for traces; not saved).
	Points [][]float64 `json:"-"`
	// SecondsPerRound is the wall time of ask + tell per round.
	SecondsPerRound float64 `json:"seconds_per_round"`
	// CPUPerRound is the process's user + system time over the study's
	// rounds per round (service, agent and evaluations): the study's own
	// with --workers 1, which the machine's load does not inflate as it
	// does wall time; 0 where the platform gives none.
	CPUPerRound float64 `json:"cpu_seconds_per_round,omitempty"`
	// DecisionCPUPerRound is CPUPerRound less the service's snapshot work
	// (encoding, hashing, sizing, writing: the CPU time of the threads it
	// ran on, service.Server.SnapshotCPU): the agent's Decide and Observe,
	// its deferred fits, HTTP, log and evaluations. The garbage collector's
	// share of the snapshots' allocations stays in, so it is a bound from
	// above on the decisions' own. 0 (absent) where the platform gives no
	// thread time, or no snapshot was taken.
	DecisionCPUPerRound float64 `json:"decision_cpu_seconds_per_round,omitempty"`
	// Resolved is the algorithm the service chose for a Default study (the
	// study's recorded algorithm); empty for a named one.
	Resolved string `json:"resolved,omitempty"`
	// Systems are the scores of a systems suite problem (SystemsScore).
	Systems *SystemsScore `json:"systems,omitempty"`
}

// Score is a (regret, violation) pair, mean over seeds.
type Score struct {
	Regret    float64 `json:"regret"`
	Violation float64 `json:"violation"`
}

// Cell is one (problem, algorithm) of the report.
type Cell struct {
	Problem   string `json:"problem"`
	Algorithm string `json:"algorithm"`
	// ViolationKind is "long-term" (ckb-*) or "per-round".
	ViolationKind string `json:"violation_kind"`
	// Mean is the mean over seeds per unit system.
	Mean map[string]Score `json:"mean"`
	// DiffRegret and DiffViolation are Mean[scaled] − Mean[natural] (both
	// unit systems run; else 0).
	DiffRegret    float64 `json:"diff_regret"`
	DiffViolation float64 `json:"diff_violation"`
	// SecondsPerRound is the mean wall time per round over the cell's runs.
	SecondsPerRound float64 `json:"seconds_per_round"`
	// Duplicates is the total over the cell's runs (RunResult).
	Duplicates int `json:"duplicates"`
	// Resolved is the algorithm the service chose for a Default cell (its
	// runs' Resolved; several joined by ", " should they differ).
	Resolved string `json:"resolved,omitempty"`
	// Runs are the cell's runs, in (units, seed) order.
	Runs []RunResult `json:"runs"`
	// Systems are the systems scores per unit system (systems problems).
	Systems map[string]SystemsMean `json:"systems,omitempty"`
}

// Summary is the result of Run (summary.json).
type Summary struct {
	// Set is the problem set (Options.Set; absent for the defaults).
	Set     string `json:"set,omitempty"`
	Horizon int    `json:"horizon"`
	Seeds   int    `json:"seeds"`
	// FirstSeed is the first seed where it is not 1 (Options).
	FirstSeed  int      `json:"first_seed,omitempty"`
	Problems   []string `json:"problems"`
	Algorithms []string `json:"algorithms"`
	Units      []string `json:"units"`
	// Batch, Async: the runs' parallel evaluations (Options).
	Batch int `json:"batch,omitempty"`
	Async int `json:"async,omitempty"`
	// NoiseFree: the metrics were told without noise (Options).
	NoiseFree bool `json:"noise_free,omitempty"`
	// Noise is the noise std as a fraction of each metric's range (0 with
	// NoiseFree).
	Noise float64 `json:"noise"`
	// NoiseScale is what Noise is a fraction of: NoiseRange or NoiseLimit.
	NoiseScale string `json:"noise_scale"`
	// Evaluations is the evaluation mode (Options; "live" by default), and
	// EvaluationsSent whether the study definitions carried it
	// (setEvaluations, api.StudySpec.Evaluations).
	Evaluations     string `json:"evaluations"`
	EvaluationsSent bool   `json:"evaluations_sent"`
	// Cells are in (problem, algorithm) order of the options.
	Cells []Cell `json:"cells"`
}

// Normalize fills the defaults of o and checks it; errors name the field
// and the bad value.
func (o Options) Normalize() (Options, error) {
	switch o.Set {
	case "", SetDefaults:
		o.Set = ""
		if len(o.Problems) == 0 {
			o.Problems = problem.SuiteNames()
		}
	case SetSystems:
		if len(o.Problems) == 0 {
			o.Problems = problem.SystemsNames()
		}
	default:
		return o, fmt.Errorf("suite: set = %q: must be %q or %q", o.Set, SetDefaults, SetSystems)
	}
	for _, p := range o.Problems {
		if _, err := problem.SuiteByName(p); err != nil {
			return o, fmt.Errorf("suite: problems: %w", err)
		}
	}
	switch o.Evaluations {
	case "":
		o.Evaluations = Live
	case Live, Offline:
	default:
		return o, fmt.Errorf("suite: evaluations = %q: must be %q or %q", o.Evaluations, Live, Offline)
	}
	if len(o.Algorithms) == 0 {
		o.Algorithms = slices.Clone(DefaultAlgorithms)
		if o.Evaluations == Offline {
			o.Algorithms = slices.Clone(DefaultOfflineAlgorithms)
		}
	}
	for _, a := range o.Algorithms {
		if _, err := ParseEntry(a); err != nil {
			return o, err
		}
	}
	if o.Horizon == 0 {
		o.Horizon = DefaultHorizon
	}
	if o.Horizon < 2 {
		return o, fmt.Errorf("suite: horizon = %d: must be at least 2", o.Horizon)
	}
	if o.Seeds == 0 {
		o.Seeds = DefaultSeeds
	}
	if o.Seeds < 1 {
		return o, fmt.Errorf("suite: seeds = %d: must be at least 1", o.Seeds)
	}
	if o.FirstSeed == 0 {
		o.FirstSeed = 1
	}
	if o.FirstSeed < 1 {
		return o, fmt.Errorf("suite: first seed = %d: must be at least 1", o.FirstSeed)
	}
	if len(o.Units) == 0 {
		o.Units = slices.Clone(DefaultUnits)
	}
	for _, u := range o.Units {
		if u != Natural && u != Scaled {
			return o, fmt.Errorf("suite: units = %q: must be %q or %q", u, Natural, Scaled)
		}
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Workers < 1 {
		return o, fmt.Errorf("suite: workers = %d: must be at least 1", o.Workers)
	}
	if o.Batch < 0 || o.Async < 0 || (o.Batch > 1 && o.Async > 1) {
		return o, fmt.Errorf("suite: batch = %d, async = %d: each must be ≥ 0, and only one of them > 1", o.Batch, o.Async)
	}
	if o.Noise < 0 || o.Noise > 1 || math.IsNaN(o.Noise) {
		return o, fmt.Errorf("suite: noise = %v: must be a fraction of each metric's range in [0, 1]", o.Noise)
	}
	switch o.NoiseScale {
	case "":
		o.NoiseScale = NoiseRange
	case NoiseRange:
	case NoiseLimit:
		for _, name := range o.Problems {
			p, _ := problem.SuiteByName(name) // checked above
			fa, err := p.Facts()
			if err == nil {
				_, _, err = p.NoiseScales(fa)
			}
			if err != nil {
				return o, fmt.Errorf("suite: noise-scale = %q: %w", o.NoiseScale, err)
			}
		}
	default:
		return o, fmt.Errorf("suite: noise-scale = %q: must be %q or %q", o.NoiseScale, NoiseRange, NoiseLimit)
	}
	return o, nil
}

// Jobs lists the runs of o in report order: problem, algorithm, units, seed.
func (o Options) Jobs() []Job {
	var jobs []Job
	for _, p := range o.Problems {
		for _, a := range o.Algorithms {
			for _, u := range o.Units {
				for s := o.FirstSeed; s < o.FirstSeed+o.Seeds; s++ {
					jobs = append(jobs, Job{Problem: p, Algorithm: a, Units: u, Seed: s, Batch: o.Batch, Async: o.Async, NoiseFree: o.NoiseFree, Noise: o.Noise, NoiseScale: o.NoiseScale, Evaluations: o.Evaluations})
				}
			}
		}
	}
	return jobs
}

// LongTerm reports whether the algorithm's constraints are long-term
// (ckb-*): its studies use kind "long-term" and its violation is scored on
// the late average of g.
func LongTerm(algorithm string) bool {
	id := algorithm
	if e, err := ParseEntry(algorithm); err == nil {
		id = e.ID
	}
	s, err := agent.Lookup(id)
	return err == nil && s.Can.Honours(agent.KindLongTerm)
}

// Entry is an algorithm entry of Options.Algorithms, read by ParseEntry.
type Entry struct {
	ID     string         // a registered algorithm, or Default
	Params map[string]any // the study's parameters (nil: none)
	// Defaults is the generation of the defaults the study asks for on
	// creation (api.StudySpec.Defaults; 0: the current one), from the
	// entry's parameter GenerationKey: an earlier generation beside today's
	// in one run, paired by seed.
	Defaults int
}

// GenerationKey is the entry parameter that names the generation of the
// defaults ("default:defaults=9", "config:defaults=9"); it is the study's
// "defaults" field, not one of the algorithm's parameters.
const GenerationKey = "defaults"

// ParseEntry reads an algorithm entry of Options.Algorithms: an algorithm ID
// (the defaults, which the suite measures), or an --algos entry with
// parameters, "[label=]id:k=v;k=v" (experiment.ParseAlgoEntry), for sweeps
// of the defaults' values (docs/defaults.md); such a study is given those
// parameters and nothing else. GenerationKey = g asks for generation g's
// defaults instead of today's.
//
// The ID Default (an entry "default", or "label=default") names no
// algorithm: the study gets the service's choice; it takes no parameters
// but GenerationKey. An ID neither Default nor registered is refused.
func ParseEntry(entry string) (Entry, error) {
	a, err := experiment.ParseAlgoEntry(entry)
	if err != nil {
		return Entry{}, fmt.Errorf("suite: algorithms: %w", err)
	}
	e := Entry{ID: a.ID}
	if v, ok := a.Params[GenerationKey]; ok {
		g, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil || g < 1 || g > api.DefaultsPractical {
			return Entry{}, fmt.Errorf("suite: algorithms: %q: %s = %v: must be a generation of the defaults from 1 to %d", entry, GenerationKey, v, api.DefaultsPractical)
		}
		e.Defaults = g
	}
	if a.ID == Default {
		if len(a.Params) > 0 && (e.Defaults == 0 || len(a.Params) > 1) {
			return Entry{}, fmt.Errorf("suite: algorithms: %q: the default takes no parameters but %s (it is what a study gets that names no algorithm and no parameter)", entry, GenerationKey)
		}
		return e, nil
	}
	if _, err := agent.Lookup(a.ID); err != nil {
		return Entry{}, fmt.Errorf("suite: algorithms: %w", err)
	}
	for k, v := range a.Params {
		if k == GenerationKey {
			continue
		}
		if e.Params == nil {
			e.Params = map[string]any{}
		}
		e.Params[k] = v
	}
	return e, nil
}

// ScoreRun scores the actions xs (round t = index + 1; T = len(xs)) on the
// true functions over the rounds t > T/2: the late normalised regret and
// the late normalised violation, per round or (longTerm) of the late mean
// (package doc).
func ScoreRun(p *problem.SuiteProblem, fa problem.SuiteFacts, xs [][]float64, longTerm bool) (regret, violation float64) {
	T := len(xs)
	m := len(p.Constraints)
	cons := make([]float64, m)
	sum := make([]float64, m)
	rf := fa.ObjRange[1] - fa.ObjRange[0]
	sign := p.Sign()
	fstar := sign * fa.Opt
	n := 0
	for i, x := range xs {
		if t := i + 1; t <= T/2 {
			continue
		}
		n++
		if p.CrashAt(x) != "" {
			// A crash scores the objective's worst value and no violation
			// (systems suite; failures are scored by ScoreSystems).
			w := fa.ObjRange[1]
			if sign > 0 {
				w = fa.ObjRange[0]
			}
			regret += (fstar - sign*w) / rf
			continue
		}
		f := sign * p.Eval(x, cons)
		regret += (fstar - f) / rf
		worst := 0.0
		for j, c := range p.Constraints {
			g := (cons[j] - c.Threshold) / (fa.ConRanges[j][1] - fa.ConRanges[j][0])
			sum[j] += g
			worst = math.Max(worst, g)
		}
		violation += worst
	}
	if n == 0 {
		return 0, 0
	}
	if longTerm {
		violation = 0
		for j := range sum {
			violation = math.Max(violation, sum[j]/float64(n))
		}
		return regret / float64(n), violation
	}
	return regret / float64(n), violation / float64(n)
}

// Run runs every job of o (after Normalize) on a pool of o.Workers workers
// against one in-process service, and aggregates the results in job order:
// the numbers do not depend on the number of workers.
func Run(ctx context.Context, o Options) (*Summary, error) {
	o, err := o.Normalize()
	if err != nil {
		return nil, err
	}
	for _, name := range o.Problems {
		p, _ := problem.SuiteByName(name)
		if _, err := p.Facts(); err != nil {
			return nil, err
		}
	}
	srv, err := StartServer()
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	jobs := o.Jobs()
	results := make([]RunResult, len(jobs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	for range min(o.Workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := runOne(ctx, srv.Client, srv.summaryJSON, srv.snapshotCPU, jobs[i], o.Horizon, o.OnRound)
				if err != nil {
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					errMu.Unlock()
					cancel()
					continue
				}
				results[i] = r
			}
		}()
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return Aggregate(o, results), nil
}
