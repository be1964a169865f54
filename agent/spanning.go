// config's constraints whose values span orders of magnitude: on SCBO's bilog scale from the initial design on, a wider safe set under noise; and what safe-hold plays when no evaluated point is safe.

package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

var (
	// configWarpWide declares constraint-warp-wide.
	configWarpWide = bandit.FloatParam{Name: "constraint-warp-wide", Default: 10, Range: bandit.AtLeast(0), When: bandit.Is("constraint-warp", "bilog"),
		Doc:     "r > 0: once the initial design is observed (its first 2(d+2) evaluations), where some constraint's largest |value − limit| there is at least r times its median (values spanning orders of magnitude), every constraint's model goes on the bilog scale at once and stays (as constraint-warp), and a noisy constraint's safe set takes beta-safe-wide (r ≤ 1: always); 0: off",
		Source:  "SCBO's bilog transform of the constraints (Eriksson & Poloczek 2021, §3); measured: docs/live_limits.md, \"Generation 22\" (the welded beam 3–4 decades, the spring 1.4; today's suite and the speed reducer at most 0.5)",
		Earlier: []bandit.Change{{Until: 21, Value: "0", Why: "constraints whose values span a decade or more over the initial design go on the bilog scale at once, their safe set at beta-safe-wide under noise"}}}
	// configBetaWide declares beta-safe-wide.
	configBetaWide = bandit.FloatParam{Name: "beta-safe-wide", Default: 3, Range: bandit.AtLeast(0), When: bandit.Is("feasibility", "pessimistic"),
		Doc:    "β of the safe set's UCB on a noisy constraint once constraint-warp-wide has acted, where beta-safe-noisy is 0 (below 7 dims)",
		Source: "beta-safe-noisy's 3 of 7–19 dims (SafeOpt's β grows with the noise, Berkenkamp et al. 2016 §3); measured: docs/live_limits.md, \"Generation 22\""}
	// configHoldFallback declares safe-hold-fallback.
	configHoldFallback = bandit.ChoiceParam{Name: "safe-hold-fallback", Default: "likelier", Choices: []string{"likelier", "wide", "always", "none"}, When: bandit.IsNot("safe-hold", "none"),
		Doc:    "where safe-hold acts and no evaluated point lies inside the safe set, the evaluated configuration Recommend would name (the best posterior mean among those holding every limit with probability ≥ 0.95), else the one most likely to hold every limit, repeated: wide: once constraint-warp-wide has acted; likelier: as wide, and before that where the models hold it likelier than the decision to keep every limit, by a decision with none pending (a batch's first member); always (opt-in); none: the decision stands",
		Source: "SafeOpt's seed set: a point known safe is always playable (Berkenkamp et al. 2016 §3); measured: docs/live_limits.md, \"Generation 22\" (always: the speed reducer at 2 % of its limits held a point 0.3 σ over one on seed 5, where the decision standing had found the feasible set) and \"Generation 34\"",
		Earlier: []bandit.Change{{Until: 21, Value: "none", Why: "once constraint-warp-wide has acted, a safe-stage decision outside the safe set, no evaluated point inside it, plays the recommendation (else the evaluated point most likely feasible)"},
			{Until: 33, Value: "wide", Why: "before constraint-warp-wide acts too, the fallback is played where the models hold it likelier than the decision to keep every limit (with no decision pending)"}}}
)

