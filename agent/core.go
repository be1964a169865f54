package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/gp"
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

// logProbFeasible is log Π_j P(g_j ≤ 0) under the posterior p of m
// constraints, summed in log space (exact far in the tail).
func logProbFeasible(p Posterior, m int) float64 {
	var lpf float64
	for j := range m {
		mu, v := p.G(j)
		lpf += logNormCDF(-mu / math.Sqrt(math.Max(v, 1e-18)))
	}
	return lpf
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
// candidates and their refinement (candidates, refine, mixed-moves). A policy adds its
// acquisition (or its Thompson draw: turn) and its rule's state; every
// parameter the core reads is in CoreParams, which a policy's declaration
// lists, or its coreOptions say why not.
type gpCore struct {
	name   string
	info   bandit.Info // in the models' units (gpInfo; standardiseOnly for a paper's core)
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
	moves  int // mixed-moves: the typed-space search's largest step
	// unpendG: this decision conditions f alone on the pending decisions,
	// the constraints' models stay on the observed ones (config's safe stage)
	unpendG bool
	// replicates: a metric observed with different values at one
	// configuration is not exact (noisy-replicates: config, lognei)
	replicates bool
	// pureError: the replicates' pure error bounds the posterior variance
	// at an evaluated configuration (noise-check=repeat or unseen: lognei);
	// pureUnseen: only where it exceeds the fit's noise (unseen)
	pureError, pureUnseen bool
	// std: the models see standardised values (a policy divides the costs
	// it uses outside them by model.Scale)
	std bool
	// epoch tags the decisions; feedback of an earlier epoch no longer
	// reaches the models (reset: ckb-restart-ucb; the penalty agents' epochs)
	epoch int
}

// coreOptions are where a policy's core departs from the practical one;
// the policy's declaration says why.
type coreOptions struct {
	// paper: of the practical defaults only standardise (standardiseOnly)
	// and inducing; no initial design, trust region, refine parameter (one
	// refinement step) or mixed-moves (one discrete change a step on a typed space): the
	// paper's kernel, candidates and widths.
	paper bool
	// ownPending: the models take pending decisions themselves (censored
	// GPs): parameter pending is not read.
	ownPending bool
	// models builds f and g_1..g_m and names the kernel the failure model
	// falls back to (nil: model.ForAllOpts and the problem's kernel); on a
	// paper's core o.Standardise is parameter standardise.
	models func(in bandit.Info, lam float64, o model.Options) (f model.Model, g []model.Model, k gp.Kernel, err error)
}

// CoreParams document the parameters the decision core reads for every GP
// policy on it (their defaults may be overridden in a policy's declaration
// with withDefault).
var CoreParams = []bandit.Param{
	lambdaDoc,
	inducingDoc, standardiseDoc, hyperDoc, initDoc, constraintFitDoc, refitDoc, pendingDoc, candidatesDoc, refineDoc, regionDoc, regionPendingDoc,
	regionCandidatesDoc, lengthscalePriorDoc, mixedMovesDoc,
}

// practicalParams is the declaration of a GP policy on the practical
// core: its own parameters, then inducing (unless among them) and the
// practical defaults (practicalDocs: the core's parameters and the
// constant widths), with the defaults it changes as name, value pairs.
func practicalParams(decls []bandit.Param, defaults ...string) []bandit.Param {
	ps := slices.Clone(decls)
	if !bandit.Declares(decls, inducingDoc.Name) {
		ps = append(ps, inducingDoc)
	}
	ps = append(ps, practicalDocs...)
	for k := 0; k+1 < len(defaults); k += 2 {
		ps = withDefault(ps, defaults[k], defaults[k+1])
	}
	return ps
}

// policyOn is the build of a GP policy that is its core plus an
// acquisition (onCore): the practical core of the policy, wrapped.
func policyOn[P bandit.Agent](wrap func(*gpCore) P) func(string, Config) (bandit.Agent, error) {
	return func(name string, cfg Config) (bandit.Agent, error) {
		c, err := newGPCore(name, cfg, coreOptions{})
		if err != nil {
			return nil, err
		}
		return wrap(c), nil
	}
}

// onCoreNames are the algorithms registered through onCore.
var onCoreNames = map[string]bool{}

// onCore is the registration of a GP policy on the decision core: s as
// the policy declares it (name, summary, source; of its capabilities the
// domains, constraint kinds, needs, randomness and the situations it is
// the default for) completed with what the core does for every policy on
// it. Its pending decisions are hallucinated at their posterior mean
// (GP-BUCB, pendModels) unless s.Can names its own way (a Thompson draw
// per decision, censored GPs); failed evaluations are learnt (the
// ledger's failure model, failure.go); its parameters are the core's
// (CoreParams) when s declares none, with the defaults given as name,
// value pairs; and New is build under s.Name, the name written once.
func onCore(s Spec, build func(name string, cfg Config) (bandit.Agent, error), defaults ...string) Spec {
	if s.Can.Pending == "" {
		s.Can.Pending = PendingHallucinate
	}
	s.Can.LearnsFailures = true
	if s.Params == nil {
		s.Params = CoreParams
	}
	for k := 0; k+1 < len(defaults); k += 2 {
		s.Params = withDefault(s.Params, defaults[k], defaults[k+1])
	}
	name := s.Name
	s.New = func(cfg Config) (bandit.Agent, error) { return build(name, cfg) }
	onCoreNames[name] = true
	return s
}

// decisionCore is the core a policy stands on (every policy registered
// through onCore).
func (c *gpCore) decisionCore() *gpCore { return c }

// newGPCore reads the core's parameters of policy name and builds its
// models.
func newGPCore(name string, cfg Config, o coreOptions) (*gpCore, error) {
	ps := cfg.Params
	var in bandit.Info
	var std bool
	var err error
	if o.paper {
		std, in, err = standardiseOnly(name, cfg)
	} else {
		in, err = gpInfo(name, cfg)
	}
	if err != nil {
		return nil, err
	}
	lam, err := lambdaParam(name, ps, cfg.Horizon, in.NoiseVar)
	if err != nil {
		return nil, err
	}
	opts, err := modelOptions(name, ps, in.Domain, !o.paper)
	if err != nil {
		return nil, err
	}
	if o.paper {
		opts.Standardise = std
	} else {
		std = opts.Standardise
	}
	c := &gpCore{name: name, info: in, rng: seedRand(cfg.Seed), ledger: NewLedger(in.M), std: std}
	k := in.Kernel
	if o.models != nil {
		c.f, c.g, k, err = o.models(in, lam, opts)
	} else if c.f, c.g, err = model.ForAllOpts(in, lam, opts); err != nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	if err != nil {
		return nil, err
	}
	if !o.paper {
		if c.design, err = newInitDesign(name, ps, in.Domain, opts, c.rng); err != nil {
			return nil, err
		}
		if c.grad, err = refineParam(name, ps, in.Domain); err != nil {
			return nil, err
		}
		if c.trust, err = regionParam(name, ps); err != nil {
			return nil, err
		}
		if c.moves, err = mixedMovesDoc.Read(name, ps); err != nil {
			return nil, err
		}
	}
	if !o.ownPending {
		if c.halluc, err = pendingParam(name, ps, in.Domain); err != nil {
			return nil, err
		}
	}
	c.ms = append([]model.Model{c.f}, c.g...)
	pf, _ := predictors(c.f, c.g)
	c.refine = pf != nil
	c.score = make([]float64, c.f.Len())
	c.ledger.learnFailures(in.Domain, k, c.f)
	return c, nil
}

// A turn is what a policy adds to one decision of its core: the
// acquisition to maximise, or values at the candidates (fill: a Thompson
// draw's, or an acquisition of the point itself; then no refinement off
// them), fixed to play the candidates' arg max unrefined, and its rule's
// step once the point is chosen (after: the models are still conditioned
// on the pending decisions; it returns the action to play, CKB's safe
// first arm). A draw turn chooses the point itself from the conditioned
// models (draw: SCBO's joint draws at points off the candidates), given
// the pending decisions. With blind the failure model does not steer the
// choice (ADMMBO: its subproblems' scores as its authors' code has them).
type turn struct {
	acq   Acquisition
	fill  func(i int, mv []float64)
	fixed bool
	wide  *wideSearch // opt-in: the wider search on the whole box (wide.go)
	// points: how many candidates a trust region draws (0: SCBO's count, freshStart)
	points int
	// skipF, when set, reports at the posteriors mv where acq does not read
	// f's (mv[0], mv[1], whatever wraps acq): the trust region's fresh
	// candidates there are scored without predicting f (freshStart).
	skipF func(mv []float64) bool
	after func(act bandit.Action, i int) (bandit.Action, error)
	// own: after plays an action of its own whatever the pick, so a trust
	// region's pick keeps its random draws and skips its search
	own   bool
	draw  func(pend pending) (bandit.Action, error)
	blind bool
	// failLimit is δ of the failure model for this decision (0: FailLimit)
	failLimit float64
	// fresh: configurations the decision should not repeat (within
	// RepeatRadius); when the pick repeats one, it is made again away from
	// them all
	fresh []bandit.Action
	// centre, when set, moves the trust region there (its side as its
	// rules replayed)
	centre []float64
	// replay, when set, is what SCBO's rules read of each observed
	// decision (trustRegionBy) instead of its observations
	replay func(k int, e *entry) (v, reward float64)
	// shrink, when set, reads a trust region's pick: again, the pick is
	// made once more in a region centred at centre, its side as the
	// region's and then halved at each pick down to TrustMin, until shrink
	// reports no again (the last pick stands)
	shrink func(act bandit.Action) (centre []float64, again bool)
}

// decide is one decision: the initial design's point in its rounds, else
// the arg max of the policy's acquisition, built by policy once the models
// are conditioned on the pending decisions.
func (c *gpCore) decide(r *bandit.Round, policy func() Acquisition) (bandit.Decision, error) {
	return c.decideTurn(r, func() (turn, error) { return turn{acq: policy()}, nil })
}

// decideTurn is decide for a policy that draws, refines or not, or steps
// its rule after the decision (turn); policy's errors are returned as
// they are.
func (c *gpCore) decideTurn(r *bandit.Round, policy func() (turn, error)) (bandit.Decision, error) {
	if d, ok := c.designed(r.T); ok {
		return d, nil
	}
	undo, pend, err := c.condition(r.T)
	if err != nil {
		return bandit.Decision{}, err
	}
	defer undo()
	tn, err := policy()
	if err != nil {
		return bandit.Decision{}, err
	}
	var act bandit.Action
	i := -1
	if tn.draw != nil {
		act, err = tn.draw(pend)
	} else {
		refine := c.refine && tn.fill == nil && !tn.fixed
		reg := regionIf(c.trust, c.info.Domain, c.ledger, pend)
		if reg != nil {
			reg.points = tn.points
			if tn.replay != nil {
				reg = reg.replayed(c.info.Domain, c.ledger, tn.replay)
			}
			if tn.centre != nil {
				reg = reg.recentred(c.info.Domain, tn.centre)
			}
		}
		ch := choice{ms: c.ms, acq: tn.acq.raw(), score: c.score, refine: refineIf(refine, &c.grad), fill: tn.fill, pend: pend,
			reg: reg, moves: c.moves, wide: tn.wide, blind: tn.blind, failLimit: tn.failLimit, skipF: tn.skipF, own: tn.own}
		act, i, err = ch.pick(c.rng, c.info.Domain)
		if rep := repeatsWithin(c.info.Domain, tn.fresh, RepeatRadius); err == nil && rep != nil && rep(act) {
			ch.avoid = rep
			act, i, err = ch.pick(c.rng, c.info.Domain)
		}
		if err == nil && reg != nil && tn.shrink != nil {
			for side := reg.side; side >= TrustMin && err == nil; side /= 2 {
				centre, again := tn.shrink(act)
				if !again {
					break
				}
				ch.reg = reg.at(c.info.Domain, centre, side)
				act, i, err = ch.pick(c.rng, c.info.Domain)
			}
		}
	}
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", c.name, r.T, err)
	}
	if tn.after != nil {
		if act, err = tn.after(act, i); err != nil {
			return bandit.Decision{}, err
		}
	}
	return c.ledger.Record(r.T, act, c.epoch), nil
}

