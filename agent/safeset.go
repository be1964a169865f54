// config's safe stage: the safe set's points first, and what it plays where no candidate lies inside the set.

package agent

import (
	"math"

	"github.com/cbandit/cbandit/bandit"
)

// configSafeOutside declares safe-outside.
var configSafeOutside = bandit.ChoiceParam{Name: "safe-outside", Default: "likely", Choices: []string{"likely", "ucb"}, When: bandit.Is("feasibility", "pessimistic"),
	Doc:     "the safe stage's choice where no candidate lies inside the safe set: likely (where some constraint is noisy; else as ucb): the points whose posterior means hold every limit first, by the least largest UCB of g, then the rest by the probability that every limit holds; ucb: the least largest UCB of g throughout, which stays where the models are surest even when they are sure that is over a limit",
	Source:  "the probability of feasibility, constrained EI's target before a feasible point (Gardner et al. 2014 ICML §3; Gelbart, Snoek & Adams 2014 UAI), as cei and lognei use it; measured: docs/live_limits.md, \"Generation 23\"",
	Earlier: []bandit.Change{{Until: 22, Value: "ucb", Why: "where some constraint is noisy and no candidate lies inside the safe set, the safe stage ranks the points whose posterior means hold every limit first and the rest by the probability that every limit holds, not all by the least largest UCB"}}}

// configSafeCentre declares safe-centre.
var configSafeCentre = bandit.ChoiceParam{Name: "safe-centre", Default: "plausible", Choices: []string{"plausible", "observed"}, When: bandit.Is("feasibility", "pessimistic"),
	Doc:     "the trust region's centre in the safe stage where some constraint is noisy, below TrustAutoDim (10) dims: plausible: the best feasible observation among the evaluated points the models do not hold over a limit (every μ_j − β_j·σ_j ≤ 0, β the safe set's), so that an observation flattered by noise does not centre the search; observed: the best feasible observation (SCBO's)",
	Source:  "SCBO's centre (Eriksson & Poloczek 2021, §3) checked by CONFIG's optimistic feasible set (Xu et al. 2023, AISTATS); measured (10+ dims not measured): docs/live_limits.md, \"Generation 24\"",
	Earlier: []bandit.Change{{Until: 23, Value: "observed", Why: "where some constraint is noisy, the safe stage's trust region is centred on the best feasible observation among those the models do not hold over a limit"}}}

// safeCentre is safe-centre=plausible's centre of the safe stage's trust
// region: of the evaluated points observed feasible whose every LCB
// μ_j − bs_j·σ_j is ≤ 0, the one of the best observed f (nil where none
// is: the observed centre stays).
func (a *ConfigAgent) safeCentre() []float64 {
	ev, ok := a.evaluated()
	if !ok {
		return nil
	}
	bs := a.safeBetas()
	at := -1
	for k, mv := range ev.mv {
		p := Posterior{mv}
		in := ev.acts[k].X != nil && !math.IsNaN(ev.obs[k][0])
		for j := range bs {
			mu, v := p.G(j)
			in = in && ev.obs[k][j+1] <= 0 && mu-bs[j]*math.Sqrt(math.Max(v, 0)) <= 0
		}
		if in && (at < 0 || ev.obs[k][0] > ev.obs[at][0]) {
			at = k
		}
	}
	if at < 0 {
		return nil
	}
	return ev.acts[at].X
}

// outsideLikely is safe-outside=likely's score of a point p outside the
// safe set (gm its largest UCB of g, > 0; m constraints): where the
// posterior mean of every g is ≤ 0, the least largest UCB, as ucb; below
// those, where the models hold some limit more likely broken than not, the
// largest probability that every limit holds (−log P mapped into [0, 1],
// so that the order survives where P underflows).
func outsideLikely(p Posterior, gm float64, m int) float64 {
	for j := range m {
		if mu, _ := p.G(j); mu > 0 {
			l := -logProbFeasible(p, m)
			if math.IsInf(l, 1) || math.IsNaN(l) {
				return -3 * safeMargin
			}
			return -safeMargin * (2 + l/(1+l))
		}
	}
	return -safeMargin * (1 + gm/(1+gm))
}

// safeFirst is the pessimistic rule of a live study's safe stage: the UCB
// of f over the points whose UCB of every g_j is ≤ 0 — SafeOpt's and
// StageOpt's safe set (Berkenkamp et al. 2016 §3; Sui et al. 2018 §4) —
// ranked above every other point, and among those the least largest UCB
// of g, which leads the refinement back into the set (likely: as
// outsideLikely ranks them, safe-outside).
func safeFirst(bf float64, bs []float64, likely bool) Acquisition {
	return func(p Posterior) float64 {
		gm := safeGate(bs, p)
		if gm > 0 && likely {
			return outsideLikely(p, gm, len(bs))
		}
		if gm > 0 {
			return -safeMargin * (1 + gm)
		}
		mu, v := p.F()
		return mu + bf*math.Sqrt(v)
	}
}

// safeGate is the largest μ_j + bs_j·σ_j of the constraints at p: where it
// is > 0, safeFirst's score does not read f.
func safeGate(bs []float64, p Posterior) float64 {
	gm := math.Inf(-1)
	for j, b := range bs {
		mu, v := p.G(j)
		gm = math.Max(gm, mu+b*math.Sqrt(v))
	}
	return gm
}

// safeFirstSkipsF reports where safeFirst(·, bs) does not read f's
// posterior (turn.skipF): there freshStart predicts g alone.
func safeFirstSkipsF(bs []float64) func(mv []float64) bool {
	return func(mv []float64) bool { return safeGate(bs, Posterior{mv}) > 0 }
}
