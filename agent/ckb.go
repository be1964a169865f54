package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/estimator"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/rule"
)

// drawDoc declares how ckb-ts draws.
var drawDoc = bandit.ChoiceParam{Name: "draw", Default: "pathwise", Choices: []string{"pathwise", "dense"},
	Doc:     "pathwise: Matheron's rule over every model that can, O(M² + M·t); dense: the full covariance unless bare arms, O(M³)",
	Source:  "Wilson et al. 2020; measured: docs/thompson.md",
	Earlier: []bandit.Change{{Until: 7, Value: "dense", Why: "Thompson draws pathwise (ckb-ts)"}}}

// upToInf is (0, ∞]: the primal-dual rule takes ∞ (no bound, no step).
var upToInf = bandit.Range{Min: 0, Max: math.Inf(1), MinEnd: bandit.Open, MaxEnd: bandit.Closed}

// The parameters of every CKB variant (Zhou & Ji (CBO) Alg. 1 = Zhou & Ji
// 2022 Alg. 1).
var (
	ckbAlpha = failureDoc("alpha", "failure probability α in β_t", "Zhou & Ji (CBO) Thm. 1 leaves it open: our choice")
	ckbScale = multiplierDoc("beta-scale", "multiplier on β_t", "1: Zhou & Ji (CBO) Thm. 1")
	ckbRho   = bandit.FloatParam{Name: "rho", Computed: "4B/δ", Range: upToInf, Doc: "dual bound ρ, δ the Slater constant of Ass. 1", Source: "Zhou & Ji (CBO) Thm. 1: ρ ≥ 4B/δ"}
	ckbV     = bandit.FloatParam{Name: "V", Computed: "G√T/ρ", Range: upToInf, Doc: "dual step 1/V", Source: "Zhou & Ji (CBO) Thm. 1"}
	ckbEps   = bandit.FloatParam{Name: "eps", Computed: "0 (widths=practical: 0.2δ; ckb-ucb-slack: δ/2)", Range: zeroToInf,
		Doc: "slackness ε in the dual update φ ← Proj(φ + (ḡ+ε)/V)", Source: "Zhou & Ji 2022 §4: ε ≤ δ/2; 0.2δ measured: docs/defaults.md"}
	ckbFirst = bandit.ChoiceParam{Name: "first", Default: "random", Choices: []string{"random", "safe"},
		Doc: "round 1 on a finite domain: random or safe (the known safe action)", Source: "Chowdhury & Gopalan's code"}
	ckbDual = bandit.FloatParam{Name: "dual", Computed: "1 (widths=theory: optimistic)", Range: bandit.AtLeast(0), Words: []string{"optimistic", "mean"},
		Doc: "ḡ in the dual step: optimistic (μ − βσ), mean, or w: μ − wσ", Source: "Zhou & Ji (CBO) Alg. 1 line 7; 1 measured: docs/defaults.md",
		Earlier: []bandit.Change{{Until: 4, Value: "optimistic", Why: "CKB's dual step on the posterior mean less one σ"}}}
)

// ckbParams are shared by every CKB variant: the practical core, every
// feature of it.
var ckbParams = practicalParams([]bandit.Param{
	ckbAlpha, ckbScale, ckbRho, ckbV, ckbEps,
	lambdaAs("GP likelihood noise variance λ, the same meaning in every GP agent; 1+2/T: Guo et al. §2's value", "Zhou & Ji (CBO) §2"),
	ckbFirst, inducingDoc, ckbDual,
})

// PracticalSlack is the slackness ε of the dual update under the practical
// widths, as a fraction of δ (Zhou & Ji 2022 §4 allows ε ≤ δ/2): the optimistic ḡ at
// the played point enters the dual update, so with ε = 0 the average of
// the true g settles above 0; 0.2δ brings the suite's late long-term
// violation to 0 at less regret than 0.5δ (docs/defaults.md, "Evidence").
const PracticalSlack = 0.2

