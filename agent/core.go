package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// Posterior is what an acquisition reads at one point: the posterior mean
// and variance of the objective f and of each constraint g_j, by name.
type Posterior struct{ mv []float64 }

// F is f's posterior mean and variance.
func (p Posterior) F() (mean, variance float64) { return p.mv[0], p.mv[1] }

// G is g_j's posterior mean and variance.
func (p Posterior) G(j int) (mean, variance float64) { return p.mv[2+2*j], p.mv[3+2*j] }

// Acquisition is a GP policy's score of a point: larger is better.
type Acquisition func(p Posterior) float64

// raw is a over the core's layout of posteriors.
func (a Acquisition) raw() acquisition {
	return func(mv []float64) float64 { return a(Posterior{mv}) }
}

// probFeasible is Π_j P(g_j ≤ 0) under the posterior p of m constraints.
func probFeasible(p Posterior, m int) float64 {
	pf := 1.0
	for j := range m {
		mu, v := p.G(j)
		pf *= normCDF(-mu / math.Sqrt(math.Max(v, 1e-18)))
	}
	return pf
}

// feasibleMean reports whether every constraint's posterior mean at
// candidate i is ≤ 0.
func feasibleMean(g []model.Model, i int) bool {
	for _, m := range g {
		if !(m.Mean()[i] <= 0) {
			return false
		}
	}
	return true
}

// gpCore is the decision core a GP policy stands on: the models of f and
// g_1..g_m (model.ForAllOpts), the ledger of decisions and their feedback
// (failures included), the pending decisions (parameter pending), the
// initial design (init), the trust region (region, region-pending), the
// candidates and their refinement (candidates, refine). A policy adds its
// acquisition and its rule's state; every parameter the core reads is in
// CoreParams, which a policy's declaration lists.
type gpCore struct {
	name   string
	info   bandit.Info // in the models' units (gpInfo)
	rng    *rand.Rand
	f      model.Model
	g      []model.Model
	ms     []model.Model // f, g_1..g_m
	ledger *Ledger
	halluc pendingMode
	trust  regionMode
	grad   maximise.GradOptions
	refine bool
	design initDesign
	score  []float64
	moves  int // mixed-moves
}

// CoreParams document the parameters the decision core reads for every GP
// policy on it (their defaults may be overridden in a policy's declaration
// with withDefault).
var CoreParams = []bandit.Param{
	lambdaDoc,
	inducingDoc, standardiseDoc, hyperDoc, initDoc, constraintFitDoc, refitDoc, pendingDoc, candidatesDoc, refineDoc, regionDoc, regionPendingDoc,
	regionCandidatesDoc, lengthscalePriorDoc, mixedMovesDoc,
}

// policyOn is the factory of a GP policy that is its core plus an
// acquisition: the core of policy name, wrapped.
func policyOn[P bandit.Agent](name string, wrap func(*gpCore) P) func(Config) (bandit.Agent, error) {
	return func(cfg Config) (bandit.Agent, error) {
		c, err := newGPCore(name, cfg)
		if err != nil {
			return nil, err
		}
		return wrap(c), nil
	}
}

// newGPCore reads the core's parameters of policy name and builds its
// models.
func newGPCore(name string, cfg Config) (*gpCore, error) {
	ps := cfg.Params
	in, err := gpInfo(name, cfg)
	if err != nil {
		return nil, err
	}
	lam, err := lambdaParam(name, ps, cfg.Horizon, in.NoiseVar)
	if err != nil {
		return nil, err
	}
	opts, err := modelOptions(name, ps, in.Domain, true)
	if err != nil {
		return nil, err
	}
	c := &gpCore{name: name, info: in, rng: seedRand(cfg.Seed), ledger: NewLedger(in.M)}
	if c.f, c.g, err = model.ForAllOpts(in, lam, opts); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if c.design, err = newInitDesign(name, ps, in.Domain, opts, c.rng); err != nil {
		return nil, err
	}
	if c.grad, err = refineParam(name, ps, in.Domain); err != nil {
		return nil, err
	}
	if c.halluc, err = pendingParam(name, ps); err != nil {
		return nil, err
	}
	if c.trust, err = regionParam(name, ps); err != nil {
		return nil, err
	}
	if c.moves, err = mixedMovesDoc.Read(name, ps); err != nil {
		return nil, err
	}
	c.ms = append([]model.Model{c.f}, c.g...)
	pf, _ := predictors(c.f, c.g)
	c.refine = pf != nil
	c.score = make([]float64, c.f.Len())
	c.ledger.learnFailures(in.Domain, in.Kernel, c.f)
	return c, nil
}

// decide is one decision: the initial design's point in its rounds, else
// the arg max of the policy's acquisition, built by policy once the models
// are conditioned on the pending decisions.
func (c *gpCore) decide(r *bandit.Round, policy func() Acquisition) (bandit.Decision, error) {
	if act, ok := c.design.at(r.T); ok {
		return c.ledger.Record(r.T, act, 0), nil
	}
	undo, pend, err := pendModels(c.halluc, c.ledger, c.f, c.g)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", c.name, r.T, err)
	}
	defer undo()
	ch := choice{ms: c.ms, acq: policy().raw(), score: c.score, refine: refineIf(c.refine, &c.grad), pend: pend,
		reg: regionIf(c.trust, c.info.Domain, c.ledger, pend), moves: c.moves}
	act, _, err := ch.pick(c.rng, c.info.Domain)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", c.name, r.T, err)
	}
	return c.ledger.Record(r.T, act, 0), nil
}

// Observe implements bandit.Agent.
func (c *gpCore) Observe(fb bandit.Feedback) error { return observeGP(c.name, c.ledger, fb, c.f, c.g) }

// Abandon implements bandit.Abandoner.
func (c *gpCore) Abandon(id int64) error { return c.ledger.Abandon(id) }

// Impose implements bandit.Imposer.
func (c *gpCore) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	act, err := imposedAction(c.info.Domain, act)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: %w", c.name, err)
	}
	return c.ledger.Record(r.T, act, 0), nil
}
