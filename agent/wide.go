// The wider acquisition search a policy may ask for (turn.wide): more starts, the incumbent among them, and a quasi-Newton polish.

package agent

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// wideSearch is a policy's opt-in search of its acquisition on a box (the
// whole box: a trust region keeps its own search), after Optuna's
// GPSampler (v4.6, optuna/_gp/optim_mixed.py): local searches from the best
// Top candidates and from the points From (the incumbent), polished by
// projected BFGS in coordinates scaled by f's fitted lengthscales (the
// preconditioning of GPSampler's L-BFGS-B) — on a box, one batched
// gradient ascent from every start, then BFGS from its best end point
// (BFGS evaluates one point at a time: one polish keeps a decision within
// its time budget, BenchmarkOfflineDecide), and with PolishEach BFGS from
// each start as well; on a typed space mixedSearch from each start (every
// value of a categorical is one move away; with MixedPolish, BFGS on its
// continuous coordinates). The best end point wins over the best candidate
// when it scores higher.
type wideSearch struct {
	Top   int
	From  [][]float64
	Iters int // BFGS iterations per start
	// MixedPolish: on a typed space, mixedSearch polishes the continuous
	// coordinates by BFGS where its discrete steps stop.
	MixedPolish bool
	// PolishEach: on a box, BFGS also from every start (GPSampler's local
	// searches), not only from the batched ascent's best end.
	PolishEach bool
	// StartsOnly: with PolishEach, BFGS from the starts alone, no batched
	// ascent before it (GPSampler's local searches, one per start).
	StartsOnly bool
	// Interp: on a box, BFGS's line search interpolates
	// (maximise.BFGSTol.Interp) and the models' gradients come in the
	// adjoint form (model.AdjointPredictor), in the ascent and the polish
	// (opt-in polish-search=interp).
	Interp bool
	// Adjoint: on a box, the models' gradients in the ascent and the polish
	// come in the adjoint form, the line search as it is (polish-grad).
	Adjoint bool
	// Monotone: the acquisition is largest where every model but f has
	// posterior mean −∞ (lognei's: log P(g_j ≤ 0) ≤ 0, and the failure
	// penalty acts only above δ), so BFGS's line search rejects a trial
	// once f and the models evaluated so far put an upper bound on its
	// score below the value it needs (belowScore, polish-trials=bound):
	// the same search, fewer predictions. On a box; a typed space's
	// polish predicts every model.
	Monotone bool
	// Reuse: a search away from the points rep marks (the second search of
	// deterministic=observed) takes, for a start polished in this
	// decision's first search, that run's end when none of the run's
	// points is marked: away from the marks the score is the same, so is
	// the run (its predictions equal to rounding, through the solve cache).
	Reuse bool
	runs  []recordedRun // the first search's runs from each start (Reuse)
	// Fresh: on a box, this many points drawn uniformly in it at each
	// search are scored too, and the best Top of them join the starts
	// (GPSampler's preliminary 2,048 Sobol points a trial, fresh each time:
	// noisy-candidates). 0: the fixed candidates alone.
	Fresh int
}

// polishSearchDoc declares polish-search: the line search and gradients of
// lognei's BFGS polish on a box (opt-in interp: cheaper, but worse on 10
// seeds, docs/offline.md "A cheaper box polish").
var polishSearchDoc = bandit.ChoiceParam{Name: "polish-search", Default: "halve", Choices: []string{"halve", "interp"},
	Doc:    "boxes: halve: BFGS backtracks from the full step by halving, the models' gradients by d + 1 triangular solves a point; interp: the first step at most one lengthscale, the inverse Hessian scaled before its first update, a rejected step shrunk by quadratic interpolation, and the gradients in the adjoint form (two solves a point): 0.4–0.5 of the CPU time a decision, worse gaps on 10 seeds",
	Source: "Nocedal & Wright 2006 §3.5 (interpolating backtracking) and eq. 6.20 (the initial inverse Hessian); the adjoint form: GPyTorch's posterior mean kᵀα; measured: docs/offline.md, \"A cheaper box polish\""}

// polishGradDoc declares polish-grad: how lognei's box search computes the
// models' gradients.
var polishGradDoc = bandit.ChoiceParam{Name: "polish-grad", Default: "solve", Choices: []string{"solve", "adjoint"},
	Doc:    "boxes: the models' gradients in the batched ascent and the BFGS polish: solve: d + 1 triangular solves a point (∇μ = (L⁻¹∂k)ᵀL⁻¹y); adjoint: two, ∇μ = ∂kᵀα with α = K⁻¹y solved once (equal to rounding, so the searches part in the last bits); the line search as polish-search has it: 0.76–0.88 of the CPU time a decision, crash's gap worse on 8 of 10 seeds",
	Source: "the adjoint form of GPyTorch's posterior mean kᵀα; measured: docs/offline.md, \"Generation 15: cost\""}