// PracticalDualWidth is the width w of ḡ = μ − wσ in the dual step under
// the practical widths (docs/defaults.md, "Generation 5"): with the rule's β the centred
// constraint fit's wider σ raised the violation, with the posterior mean
// early violations count in full and the dual can pin the agent to the far
// feasible disk; w = 1 does neither (docs/defaults.md, "No stuck runs").
const PracticalDualWidth = 1

// CKB is Zhou & Ji (CBO) Algorithm 1 on the decision core: an exploration
// strategy per function, truncation to [−B,B] / [−G,G], and the
// primal-dual rule.
type CKB struct {
	*gpCore
	estF  estimator.Estimator
	estG  estimator.Estimator
	betaF estimator.Beta
	betaG estimator.Beta
	rule  *rule.PrimalDual
	// firstArm is the arm of round 1 (−1: the maximiser's choice).
	firstArm int
	// clipF, clipG are the truncation bounds of Zhou & Ji (CBO) Alg. 1 lines 3–4 (B,
	// G); +Inf with widths=practical: in standardised units a bound of 3
	// flattened the UCB of f above 3 sample standard deviations, and the
	// agent wandered among the ties (docs/defaults.md, "Evidence").
	clipF, clipG float64
	dualW        float64 // ḡ = μ − dualW·σ in the dual step; < 0: the rule's β (parameter dual)
	// refined: UCB estimators on a box, whose acquisition the core refines
	// (a Thompson draw has values on the candidates only; RandGP-UCB's
	// acquisition is scanned over the candidates alone)
	refined bool
	restart int // H of CKB-RestartUCB (ckbrestart.go); 0 = never
	// scratch
	fb   []float64
	gb   [][]float64
	gAtX []float64
}

// ckbOptions selects the exploration strategy and the default slackness.
type ckbOptions struct {
	estF, estG estimator.Estimator
	slack      bool
	restart    bool // ckb-restart-ucb: reset the posteriors every H rounds
}

