package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// igpParams are the settings of IGP-UCB (Shi & Eryilmaz 2022 Alg. 1) shared by igp-ucb,
// penalty-noiseless and penalty-noisy.
var igpParams = []bandit.Param{
	failureDoc("delta", "δ in β_s = B + R√(2(γ_{s−1}+1+log(1/δ)))", "Shi & Eryilmaz 2022 Alg. 1, line 3, leave δ open: our choice"),
	multiplierDoc("beta-scale", "multiplier on β_s", "1: Shi & Eryilmaz 2022 Alg. 1"),
	bandit.FloatParam{Name: "B", Computed: "problem's B", Range: bandit.AtLeast(0),
		Doc: "RKHS-norm bound B of the objective (Ass. 3/5 for F_l); App. E does not give it", Source: "Shi & Eryilmaz 2022 Alg. 1"},
	lambdaAs("λ of eq. (3)–(4): noise taken as N(0, λ); 1+2/T: Guo et al. §2's value", "Shi & Eryilmaz 2022 §2"),
	bandit.ChoiceParam{Name: "kernel", Default: "problem", Choices: []string{"problem", "se", "matern12", "matern32", "matern52"},
		Doc: "prior kernel: the problem's, or one of these with lengthscale and variance", Source: "Shi & Eryilmaz 2022 eq. 1–2; App. E: Matérn 5/2"},
	bandit.FloatParam{Name: "lengthscale", Default: 1, Range: bandit.Above(0), When: "kernel ≠ problem", Doc: "u of eq. (1)–(2)", Source: "App. E does not give it: our choice"},
	bandit.FloatParam{Name: "variance", Default: 1, Range: bandit.Above(0), When: "kernel ≠ problem", Doc: "prior variance of the kernel", Source: "our choice"},
	inducingDoc,
	igpStandardiseDoc,
	pendingDoc,
}

// igpStandardiseDoc documents standardise on the agents built on igpCore
// (igp-ucb, penalty-noiseless, penalty-noisy, admmbo): the objective's GP
// standardised as with every GP agent (model.Adaptive), the unit-carrying
// constants from model.StandardInfo, and the costs the agent uses outside
// its models divided by a running scale (see each agent). The other
// practical defaults (hyper, widths, candidates) are not taken: these agents
// keep their papers' kernels and widths.
var igpStandardiseDoc = withDoc(standardiseDoc, "on: f standardised, costs scaled, unit-free constants; off: the papers' units")

// igpCore is IGP-UCB (Shi & Eryilmaz 2022 Alg. 1) run on an objective that is a fixed
// linear combination F = y − Σ_j w_j h_j of functions observed at the same
// points: one GP for y and one for each h_j, all with the same kernel, λ
// and points. Because the posterior mean (eq. 3) is linear in the
// observations and the posterior variance (eq. 4) does not depend on them,
// μ_F = μ_y − Σ_j w_j μ_{h_j} and σ_F = σ_y exactly: this is the GP on the
// penalised values F(x_s) = y_s − Σ_j w_j h_j(x_s), for any weights w,
// without refitting when the weights change.
type igpCore struct {
	name  string
	info  bandit.Info
	rng   *rand.Rand
	y     model.Model
	h     []model.Model
	py    model.Predictor
	ph    []model.Predictor
	B     float64
	delta float64
	scale float64
	score []float64
	beta  float64 // β of the last pick
	// halluc: condition on the ledger's pending decisions (parameter pending)
	halluc pendingMode
	ledger *Ledger
	// std: standardise=on (the y model is a standardised model.Adaptive,
	// info holds model.StandardInfo's constants)
	std bool
}

// hModels says what the h models of an igpCore are when standardised.
type hModels int

const (
	// hPlain: exact GPs on values the agent has already made unit-free
	// (the penalty agents feed ψ(g/s) − 1 or g/s, s a running scale).
	hPlain hModels = iota
	// hConstraint: standardised constraint models (model.Adaptive, scaled
	// only, prior mean at the threshold 0), fed the raw costs (admmbo).
	hConstraint
)

