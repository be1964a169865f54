// config's safe stage: the safe set's points first, and what it plays where no candidate lies inside the set.

package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// configSafeOutside declares safe-outside.
var configSafeOutside = bandit.ChoiceParam{Name: "safe-outside", Default: "likely", Choices: []string{"likely", "ucb"}, When: bandit.Is("feasibility", "pessimistic"),
	Doc:     "the safe stage's choice where no candidate lies inside the safe set: likely (where some constraint is noisy; else as ucb): the points whose posterior means hold every limit first, by the least largest UCB of g, then the rest by the probability that every limit holds; ucb: the least largest UCB of g throughout, which stays where the models are surest even when they are sure that is over a limit",
	Source:  "the probability of feasibility, constrained EI's target before a feasible point (Gardner et al. 2014 ICML §3; Gelbart, Snoek & Adams 2014 UAI), as cei and lognei use it; measured: docs/live_limits.md, \"Generation 23\"",
	Earlier: []bandit.Change{{Until: 22, Value: "ucb", Why: "where some constraint is noisy and no candidate lies inside the safe set, the safe stage ranks the points whose posterior means hold every limit first and the rest by the probability that every limit holds, not all by the least largest UCB"}}}

// configSafeCentre declares safe-centre.
var configSafeCentre = bandit.ChoiceParam{Name: "safe-centre", Default: "surest", Choices: []string{"surest", "plausible", "observed"}, When: bandit.Is("feasibility", "pessimistic"),
	Doc:     "the trust region's centre in the safe stage where some constraint is noisy, below TrustAutoDim (10) dims (from them too with first-wide=means): plausible: the best feasible observation among the evaluated points the models do not hold over a limit (every μ_j − β_j·σ_j ≤ 0, β the safe set's), so that an observation flattered by noise does not centre the search; surest: plausible while some evaluated point lies in the safe set, else the evaluated point of the least largest UCB μ_j + β_j·σ_j, so that the search backs off from the limits until one does; observed: the best feasible observation (SCBO's)",
	Source:  "SCBO's centre (Eriksson & Poloczek 2021, §3) checked by CONFIG's optimistic feasible set (Xu et al. 2023, AISTATS); surest: SafeOpt's safe set grows from a seed known safe (Berkenkamp et al. 2016, §3); measured (10+ dims not measured): docs/live_limits.md, \"Generation 24\" and \"Generation 25\"",
	Earlier: []bandit.Change{{Until: 23, Value: "observed", Why: "where some constraint is noisy, the safe stage's trust region is centred on the best feasible observation among those the models do not hold over a limit"}, {Until: 24, Value: "plausible", Why: "where no evaluated point lies in the safe set, the safe stage's trust region is centred on the evaluated point nearest to it (the least largest UCB of g)"}}}

// configSafeSearch declares safe-hold-search.
var configSafeSearch = bandit.ChoiceParam{Name: "safe-hold-search", Default: "shrink", Choices: []string{"shrink", "none"}, When: bandit.IsNot("safe-hold", "none"),
	Doc:     "from FreshDim (7) dims, where the safe stage's pick repeats an evaluated point (no candidate of the trust region inside the safe set beats it) or safe-hold would repeat one: shrink: the search is made again about that point, the region's side halved at each try down to TrustMin, until the pick is a new point inside the safe set (else the repeat); none: the repeat",
	Source:  "SafeOpt's safe set grows from its seed of evaluated points (Berkenkamp et al. 2016 §3), searched at the scale it has; TuRBO's halving (Eriksson et al. 2019 §2) done at once; measured: docs/live_limits.md, \"Generation 33\"",
	Earlier: []bandit.Change{{Until: 32, Value: "none", Why: "from 7 dims, a safe-stage pick that would repeat an evaluated point searches again about it in halved trust regions until it finds a new point inside the safe set"}}}

// configFirstRegion declares first-region.
var configFirstRegion = bandit.ChoiceParam{Name: "first-region", Default: "mean", Choices: []string{"mean", "observed"}, When: bandit.Is("feasibility", "pessimistic"),
	Doc:     "SCBO's trust region while no evaluation has met every limit, where some constraint's fit is not exact (noisy, or a deterministic one not yet interpolated), below TrustAutoDim (10) dims (from them too with first-wide=means): mean: its rules read each evaluation's posterior means (total violation Σ max(μ_j, 0) in the models' units, then f's mean), so that neither its centre nor its successes are an observation flattered by noise; observed: its observations (SCBO's)",
	Source:  "SCBO's least-violating centre (Eriksson & Poloczek 2021, §3) read off the models, as a noisy incumbent is (Picheny et al. 2013, Struct. Multidiscip. Optim., plug-in); measured (10+ dims not measured; there the centre alone was not adopted): docs/live_limits.md, \"Generation 25\"",
	Earlier: []bandit.Change{{Until: 24, Value: "observed", Why: "below 10 dims, while no evaluation has met every limit and some constraint's fit is not exact, the trust region replays SCBO's rules on the models' posterior means at the evaluations, not on their observations"}}}