func newCKB(name string, cfg Config, o ckbOptions) (*CKB, error) {
	p := cfg.Params
	c, err := newGPCore(name, cfg, coreOptions{})
	if err != nil {
		return nil, err
	}
	in := c.info
	alpha, err := ckbAlpha.Read(name, p)
	if err != nil {
		return nil, err
	}
	scale, err := ckbScale.Read(name, p)
	if err != nil {
		return nil, err
	}
	fixed, cf, cg, err := widthParams(name, p, in.Domain)
	if err != nil {
		return nil, err
	}
	if !(in.B > 0) || !(in.G > 0) {
		return nil, fmt.Errorf("%s: the problem must state bounds B > 0 and G > 0 (got B = %v, G = %v)", name, in.B, in.G)
	}
	delta := in.Slater
	if !(delta > 0) {
		delta = 1 // Zhou & Ji (CBO) Ass. 1 takes δ ≤ 1 w.l.o.g.; unknown δ → 1
	}
	rho, err := ckbRho.ReadOr(name, p, 4*in.B/delta)
	if err != nil {
		return nil, err
	}
	V, err := ckbV.ReadOr(name, p, in.G*math.Sqrt(float64(cfg.Horizon))/rho)
	if err != nil {
		return nil, err
	}
	dualW, err := dualParam(name, p, fixed)
	if err != nil {
		return nil, err
	}
	epsDef := 0.0
	switch {
	case o.slack:
		epsDef = delta / 2
	case fixed:
		epsDef = PracticalSlack * delta
	}
	eps, err := ckbEps.ReadOr(name, p, epsDef)
	if err != nil {
		return nil, err
	}
	pd, err := rule.NewPrimalDual(in.M, rho, V, eps)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	first, err := ckbFirst.Read(name, p)
	if err != nil {
		return nil, err
	}
	firstArm := -1
	if first == "safe" {
		if _, finite := in.Domain.(*domain.Finite); !finite || in.Safe == nil {
			return nil, bandit.ParamErrorf(name, "first", "= safe: needs a finite domain and a known safe action (the problem gives domain %s, safe action %v)", in.Domain, in.Safe != nil)
		}
		firstArm = in.Safe.Arm
	}
	_, isBox := in.Domain.(*domain.Box)
	_, uf := o.estF.(estimator.UCB)
	_, ug := o.estG.(estimator.UCB)
	a := &CKB{
		gpCore: c, firstArm: firstArm, estF: o.estF, estG: o.estG,
		betaF: estimator.Beta{B: in.B, R: in.R, Alpha: alpha, Scale: scale, Fixed: fixed, Const: cf},
		betaG: estimator.Beta{B: in.G, R: in.RG, Alpha: alpha, Scale: scale, Fixed: fixed, Const: cg},
		rule:  pd,
		clipF: in.B, clipG: in.G, dualW: dualW,
		refined: isBox && uf && ug && c.refine,
		fb:      make([]float64, c.f.Len()), gAtX: make([]float64, in.M),
	}
	if fixed {
		a.clipF, a.clipG = math.Inf(1), math.Inf(1)
	}
	for range c.g {
		a.gb = append(a.gb, make([]float64, c.f.Len()))
	}
	if o.restart {
		if a.restart, err = restartParam(name, cfg); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// dualParam reads dual: the width w of ḡ = μ − wσ in the dual step, −1
// for optimistic (the rule's own β); its default is PracticalDualWidth
// with the practical widths (fixed), optimistic with the paper's.
func dualParam(name string, p bandit.Params, fixed bool) (float64, error) {
	v, _ := p.Given(ckbDual)
	if v == "" && fixed {
		return PracticalDualWidth, nil
	}
	switch v {
	case "", "optimistic":
		return -1, nil
	case "mean":
		return 0, nil
	}
	w, err := ckbDual.ReadOr(name, p, 0)
	if err != nil {
		return 0, bandit.ParamErrorf(name, ckbDual.Name, "= %q: optimistic, mean or a width w ≥ 0 (ḡ = μ − wσ)", v)
	}
	return w, nil
}

func seedRand(s uint64) *rand.Rand { return seed.Rand(s) }

// fnName names model j of f, g_1..g_m in errors.
func fnName(j int) string {
	if j == 0 {
		return "f"
	}
	return fmt.Sprintf("g_%d", j)
}

// Decide implements bandit.Agent: lines 2–7 of Zhou & Ji (CBO) Alg. 1. In
// the initial design's rounds (parameter init) the models learn from its
// observations; the dual variable, whose update (line 7) is driven by the
// rule's own choices, stays where it is.
func (a *CKB) Decide(r *bandit.Round) (bandit.Decision, error) {
	a.begin(r.T)
	return a.decideTurn(r, func() (turn, error) { return a.turn(r.T) })
}

// turn is one decision's primal-dual score and dual step.
func (a *CKB) turn(t int) (turn, error) {
	// Each function's guess (Zhou & Ji (CBO) Alg. 1 lines 3–4): pointwise μ + wσ for
	// UCB (w = β_t, −β_t for g: optimistic for the cost) and RandGP-UCB (w =
	// Z_t, one draw per round); a Thompson draw is a vector over the
	// candidates (fill), with no value off them.
	ms := a.ms
	w := make([]float64, len(ms))
	draws := make([][]float64, len(ms))
	pointwise := true
	for j, m := range ms {
		est, beta, dst := a.estF, a.betaF.At(m.InfoGain()), a.fb
		if j > 0 {
			est, beta, dst = a.estG, -a.betaG.At(m.InfoGain()), a.gb[j-1]
		}
		wj, ok, err := estimator.Pointwise(est, a.rng, beta)
		if err != nil {
			return turn{}, fmt.Errorf("%s: estimate %s: %w", a.name, fnName(j), err)
		}
		if ok {
			w[j] = wj
			continue
		}
		pointwise = false
		if err := est.Estimate(a.rng, m, beta, dst); err != nil {
			return turn{}, fmt.Errorf("%s: estimate %s: %w", a.name, fnName(j), err)
		}
		draws[j] = dst
	}
	ucb := func(mu, v, w, c float64) float64 { return math.Max(-c, math.Min(c, mu+w*math.Sqrt(v))) }
	// the primal-dual score f̄ − Σ_j φ_j ḡ_j (Zhou & Ji (CBO) Alg. 1 line 5)
	acq := func(p Posterior) float64 {
		mu, v := p.F()
		s := ucb(mu, v, w[0], a.clipF)
		for j, phi := range a.rule.Phi {
			if phi != 0 {
				mu, v := p.G(j)
				s -= phi * ucb(mu, v, w[j+1], a.clipG)
			}
		}
		return s
	}
	var fill func(i int, mv []float64)
	if !pointwise {
		means, vars := make([][]float64, len(ms)), make([][]float64, len(ms))
		for j, m := range ms {
			means[j], vars[j] = m.Mean(), m.Var()
		}
		fill = func(i int, mv []float64) {
			for j := range ms {
				if draws[j] != nil {
					mv[2*j], mv[2*j+1] = draws[j][i], 0
				} else {
					mv[2*j], mv[2*j+1] = means[j][i], vars[j][i]
				}
			}
		}
	}
	first := t == 1 && a.firstArm >= 0
	refine := pointwise && a.refined && !first
	// ḡ at the played point enters the dual step (line 7); with a dual
	// width w it is μ − wσ there, a Thompson draw's too
	step := func(act bandit.Action, i int) (bandit.Action, error) {
		if first {
			i = a.firstArm
			act = a.f.Action(i)
		}
		mv := make([]float64, 2*len(ms))
		if a.dualW >= 0 {
			for j := 1; j < len(w); j++ {
				w[j] = -a.dualW
			}
		}
		if act.Arm >= 0 || !refine {
			if fill != nil && a.dualW < 0 {
				fill(i, mv)
			} else {
				for j, m := range ms {
					mv[2*j], mv[2*j+1] = m.Mean()[i], m.Var()[i]
				}
			}
		} else { // the constraints' models only: a prediction goes through the solve cache
			for j, m := range a.g {
				mv[2+2*j], mv[3+2*j] = model.AsPredictor(m).Predict(act.X)
			}
		}
		for j := range a.g {
			a.gAtX[j] = ucb(mv[2+2*j], mv[3+2*j], w[j+1], a.clipG)
		}
		a.rule.Update(a.gAtX)
		return act, nil
	}
	return turn{acq: acq, fill: fill, fixed: !refine, after: step}, nil
}

// Impose implements bandit.Imposer: the dual variable, whose step (Zhou &
// Ji (CBO) Alg. 1 line 7) follows the agent's own choices, is left as it is.
func (a *CKB) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	return a.impose(r, act, a.begin)
}

// Dual returns the current dual variables φ (for tests and reports).
func (a *CKB) Dual() []float64 { return append([]float64(nil), a.rule.Phi...) }

func init() {
	Register(onCore(Spec{
		Name:    "ckb-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true, DefaultFor: []string{string(KindLongTerm)}},
		Summary: "CKB/CBO primal-dual with GP-UCB exploration (optimistic f and g)",
		Source:  "Zhou & Ji (CBO) Alg. 1, §3.1, Thm. 1 (= Zhou & Ji 2022 Alg. 1, CKB-UCB)",
		Params:  ckbParams,
	}, func(name string, cfg Config) (bandit.Agent, error) {
		return newCKB(name, cfg, ckbOptions{estF: estimator.UCB{}, estG: estimator.UCB{}})
	}))
	Register(onCore(Spec{
		Name:    "ckb-ucb-slack",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true},
		Summary: "CKB-UCB with slackness ε = δ/2 in the dual update (bounded/zero violation)",
		Source:  "Zhou & Ji 2022 §4",
		Params:  ckbParams,
	}, func(name string, cfg Config) (bandit.Agent, error) {
		return newCKB(name, cfg, ckbOptions{estF: estimator.UCB{}, estG: estimator.UCB{}, slack: true})
	}))
	Register(onCore(Spec{
		Name:    "ckb-ts",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true, Randomised: true, Pending: PendingDraw},
		Summary: "CKB/CBO primal-dual with GP-TS exploration (joint draws for f and g)",
		Source:  "Zhou & Ji (CBO) Alg. 1, Def. 1 (ii), Cor. 2 (= Zhou & Ji 2022 CKB-TS)",
		Params:  append(slices.Clone(ckbParams), drawDoc),
	}, func(name string, cfg Config) (bandit.Agent, error) {
		draw, err := drawDoc.Read(name, cfg.Params)
		if err != nil {
			return nil, err
		}
		dense := draw == "dense"
		return newCKB(name, cfg, ckbOptions{estF: &estimator.TS{Dense: dense}, estG: &estimator.TS{Dense: dense}})
	}))
	Register(onCore(Spec{
		Name:    "ckb-rand",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true, Randomised: true, Pending: PendingDraw},
		Summary: "CKB/CBO primal-dual with RandGP-UCB exploration (one shared Z per round)",
		Source:  "Zhou & Ji (CBO) Alg. 1, Def. 2, Cor. 3, App. D.4 (= Zhou & Ji 2022 CKB-Rand)",
		Params:  append(slices.Clone(ckbParams), randParams...),
	}, func(name string, cfg Config) (bandit.Agent, error) {
		o, err := randOptions(name, cfg.Params)
		if err != nil {
			return nil, err
		}
		return newCKB(name, cfg, o)
	}))
}