// polishTrialsDoc declares polish-trials: how lognei's BFGS polish
// evaluates a line search's trial.
var polishTrialsDoc = bandit.ChoiceParam{Name: "polish-trials", Default: "bound", Choices: []string{"bound", "full"},
	Doc:     "boxes: bound: a line-search trial of the BFGS polish predicts f, then the constraints and the failure model one by one (the last that stopped a trial first), and is rejected as soon as its score with the models not yet predicted at their best (mean −∞) is below what the Armijo test needs; full: every model at every trial. The same search; the solve cache then holds other points, so candidate points' solves, and a few decisions, differ in the last bits",
	Source:  "our choice (log P(g_j ≤ 0) ≤ 0 and the failure penalty bound the score from above); measured: docs/offline.md, \"A cheaper box polish\"",
	Earlier: []bandit.Change{{Until: 12, Value: "full", Why: "lognei's BFGS polish rejects a line-search trial once the models predicted so far bound its score below what it needs: the same gaps on 10 seeds at 0.7–0.9 of the CPU time"}}}

// search maximises acq from the candidates' scores (already masked), away
// from the points rep marks; f is the candidates' model, ms every model.
func (w *wideSearch) search(rng *rand.Rand, box *domain.Box, score []float64, ms []model.Model, acq acquisition, rep func(bandit.Action) bool, moves int) (bandit.Action, int, error) {
	f := ms[0]
	i, err := maximise.ArgMaxFinite(rng, score)
	if err != nil {
		return bandit.Action{}, 0, err
	}
	var starts [][]float64
	add := func(x []float64) {
		if (rep == nil || !rep(bandit.PointAction(x))) && !slices.ContainsFunc(starts, func(s []float64) bool { return slices.Equal(s, x) }) {
			starts = append(starts, x)
		}
	}
	add(f.Action(i).X)
	for _, k := range maximise.TopK(score, w.Top) {
		if score[k] > -math.MaxFloat64 {
			add(f.Action(k).X)
		}
	}
	for _, x := range w.From {
		add(x)
	}
	bps := make([]model.BatchPredictor, len(ms))
	for j, m := range ms {
		if bps[j] = model.AsBatchPredictor(m); bps[j] == nil || !bps[j].Gradients() || len(starts) == 0 {
			return f.Action(i), i, nil
		}
	}
	sc := func(_ []float64, mv []float64) float64 { return acq(mv) }
	if rep != nil {
		sc = awayFrom(acq, rep)
	}
	d := box.Dim()
	batch := batchScore(bps, sc, d)
	if w.Fresh > 0 && !box.Mixed() {
		xs, err := freshStarts(rng, box, batch, w.Fresh, w.Top)
		if err != nil {
			return bandit.Action{}, 0, err
		}
		for _, x := range xs {
			add(x)
		}
	}
	tol := bfgsTol(w.Iters)
	if w.Monotone {
		tol.Below = belowScore(bps, sc)
	}
	val := make([]float64, 1)
	grad := [][]float64{make([]float64, d)}
	var bestX []float64
	bestV := score[i]
	consider := func(x []float64) error {
		if x == nil || (rep != nil && rep(bandit.PointAction(x))) {
			return nil
		}
		if err := batch([][]float64{x}, val, nil); err != nil {
			return err
		}
		if val[0] > bestV {
			bestX, bestV = x, val[0]
		}
		return nil
	}
	if box.Mixed() {
		var polish func(sub *domain.Box, x []float64) ([]float64, error)
		if w.MixedPolish {
			polish = func(sub *domain.Box, x []float64) ([]float64, error) {
				return scaledBFGS(sub, x, f, batch, val, grad, w.Iters)
			}
		}
		for _, s := range starts {
			x, err := mixedSearch(box, s, ms, acq, ascentOptions(d), rep, moves, polish)
			if err != nil {
				return bandit.Action{}, 0, err
			}
			if err := consider(x); err != nil {
				return bandit.Action{}, 0, err
			}
		}
	} else {
		if w.Interp || w.Adjoint {
			batch = adjointScore(bps, ms, sc, d)
		}
		tol.Interp = w.Interp
		if !w.PolishEach || !w.StartsOnly {
			// One batched ascent from every start (one pass over the factor
			// per step for all of them), then the quasi-Newton polish of its
			// best.
			x, _, err := maximise.RefineGrad(batch, box.Lo, box.Hi, starts, ascentOptions(d))
			if err != nil {
				return bandit.Action{}, 0, err
			}
			if x, err = scaledBFGSTol(box, x, f, batch, val, grad, tol); err != nil {
				return bandit.Action{}, 0, err
			}
			if err := consider(x); err != nil {
				return bandit.Action{}, 0, err
			}
		}
		if w.PolishEach {
			// BFGS from every start too, so that a basin away from the
			// best candidate competes at its own maximum.
			for _, s := range starts {
				y, err := w.polishRun(box, s, f, batch, val, grad, tol, rep)
				if err != nil {
					return bandit.Action{}, 0, err
				}
				if err := consider(y); err != nil {
					return bandit.Action{}, 0, err
				}
			}
		}
	}
	if bestX == nil {
		return f.Action(i), i, nil
	}
	return bandit.PointAction(bestX), -1, nil
}

