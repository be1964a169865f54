package gp

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// PredictJoint writes the posterior mean at the points xs into mean and
// their joint posterior covariance K(xs, xs) − WᵀW, W = L⁻¹K(X, xs), into
// cov (row-major n×n, lower triangle and diagonal; the upper triangle is
// left as it was): what a joint Thompson draw at points off the candidate
// set needs (R&W eq. 2.24). O(n·t² + n²·t) for n points after t
// observations, pending points included.
func (g *Exact) PredictJoint(xs [][]float64, mean, cov []float64) error {
	n, t := len(xs), len(g.ys)
	if len(mean) < n || len(cov) < n*n {
		return fmt.Errorf("gp: PredictJoint has %d points but room for %d means and %d covariances", n, len(mean), len(cov))
	}
	f := g.f
	w := make([]float64, n*max(t, 1))
	for i, x := range xs {
		if err := checkPoint("PredictJoint", x); err != nil {
			return err
		}
		r := w[i*t : (i+1)*t]
		evalCol(f.k, f.pts[:t], x, r)
		f.solveL(r)
		mean[i] = floats.Dot(r, g.v)
	}
	for i, x := range xs {
		evalRow(f.k, x, xs[:i+1], cov[i*n:i*n+i+1])
	}
	if t > 0 {
		blas64.Syrk(blas.NoTrans, -1, blas64.General{Rows: n, Cols: t, Stride: t, Data: w}, 1,
			blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: cov[:n*n]})
	}
	return nil
}