func newIGPCore(name string, cfg Config, nh int, hk hModels) (*igpCore, error) {
	ps := cfg.Params
	std, in, err := standardiseOnly(name, cfg)
	if err != nil {
		return nil, err
	}
	delta, err := unitParam(name, ps, "delta", 0.05)
	if err != nil {
		return nil, err
	}
	scale, err := scaleParam(name, ps, "beta-scale", 1)
	if err != nil {
		return nil, err
	}
	b, err := scaleParam(name, ps, "B", in.B)
	if err != nil {
		return nil, err
	}
	lam, err := lambdaParam(name, ps, cfg.Horizon, in.NoiseVar)
	if err != nil {
		return nil, err
	}
	kname, err := ps.String(name, "kernel", "problem", "problem", "se", "matern12", "matern32", "matern52")
	if err != nil {
		return nil, err
	}
	ls, err := ps.Float(name, "lengthscale", 1)
	if err != nil {
		return nil, err
	}
	kv, err := ps.Float(name, "variance", 1)
	if err != nil {
		return nil, err
	}
	var k gp.Kernel = in.Kernel
	switch kname {
	case "se":
		k, err = gp.NewSE(ls, kv)
	case "matern12":
		k, err = gp.NewMatern(0.5, ls, kv)
	case "matern32":
		k, err = gp.NewMatern(1.5, ls, kv)
	case "matern52":
		k, err = gp.NewMatern(2.5, ls, kv)
	}
	if err != nil {
		return nil, bandit.ParamErrorf(name, "kernel", ": %v", err)
	}
	if k == nil {
		return nil, fmt.Errorf("%s: the problem gives no kernel: set kernel=", name)
	}
	c := &igpCore{name: name, info: in, rng: seedRand(cfg.Seed), B: b, delta: delta, scale: scale, std: std, ledger: NewLedger(in.M)}
	if c.halluc, err = pendingParam(name, ps); err != nil {
		return nil, err
	}
	// y and the penalty GPs h_1..h_m share the kernel, λ and the points:
	// one factorisation (model.ForGroup).
	ks := make([]gp.Kernel, 1+nh)
	for j := range ks {
		ks[j] = k
	}
	opts, err := modelOptions(name, ps, in.Domain, false)
	if err != nil {
		return nil, err
	}
	var ms []model.Model
	if !std {
		if ms, err = model.ForGroupOpts(in, ks, lam, opts); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	} else {
		// Standardised: y is an objective model.Adaptive (fixed
		// hyperparameters: the same kernel and λ as the h models, so σ_F =
		// σ_y still holds exactly); the h models as hk says.
		so := opts
		so.Standardise = true
		if ms, err = model.ForGroupOpts(in, ks[:1], lam, so); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if nh > 0 {
			var hs []model.Model
			switch hk {
			case hPlain:
				hs, err = model.ForGroupOpts(in, ks[1:], lam, opts)
			case hConstraint:
				for j := 0; j < nh && err == nil; j++ {
					var h *model.Adaptive
					h, err = model.NewAdaptive(in.Domain, k, lam, model.AdaptiveOptions{Standardise: true, Constraint: true, Inducing: opts.Inducing})
					hs = append(hs, h)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			ms = append(ms, hs...)
		}
	}
	c.y, c.h = ms[0], ms[1:]
	c.py, c.ph = predictors(c.y, c.h)
	c.score = make([]float64, c.y.Len())
	c.ledger.learnFailures(in.Domain, k, c.y)
	return c, nil
}

// Beta is β_s of Shi & Eryilmaz 2022 Alg. 1, line 3, with noise scale R and confidence δ/div
// (div = L in Alg. 2, 2L in Alg. 3), γ_{s−1} the realized information gain.
func (c *igpCore) Beta(R, div float64) float64 {
	return c.scale * (c.B + R*math.Sqrt(2*(c.y.InfoGain()+1+math.Log(div/c.delta))))
}

// pick is lines 3–4 of Shi & Eryilmaz 2022 Alg. 1 on F = y − Σ_j w_j h_j: the arg max of
// μ_F + β σ over the candidates, refined inside a box.
func (c *igpCore) pick(w []float64, beta float64) (bandit.Action, error) {
	c.beta = beta
	undo, pend, err := pendModels(c.halluc, c.ledger, c.y, c.h)
	if err != nil {
		return bandit.Action{}, err
	}
	defer undo()
	ms := append([]model.Model{c.y}, c.h...)
	acq := func(mv []float64) float64 {
		s := mv[0] + beta*math.Sqrt(math.Max(mv[1], 0))
		for j := range c.h {
			if w[j] != 0 {
				s -= w[j] * mv[2+2*j]
			}
		}
		return s
	}
	act, _, err := choice{ms: ms, acq: acq, score: c.score, refine: refineIf(c.py != nil, &maximise.GradOptions{}), pend: pend}.pick(c.rng, c.info.Domain)
	return act, err
}

// record records the decision of the last pick.
func (c *igpCore) record(t int, act bandit.Action, tag int) bandit.Decision {
	return c.ledger.Record(t, act, tag)
}

// add records y and h_1..h_m observed at a (line 6 of Alg. 1).
func (c *igpCore) add(a bandit.Action, y float64, h []float64) error {
	if err := c.y.Observe(a, y); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	for j, m := range c.h {
		if err := m.Observe(a, h[j]); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

// reset forgets every observation (a fresh IGP-UCB run).
func (c *igpCore) reset() {
	c.y.Reset()
	for _, m := range c.h {
		m.Reset()
	}
}

// IGPUCB is Shi & Eryilmaz 2022 Alg. 1 (Chowdhury & Gopalan 2017) as an unconstrained agent:
// it maximises f and ignores every cost observation.
type IGPUCB struct {
	core   *igpCore
	ledger *Ledger
}

func newIGPUCB(cfg Config) (bandit.Agent, error) {
	c, err := newIGPCore("igp-ucb", cfg, 0, hPlain)
	if err != nil {
		return nil, err
	}
	return &IGPUCB{core: c, ledger: c.ledger}, nil
}

// Decide implements bandit.Agent.
func (a *IGPUCB) Decide(r *bandit.Round) (bandit.Decision, error) {
	act, err := a.core.pick(nil, a.core.Beta(a.core.info.R, 1))
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("igp-ucb: round %d: %w", r.T, err)
	}
	return a.core.record(r.T, act, 0), nil
}

// Observe implements bandit.Agent.
func (a *IGPUCB) Observe(fb bandit.Feedback) error {
	acc, err := a.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("igp-ucb: %w", err)
	}
	if acc.HasReward {
		return a.core.add(acc.Action, acc.Reward, nil)
	}
	return nil
}

func init() {
	Register(Spec{
		Name:    "igp-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Pending: PendingHallucinate, LearnsFailures: true},
		Summary: "IGP-UCB: unconstrained GP-UCB on f (ignores the constraints)",
		Source:  "Shi & Eryilmaz 2022 Alg. 1 (Chowdhury & Gopalan 2017, Thm. 3)",
		Params:  igpParams,
		New:     newIGPUCB,
	})
}
