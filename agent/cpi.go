package agent

import (
	"math"

	"github.com/cbandit/cbandit/bandit"
)

// CPI is the probability of improvement (Kushner 1964) over the best
// feasible posterior mean, times Π_j P(g_j ≤ 0) (the feasibility weight of
// Gardner et al. 2014 ICML §3): a GP policy on the decision core in one
// file, with what the core gives every policy.
type CPI struct{ *gpCore }

// Decide implements bandit.Agent.
func (a *CPI) Decide(r *bandit.Round) (bandit.Decision, error) {
	return a.decide(r, func() Acquisition {
		best := math.Inf(-1)
		for i, mu := range a.f.Mean() {
			if feasibleMean(a.g, i) {
				best = math.Max(best, mu)
			}
		}
		return func(p Posterior) float64 {
			mu, v := p.F()
			return normCDF((mu-best)/math.Sqrt(math.Max(v, 1e-18))) * probFeasible(p, len(a.g))
		}
	})
}

func init() {
	Register(onCore(Spec{Name: "cpi", Summary: "constrained probability of improvement: P(f > best feasible mean) × Π P(g_j ≤ 0)",
		Source: "Kushner 1964; Gardner et al. 2014 ICML §3 (not in the five papers)",
		Can:    Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindPerRound, KindCumulative}}},
		policyOn(func(c *gpCore) *CPI { return &CPI{c} })))
}
