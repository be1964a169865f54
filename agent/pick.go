// The maximiser every GP agent calls (choice.pick, pickAction): candidates scored by one acquisition, pending repeats excluded, the trust region's mask and restarts.

package agent

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// refineIf is g when on, else nil (no refinement).
func refineIf(on bool, g *maximise.GradOptions) *maximise.GradOptions {
	if on {
		return g
	}
	return nil
}

// refineStarts is how many of the best candidates start a local refinement
// over a box (our choice; Guo et al. do not say how (11) is maximised; docs/scaling.md:
// refinement only from the best few candidates).
const refineStarts = 1

// acquisition is an agent's score at one point as a function of the
// posteriors of its models there: mv = [μ_0, σ²_0, μ_1, σ²_1, …] in the
// order of the models given to pickAction. Writing acquisitions this way
// lets the refinement evaluate every model at a batch of points with one
// solve, and differentiate the score through the closed-form gradients of
// the posteriors.
type acquisition func(mv []float64) float64

// choice is one decision of the core: the models (f first, then g_1..g_m),
// the acquisition over their posteriors, the candidates' scores (written
// by pick), the refinement's options (nil: none), the Thompson draw's fill
// (nil: the posteriors), the pending decisions and the trust region (nil:
// the whole domain).
type choice struct {
	ms     []model.Model
	acq    acquisition
	score  []float64
	refine *maximise.GradOptions
	fill   func(i int, mv []float64)
	pend   pending
	reg    *region
	moves  int         // on a typed space: mixedSearch's largest step, in discrete coordinates
	wide   *wideSearch // a policy's wider search on the whole box (nil: pickAction's)
	blind  bool        // the failure model does not steer the choice (turn.blind)
	// failLimit is δ of the failure model (0: FailLimit)
	failLimit float64
	avoid     func(bandit.Action) bool // points excluded beside the pending repeats (turn.fresh)
	skipF     func(mv []float64) bool  // where acq does not read f (turn.skipF)
	own       bool                     // the turn plays its own action (turn.own)
}

