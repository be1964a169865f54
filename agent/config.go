package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/estimator"
)

// configParams: the practical core with one refinement step and the trust
// region, as rpol-ucb's (rpolUCBParams says why).
var (
	configAlpha  = failureDoc("alpha", "failure probability α in β_t (the Chowdhury–Gopalan width CONFIG builds on)", "our choice")
	configScale  = multiplierDoc("beta-scale", "multiplier on β_t", "1: Chowdhury & Gopalan 2017's β_t")
	configParams = practicalParams([]bandit.Param{configAlpha, configScale, lambdaDoc}, "refine", "step", "region", "trust")
)

// ConfigAgent is CONFIG (Xu et al. 2023, "constrained efficient global
// optimization"), the baseline of Guo et al. §7: play the maximiser of
// the UCB of f over the optimistic feasible set {x : LCB of every g_j ≤ 0};
// when that set is empty, play the minimiser of max_j LCB of g_j.
type ConfigAgent struct {
	*gpCore
	betaF, betaG estimator.Beta
	gmax         []float64
}

func newConfig(cfg Config) (bandit.Agent, error) {
	const name = "config"
	ps := cfg.Params
	c, err := newGPCore(name, cfg, coreOptions{})
	if err != nil {
		return nil, err
	}
	in := c.info
	alpha, err := configAlpha.Read(name, ps)
	if err != nil {
		return nil, err
	}
	scale, err := configScale.Read(name, ps)
	if err != nil {
		return nil, err
	}
	fixed, cf, cg, err := widthParams(name, ps, in.Domain)
	if err != nil {
		return nil, err
	}
	return &ConfigAgent{gpCore: c, gmax: make([]float64, c.f.Len()),
		betaF: estimator.Beta{B: in.B, R: in.R, Alpha: alpha, Scale: scale, Fixed: fixed, Const: cf},
		betaG: estimator.Beta{B: in.G, R: in.RG, Alpha: alpha, Scale: scale, Fixed: fixed, Const: cg}}, nil
}

// Decide implements bandit.Agent.
func (a *ConfigAgent) Decide(r *bandit.Round) (bandit.Decision, error) {
	bf := a.betaF.At(a.f.InfoGain())
	bg := make([]float64, len(a.g))
	for j, g := range a.g {
		bg[j] = a.betaG.At(g.InfoGain())
	}
	return a.decide(r, func() Acquisition {
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
		feasible := slices.ContainsFunc(a.gmax, func(v float64) bool { return v <= 0 })
		return func(p Posterior) float64 {
			gm := math.Inf(-1)
			for j := range a.g {
				mu, v := p.G(j)
				gm = math.Max(gm, mu-bg[j]*math.Sqrt(v))
			}
			if !feasible {
				return -gm
			}
			if gm > 0 {
				return -1e9 * (1 + gm) // outside the optimistic feasible set
			}
			mu, v := p.F()
			return mu + bf*math.Sqrt(v)
		}
	})
}

func init() {
	Register(Spec{
		Name:    "config",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindPerRound, KindCumulative}, NeedsConstraints: true, Pending: PendingHallucinate, DefaultFor: []string{string(KindPerRound)}, LearnsFailures: true},
		Summary: "CONFIG: UCB of f over the optimistic feasible set {LCB of g ≤ 0}",
		Source:  "Xu et al. 2023 (AISTATS), baseline of Guo et al. §7",
		Params:  configParams,
		New:     newConfig,
	})
}
