package agent

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// regionDoc declares region.
var regionDoc = bandit.ChoiceParam{Name: "region", Default: "global", Choices: []string{"global", "trust", "auto"},
	Doc:     "trust (3+ dims): search SCBO's trust region about the best feasible observation; global: the whole box; auto: trust from 10 dims (lognei's default)",
	Source:  "Eriksson & Poloczek 2021; measured: docs/defaults.md, \"Generation 6\"",
	Earlier: []bandit.Change{{Until: 5, Value: "global", Why: "rpol-ucb and config in SCBO's trust region in 3+ dims"}},
	Paper:   "global"}

// SCBO's trust region (Eriksson & Poloczek 2021, AISTATS, §3; TuRBO's
// rules, Eriksson et al. 2019, NeurIPS, §2): a box of side L (a fraction
// of each side of the domain) centred at the best feasible observation —
// the least violating one while none is feasible — doubled after
// TrustSucc improvements in a row, halved after max(4, d) rounds without
// one, and reset to TrustInit below TrustMin. OUR DEPARTURES: TuRBO
// restarts with a fresh design and model (we keep both: the data are the
// study's) and stretches the box along the fitted lengthscales (ours has
// one side in every coordinate: one rule for fitted and fixed kernels).
const (
	TrustInit = 0.8
	TrustMin  = 1.0 / 128
	TrustMax  = 1.6
	TrustSucc = 3
	// TrustBetaG is β_g's default in a trust region: its candidates lie
	// near observed points, where the optimistic constraint plays on the
	// boundary; β_g = 2 raised late violation on the suite's ackley3 and
	// pressure-vessel (docs/defaults.md, "Generation 6").
	TrustBetaG = 1.0
)

// region is a trust region: the box the maximiser searches and its centre,
// which starts the refinement.
type region struct {
	box    *domain.Box
	centre []float64
	side   float64 // L, the share of each side of the domain
	fresh  bool    // draw candidates in it (regionFresh)
	points int     // how many (0: SCBO's count, freshStart)
}

// trustRegion replays SCBO's rules over the ledger's fully observed
// decisions, in decision order (so the region is a function of the data,
// whatever the order feedback arrived in; O(observations), whatever the
// decisions still pending or abandoned), and returns the region for the
// next decision: nil unless on a box of 3+ dimensions with at least
// model.FirstFit(d) observations (the region's rules start with the first
// fit of the hyperparameters).
func trustRegion(dom domain.Domain, l *Ledger) *region { return trustRegionBy(dom, l, nil) }

// trustRegionBy is trustRegion with each observed decision's total
// violation and reward read by by(k, e) (k its place in l.done), not from
// its observations; nil: its observations.
func trustRegionBy(dom domain.Domain, l *Ledger, by func(k int, e *entry) (v, reward float64)) *region {
	box, ok := dom.(*domain.Box)
	if !ok || box.Dim() < 3 || box.Mixed() { // a box region would cut one-hot blocks: mixedSearch stays local instead
		return nil
	}
	d := box.Dim()
	start, failTol := model.FirstFit(d), max(4, d)
	L, succ, fail, n := TrustInit, 0, 0, 0
	var best *entry
	bestV := math.Inf(1)
	if len(l.done) < start {
		return nil
	}
	bestR := math.Inf(-1)
	for k, id := range l.done {
		e := &l.entries[id-1]
		var v float64 // total violation
		for _, c := range e.costs {
			v += math.Max(c, 0)
		}
		rw := e.reward
		if by != nil {
			v, rw = by(k, e)
		}
		better := v < bestV || (v == 0 && rw > bestR+1e-3*math.Abs(bestR))
		if better {
			best, bestV, bestR = e, v, rw
		}
		if n++; n <= start {
			continue
		}
		if better {
			succ, fail = succ+1, 0
		} else {
			succ, fail = 0, fail+1
		}
		if succ == TrustSucc {
			L, succ = math.Min(2*L, TrustMax), 0
		}
		if fail == failTol {
			L, fail = L/2, 0
		}
		if L < TrustMin {
			L = TrustInit
		}
	}
	return regionAt(box, best.action.X, L)
}