// configFirstWide declares first-wide.
var configFirstWide = bandit.ChoiceParam{Name: "first-wide", Default: "means", Choices: []string{"means", "observed"}, When: bandit.Is("feasibility", "pessimistic"),
	Doc:     "from TrustAutoDim (10) dims, where some constraint's fit is not exact: means: the first stage lasts while no evaluation observed to meet every limit has posterior means holding them too (read at each decision), first-region=mean's replay acts there reading an evaluation as violating where its mean or its observation does (the larger, models' units), and safe-centre acts there; observed: the first observation meeting every limit ends the first stage, the trust regions read the observations",
	Source:  "SCBO's centre (Eriksson & Poloczek 2021, §3) read off the models, as first-region and safe-centre below 10 dims; an observation at 2 % noise meets Σx ≤ 0 where it is broken about one time in three; measured: docs/live_limits.md, \"Generation 30\"",
	Earlier: []bandit.Change{{Until: 29, Value: "observed", Why: "from 10 dims where some constraint's fit is not exact, config's first stage ends at an evaluation whose observations and posterior means both hold every limit, its trust region reads the larger of an evaluation's mean and observation, and the safe stage's is centred as below 10 dims"}}}

// meanReplay is first-region=mean's reading of the k-th observed decision:
// its total violation Σ_j max(μ_j, 0) and f's posterior mean (nil where
// the models cannot be evaluated there). From TrustAutoDim dims
// (first-wide=means) μ_j is raised to the observation where that is
// larger: an evaluation observed over a limit is not taken as within it.
func (a *ConfigAgent) meanReplay() func(k int, e *entry) (v, reward float64) {
	ev, ok := a.evaluated()
	if !ok {
		return nil
	}
	m := len(a.g)
	wide := a.wideMeans && a.info.Domain.(*domain.Box).Dim() >= TrustAutoDim
	return func(k int, e *entry) (v, reward float64) {
		p := Posterior{ev.mv[k]}
		for j := range m {
			mu, _ := p.G(j)
			if u, ok := unitsOf(a.g[j]); wide && ok && j < len(e.costs) {
				mu = math.Max(mu, u.Units(e.costs[j]))
			}
			v += math.Max(mu, 0)
		}
		reward, _ = p.F()
		return v, reward
	}
}

