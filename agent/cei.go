package agent

import (
	"math"

	"github.com/cbandit/cbandit/bandit"
)

// CEI is constrained expected improvement (Gardner et al. 2014 ICML §3;
// Gelbart, Snoek & Adams 2014 UAI): EI of f over the best feasible
// posterior mean, times Π_j P(g_j ≤ 0); before any candidate is feasible
// in the model's eyes, the probability of feasibility alone.
type CEI struct{ *gpCore }

// Decide implements bandit.Agent.
func (a *CEI) Decide(r *bandit.Round) (bandit.Decision, error) {
	return a.decide(r, func() Acquisition {
		best := math.Inf(-1) // the largest mean of f where every μ_g ≤ 0
		for i, mu := range a.f.Mean() {
			if feasibleMean(a.g, i) {
				best = math.Max(best, mu)
			}
		}
		return func(p Posterior) float64 {
			pf := probFeasible(p, len(a.g))
			if math.IsInf(best, -1) {
				return pf
			}
			mu, v := p.F()
			return expectedImprovement(mu, v, best) * pf
		}
	})
}

func init() {
	Register(onCore(Spec{
		Name:    "cei",
		Summary: "constrained expected improvement: EI over the best feasible mean × Π P(g_j ≤ 0)",
		Source:  "Gardner et al. 2014 ICML §3; Gelbart, Snoek & Adams 2014 UAI (not in the five papers)",
		// The default for stage-wise limits on typed spaces: ahead of config
		// there, paired over 10 seeds (docs/typed.md).
		Can: Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindPerRound, KindCumulative},
			DefaultFor: []string{string(KindPerRound) + "+typed"}},
	}, policyOn(func(c *gpCore) *CEI { return &CEI{c} })))
}