// regionAt is the region of side L (a share of each of box's sides)
// centred at c, cut to box; nil where c does not fit box.
func regionAt(box *domain.Box, c []float64, L float64) *region {
	d := box.Dim()
	if len(c) != d {
		return nil
	}
	lo, hi := make([]float64, d), make([]float64, d)
	for i := range lo {
		h := L * (box.Hi[i] - box.Lo[i]) / 2
		lo[i], hi[i] = math.Max(box.Lo[i], c[i]-h), math.Min(box.Hi[i], c[i]+h)
	}
	b, err := domain.NewBox(lo, hi)
	if err != nil {
		return nil
	}
	return &region{box: b, centre: c, side: L}
}

// regionPendingDoc declares region-pending.
var regionPendingDoc = bandit.ChoiceParam{Name: "region-pending", Default: "trust", Choices: []string{"trust", "global"}, When: bandit.IsNot("region", "global"),
	Doc:     "where a decision searches while others are pending: trust: the same region; global: the whole box",
	Source:  "measured: docs/defaults.md, \"Generation 7\"",
	Earlier: []bandit.Change{{Until: 6, Value: "global", Why: "the trust region also while decisions are pending"}}}

// regionMode is what the parameters region and region-pending select.
type regionMode uint8

const (
	regionGlobal regionMode = iota // the whole box
	regionTrust                    // the trust region, pending decisions or not
	regionIdle                     // the trust region while none is pending
	// regionFresh (a flag on regionTrust or regionIdle): in FreshDim
	// dimensions and more, candidates drawn in the region at each
	// decision start the refinement too (parameter region-candidates).
	regionFresh regionMode = 1 << 4
	// regionAuto (a flag on regionTrust): the trust region only on a box
	// of TrustAutoDim dimensions or more, the whole box below (region=auto).
	regionAuto regionMode = 1 << 5
)

// TrustAutoDim is where region=auto starts the trust region: on the
// offline measurements (docs/offline.md) lognei's global search found no
// feasible point of ackley10 in 200 evaluations (the constraints' prior at
// the threshold draws it to the box's corners), the trust region did;
// below, the global search was ahead (speed reducer, spring, vessel).
const TrustAutoDim = 10

// regionCandidatesDoc declares region-candidates.
var regionCandidatesDoc = bandit.ChoiceParam{Name: "region-candidates", Default: "fresh", Choices: []string{"fresh", "fixed"}, When: bandit.IsNot("region", "global"),
	Doc:     "in 7+ dims: fresh: SCBO's candidates drawn in the region each decision; fixed: the box's candidates alone",
	Source:  "Eriksson & Poloczek 2021; measured: docs/systems.md",
	Earlier: []bandit.Change{{Until: 7, Value: "fixed", Why: "candidates drawn in the trust region in 7+ dims"}}}

// FreshDim is the dimension from which region-candidates=fresh draws
// candidates in the trust region: below it the practical-defaults suite
// (2–6 dims) keeps its decisions (docs/systems.md).
const FreshDim = 7

// regionParam reads region and region-pending.
func regionParam(name string, ps bandit.Params) (regionMode, error) {
	mode, err := own(name, regionDoc).Read(name, ps)
	if err != nil {
		return regionGlobal, err
	}
	pend, err := regionPendingDoc.Read(name, ps)
	if err != nil {
		return regionGlobal, err
	}
	cands, err := regionCandidatesDoc.Read(name, ps)
	var fresh regionMode
	if cands == "fresh" {
		fresh = regionFresh
	}
	switch {
	case err != nil || mode == "global":
		return regionGlobal, err
	case mode == "auto":
		fresh |= regionAuto
	}
	if pend == "global" {
		return regionIdle | fresh, nil
	}
	return regionTrust | fresh, nil
}