// recordedRun is one BFGS run of a search: its start, end and every point
// it scored.
type recordedRun struct {
	start, end []float64
	path       []float64 // the points, one after another
}

// touches reports whether rep marks a point of r's path.
func (r recordedRun) touches(rep func(bandit.Action) bool) bool {
	d := len(r.start)
	for k := 0; k+d <= len(r.path); k += d {
		if rep(bandit.PointAction(r.path[k : k+d])) {
			return true
		}
	}
	return false
}

// polishRun is scaledBFGSTol from s; with Reuse, a first search (rep nil)
// records the run and a search away from rep's points takes a recorded
// run from s that scored none of them.
func (w *wideSearch) polishRun(box *domain.Box, s []float64, f model.Model, batch maximise.BatchScore, val []float64, grad [][]float64, tol maximise.BFGSTol, rep func(bandit.Action) bool) ([]float64, error) {
	if !w.Reuse {
		return scaledBFGSTol(box, s, f, batch, val, grad, tol)
	}
	if rep != nil {
		for _, r := range w.runs {
			if slices.Equal(r.start, s) && !r.touches(rep) {
				return slices.Clone(r.end), nil
			}
		}
		return scaledBFGSTol(box, s, f, batch, val, grad, tol)
	}
	run := recordedRun{start: s}
	rec := func(xs [][]float64, val []float64, grad [][]float64) error {
		for _, x := range xs {
			run.path = append(run.path, x...)
		}
		return batch(xs, val, grad)
	}
	if below := tol.Below; below != nil {
		tol.Below = func(x []float64, floor float64) (float64, bool, error) {
			run.path = append(run.path, x...)
			return below(x, floor)
		}
	}
	y, err := scaledBFGSTol(box, s, f, rec, val, grad, tol)
	if err == nil {
		run.end = y
		w.runs = append(w.runs, run)
	}
	return y, err
}

// freshStarts are the best top of n points drawn uniformly in box,
// scored by batch in blocks (the scores −∞ or NaN left out).
func freshStarts(rng *rand.Rand, box *domain.Box, batch maximise.BatchScore, n, top int) ([][]float64, error) {
	const block = 256
	d := box.Dim()
	pts := make([][]float64, n)
	val := make([]float64, n)
	for k := range pts {
		x := make([]float64, d)
		for c := range x {
			x[c] = box.Lo[c] + rng.Float64()*(box.Hi[c]-box.Lo[c])
		}
		pts[k] = x
	}
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		if err := batch(pts[lo:hi], val[lo:hi], nil); err != nil {
			return nil, err
		}
	}
	var out [][]float64
	for _, k := range maximise.TopK(val, top) {
		if val[k] > -math.MaxFloat64 {
			out = append(out, pts[k])
		}
	}
	return out, nil
}

