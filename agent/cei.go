package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// CEI is constrained expected improvement (Gardner et al. 2014 ICML §3;
// Gelbart, Snoek & Adams 2014 UAI): EI of the objective over the best
// feasible posterior mean, times Π_j P(g_j ≤ 0); before any point is
// feasible in the model's eyes, the probability of feasibility alone. A
// policy on the decision core: the GP models, the pending decisions and the
// maximiser are the core's.
type CEI struct {
	name   string
	info   bandit.Info
	rng    *rand.Rand
	f      model.Model
	g      []model.Model
	ms     []model.Model
	ledger *Ledger
	halluc pendingMode
	grad   maximise.GradOptions // the box refinement (parameter refine)
	refine bool
	design initDesign
	score  []float64
}

func newCEI(cfg Config) (bandit.Agent, error) {
	const name = "cei"
	in, err := gpInfo(name, cfg)
	if err != nil {
		return nil, err
	}
	lam, err := lambdaParam(name, cfg.Params, cfg.Horizon, in.NoiseVar)
	if err != nil {
		return nil, err
	}
	opts, err := modelOptions(name, cfg.Params, in.Domain, true)
	if err != nil {
		return nil, err
	}
	a := &CEI{name: name, info: in, rng: seedRand(cfg.Seed), ledger: NewLedger(in.M)}
	if a.f, a.g, err = model.ForAllOpts(in, lam, opts); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if a.grad, err = refineParam(name, cfg.Params, in.Domain); err != nil {
		return nil, err
	}
	if a.halluc, err = pendingParam(name, cfg.Params); err != nil {
		return nil, err
	}
	if a.design, err = newInitDesign(name, cfg.Params, in.Domain, opts, a.rng); err != nil {
		return nil, err
	}
	a.ms = append([]model.Model{a.f}, a.g...)
	pf, _ := predictors(a.f, a.g)
	a.refine = pf != nil
	a.score = make([]float64, a.f.Len())
	return a, nil
}

// Decide implements bandit.Agent.
func (a *CEI) Decide(r *bandit.Round) (bandit.Decision, error) {
	if act, ok := a.design.at(r.T); ok {
		return a.ledger.Record(r.T, act, 0), nil
	}
	// best: the largest posterior mean of f among the candidates whose
	// every constraint is feasible with probability ≥ 1/2 (μ_g ≤ 0), before
	// conditioning on the pending points (their mean does not move).
	best := math.Inf(-1)
	mu := a.f.Mean()
	for i := range mu {
		ok := true
		for _, g := range a.g {
			ok = ok && g.Mean()[i] <= 0
		}
		if ok {
			best = math.Max(best, mu[i])
		}
	}
	undo, pend, err := pendModels(a.halluc, a.ledger, a.f, a.g)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
	}
	defer undo()
	acq := func(mv []float64) float64 {
		pf := 1.0
		for j := range a.g {
			pf *= normCDF(-mv[2+2*j] / math.Sqrt(math.Max(mv[3+2*j], 1e-18)))
		}
		if math.IsInf(best, -1) {
			return pf
		}
		return expectedImprovement(mv[0], mv[1], best) * pf
	}
	act, _, err := pickAcq(a.rng, a.info.Domain, a.ms, acq, a.score, refineIf(a.refine, &a.grad), nil, pend, nil)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
	}
	return a.ledger.Record(r.T, act, 0), nil
}

// Observe implements bandit.Agent.
func (a *CEI) Observe(fb bandit.Feedback) error {
	return observeGP(a.name, a.ledger, fb, a.f, a.g)
}

// Abandon implements bandit.Abandoner.
func (a *CEI) Abandon(id int64) error { return a.ledger.Abandon(id) }

func init() {
	Register(Spec{
		Name:    "cei",
		Summary: "constrained expected improvement: EI over the best feasible mean × Π P(g_j ≤ 0)",
		Source:  "Gardner et al. 2014 ICML §3; Gelbart, Snoek & Adams 2014 UAI (not in the five papers)",
		Params: []bandit.ParamDoc{{Name: "lambda", Default: "problem's noise variance", Doc: "GP likelihood noise variance λ"},
			inducingDoc, standardiseDoc, hyperDoc, initDoc, constraintFitDoc, refitDoc, pendingDoc, candidatesDoc, refineDoc},
		Can: Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []string{KindPerRound, KindCumulative}, Pending: PendingHallucinate},
		New: newCEI,
	})
}
