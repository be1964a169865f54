package gp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPredictBatchAdjoint: the adjoint form's means and variances are
// PredictBatch's to the bit and its gradients PredictBatch's to rounding,
// for an ARD kernel through its kept gradient factors (a point solved alone
// before) and through Grad (a batch), for a kernel without ARD, with the
// noise at the practical floor (an interpolating, ill-conditioned factor),
// and after an Add (α solved again).
func TestPredictBatchAdjoint(t *testing.T) {
	kernels := []GradKernel{
		ARD{Nu: 2.5, Lengthscales: []float64{0.3, 0.7, 1.2}, Variance: 1.3},
		ARD{Lengthscales: []float64{0.5, 0.4, 0.9}, Variance: 0.8},
		Matern{Nu: 2.5, Lengthscale: 0.8, Variance: 1},
	}
	for _, k := range kernels {
		for _, lam := range []float64{0.1, 1e-6} {
			rng := rand.New(rand.NewPCG(7, 8))
			g, _ := NewExact(k, lam)
			obs := func(n int) {
				for _, x := range randPoints(rng, n, 3) {
					if err := g.Add(x, math.Sin(3*x[0])+x[1]*x[2]); err != nil {
						t.Fatal(err)
					}
				}
			}
			obs(60)
			check := func(xs [][]float64, alone bool) {
				b := len(xs)
				m1, v1, m2, v2 := make([]float64, b), make([]float64, b), make([]float64, b), make([]float64, b)
				dm1, dv1, dm2, dv2 := grads(b, 3), grads(b, 3), grads(b, 3), grads(b, 3)
				if alone { // a line search's trial: value first, its gradient factors kept
					for j, x := range xs {
						if err := g.PredictBatch([][]float64{x}, m2[j:], v2[j:], nil, nil); err != nil {
							t.Fatal(err)
						}
						if err := g.PredictBatchAdjoint([][]float64{x}, m2[j:], v2[j:], dm2[j:], dv2[j:]); err != nil {
							t.Fatal(err)
						}
					}
				} else if err := g.PredictBatchAdjoint(xs, m2, v2, dm2, dv2); err != nil {
					t.Fatal(err)
				}
				if err := g.PredictBatch(xs, m1, v1, dm1, dv1); err != nil {
					t.Fatal(err)
				}
				for j := range xs {
					if m1[j] != m2[j] || v1[j] != v2[j] {
						t.Fatalf("%v λ=%v: adjoint (%v, %v), PredictBatch (%v, %v)", k, lam, m2[j], v2[j], m1[j], v1[j])
					}
					for i := range 3 {
						sm := 1e-9 * (1 + math.Abs(dm1[j][i]))
						sv := 1e-9 * (1 + math.Abs(dv1[j][i]))
						if math.Abs(dm1[j][i]-dm2[j][i]) > sm || math.Abs(dv1[j][i]-dv2[j][i]) > sv {
							t.Fatalf("%v λ=%v point %d coord %d: adjoint ∇ (%v, %v), PredictBatch (%v, %v)", k, lam, j, i, dm2[j][i], dv2[j][i], dm1[j][i], dv1[j][i])
						}
					}
				}
			}
			check(randPoints(rng, 3, 3), true)
			check(randPoints(rng, 12, 3), false)
			obs(5)
			check(randPoints(rng, 3, 3), true)
		}
	}
}

func grads(b, d int) [][]float64 {
	out := make([][]float64, b)
	for j := range out {
		out[j] = make([]float64, d)
	}
	return out
}