// belowScore evaluates sc at one point model by model, f first (the
// predictions and arithmetic of batchScore's values, so the same value
// where it does not stop), and stops once sc with every model not yet
// evaluated at mean −∞ (variance 1) lies below floor: an upper bound of
// the score where it is non-increasing in every mean but f's
// (wideSearch.Monotone). The model that last stopped a trial is predicted
// next after f (move to front): the binding constraint of a line search
// rejects its next trials too.
func belowScore(bps []model.BatchPredictor, sc func(x, mv []float64) float64) func(x []float64, floor float64) (float64, bool, error) {
	nm := len(bps)
	mv := make([]float64, 2*nm)
	mean, vr := make([]float64, 1), make([]float64, 1)
	xs := make([][]float64, 1)
	order := make([]int, nm)
	for j := range order {
		order[j] = j
	}
	return func(x []float64, floor float64) (float64, bool, error) {
		xs[0] = x
		for j := 1; j < nm; j++ {
			mv[2*j], mv[2*j+1] = math.Inf(-1), 1
		}
		for k, j := range order {
			if err := bps[j].PredictBatch(xs, mean, vr, nil, nil); err != nil {
				return 0, false, err
			}
			mv[2*j], mv[2*j+1] = mean[0], vr[0]
			if k < nm-1 {
				if v := sc(x, mv); v < floor {
					if k > 1 {
						copy(order[2:k+1], order[1:k])
						order[1] = j
					}
					return v, true, nil
				}
			}
		}
		return sc(x, mv), false, nil
	}
}

// scaledBFGS is projected BFGS ascent (at most iters iterations) of the
// batch score from x in z = (x − lo)/ℓ, ℓ f's fitted lengthscales (the
// box's sides when f has none); val and grad are its scratch.
func scaledBFGS(box *domain.Box, x []float64, f model.Model, batch maximise.BatchScore, val []float64, grad [][]float64, iters int) ([]float64, error) {
	return scaledBFGSTol(box, x, f, batch, val, grad, bfgsTol(iters))
}

// bfgsTol is the polish's stopping rule: iters iterations, a gradient
// below 1e-8 or a gain below 1e-12 (relative).
func bfgsTol(iters int) maximise.BFGSTol {
	return maximise.BFGSTol{Iters: iters, GTol: 1e-8, FTol: 1e-12}
}

// adjointScore is batchScore over ms with their gradients in the adjoint
// form, or batchScore's own when a model has none (a sparse GP).
func adjointScore(bps []model.BatchPredictor, ms []model.Model, sc func(x, mv []float64) float64, d int) maximise.BatchScore {
	aps := make([]model.AdjointPredictor, len(ms))
	for j, m := range ms {
		if aps[j] = model.AsAdjointPredictor(m); aps[j] == nil {
			return batchScore(bps, sc, d)
		}
	}
	return batchScoreWith(bps, aps, sc, d)
}

// scaledBFGSTol is scaledBFGS under the stopping rule and line search tol.
func scaledBFGSTol(box *domain.Box, x []float64, f model.Model, batch maximise.BatchScore, val []float64, grad [][]float64, tol maximise.BFGSTol) ([]float64, error) {
	d := box.Dim()
	ls := make([]float64, d)
	for k := range ls {
		// a pinned coordinate (a side of 0) stays put at any scale
		if ls[k] = box.Hi[k] - box.Lo[k]; ls[k] == 0 {
			ls[k] = 1
		}
	}
	if a, ok := f.(interface{ Kernel() (gp.Kernel, float64) }); ok {
		if k, _ := a.Kernel(); k != nil {
			if ard, ok := k.(gp.ARD); ok && len(ard.Lengthscales) == d {
				copy(ls, ard.Lengthscales)
			}
		}
	}
	lo, hi, z := make([]float64, d), make([]float64, d), make([]float64, d)
	for k := range z {
		hi[k] = (box.Hi[k] - box.Lo[k]) / ls[k]
		z[k] = (x[k] - box.Lo[k]) / ls[k]
	}
	at := func(z []float64) []float64 {
		p := make([]float64, d)
		for k := range p {
			p[k] = math.Min(math.Max(box.Lo[k]+z[k]*ls[k], box.Lo[k]), box.Hi[k])
		}
		return p
	}
	// the trials' points and their batch, reused: the predictions copy
	// what they keep
	p, xs := make([]float64, d), make([][]float64, 1)
	into := func(z []float64) []float64 {
		for k := range p {
			p[k] = math.Min(math.Max(box.Lo[k]+z[k]*ls[k], box.Lo[k]), box.Hi[k])
		}
		return p
	}
	obj := func(z, g []float64) (float64, error) {
		var gr [][]float64
		if g != nil {
			gr = grad
		}
		xs[0] = into(z)
		if err := batch(xs, val, gr); err != nil {
			return 0, err
		}
		for k := range g {
			g[k] = grad[0][k] * ls[k]
		}
		return val[0], nil
	}
	if below := tol.Below; below != nil { // BFGS's trials are in z, belowScore's in the box
		tol.Below = func(z []float64, floor float64) (float64, bool, error) { return below(into(z), floor) }
	}
	zz, _, err := maximise.BFGS(obj, z, lo, hi, tol)
	if err != nil {
		return nil, err
	}
	return at(zz), nil
}
