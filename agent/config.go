package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/estimator"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

var configParams = append([]bandit.ParamDoc{
	{Name: "alpha", Default: "0.05", Doc: "failure probability α in β_t (the Chowdhury–Gopalan width CONFIG builds on); our choice"},
	{Name: "beta-scale", Default: "1", Doc: "multiplier on β_t"},
	{Name: "lambda", Default: "problem's noise variance", Doc: "GP likelihood noise variance λ, the same meaning in every GP agent; 1+2/T: 000 §2's value"},
	inducingDoc,
}, trustPractical...)

// ConfigAgent is CONFIG (Xu et al. 2023, "constrained efficient global
// optimization"), the baseline of 000 §7: play the maximiser of the UCB of
// f over the optimistic feasible set {x : LCB of every g_j ≤ 0}; when that
// set is empty, play the minimiser of max_j LCB of g_j.
type ConfigAgent struct {
	name         string
	info         bandit.Info
	rng          *rand.Rand
	f            model.Model
	g            []model.Model
	pf           model.Predictor
	pg           []model.Predictor
	betaF, betaG estimator.Beta
	ledger       *Ledger
	score        []float64
	gmax         []float64
	design       initDesign           // the initial design (parameter init, issue 14)
	halluc       pendingMode          // condition on the pending decisions (parameter pending)
	trust        regionMode           // parameters region, region-pending
	grad         maximise.GradOptions // the box refinement (parameter refine)
}

func newConfig(cfg Config) (bandit.Agent, error) {
	const name = "config"
	ps := cfg.Params
	in, err := gpInfo(name, cfg)
	if err != nil {
		return nil, err
	}
	if in.M < 1 {
		return nil, fmt.Errorf("%s: the problem has no constraints (M = %d)", name, in.M)
	}
	alpha, err := unitParam(name, ps, "alpha", 0.05)
	if err != nil {
		return nil, err
	}
	scale, err := scaleParam(name, ps, "beta-scale", 1)
	if err != nil {
		return nil, err
	}
	lam, err := lambdaParam(name, ps, cfg.Horizon, in.NoiseVar)
	if err != nil {
		return nil, err
	}
	fixed, cf, cg, err := widthParams(name, ps, in.Domain)
	if err != nil {
		return nil, err
	}
	a := &ConfigAgent{name: name, info: in, rng: seedRand(cfg.Seed), ledger: NewLedger(in.M),
		betaF: estimator.Beta{B: in.B, R: in.R, Alpha: alpha, Scale: scale, Fixed: fixed, Const: cf},
		betaG: estimator.Beta{B: in.G, R: in.RG, Alpha: alpha, Scale: scale, Fixed: fixed, Const: cg}}
	opts, err := modelOptions(name, ps, in.Domain, true)
	if err != nil {
		return nil, err
	}
	if a.f, a.g, err = model.ForAllOpts(in, lam, opts); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if a.design, err = newInitDesign(name, ps, in.Domain, opts, a.rng); err != nil {
		return nil, err
	}
	if a.grad, err = refineParam(name, ps, in.Domain); err != nil {
		return nil, err
	}
	if a.halluc, err = pendingParam(name, ps); err != nil {
		return nil, err
	}
	if a.trust, err = regionParam(name, ps); err != nil {
		return nil, err
	}
	a.pf, a.pg = predictors(a.f, a.g)
	a.score = make([]float64, a.f.Len())
	a.gmax = make([]float64, a.f.Len())
	return a, nil
}

// Decide implements bandit.Agent.
func (a *ConfigAgent) Decide(r *bandit.Round) (bandit.Decision, error) {
	if act, ok := a.design.at(r.T); ok {
		return a.ledger.Record(r.T, act, 0), nil
	}
	bf := a.betaF.At(a.f.InfoGain())
	bg := make([]float64, len(a.g))
	for j, g := range a.g {
		bg[j] = a.betaG.At(g.InfoGain())
	}
	undo, pend, err := pendModels(a.halluc, a.ledger, a.f, a.g)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
	}
	defer undo()
	ms := append([]model.Model{a.f}, a.g...)
	// The optimistic feasible set {x : max_j LCB g_j(x) ≤ 0} over the
	// candidates decides which of CONFIG's two scores the round uses.
	for i := range a.gmax {
		a.gmax[i] = math.Inf(-1)
	}
	for j, g := range a.g {
		mu, v := g.Mean(), g.Var()
		for i := range a.gmax {
			a.gmax[i] = math.Max(a.gmax[i], mu[i]-bg[j]*math.Sqrt(v[i]))
		}
	}
	feasible := false
	for _, v := range a.gmax {
		if v <= 0 {
			feasible = true
			break
		}
	}
	acq := func(mv []float64) float64 {
		gm := math.Inf(-1)
		for j := range a.g {
			gm = math.Max(gm, mv[2+2*j]-bg[j]*math.Sqrt(mv[3+2*j]))
		}
		if !feasible {
			return -gm
		}
		if gm > 0 {
			return -1e9 * (1 + gm) // outside the optimistic feasible set
		}
		return mv[0] + bf*math.Sqrt(mv[1])
	}
	act, _, err := pickAcq(a.rng, a.info.Domain, ms, acq, a.score, refineIf(a.pf != nil, &a.grad), nil, pend, regionIf(a.trust, a.info.Domain, a.ledger, pend))
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
	}
	return a.ledger.Record(r.T, act, 0), nil
}

// Observe implements bandit.Agent.
func (a *ConfigAgent) Observe(fb bandit.Feedback) error {
	return observeGP(a.name, a.ledger, fb, a.f, a.g)
}

func init() {
	Register(Spec{
		Name:    "config",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []string{KindPerRound, KindCumulative}, Pending: PendingHallucinate, DefaultFor: []string{KindPerRound}},
		Summary: "CONFIG: UCB of f over the optimistic feasible set {LCB of g ≤ 0}",
		Source:  "Xu et al. 2023 (AISTATS), baseline of 000 §7",
		Params:  configParams,
		New:     newConfig,
	})
}