// safeCentre is safe-centre=plausible's centre of the safe stage's trust
// region: of the evaluated points observed feasible whose every LCB
// μ_j − bs_j·σ_j is ≤ 0, the one of the best observed f (nil where none
// is: the observed centre stays); with surest, where no evaluated point
// lies in the safe set, the one of the least largest UCB μ_j + bs_j·σ_j.
func (a *ConfigAgent) safeCentre() []float64 {
	ev, ok := a.evaluated()
	if !ok {
		return nil
	}
	bs := a.safeBetas()
	if a.surest && !a.seeded(bs) {
		at, least := -1, math.Inf(1)
		for k, mv := range ev.mv {
			if ev.acts[k].X == nil || math.IsNaN(ev.obs[k][0]) {
				continue
			}
			if gm := safeGate(bs, Posterior{mv}); gm < least {
				at, least = k, gm
			}
		}
		if at < 0 {
			return nil
		}
		return ev.acts[at].X
	}
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

// unitsOf is m's map from raw values to its models' units (a window's
// inner model's), when it has one.
func unitsOf(m model.Model) (interface{ Units(float64) float64 }, bool) {
	if w, ok := m.(*model.Window); ok {
		m = w.Model
	}
	u, ok := m.(interface{ Units(float64) float64 })
	return u, ok
}

// feasibleSeen ends config's first stage: an evaluation observed to meet
// every limit; with first-wide=means, from TrustAutoDim dims where some
// constraint's fit is not exact, one whose posterior means hold every
// limit too. It is read at every decision, so the first stage comes back
// where a refit moves those means over a limit (docs/live_limits.md, "The
// safe set widened by its own prediction errors").
func (a *ConfigAgent) feasibleSeen() bool {
	if !a.ledger.anyFeasible() {
		return false
	}
	box, isBox := a.info.Domain.(*domain.Box)
	if !a.wideMeans || !isBox || box.Dim() < TrustAutoDim || !slices.Contains(a.exact()[1:], false) {
		return true
	}
	ev, ok := a.evaluated()
	if !ok {
		return true
	}
	for k, id := range a.ledger.done {
		e := &a.ledger.entries[id-1]
		if e.failed || !e.gotCosts || slices.ContainsFunc(e.costs, func(c float64) bool { return c > 0 }) {
			continue
		}
		p := Posterior{ev.mv[k]}
		held := true
		for j := range a.g {
			if mu, _ := p.G(j); mu > 0 {
				held = false
				break
			}
		}
		if held {
			return true
		}
	}
	return false
}

// shrinkAt is safe-hold-search=shrink's reading of the safe stage's pick
// (turn.shrink): where it repeats an evaluated point (none of the trust
// region's candidates inside the safe set beat it), or safe-hold would
// repeat one, the search goes again about that point in a smaller region.
func (a *ConfigAgent) shrinkAt(bf float64) func(act bandit.Action) ([]float64, bool) {
	var done []bandit.Action
	for _, id := range a.ledger.done {
		if e := &a.ledger.entries[id-1]; e.action.X != nil {
			done = append(done, e.action)
		}
	}
	rep := repeatsWithin(a.info.Domain, done, RepeatRadius)
	return func(act bandit.Action) ([]float64, bool) {
		if act.X == nil {
			return nil, false
		}
		if in, ev, outside := a.held(bf, act); outside {
			if in < 0 {
				return nil, false
			}
			return ev.acts[in].X, true
		}
		if rep != nil && rep(act) {
			return act.X, true
		}
		return nil, false
	}
}

// holdSafe is safe-hold: with it, where beta-safe-noisy acts (> 0, some
// constraint noisy), a decision act outside the safe set at the noisy
// widths (noisyBetas) becomes the evaluated point of the largest UCB of f
// inside that set, repeated; when none lies inside, safe-hold-fallback's
// play or act; otherwise act stands. On the
// speed reducer at 2 % noise the late breaks of seed 6 were decisions
// outside the set at β = 3, none of the trust region's candidates inside
// it (docs/live_limits.md, "Generation 14").
func (a *ConfigAgent) holdSafe(bf float64, act bandit.Action) bandit.Action {
	in, ev, outside := a.held(bf, act)
	switch {
	case !outside:
		return act
	case in >= 0:
		return bandit.Action{Arm: -1, X: slices.Clone(ev.acts[in].X)}
	case a.fallback == fallbackAlways || a.wide && (a.fallback == fallbackWide || a.fallback == fallbackLikelier):
		if fb, _, ok := a.holdFallback(ev); ok {
			return fb
		}
	case a.fallback == fallbackLikelier && len(a.ledger.Pending(false, 1)) == 0:
		// Outside the set the decision standing is the least largest UCB
		// of g, which can sit at a limit: the fallback where it is likelier
		// to hold, by a batch's first member alone (docs/live_limits.md,
		// "Generation 34").
		fb, pf, ok := a.holdFallback(ev)
		if p, pok := a.probSafe(act.X); ok && pok && pf > p {
			return fb
		}
	}
	return act
}

// held is safe-hold's reading of act: outside when safe-hold acts and act
// lies outside the safe set at the noisy widths, and then in, the
// evaluated point (of ev) of the largest UCB of f inside that set, −1 where
// none lies inside.
func (a *ConfigAgent) held(bf float64, act bandit.Action) (in int, ev evaluated, outside bool) {
	bs, noisy := a.noisyBetas()
	if a.holdLow && a.noisyBeta() == 0 {
		bs, noisy = a.safeBetas(), a.unseenNoise()
	}
	if !a.hold || !noisy || act.X == nil {
		return -1, ev, false
	}
	if ok, isSafe := a.safeAt(act.X, bs); !ok || isSafe {
		return -1, ev, false
	}
	ev, ok := a.evaluated()
	if !ok || len(ev.acts) == 0 {
		return -1, ev, false
	}
	in, bestU := -1, math.Inf(-1)
	for k, mv := range ev.mv {
		p := Posterior{mv}
		if ev.acts[k].X == nil || safeGate(bs, p) > 0 {
			continue
		}
		mu, v := p.F()
		if u := mu + bf*math.Sqrt(math.Max(v, 0)); u > bestU {
			in, bestU = k, u
		}
	}
	return in, ev, true
}