// observe matches feedback to its decision and adds it to the models
// (a policy without constraint models ignores the costs; feedback of an
// earlier epoch is matched and dropped).
func (c *gpCore) observe(fb bandit.Feedback) (Accepted, error) {
	acc, err := c.ledger.Accept(fb)
	if err == nil && acc.Tag == c.epoch {
		m := acc
		if len(c.g) == 0 {
			m.Costs = nil
		}
		err = ObserveModels(m, c.f, c.g)
	}
	if err != nil {
		return acc, fmt.Errorf("%s: %w", c.name, err)
	}
	return acc, nil
}

// reset forgets every observation of the models and starts the next epoch.
func (c *gpCore) reset() {
	for _, m := range c.ms {
		m.Reset()
	}
	c.epoch++
}

// Observe implements bandit.Agent.
func (c *gpCore) Observe(fb bandit.Feedback) error {
	_, err := c.observe(fb)
	return err
}

// Abandon implements bandit.Abandoner.
func (c *gpCore) Abandon(id int64) error { return c.ledger.Abandon(id) }

// Impose implements bandit.Imposer.
func (c *gpCore) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	return c.impose(r, act, nil)
}

// impose records a decision a person made; begin, when set, starts the
// policy's round first (as its own decisions do).
func (c *gpCore) impose(r *bandit.Round, act bandit.Action, begin func(t int)) (bandit.Decision, error) {
	act, err := imposedAction(c.info.Domain, act)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: %w", c.name, err)
	}
	if begin != nil {
		begin(r.T)
	}
	return c.ledger.Record(r.T, act, c.epoch), nil
}