// pick is the decision core's maximiser, shared by every GP agent: ONE
// acquisition scores the candidates (score[i] = acq at candidate i's μ, σ²
// of every model in ms, or what fill writes there) and, on a box with
// refine set (its options: refineParam), is refined from the best
// candidates with the same function (maximise.RefineGrad, or Nelder–Mead
// without gradients). A Thompson draw has values on the candidates only:
// its agents fill and do not refine.
//
// With pending decisions (pend, the models conditioned on them), points
// that would repeat one of them are excluded (repeats), and with
// pend.widen > 1 the acquisition sees f's standard deviation widened by it
// (GP-BUCB's inflated bound, PendingWiden). With a trust region (reg, not
// nil) and no decision pending, only the candidates inside it compete, and
// the refinement ascends inside it from the best of them and its centre
// (trustRegion).
func (c choice) pick(rng *rand.Rand, dom domain.Domain) (bandit.Action, int, error) {
	if c.pend.fail != nil && !c.blind {
		c = c.avoidFailures(c.pend.fail)
	}
	ms, acq, score, refine, fill, pend, reg := c.ms, c.acq, c.score, c.refine, c.fill, c.pend, c.reg
	if w := pend.widen; len(pend.acts) > 0 && w > 1 {
		inner := acq
		acq = func(mv []float64) float64 {
			v := mv[1]
			mv[1] = v * w * w
			r := inner(mv)
			mv[1] = v
			return r
		}
	}
	mv := make([]float64, 2*len(ms))
	drawn := fill != nil // values on the candidates only: no refinement
	if fill == nil {
		means, vars := make([][]float64, len(ms)), make([][]float64, len(ms))
		for j, m := range ms {
			means[j], vars[j] = m.Mean(), m.Var()
		}
		fill = func(i int, mv []float64) {
			for j := range ms {
				mv[2*j], mv[2*j+1] = means[j][i], vars[j][i]
			}
		}
	}
	for i := range score {
		fill(i, mv)
		score[i] = acq(mv)
	}
	if acqHook != nil && refine != nil {
		acqHook(ms, acq, score)
	}
	rep := either(repeats(dom, pend.acts), c.avoid)
	if reg != nil && drawn && !anyInside(ms[0], len(score), reg.box, rep) {
		reg = nil // a draw has values on the candidates only, and none it may play lies in the region
	}
	inner := acq
	if refine == nil {
		acq = nil
	}
	var whole []float64 // the scores before the region's mask
	if reg != nil && rep != nil {
		whole = slices.Clone(score)
	}
	mask := func(score []float64, reg *region) {
		for i := range score {
			if (rep != nil && rep(ms[0].Action(i))) || (reg != nil && reg.box.Contains(ms[0].Action(i).X) != nil) {
				score[i] = -math.MaxFloat64
			}
		}
	}
	mask(score, reg)
	if box, ok := dom.(*domain.Box); ok && reg == nil && c.wide != nil && acq != nil {
		return c.wide.search(rng, box, score, ms, acq, rep, c.moves)
	}
	if reg == nil {
		return pickAction(rng, ms[0], dom, score, ms, acq, refine, rep, c.moves, nil)
	}
	g := ascentOptions(reg.box.Dim())
	if drawn {
		inner = nil
	}
	if c.own && rep == nil {
		// the turn plays its own action: the pick's random draws (the
		// fresh candidates, the arg max's ties) and no search, whose end
		// nothing reads
		if reg.fresh && !drawn {
			freshStart(rng, reg, ms, nil, nil, nil)
		}
		return pickAction(rng, ms[0], reg.box, score, ms, nil, nil, nil, c.moves, reg.centre)
	}
	var extra [][]float64
	if reg.fresh && !drawn {
		extra = freshStart(rng, reg, ms, inner, c.skipF, rep)
	}
	act, i, err := pickAction(rng, ms[0], reg.box, score, ms, inner, &g, rep, c.moves, reg.centre, extra...)
	if err == errRegionFull { // every point of the region repeats a pending one: the whole box
		copy(score, whole)
		mask(score, nil)
		return pickAction(rng, ms[0], dom, score, ms, acq, refine, rep, c.moves, nil)
	}
	return act, i, err
}

// errRegionFull says that every point of a trust region tried lies within
// the exclusion ball of a pending decision.
var errRegionFull = errors.New("agent: the trust region is full of pending decisions")

// anyInside reports whether one of m's first n candidates lies in box (and
// is not marked by rep, when rep is set).
func anyInside(m model.Model, n int, box *domain.Box, rep func(bandit.Action) bool) bool {
	for i := range n {
		if a := m.Action(i); box.Contains(a.X) == nil && (rep == nil || !rep(a)) {
			return true
		}
	}
	return false
}

// acqHook, when set (tests), sees every acquisition choice.pick maximises with
// the candidate scores it computed.
var acqHook func(ms []model.Model, acq acquisition, score []float64)

