// The box refinement of an acquisition (refineAcq, refineAcqX) and the batched scoring of points over the models (batchScore).

package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// refineAcq refines acq from starts inside the box; it returns nil when the
// models cannot be evaluated off their candidates.
func refineAcq(box *domain.Box, starts [][]float64, ms []model.Model, acq acquisition, grad maximise.GradOptions) ([]float64, error) {
	return refineAcqX(box, starts, ms, func(_ []float64, mv []float64) float64 { return acq(mv) }, grad)
}

// refineAcqX is refineAcq for a score that also reads the point.
func refineAcqX(box *domain.Box, starts [][]float64, ms []model.Model, acq func(x, mv []float64) float64, grad maximise.GradOptions) ([]float64, error) {
	bps := make([]model.BatchPredictor, len(ms))
	hasGrad := true
	for j, m := range ms {
		if bps[j] = model.AsBatchPredictor(m); bps[j] == nil || !bps[j].Gradients() {
			hasGrad = false
			break
		}
	}
	if hasGrad {
		x, _, err := maximise.RefineGrad(batchScore(bps, acq, box.Dim()), box.Lo, box.Hi, starts, grad)
		return x, err
	}
	ps := make([]model.Predictor, len(ms))
	for j, m := range ms {
		if ps[j] = model.AsPredictor(m); ps[j] == nil {
			return nil, nil
		}
	}
	mv := make([]float64, 2*len(ms))
	at := func(x []float64) float64 {
		for j, p := range ps {
			mv[2*j], mv[2*j+1] = p.Predict(x)
		}
		return acq(x, mv)
	}
	x, _, err := maximise.Refine(at, box.Lo, box.Hi, starts, 0)
	return x, err
}

// batchScore is acq over a batch of points: every model is evaluated at the
// whole batch (one pass over a factor shared by all of them), and the
// gradient of acq is the chain rule through the closed-form gradients of
// the posteriors, with the derivative of the agent's scalar acq along
// (∂μ_j/∂x_i, ∂σ²_j/∂x_i)_j taken by central differences (acq is cheap; the
// kinks of max, clipping and rectifiers get their mean one-sided slope).
func batchScore(bps []model.BatchPredictor, acq func(x, mv []float64) float64, d int) maximise.BatchScore {
	return batchScoreWith(bps, nil, acq, d)
}

// batchScoreWith is batchScore with the models' gradients in the adjoint
// form (model.AdjointPredictor) when aps is not nil: the same values, the
// gradients equal to rounding.
func batchScoreWith(bps []model.BatchPredictor, aps []model.AdjointPredictor, acq func(x, mv []float64) float64, d int) maximise.BatchScore {
	nm := len(bps)
	mv := make([]float64, 2*nm)
	pm := make([]float64, 2*nm)
	// the predictions' buffers, kept across calls (a polish evaluates one
	// point at a time) and grown to the largest batch
	mean, vr := make([][]float64, nm), make([][]float64, nm)
	dm, dv := make([][][]float64, nm), make([][][]float64, nm)
	return func(xs [][]float64, val []float64, grad [][]float64) error {
		b := len(xs)
		for j, p := range bps {
			mean[j], vr[j] = grow(mean[j], b), grow(vr[j], b)
			if grad != nil {
				for len(dm[j]) < b {
					dm[j] = append(dm[j], make([]float64, d))
					dv[j] = append(dv[j], make([]float64, d))
				}
			}
			var dmj, dvj [][]float64
			if grad != nil {
				dmj, dvj = dm[j][:b], dv[j][:b]
			}
			predict := p.PredictBatch
			if aps != nil && grad != nil {
				predict = aps[j].PredictBatchAdjoint
			}
			if err := predict(xs, mean[j], vr[j], dmj, dvj); err != nil {
				return err
			}
		}
		for k := range xs {
			for j := range bps {
				mv[2*j], mv[2*j+1] = mean[j][k], vr[j][k]
			}
			val[k] = acq(xs[k], mv)
			if grad == nil {
				continue
			}
			for i := 0; i < d; i++ {
				scale := 1.0
				for j := range bps {
					scale = math.Max(scale, math.Max(math.Abs(dm[j][k][i]), math.Abs(dv[j][k][i])))
				}
				eps := 1e-6 / scale
				at := func(sign float64) float64 {
					for j := range bps {
						pm[2*j] = mv[2*j] + sign*eps*dm[j][k][i]
						pm[2*j+1] = math.Max(mv[2*j+1]+sign*eps*dv[j][k][i], 0)
					}
					return acq(xs[k], pm)
				}
				grad[k][i] = (at(1) - at(-1)) / (2 * eps)
			}
		}
		return nil
	}
}

// grow returns b with length n, reallocated only when its capacity is short.
func grow(b []float64, n int) []float64 {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]float64, n)
}

// freshBlock is how many fresh candidates bestSkippingF predicts together:
// at least the solve's block of right-hand sides (gp's solveBlock, 64), and
// few enough that the best of the earlier blocks prunes most of a run of
// SCBO's 2,000–5,000 candidates.
const freshBlock = 128

