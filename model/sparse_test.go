package model

import (
	"math"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// With the inducing points covering every candidate and observations on the
// candidates, the sparse model equals the exact posterior (DTC with
// Q_ff = K_ff) up to the jitter on K_mm, covariance included.
func TestSparseBoxCoveringIsExact(t *testing.T) {
	b, k, cands, _, _ := testBox(t)
	cands = cands[:20]
	m, err := NewSparseBox(b, k, 0.3, cands, 0, cands)
	if err != nil {
		t.Fatal(err)
	}
	var xs [][]float64
	var ys []float64
	for i := 0; i < 30; i++ {
		x := cands[(7*i)%len(cands)]
		y := math.Sin(x[0]) - x[1]/3
		if err := m.Observe(bandit.PointAction(x), y); err != nil {
			t.Fatal(err)
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	mean, cov := gp.BatchPosterior(k, xs, ys, 0.3, cands)
	n := len(cands)
	vr := make([]float64, n)
	for i := range vr {
		vr[i] = cov[i*n+i]
	}
	closeTo(t, "mean", m.Mean(), mean, 1e-4)
	closeTo(t, "var", m.Var(), vr, 1e-4)
	got := make([]float64, n*n)
	m.Cov(got)
	closeTo(t, "cov", got, cov, 1e-4)
	if m.Count() != 30 || m.Len() != n || !m.Gradients() {
		t.Fatalf("Count %d Len %d Gradients %v", m.Count(), m.Len(), m.Gradients())
	}
	m.Reset()
	if m.Count() != 0 || m.Mean()[0] != 0 {
		t.Fatal("Reset kept observations")
	}
	if err := m.Observe(bandit.PointAction([]float64{7, 0}), 1); err == nil {
		t.Fatal("action outside the box accepted")
	}
}

// ForGroupOpts: sparse models share the inducing points of equal kernels;
// inducing < 0 and finite domains are errors that name the parameter.
func TestForGroupOpts(t *testing.T) {
	b, k, _, _, _ := testBox(t)
	info := bandit.Info{Domain: b, M: 1, Kernel: k, NoiseVar: 0.1}
	f, g, err := ForAllOpts(info, 0.1, Options{Inducing: 16})
	if err != nil {
		t.Fatal(err)
	}
	sf, ok1 := f.(*SparseBox)
	sg, ok2 := g[0].(*SparseBox)
	if !ok1 || !ok2 || len(sf.Inducing()) != 16 || len(sg.Inducing()) != 16 {
		t.Fatal("want sparse models with 16 inducing points")
	}
	for i, z := range sf.Inducing() {
		if z[0] != sg.Inducing()[i][0] || z[1] != sg.Inducing()[i][1] {
			t.Fatalf("inducing point %d differs: %v vs %v", i, z, sg.Inducing()[i])
		}
	}
	if _, _, err := ForAllOpts(info, 0.1, Options{Inducing: -1}); err == nil {
		t.Fatal("inducing = -1 accepted")
	}
	fin, _ := domain.NewFinite([][]float64{{0}, {1}})
	info.Domain = fin
	if _, _, err := ForAllOpts(info, 0.1, Options{Inducing: 4}); err == nil {
		t.Fatal("inducing on a finite domain accepted")
	}
	// Exact models share one factor when the kernels are equal.
	info.Domain = b
	f, g, err = ForAllOpts(info, 0.1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !f.(*Box).Shared() || !g[0].(*Box).Shared() {
		t.Fatal("exact f and g should share a factor")
	}
}