// pickAction maximises over the candidates' scores: the exact arg max
// (seeded tie-breaking), then, when the domain is a box and acq is set, a
// local refinement of the best candidates with acq over the models ms (on
// a typed space, mixedSearch with steps of up to moves discrete
// coordinates). The index is the candidate played, or −1 for a point the
// refinement found.
//
// rep, when not nil, marks points the refinement must not end at (pending
// ones): they score far below any other. centre, when not nil, is a trust
// region's centre, dom the region: it starts the refinement too, and the
// best candidate does only if it lies in the region.
func pickAction(rng *rand.Rand, f model.Model, dom domain.Domain, score []float64, ms []model.Model, acq acquisition, grad *maximise.GradOptions, rep func(bandit.Action) bool, moves int, centre []float64, extra ...[]float64) (bandit.Action, int, error) {
	i, err := maximise.ArgMaxFinite(rng, score)
	if err != nil {
		return bandit.Action{}, 0, err
	}
	box, ok := dom.(*domain.Box)
	if !ok || acq == nil || grad == nil {
		return f.Action(i), i, nil
	}
	if box.Mixed() {
		g := *grad
		if g.Iters == 0 { // refine=step: the ascent's options for the continuous part
			g = ascentOptions(box.Dim())
		}
		x, err := mixedSearch(box, f.Action(i).X, ms, acq, g, rep, moves, nil)
		if err != nil || x == nil || (rep != nil && rep(bandit.PointAction(x))) {
			return f.Action(i), i, err
		}
		return bandit.PointAction(x), -1, nil
	}
	top := maximise.TopK(score, refineStarts)
	starts := make([][]float64, 0, len(top)+1+len(extra))
	if centre != nil {
		starts = append(starts, centre)
	}
	starts = append(starts, extra...)
	for _, k := range append([]int{i}, top...) {
		x := f.Action(k).X
		if centre != nil && score[k] == -math.MaxFloat64 { // outside the region
			continue
		}
		if !slices.ContainsFunc(starts, func(s []float64) bool { return slices.Equal(s, x) }) {
			starts = append(starts, x)
		}
	}
	if rep != nil {
		x, err := refineAcqX(box, starts, ms, awayFrom(acq, rep), *grad)
		if err != nil {
			return bandit.Action{}, 0, err
		}
		if x != nil && !rep(bandit.PointAction(x)) {
			return bandit.PointAction(x), -1, nil
		}
		if centre != nil {
			// In a trust region every candidate may be masked (a small
			// region, or pending decisions filling it), and the arg max
			// is then any point of the box: refine from points drawn in
			// the region instead.
			return regionRestart(rng, box, ms, acq, *grad, rep)
		}
		return f.Action(i), i, nil
	}
	x, err := refineAcq(box, starts, ms, acq, *grad)
	if err != nil {
		return bandit.Action{}, 0, err
	}
	if x == nil {
		return f.Action(i), i, nil
	}
	return bandit.PointAction(x), -1, nil
}

// regionRestart refines acq from 2d points drawn uniformly in the trust
// region box (d its dimension), away from the points rep marks; when the
// refinement ends at one, it returns the first drawn point rep does not
// mark, and errRegionFull when rep marks them all (a region smaller than
// the exclusion ball).
func regionRestart(rng *rand.Rand, box *domain.Box, ms []model.Model, acq acquisition, grad maximise.GradOptions, rep func(bandit.Action) bool) (bandit.Action, int, error) {
	starts := make([][]float64, 2*box.Dim())
	for k := range starts {
		starts[k] = make([]float64, box.Dim())
		for j := range starts[k] {
			starts[k][j] = box.Lo[j] + rng.Float64()*(box.Hi[j]-box.Lo[j])
		}
	}
	x, err := refineAcqX(box, starts, ms, awayFrom(acq, rep), grad)
	if err != nil {
		return bandit.Action{}, 0, err
	}
	if x != nil && !rep(bandit.PointAction(x)) {
		return bandit.PointAction(x), -1, nil
	}
	for _, s := range starts {
		if !rep(bandit.PointAction(s)) {
			return bandit.PointAction(s), -1, nil
		}
	}
	return bandit.Action{}, 0, errRegionFull
}

// either marks what a or b marks (nil when both are).
func either(a, b func(bandit.Action) bool) func(bandit.Action) bool {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(x bandit.Action) bool { return a(x) || b(x) }
}

// awayFrom is acq less excluded at the points rep marks.
func awayFrom(acq acquisition, rep func(bandit.Action) bool) func(x, mv []float64) float64 {
	return func(x, mv []float64) float64 {
		v := acq(mv)
		if rep(bandit.PointAction(x)) {
			v -= excluded
		}
		return v
	}
}

// excluded is what a point that repeats a pending one loses in the
// refinement: far more than any acquisition's range, so the line search
// never accepts a step into an excluded ball.
const excluded = 1e12
