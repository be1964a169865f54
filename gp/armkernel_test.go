package gp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestArmPosteriorKernelMatchesMatrix: the posterior built from a kernel
// (prior columns on demand, no N×N matrix) equals the one built from the
// Gram matrix, through new and repeated arms and mean refreshes; and the
// precomputed-kernel constructor equals the copying one.
func TestArmPosteriorKernelMatchesMatrix(t *testing.T) {
	n := 120
	pts := armPoints(n, 0, 1)
	k := SE{Lengthscale: 0.2, Variance: 1}
	ref, err := NewArmPosterior(Gram(k, pts), n, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := NewArmPosteriorKernel(k, pts, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := NewPrecomputed(Gram(k, pts), n)
	pre, err := NewArmPosteriorPrecomputed(pk, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 17))
	for s := 0; s < 400; s++ {
		arm := rng.IntN(n)
		if s%3 == 0 {
			arm = rng.IntN(10) // repeats
		}
		y := math.Sin(6*pts[arm][0]) + 0.1*rng.NormFloat64()
		for _, p := range []*ArmPosterior{ref, lazy, pre} {
			if err := p.Observe(arm, y); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range []*ArmPosterior{lazy, pre} {
		checkVec(t, "mean", p.Mean(), ref.Mean(), 1e-12)
		checkVec(t, "var", p.Var(), ref.Var(), 1e-12)
		if !closeTo(p.InfoGain(), ref.InfoGain(), 1e-12) {
			t.Fatalf("info gain %v, want %v", p.InfoGain(), ref.InfoGain())
		}
		c1, c2 := make([]float64, n*n), make([]float64, n*n)
		p.Cov(c1)
		ref.Cov(c2)
		checkVec(t, "cov", c1, c2, 1e-12)
	}
	checkVec(t, "prior", lazy.Prior(), ref.Prior(), 0)
	if _, err := NewArmPosteriorKernel(k, [][]float64{{0}, {math.NaN()}}, 0.1); err == nil {
		t.Fatal("NaN point accepted")
	}
	if _, err := NewArmPosteriorKernel(nil, pts, 0.1); err == nil {
		t.Fatal("nil kernel accepted")
	}
	if _, err := NewArmPosteriorKernel(k, pts, 0); err == nil {
		t.Fatal("λ = 0 accepted")
	}
	if _, err := NewArmPosteriorPrecomputed(nil, 0.1); err == nil {
		t.Fatal("nil precomputed kernel accepted")
	}
}
