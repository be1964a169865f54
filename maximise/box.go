package maximise

import (
	"fmt"
	"math"
)

// DefaultRefineEvals is the number of score evaluations Refine spends per
// start point by default. Each evaluation of an RPOL score costs two GP
// predictions (O(t²) each), so this is what keeps a round at t = 1000 within
// a budget of 20 ms.
const DefaultRefineEvals = 12

// Refine maximises score locally inside the box [lo, hi], starting from each
// point of starts (typically the best candidates of a grid), with a
// Nelder–Mead simplex (standard coefficients 1, 2, ½, ½) whose vertices are
// projected onto the box, so every evaluated and returned point lies inside
// it. It returns the best point seen (including the starts themselves) and
// its score; evals bounds the number of evaluations per start
// (DefaultRefineEvals when ≤ 0).
//
// Agents use it for models without closed-form gradients (RefineGrad
// otherwise). gonum/optimize.NelderMead was the first plan, but importing
// gonum/optimize pulls stat/distmv and with it golang.org/x/tools v0.48,
// which forces golang.org/x/sys up for the whole module; this 60-line
// simplex avoids that go.mod change.
func Refine(score func(x []float64) float64, lo, hi []float64, starts [][]float64, evals int) ([]float64, float64, error) {
	if len(lo) == 0 || len(lo) != len(hi) {
		return nil, 0, fmt.Errorf("refine: box lo has %d coordinates, hi has %d", len(lo), len(hi))
	}
	for i := range lo {
		if math.IsNaN(lo[i]) || math.IsNaN(hi[i]) || math.IsInf(lo[i], 0) || math.IsInf(hi[i], 0) || lo[i] > hi[i] {
			return nil, 0, fmt.Errorf("refine: box coordinate %d: [%v, %v] is not a finite non-empty interval", i, lo[i], hi[i])
		}
	}
	if len(starts) == 0 {
		return nil, 0, fmt.Errorf("refine: no start points")
	}
	if evals <= 0 {
		evals = DefaultRefineEvals
	}
	d := len(lo)
	project := func(x []float64) {
		for i, v := range x {
			x[i] = math.Min(math.Max(v, lo[i]), hi[i])
		}
	}
	// neg is the value minimised: −score, +Inf for NaN.
	neg := func(x []float64) float64 {
		v := score(x)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return -v
	}
	step := 0.0
	for i := range lo {
		step = math.Max(step, 0.02*(hi[i]-lo[i])) // about the grid spacing
	}
	var best []float64
	bestVal := math.Inf(1)
	simplex := make([][]float64, d+1)
	vals := make([]float64, d+1)
	cen := make([]float64, d)
	xr, xe := make([]float64, d), make([]float64, d)
	for _, s := range starts {
		n := 0
		for k := range simplex {
			x := append(simplex[k][:0], s...)
			if k > 0 {
				if x[k-1]+step <= hi[k-1] {
					x[k-1] += step
				} else {
					x[k-1] -= step
				}
			}
			project(x)
			simplex[k] = x
			vals[k] = neg(x)
			n++
		}
		along := func(t float64, dst []float64, worst []float64) float64 {
			for i := range dst {
				dst[i] = cen[i] + t*(worst[i]-cen[i])
			}
			project(dst)
			n++
			return neg(dst)
		}
		for n < evals && step > 0 {
			// Order: simplex[0] best, simplex[d] worst.
			for a := 1; a <= d; a++ {
				for b := a; b > 0 && vals[b] < vals[b-1]; b-- {
					vals[b], vals[b-1] = vals[b-1], vals[b]
					simplex[b], simplex[b-1] = simplex[b-1], simplex[b]
				}
			}
			for i := range cen {
				cen[i] = 0
				for k := 0; k < d; k++ {
					cen[i] += simplex[k][i] / float64(d)
				}
			}
			w := simplex[d]
			fr := along(-1, xr, w)
			switch {
			case fr < vals[0]:
				if fe := along(-2, xe, w); fe < fr {
					copy(w, xe)
					vals[d] = fe
				} else {
					copy(w, xr)
					vals[d] = fr
				}
			case fr < vals[d-1]:
				copy(w, xr)
				vals[d] = fr
			default:
				if fc := along(0.5, xe, w); fc < vals[d] {
					copy(w, xe)
					vals[d] = fc
				} else { // shrink towards the best vertex
					for k := 1; k <= d; k++ {
						for i := range simplex[k] {
							simplex[k][i] = simplex[0][i] + 0.5*(simplex[k][i]-simplex[0][i])
						}
						vals[k] = neg(simplex[k])
						n++
					}
				}
			}
		}
		for k := range simplex {
			if vals[k] < bestVal || best == nil {
				bestVal = vals[k]
				best = append(best[:0], simplex[k]...)
			}
		}
	}
	if math.IsInf(bestVal, 0) || math.IsNaN(bestVal) {
		return nil, 0, fmt.Errorf("refine: score is %v at the best point %v", -bestVal, best)
	}
	return best, -bestVal, nil
}

// TopK returns the indices of the k largest finite scores, best first.
func TopK(xs []float64, k int) []int {
	if k > len(xs) {
		k = len(xs)
	}
	out := make([]int, 0, k+1)
	for i, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		pos := len(out)
		for pos > 0 && xs[out[pos-1]] < v {
			pos--
		}
		if pos >= k {
			continue
		}
		out = append(out, 0)
		copy(out[pos+1:], out[pos:])
		out[pos] = i
		if len(out) > k {
			out = out[:k]
		}
	}
	return out
}
