// The box refinement of an acquisition (refineAcq, refineAcqX) and the batched scoring of points over the models (batchScore).

package agent

import (
	"math"

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

// scoreSkippingF is batchScore's values (no gradients) with f, bps[0],
// predicted only at the points where skipF says acq reads it: the same
// numbers (a point's prediction does not depend on the batch it is in), a
// model fewer at the others, where f's entries of mv are 0 and unread.
func scoreSkippingF(bps []model.BatchPredictor, acq func(x, mv []float64) float64, skipF func(mv []float64) bool) maximise.BatchScore {
	nm := len(bps)
	mv := make([]float64, 2*nm)
	return func(xs [][]float64, val []float64, _ [][]float64) error {
		b := len(xs)
		mean, vr := make([][]float64, nm), make([][]float64, nm)
		for j, p := range bps {
			mean[j], vr[j] = make([]float64, b), make([]float64, b)
			if j > 0 {
				if err := p.PredictBatch(xs, mean[j], vr[j], nil, nil); err != nil {
					return err
				}
			}
		}
		fill := func(k int) {
			for j := range bps {
				mv[2*j], mv[2*j+1] = mean[j][k], vr[j][k]
			}
		}
		var need []int
		for k := range xs {
			if fill(k); !skipF(mv) {
				need = append(need, k)
			}
		}
		if len(need) > 0 {
			fx := make([][]float64, len(need))
			fm, fv := make([]float64, len(need)), make([]float64, len(need))
			for i, k := range need {
				fx[i] = xs[k]
			}
			if err := bps[0].PredictBatch(fx, fm, fv, nil, nil); err != nil {
				return err
			}
			for i, k := range need {
				mean[0][k], vr[0][k] = fm[i], fv[i]
			}
		}
		for k := range xs {
			fill(k)
			val[k] = acq(xs[k], mv)
		}
		return nil
	}
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