// warpWide is constraint-warp-wide: at the first decision with the
// initial design observed, once, every constraint's model goes on the
// bilog scale (warpConstraints) when some constraint's largest |g| over
// the first FirstFit(d) evaluations is positive and at least wideRatio
// times its median; a.wide records it.
func (a *ConfigAgent) warpWide() error {
	box, ok := a.info.Domain.(*domain.Box)
	if !ok {
		a.wideChecked = true
		return nil
	}
	n0 := model.FirstFit(box.Dim())
	if len(a.ledger.done) < n0 {
		return nil
	}
	a.wideChecked = true
	v := make([]float64, 0, n0)
	for j := range a.g {
		v = v[:0]
		for _, id := range a.ledger.done[:n0] {
			if e := &a.ledger.entries[id-1]; j < len(e.costs) && !math.IsNaN(e.costs[j]) {
				v = append(v, math.Abs(e.costs[j]))
			}
		}
		if len(v) == 0 {
			continue
		}
		slices.Sort(v)
		if v[len(v)-1] > 0 && v[len(v)-1] >= a.wideRatio*v[len(v)/2] { // all at the limit: nothing spans
			a.wide = true
			return a.warpConstraints()
		}
	}
	return nil
}

// holdFallback is safe-hold-fallback's play among the evaluated
// configurations ev: Recommend's choice at confirmLevel, else the one most
// likely to hold every limit, and that probability; ok false: none.
func (a *ConfigAgent) holdFallback(ev evaluated) (act bandit.Action, pf float64, ok bool) {
	ex := a.exact()
	k, pf := ev.recommended(confirmLevel, ex)
	if k < 0 {
		pf = -1
		for i := range ev.mv {
			if p := ev.feasible(i, ex); ev.acts[i].X != nil && p > pf {
				k, pf = i, p
			}
		}
	}
	if k < 0 || ev.acts[k].X == nil {
		return bandit.Action{}, 0, false
	}
	return bandit.Action{Arm: -1, X: slices.Clone(ev.acts[k].X)}, pf, true
}

// probSafe is the models' probability that every limit holds at x (the
// constraints independent, as ev.feasible reads them); ok false: a
// constraint model that does not predict off its candidates.
func (a *ConfigAgent) probSafe(x []float64) (pf float64, ok bool) {
	pf = 1
	for _, m := range a.g {
		p, isP := m.(model.Predictor)
		if !isP {
			return 0, false
		}
		mu, v := p.Predict(x)
		pf *= normCDF(-mu / math.Sqrt(math.Max(v, 1e-18)))
	}
	return pf, true
}

// warped reports whether constraint j's model sees its values through bilog.
func (a *ConfigAgent) warped(j int) bool {
	g := a.g[j]
	if w, ok := g.(*model.Window); ok {
		g = w.Model
	}
	w, ok := g.(warper)
	return ok && w.Warped()
}

// safe-hold-fallback's choices (0: none).
const (
	fallbackWide = 1 + iota
	fallbackAlways
	fallbackLikelier
)

// noisyBeta is the safe set's β on a noisy constraint: beta-safe-noisy,
// and where that is 0 and constraint-warp-wide has acted, beta-safe-wide.
func (a *ConfigAgent) noisyBeta() float64 {
	if a.betaNoisy == 0 && a.wide {
		return a.betaWide
	}
	return a.betaNoisy
}

// warpConstraints puts every constraint's model on the bilog scale
// (model.Adaptive.Warp, knee WarpKnee): SCBO's remedy for constraints whose
// values span orders of magnitude, where a noise floor that is a fixed share
// of their spread leaves the models unable to tell a point just over the
// limit from one under it (docs/live_limits.md, "Feasibility first").
func (a *ConfigAgent) warpConstraints() error {
	for _, g := range a.g {
		if w, ok := g.(*model.Window); ok {
			g = w.Model
		}
		if ad, ok := g.(*model.Adaptive); ok {
			if err := ad.Warp(WarpKnee); err != nil {
				return err
			}
		}
	}
	return nil
}

// WarpKnee is the bilog transform's knee as a share of a constraint's
// observed spread: values within about one spread of the limit stay on a
// near-linear scale, those beyond it are compressed. On the spring's seed 1
// (batches of 4, noise-free) 1 kept every late limit; 0.001, 0.01 and 0.1
// left 44 %, 15 % and 7 % (docs/live_limits.md, "Generation 13").
const WarpKnee = 1
