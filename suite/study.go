// One study of the suite through an in-process service: its definition,
// its rounds, its noise and its duplicates.

package suite

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// Server is an in-process cbandit service (memory store, default options)
// listening on a loopback port, with a client of it.
type Server struct {
	Client *client.Client
	base   string
	hc     *http.Client
	tr     *http.Transport
	srv    *service.Server
	hs     *http.Server
	ln     net.Listener
}

// StartServer starts an in-process service on 127.0.0.1 (a free port).
func StartServer() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("suite: starting the in-process service: %w", err)
	}
	srv := service.New(store.NewMemory(), service.Options{})
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	hc := &http.Client{Transport: tr}
	base := "http://" + ln.Addr().String()
	return &Server{Client: client.New(base, client.WithHTTPClient(hc)), base: base, hc: hc, tr: tr, srv: srv, hs: hs, ln: ln}, nil
}

// snapshotCPU is the service's snapshot CPU so far (service.Server.SnapshotCPU).
func (s *Server) snapshotCPU() time.Duration { return s.srv.SnapshotCPU() }

// Close stops the server.
func (s *Server) Close() {
	s.tr.CloseIdleConnections()
	s.hs.Close()
	s.srv.Close()
}

// StudySpec is the study a job creates: defaults only (package doc).
func StudySpec(p *problem.SuiteProblem, job Job, horizon int) api.StudySpec {
	a, b := unitsOf(job.Units)
	e, _ := ParseEntry(job.Algorithm) // checked by Normalize
	id, params := e.ID, e.Params
	kind := api.KindCumulative
	switch {
	case id == Default:
		// No kind, as no algorithm: what the service gives a constraint
		// that says nothing (stage-wise, learner.DefaultKind).
		kind = ""
		id = ""
	case LongTerm(job.Algorithm):
		kind = api.KindLongTerm
	}
	cons := make([]api.Constraint, len(p.Constraints))
	for j, c := range p.Constraints {
		cons[j] = api.Constraint{Name: c.Name, Threshold: a*c.Threshold + b, Kind: kind}
	}
	space := api.Space{Type: api.SpaceBox, Lo: slices.Clone(p.Lo), Hi: slices.Clone(p.Hi)}
	var typed []api.Parameter
	if p.Params != nil {
		space, typed = api.Space{}, apiParameters(p.Params)
	}
	spec := api.StudySpec{
		Name:        fmt.Sprintf("suite-%s-%s-%s-seed%d", job.Problem, job.Algorithm, job.Units, job.Seed),
		Parameters:  typed,
		Space:       space,
		Objective:   api.Objective{Name: p.Objective.Name, Goal: p.Goal},
		Constraints: cons,
		Algorithm:   id,
		Params:      params,
		Seed:        uint64(job.Seed),
		Horizon:     horizon,
		Defaults:    e.Defaults,
	}
	if job.Evaluations != "" {
		setEvaluations(&spec, job.Evaluations)
	}
	return spec
}

func unitsOf(units string) (a, b float64) {
	if units == Scaled {
		return ScaledA, ScaledB
	}
	return 1, 0
}

// noiseStds are the job's noise stds in natural units, the constraints'
// first, then the objective's: its level times each metric's range, or
// its size (NoiseLimit).
func noiseStds(p *problem.SuiteProblem, fa problem.SuiteFacts, job Job) ([]float64, error) {
	m := len(p.Constraints)
	level := job.noiseLevel()
	noise := make([]float64, m+1)
	if job.NoiseScale == NoiseLimit && level > 0 {
		obj, cons, err := p.NoiseScales(fa)
		if err != nil {
			return nil, fmt.Errorf("suite: noise-scale = %q: %w", job.NoiseScale, err)
		}
		for j := range m {
			noise[j] = level * cons[j]
		}
		noise[m] = level * obj
		return noise, nil
	}
	for j := range m {
		noise[j] = level * (fa.ConRanges[j][1] - fa.ConRanges[j][0])
	}
	noise[m] = level * (fa.ObjRange[1] - fa.ObjRange[0])
	return noise, nil
}

