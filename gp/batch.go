package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// BatchPosterior returns the posterior mean (len(at)) and row-major
// len(at)×len(at) covariance at the points at, given observations ys at xs
// with noise variance noiseVar, by the plain O(t³) formulas
//
//	μ = K(at,X)(K_t+λI)⁻¹y,  Σ = K(at,at) − K(at,X)(K_t+λI)⁻¹K(X,at)
//
// using a dense Cholesky factorisation. It is meant as a reference
// implementation. It returns nil, nil if the inputs have inconsistent lengths,
// noiseVar is not positive, or the factorisation fails.
func BatchPosterior(k Kernel, xs [][]float64, ys []float64, noiseVar float64, at [][]float64) (mean []float64, cov []float64) {
	if !(noiseVar > 0) {
		return nil, nil
	}
	nv := make([]float64, len(xs))
	for i := range nv {
		nv[i] = noiseVar
	}
	return BatchPosteriorNoise(k, xs, ys, nv, at)
}

// BatchPosteriorNoise is BatchPosterior with a separate noise variance for
// each observation (K_t + diag(noiseVars) replaces K_t + λI). n repeated
// observations at one point with noise λ are equivalent to one observation of
// their average with noise λ/n.
func BatchPosteriorNoise(k Kernel, xs [][]float64, ys, noiseVars []float64, at [][]float64) (mean []float64, cov []float64) {
	t, m := len(xs), len(at)
	if k == nil || len(ys) != t || len(noiseVars) != t {
		return nil, nil
	}
	kaa := mat.NewDense(max(m, 1), max(m, 1), nil)
	if a, ok := k.(ARD); ok {
		// ARD's Eval is symmetric to the bit (evalRow): half the evaluations.
		for i := 0; i < m; i++ {
			for j := i; j < m; j++ {
				v := a.Eval(at[i], at[j])
				kaa.Set(i, j, v)
				kaa.Set(j, i, v)
			}
		}
	} else {
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				kaa.Set(i, j, k.Eval(at[i], at[j]))
			}
		}
	}
	mean = make([]float64, m)
	cov = make([]float64, m*m)
	if t == 0 {
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				cov[i*m+j] = kaa.At(i, j)
			}
		}
		return mean, cov
	}
	a := mat.NewSymDense(t, nil)
	for i := 0; i < t; i++ {
		if !(noiseVars[i] > 0) {
			return nil, nil
		}
		for j := i; j < t; j++ {
			v := k.Eval(xs[i], xs[j])
			if i == j {
				v += noiseVars[i]
			}
			a.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if ok := ch.Factorize(a); !ok {
		return nil, nil
	}
	if m == 0 {
		return mean, cov
	}
	kxa := mat.NewDense(t, m, nil)
	for i := 0; i < t; i++ {
		for j := 0; j < m; j++ {
			kxa.Set(i, j, k.Eval(xs[i], at[j]))
		}
	}
	var alpha mat.VecDense
	if err := ch.SolveVecTo(&alpha, mat.NewVecDense(t, append([]float64(nil), ys...))); err != nil && !isCondition(err) {
		return nil, nil
	}
	var mv mat.VecDense
	mv.MulVec(kxa.T(), &alpha)
	for i := 0; i < m; i++ {
		mean[i] = mv.AtVec(i)
	}
	// Σ = Kaa − (L⁻¹Kxa)ᵀ(L⁻¹Kxa)
	var lt mat.TriDense
	ch.LTo(&lt)
	var w mat.Dense
	if err := w.Solve(&lt, kxa); err != nil && !isCondition(err) {
		return nil, nil
	}
	var q mat.Dense
	q.Mul(w.T(), &w)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			cov[i*m+j] = kaa.At(i, j) - q.At(i, j)
		}
	}
	return mean, cov
}

func isCondition(err error) bool {
	_, ok := err.(mat.Condition)
	return ok
}

// BatchInfoGain returns ½ log det(I + λ⁻¹K_t) for the points xs, computed by
// a dense Cholesky factorisation (NaN if it fails).
func BatchInfoGain(k Kernel, xs [][]float64, noiseVar float64) float64 {
	t := len(xs)
	if t == 0 {
		return 0
	}
	a := mat.NewSymDense(t, nil)
	for i := 0; i < t; i++ {
		for j := i; j < t; j++ {
			v := k.Eval(xs[i], xs[j]) / noiseVar
			if i == j {
				v++
			}
			a.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return math.NaN()
	}
	return 0.5 * ch.LogDet()
}