// bestSkippingF is the index of the first largest acq over xs, the arg max
// of batchScore's values, with fewer predictions: f, bps[0], is predicted
// only where skipF says acq reads it, and a point's other models only while
// it may still beat the best of the blocks before it. Where skipF holds, acq
// does not rise with any model's posterior mean (safeFirst's largest bound
// of g; the penalties of pending points and of failures), so acq with the
// models not yet predicted at mean −∞ and variance 0 bounds it from above,
// and a point whose bound is not above that best is dropped. The model that
// dropped most points, or alone would have, is predicted first. A point's prediction does not
// depend on the batch it is in, so the index is the one of scoring every
// point; drop, when set, counts the points dropped (tests).
func bestSkippingF(bps []model.BatchPredictor, acq func(x, mv []float64) float64, skipF func(mv []float64) bool, xs [][]float64, drop *int) (int, error) {
	nm := len(bps)
	mv := make([]float64, 2*nm)
	mean, vr := make([][]float64, nm), make([][]float64, nm)
	for j := range bps {
		mean[j], vr[j] = make([]float64, freshBlock), make([]float64, freshBlock)
	}
	order := make([]int, 0, nm-1) // the models but f, the best pruner first
	for j := 1; j < nm; j++ {
		order = append(order, j)
	}
	pruned := make([]int, nm)
	known := make([]bool, nm)
	sub := make([][]float64, 0, freshBlock)
	alive := make([]int, 0, freshBlock)
	sm, sv := make([]float64, freshBlock), make([]float64, freshBlock)
	best, bestVal := -1, math.Inf(-1)
	for lo := 0; lo < len(xs); lo += freshBlock {
		blk := xs[lo:min(lo+freshBlock, len(xs))]
		alive = alive[:0]
		for k := range blk {
			alive = append(alive, k)
		}
		clear(known)
		// fill writes point k's posteriors into mv: the known models' own, the
		// others mean −∞ and variance 0 (f's 0: unread where skipF holds)
		fill := func(k int) {
			for j := range bps {
				switch {
				case known[j]:
					mv[2*j], mv[2*j+1] = mean[j][k], vr[j][k]
				case j == 0:
					mv[0], mv[1] = 0, 0
				default:
					mv[2*j], mv[2*j+1] = math.Inf(-1), 0
				}
			}
		}
		// predict predicts model j at the alive points of the block
		predict := func(j int) error {
			sub = sub[:0]
			for _, k := range alive {
				sub = append(sub, blk[k])
			}
			if err := bps[j].PredictBatch(sub, sm, sv, nil, nil); err != nil {
				return err
			}
			for i, k := range alive {
				mean[j][k], vr[j][k] = sm[i], sv[i]
			}
			known[j] = true
			return nil
		}
		for q, j := range order {
			if len(alive) == 0 {
				break
			}
			if err := predict(j); err != nil {
				return 0, err
			}
			if best < 0 || q == len(order)-1 {
				continue // no best to beat yet, or every model known
			}
			keep := alive[:0]
			for _, k := range alive {
				if fill(k); skipF(mv) && acq(blk[k], mv) <= bestVal {
					pruned[j]++
					continue
				}
				keep = append(keep, k)
			}
			alive = keep
		}
		if drop != nil {
			*drop += len(blk) - len(alive)
		}
		// f where acq reads it, then the values
		need := alive
		if len(order) > 0 {
			need = make([]int, 0, len(alive))
			for _, k := range alive {
				if fill(k); !skipF(mv) {
					need = append(need, k)
				}
			}
		}
		if len(need) > 0 {
			for _, k := range alive {
				mean[0][k], vr[0][k] = 0, 0 // unread where f is not predicted
			}
			all := alive
			alive = need
			if err := predict(0); err != nil {
				return 0, err
			}
			alive = all
		}
		prev := bestVal
		for _, k := range alive {
			fill(k)
			if v := acq(blk[k], mv); best < 0 || v > bestVal {
				best, bestVal = lo+k, v
			}
		}
		// which model alone would have dropped the points scored in full
		if lo > 0 {
			for _, k := range alive {
				for _, j := range order {
					for i := 1; i < nm; i++ {
						mv[2*i], mv[2*i+1] = math.Inf(-1), 0
					}
					mv[0], mv[1] = 0, 0
					mv[2*j], mv[2*j+1] = mean[j][k], vr[j][k]
					if skipF(mv) && acq(blk[k], mv) <= prev {
						pruned[j]++
					}
				}
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return pruned[b] - pruned[a] })
	}
	return best, nil
}

// predictors returns the Predictor views of f and g_1..g_m, or nil when the
// models cannot be evaluated off their candidates (finite domains).
func predictors(f model.Model, g []model.Model) (model.Predictor, []model.Predictor) {
	pf := model.AsPredictor(f)
	if pf == nil {
		return nil, nil
	}
	pg := make([]model.Predictor, len(g))
	for j, m := range g {
		if pg[j] = model.AsPredictor(m); pg[j] == nil {
			return nil, nil
		}
	}
	return pf, pg
}