// RunOne runs one job through the service behind c and scores it.
// onRound, when not nil, is called after each round. The recommendation is
// not read (recorded as absent); Run reads it through its Server.
func RunOne(ctx context.Context, c *client.Client, job Job, horizon int, onRound func()) (RunResult, error) {
	return runOne(ctx, c, nil, nil, job, horizon, onRound)
}

// runOne is RunOne; summary, when not nil, returns a study's summary as JSON
// (the recommendation is read from it: readRecommendation); snapCPU, when
// not nil, is the service's snapshot CPU so far (DecisionCPUPerRound).
func runOne(ctx context.Context, c *client.Client, summary func(context.Context, string) ([]byte, error), snapCPU func() time.Duration, job Job, horizon int, onRound func()) (RunResult, error) {
	p, err := problem.SuiteByName(job.Problem)
	if err != nil {
		return RunResult{}, err
	}
	fa, err := p.Facts()
	if err != nil {
		return RunResult{}, err
	}
	a, b := unitsOf(job.Units)
	m := len(p.Constraints)
	noise, err := noiseStds(&p, fa, job)
	if err != nil {
		return RunResult{}, err
	}
	for j := range noise {
		noise[j] *= a
	}
	study, err := c.CreateStudy(ctx, StudySpec(&p, job, horizon))
	if err != nil {
		return RunResult{}, fmt.Errorf("suite: %s/%s/%s/seed %d: creating the study: %w", job.Problem, job.Algorithm, job.Units, job.Seed, err)
	}
	defer c.DeleteStudy(context.WithoutCancel(ctx), study.ID)
	type pend struct {
		id int64
		x  []float64
		t  int // the decision's position: its noise is round t's
	}
	diam := 0.0
	for i := range p.Lo {
		diam += (p.Hi[i] - p.Lo[i]) * (p.Hi[i] - p.Lo[i])
	}
	diam = math.Sqrt(diam)
	xs := make([][]float64, 0, horizon)
	var pending []pend
	var dups int
	cons := make([]float64, m)
	stream := seed.NewStream()
	var spent time.Duration
	cpu0 := processCPU()
	var snap0 time.Duration
	if snapCPU != nil {
		snap0 = snapCPU()
	}
	// ask asks for n decisions; each is compared with the pending ones.
	ask := func(n int) error {
		start := time.Now()
		sug, err := c.Suggest(ctx, study.ID, n)
		if err == nil && len(sug) != n {
			err = fmt.Errorf("%d suggestions for %d asked", len(sug), n)
		}
		if err != nil {
			return fmt.Errorf("suite: %s/%s/%s/seed %d: decision %d: ask: %w", job.Problem, job.Algorithm, job.Units, job.Seed, len(xs)+1, err)
		}
		spent += time.Since(start)
		for _, s := range sug {
			x := s.X
			if p.Params != nil {
				if x, err = paramsPoint(p.Params, s.Params); err != nil {
					return fmt.Errorf("suite: %s/%s/%s/seed %d: decision %d: %w", job.Problem, job.Algorithm, job.Units, job.Seed, len(xs)+1, err)
				}
			}
			if len(x) != len(p.Lo) {
				return fmt.Errorf("suite: %s/%s: suggestion x = %v has %d coordinates, want %d", job.Problem, job.Algorithm, x, len(x), len(p.Lo))
			}
			for _, q := range pending {
				if dist(q.x, x) < DuplicateFraction*diam {
					dups++
					break
				}
			}
			xs = append(xs, slices.Clone(x))
			pending = append(pending, pend{id: s.DecisionID, x: slices.Clone(x), t: len(xs)})
		}
		return nil
	}
	// tell evaluates and tells the oldest pending decision.
	tell := func() error {
		q := pending[0]
		pending = pending[1:]
		if reason := p.CrashAt(q.x); reason != "" {
			// A crash: the evaluation yields nothing and is told as failed.
			start := time.Now()
			if _, err := c.Observe(ctx, study.ID, api.Observation{DecisionID: q.id, Failed: true, Reason: reason}); err != nil {
				return fmt.Errorf("suite: %s/%s/%s/seed %d: decision %d: tell a failure (%s): %w", job.Problem, job.Algorithm, job.Units, job.Seed, q.t, reason, err)
			}
			spent += time.Since(start)
			if onRound != nil {
				onRound()
			}
			return nil
		}
		f := p.Eval(q.x, cons)
		rng := stream.At(NoiseSeed(job.Problem, job.Seed, q.t))
		obs := make([]float64, m)
		for j := range m {
			obs[j] = a*cons[j] + b + noise[j]*rng.NormFloat64()
		}
		reward := a*f + b + noise[m]*rng.NormFloat64()
		start := time.Now()
		if _, err := c.Observe(ctx, study.ID, api.Observation{DecisionID: q.id, Reward: &reward, Costs: obs}); err != nil {
			return fmt.Errorf("suite: %s/%s/%s/seed %d: decision %d: tell: %w", job.Problem, job.Algorithm, job.Units, job.Seed, q.t, err)
		}
		spent += time.Since(start)
		if onRound != nil {
			onRound()
		}
		return nil
	}
	q := max(job.Batch, job.Async, 1)
	for len(xs) < horizon {
		n := 1
		switch {
		case job.Batch > 1: // a batch of q, then all its feedback
			n = min(q, horizon-len(xs))
		case job.Async > 1 && len(xs) == 0: // q workers start
			n = min(q, horizon)
		}
		if err := ask(n); err != nil {
			return RunResult{}, err
		}
		for len(pending) > 0 && (job.Async <= 1 || len(pending) >= q || len(xs) == horizon) {
			if err := tell(); err != nil {
				return RunResult{}, err
			}
			if job.Async > 1 && len(xs) < horizon {
				break // one worker is free: it asks next
			}
		}
	}
	cpu := processCPU() - cpu0
	reg, vio := ScoreRun(&p, fa, xs, LongTerm(job.Algorithm))
	res := RunResult{Job: job, Regret: reg, Violation: vio, Duplicates: dups, Points: xs, SecondsPerRound: spent.Seconds() / float64(horizon),
		CPUPerRound: cpu.Seconds() / float64(horizon)}
	if snapCPU != nil && cpu > 0 {
		if sn := snapCPU() - snap0; sn > 0 {
			res.DecisionCPUPerRound = (cpu - sn).Seconds() / float64(horizon)
		}
	}
	if e, _ := ParseEntry(job.Algorithm); e.ID == Default {
		res.Resolved = study.Spec.Algorithm
	}
	if problem.IsSystems(job.Problem) || job.Evaluations == Offline { // offline: every set's problems get the offline scores
		sc := ScoreSystems(&p, fa, xs)
		sc.Recommendation = &RecommendationScore{}
		if summary != nil {
			raw, err := summary(ctx, study.ID)
			if err != nil {
				return RunResult{}, fmt.Errorf("suite: %s/%s/%s/seed %d: summary: %w", job.Problem, job.Algorithm, job.Units, job.Seed, err)
			}
			if sc.Recommendation, err = readRecommendation(&p, fa, raw); err != nil {
				return RunResult{}, fmt.Errorf("suite: %s/%s/%s/seed %d: %w", job.Problem, job.Algorithm, job.Units, job.Seed, err)
			}
		}
		res.Systems = &sc
	}
	return res, nil
}

// DuplicateFraction: a suggestion closer to a pending decision's point than
// this fraction of the box's diameter counts as a duplicate (as
// agent.DuplicateRadius; docs/parallel.md).
const DuplicateFraction = 1e-3

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// NoiseSeed is the seed of round t's noise: a function of (problem, seed,
// round) only, so every algorithm and unit system meets the same noise.
func NoiseSeed(problemName string, s, t int) uint64 {
	return seed.Derive(uint64(s), "suite-noise:"+problemName, t)
}
