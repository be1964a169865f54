package agent

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// igpParams are the settings of IGP-UCB (Shi & Eryilmaz 2022 Alg. 1) shared by igp-ucb,
// penalty-noiseless and penalty-noisy.
var (
	igpDelta = failureDoc("delta", "δ in β_s = B + R√(2(γ_{s−1}+1+log(1/δ)))", "Shi & Eryilmaz 2022 Alg. 1, line 3, leave δ open: our choice")
	igpScale = multiplierDoc("beta-scale", "multiplier on β_s", "1: Shi & Eryilmaz 2022 Alg. 1")
	igpB     = bandit.FloatParam{Name: "B", Computed: "problem's B", Range: bandit.AtLeast(0),
		Doc: "RKHS-norm bound B of the objective (Ass. 3/5 for F_l); App. E does not give it", Source: "Shi & Eryilmaz 2022 Alg. 1"}
	igpKernelDoc = bandit.ChoiceParam{Name: "kernel", Default: "problem", Choices: append([]string{"problem"}, gp.KernelNames...),
		Doc: "prior kernel: the problem's, or one of these with lengthscale and variance", Source: "Shi & Eryilmaz 2022 eq. 1–2; App. E: Matérn 5/2"}
	igpLengthscale = bandit.FloatParam{Name: "lengthscale", Default: 1, Range: bandit.Above(0), When: bandit.IsNot("kernel", "problem"), Doc: "u of eq. (1)–(2)", Source: "App. E does not give it: our choice"}
	igpVariance    = bandit.FloatParam{Name: "variance", Default: 1, Range: bandit.Above(0), When: bandit.IsNot("kernel", "problem"), Doc: "prior variance of the kernel", Source: "our choice"}
	igpParams      = []bandit.Param{
		igpDelta, igpScale, igpB,
		lambdaAs("λ of eq. (3)–(4): noise taken as N(0, λ); 1+2/T: Guo et al. §2's value", "Shi & Eryilmaz 2022 §2"),
		igpKernelDoc, igpLengthscale, igpVariance,
		inducingDoc,
		igpStandardiseDoc,
		pendingDoc,
	}
)

// igpStandardiseDoc documents standardise on the agents built on igpCore
// (igp-ucb, penalty-noiseless, penalty-noisy, admmbo): the objective's GP
// standardised as with every GP agent (model.Adaptive), the unit-carrying
// constants from model.StandardInfo, and the costs the agent uses outside
// its models divided by a running scale (see each agent). The other
// practical defaults (hyper, widths, candidates) are not taken: these agents
// keep their papers' kernels and widths.
var igpStandardiseDoc = withDoc(standardiseDoc, "on: f standardised, costs scaled, unit-free constants; off: the papers' units")

// igpCore is IGP-UCB (Shi & Eryilmaz 2022 Alg. 1) on the decision core,
// run on an objective that is a fixed linear combination F = y − Σ_j w_j
// h_j of functions observed at the same points: the core's f is y and its
// g_j are the h_j, all with the same kernel, λ and points. Because the
// posterior mean (eq. 3) is linear in the observations and the posterior
// variance (eq. 4) does not depend on them, μ_F = μ_y − Σ_j w_j μ_{h_j}
// and σ_F = σ_y exactly: this is the GP on the penalised values F(x_s) =
// y_s − Σ_j w_j h_j(x_s), for any weights w, without refitting when the
// weights change. The core is its paper's (coreOptions.paper): the
// kernel of parameter kernel, the problem's candidates, no initial design
// or trust region, one refinement step.
type igpCore struct {
	*gpCore
	B     float64
	delta float64
	scale float64
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
	delta, err := igpDelta.Read(name, ps)
	if err != nil {
		return nil, err
	}
	scale, err := igpScale.Read(name, ps)
	if err != nil {
		return nil, err
	}
	kname, err := igpKernelDoc.Read(name, ps)
	if err != nil {
		return nil, err
	}
	ls, err := igpLengthscale.Read(name, ps)
	if err != nil {
		return nil, err
	}
	kv, err := igpVariance.Read(name, ps)
	if err != nil {
		return nil, err
	}
	models := func(in bandit.Info, lam float64, o model.Options) (model.Model, []model.Model, gp.Kernel, error) {
		k, err := igpKernel(name, kname, ls, kv, in.Kernel)
		if err != nil {
			return nil, nil, nil, err
		}
		ms, err := igpModels(in, k, lam, o, nh, hk)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return ms[0], ms[1:], k, nil
	}
	core, err := newGPCore(name, cfg, coreOptions{paper: true, models: models})
	if err != nil {
		return nil, err
	}
	b, err := igpB.ReadOr(name, ps, core.info.B)
	if err != nil {
		return nil, err
	}
	return &igpCore{gpCore: core, B: b, delta: delta, scale: scale}, nil
}