// regionIf is the trust region of the next decision in mode with the
// decisions pend pending, nil for the whole box.
func regionIf(mode regionMode, dom domain.Domain, l *Ledger, pend pending) *region {
	base := mode &^ (regionFresh | regionAuto)
	if base == regionGlobal || (base == regionIdle && len(pend.acts) > 0) {
		return nil
	}
	if box, ok := dom.(*domain.Box); mode&regionAuto != 0 && (!ok || box.Dim() < TrustAutoDim) {
		return nil
	}
	r := trustRegion(dom, l)
	if r != nil {
		r.fresh = mode&regionFresh != 0 && r.box.Dim() >= FreshDim
	}
	return r
}

// recentred is r moved to centre c, its side and candidates as before (r
// itself where c does not fit the domain).
func (r *region) recentred(dom domain.Domain, c []float64) *region {
	return r.at(dom, c, r.side)
}

// at is r moved to centre c with side L, its candidates as before (r
// itself where c does not fit the domain).
func (r *region) at(dom domain.Domain, c []float64, L float64) *region {
	box, ok := dom.(*domain.Box)
	if !ok {
		return r
	}
	m := regionAt(box, slices.Clone(c), L)
	if m == nil {
		return r
	}
	m.fresh, m.points = r.fresh, r.points
	return m
}

// replayed is r with SCBO's rules replayed over l reading by
// (trustRegionBy), its candidates as before (r itself where none results).
func (r *region) replayed(dom domain.Domain, l *Ledger, by func(k int, e *entry) (v, reward float64)) *region {
	m := trustRegionBy(dom, l, by)
	if m == nil {
		return r
	}
	m.fresh, m.points = r.fresh, r.points
	return m
}

// ascentOptions are refine=ascent's options in d dimensions: up to 20
// steps, the longest half the spacing of 1024 Halton points; in a trust
// region RefineGrad takes them relative to the region's sides.
func ascentOptions(d int) maximise.GradOptions {
	return maximise.GradOptions{Iters: 20, Step: 0.5 * math.Pow(1024, -1/float64(d))}
}

// freshStart draws SCBO's candidates in the trust region reg — the centre
// with each coordinate replaced, with probability min(1, 20/d), by a
// uniform draw in the region (at least one coordinate; Eriksson & Poloczek
// 2021, §3, after TuRBO's perturbation) — reg.points of them, or SCBO's
// min(5000, max(2000, 200d)) when it is 0 — scores them with acq over the models ms (less excluded where rep
// marks a pending point; with skipF set, bestSkippingF's fewer
// predictions, the same best), and returns the best as a start for the
// refinement (nil when the models cannot be evaluated off their
// candidates, or acq is nil: the draws alone).
func freshStart(rng *rand.Rand, reg *region, ms []model.Model, acq acquisition, skipF func(mv []float64) bool, rep func(bandit.Action) bool) [][]float64 {
	bps := make([]model.BatchPredictor, len(ms))
	for j, m := range ms {
		if bps[j] = model.AsBatchPredictor(m); bps[j] == nil {
			return nil
		}
	}
	d := reg.box.Dim()
	n := reg.points
	if n == 0 {
		n = min(5000, max(2000, 200*d))
	}
	xs := scboPoints(rng, reg.box, reg, n)
	if acq == nil { // the draws alone (choice.own)
		return nil
	}
	score := func(_ []float64, mv []float64) float64 { return acq(mv) }
	if rep != nil {
		score = awayFrom(acq, rep)
	}
	if skipF != nil {
		best, err := bestSkippingF(bps, score, skipF, xs, nil)
		if err != nil || best < 0 {
			return nil
		}
		return [][]float64{xs[best]}
	}
	val := make([]float64, n)
	if err := batchScore(bps, score, d)(xs, val, nil); err != nil {
		return nil
	}
	best := 0
	for k := range val {
		if val[k] > val[best] {
			best = k
		}
	}
	return [][]float64{xs[best]}
}