// randParams select the distribution of Z_t for RandGP-UCB.
var (
	zDoc       = bandit.ChoiceParam{Name: "z", Default: "gaussian", Choices: []string{"gaussian", "uniform", "fixed"}, Doc: "Z_t: gaussian N(0, β_t²) (Cor. 3), uniform on [0, 2β_t] (App. D.4), fixed β_t (GP-UCB)", Source: "Zhou & Ji (CBO) Cor. 3, App. D.4"}
	zPointsDoc = bandit.IntParam{Name: "z-points", Default: 10, When: bandit.Is("z", "uniform"), Doc: "number N of grid points of z=uniform (at least 2)", Source: "Zhou & Ji (CBO) App. D.4 leaves N open: our choice"}
	randParams = []bandit.Param{zDoc, zPointsDoc}
)

func randOptions(name string, p bandit.Params) (ckbOptions, error) {
	zs, err := zDoc.Read(name, p)
	if err != nil {
		return ckbOptions{}, err
	}
	z, err := estimator.ParseZDist(zs)
	if err != nil {
		return ckbOptions{}, bandit.ParamErrorf(name, "z", ": %v", err)
	}
	pts, err := zPointsDoc.Read(name, p)
	if err != nil {
		return ckbOptions{}, err
	}
	if z == estimator.ZUniform && pts < 2 {
		return ckbOptions{}, bandit.ParamErrorf(name, "z-points", "= %d: must be at least 2", pts)
	}
	return ckbOptions{estF: &estimator.RandUCB{Dist: z, Points: pts}, estG: &estimator.RandUCB{Dist: z, Points: pts}}, nil
}

// F returns the reward model (for tests and diagnostics).
func (a *CKB) F() model.Model { return a.f }

// G returns the model of constraint j (for tests and diagnostics).
func (a *CKB) G(j int) model.Model { return a.g[j] }