// igpKernel is the prior kernel parameter kernel names (the problem's k
// for problem).
func igpKernel(name, kname string, ls, kv float64, k gp.Kernel) (gp.Kernel, error) {
	if kname != "problem" {
		var err error
		if k, err = gp.NewNamed(kname, ls, kv); err != nil {
			return nil, bandit.ParamErrorf(name, "kernel", ": %v", err)
		}
	}
	if k == nil {
		return nil, fmt.Errorf("%s: the problem gives no kernel: set kernel=", name)
	}
	return k, nil
}

// igpModels builds y and the penalty GPs h_1..h_nh on kernel k and λ, all
// at the same points: one factorisation (model.ForGroup). With
// o.Standardise, y is an objective model.Adaptive (fixed hyperparameters:
// the same kernel and λ as the h models, so σ_F = σ_y still holds
// exactly), the h models as hk says.
func igpModels(in bandit.Info, k gp.Kernel, lam float64, o model.Options, nh int, hk hModels) ([]model.Model, error) {
	ks := make([]gp.Kernel, 1+nh)
	for j := range ks {
		ks[j] = k
	}
	if !o.Standardise {
		return model.ForGroupOpts(in, ks, lam, o)
	}
	ms, err := model.ForGroupOpts(in, ks[:1], lam, o)
	if err != nil || nh == 0 {
		return ms, err
	}
	var hs []model.Model
	switch hk {
	case hPlain:
		plain := o
		plain.Standardise = false
		hs, err = model.ForGroupOpts(in, ks[1:], lam, plain)
	case hConstraint:
		for j := 0; j < nh && err == nil; j++ {
			var h *model.Adaptive
			h, err = model.NewAdaptive(in.Domain, k, lam, model.AdaptiveOptions{Standardise: true, Constraint: true, Inducing: o.Inducing})
			hs = append(hs, h)
		}
	}
	return append(ms, hs...), err
}

// Beta is β_s of Shi & Eryilmaz 2022 Alg. 1, line 3, with noise scale R and confidence δ/div
// (div = L in Alg. 2, 2L in Alg. 3), γ_{s−1} the realized information gain.
func (c *igpCore) Beta(R, div float64) float64 {
	return c.scale * (c.B + R*math.Sqrt(2*(c.f.InfoGain()+1+math.Log(div/c.delta))))
}

// ucb is lines 3–4 of Shi & Eryilmaz 2022 Alg. 1 on F = y − Σ_j w_j h_j:
// μ_F + β σ.
func (c *igpCore) ucb(w []float64, beta float64) Acquisition {
	return func(p Posterior) float64 {
		mu, v := p.F()
		s := mu + beta*math.Sqrt(math.Max(v, 0))
		for j := range c.g {
			if w[j] != 0 {
				mh, _ := p.G(j)
				s -= w[j] * mh
			}
		}
		return s
	}
}

// add records y and h_1..h_m observed at a (line 6 of Alg. 1).
func (c *igpCore) add(a bandit.Action, y float64, h []float64) error {
	if err := c.f.Observe(a, y); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	for j, m := range c.g {
		if err := m.Observe(a, h[j]); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

// IGPUCB is Shi & Eryilmaz 2022 Alg. 1 (Chowdhury & Gopalan 2017) as an
// unconstrained agent: it maximises f and ignores every cost observation
// (a core without constraint models).
type IGPUCB struct{ *igpCore }

func newIGPUCB(name string, cfg Config) (bandit.Agent, error) {
	c, err := newIGPCore(name, cfg, 0, hPlain)
	if err != nil {
		return nil, err
	}
	return &IGPUCB{c}, nil
}

// Decide implements bandit.Agent.
func (a *IGPUCB) Decide(r *bandit.Round) (bandit.Decision, error) {
	beta := a.Beta(a.info.R, 1)
	return a.decide(r, func() Acquisition { return a.ucb(nil, beta) })
}

func init() {
	Register(onCore(Spec{
		Name:    "igp-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}},
		Summary: "IGP-UCB: unconstrained GP-UCB on f (ignores the constraints)",
		Source:  "Shi & Eryilmaz 2022 Alg. 1 (Chowdhury & Gopalan 2017, Thm. 3)",
		Params:  igpParams, // the paper's kernel, widths and candidates: of the core's parameters lambda, inducing, standardise and pending
	}, newIGPUCB))
}
