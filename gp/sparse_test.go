package gp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// dtcDense is an independent dense reference of the DTC/VFE predictive
// (Quiñonero-Candela & Rasmussen 2005, eq. 20b) with the same jitter:
// μ = k_*ᵀ Σ K_mn y/λ, σ² = k** − k_*ᵀK_mm⁻¹k_* + k_*ᵀΣk_*, Σ = (K_mm + K_mn K_nm/λ)⁻¹.
func dtcDense(k Kernel, lam float64, z, xs [][]float64, ys []float64, at []float64) (float64, float64) {
	m := len(z)
	kmm := mat.NewDense(m, m, Gram(k, z))
	maxd := 0.0
	for i := 0; i < m; i++ {
		maxd = math.Max(maxd, kmm.At(i, i))
	}
	for i := 0; i < m; i++ {
		kmm.Set(i, i, kmm.At(i, i)+SparseJitter*maxd)
	}
	kmn := mat.NewDense(m, max(len(xs), 1), nil)
	for i := range z {
		for j, x := range xs {
			kmn.Set(i, j, k.Eval(z[i], x))
		}
	}
	a := mat.NewDense(m, m, nil)
	a.Mul(kmn, kmn.T())
	a.Scale(1/lam, a)
	a.Add(a, kmm)
	var sig, kinv mat.Dense
	_ = sig.Inverse(a)
	_ = kinv.Inverse(kmm)
	y := mat.NewVecDense(max(len(xs), 1), nil)
	for j, v := range ys {
		y.SetVec(j, v)
	}
	var b, al mat.VecDense
	b.MulVec(kmn, y)
	b.ScaleVec(1/lam, &b)
	al.MulVec(&sig, &b)
	ks := mat.NewVecDense(m, nil)
	for i := range z {
		ks.SetVec(i, k.Eval(z[i], at))
	}
	mu := mat.Dot(ks, &al)
	var t1, t2 mat.VecDense
	t1.MulVec(&kinv, ks)
	t2.MulVec(&sig, ks)
	return mu, k.Eval(at, at) - mat.Dot(ks, &t1) + mat.Dot(ks, &t2)
}

func TestSparseVsDense(t *testing.T) {
	k := SE{Lengthscale: 0.4, Variance: 1.2}
	rng := rand.New(rand.NewPCG(8, 9))
	cands := randPoints(rng, 40, 2)
	z, err := SelectInducing(k, cands, 12)
	if err != nil || len(z) != 12 {
		t.Fatalf("SelectInducing: %v, %d points", err, len(z))
	}
	s, err := NewSparse(k, 0.05, z, cands)
	if err != nil {
		t.Fatal(err)
	}
	var xs [][]float64
	var ys []float64
	gain := 0.0
	at := randPoints(rng, 4, 2)
	for n := 0; n < 60; n++ { // past the refresh at M = 12 observations, several times
		x := randPoints(rng, 1, 2)[0]
		y := math.Sin(4*x[0]) + x[1] + 0.2*rng.NormFloat64()
		_, v0 := dtcDense(k, 0.05, z, xs, ys, x)
		gain += 0.5 * math.Log1p(v0/0.05)
		if err := s.Add(x, y); err != nil {
			t.Fatal(err)
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	if !closeTo(s.InfoGain(), gain, 1e-9) {
		t.Fatalf("info gain %v, dense %v", s.InfoGain(), gain)
	}
	for j, c := range cands {
		m, v := dtcDense(k, 0.05, z, xs, ys, c)
		if !closeTo(s.Mean()[j], m, 1e-9) || !closeTo(s.Var()[j], math.Max(v, 0), 1e-9) {
			t.Fatalf("candidate %d: (%v, %v), dense (%v, %v)", j, s.Mean()[j], s.Var()[j], m, v)
		}
	}
	mean, vr := make([]float64, len(at)), make([]float64, len(at))
	dm, dv := make([][]float64, len(at)), make([][]float64, len(at))
	for j := range at {
		dm[j], dv[j] = make([]float64, 2), make([]float64, 2)
	}
	if err := s.PredictBatch(at, mean, vr, dm, dv); err != nil {
		t.Fatal(err)
	}
	for j, x := range at {
		m, v := dtcDense(k, 0.05, z, xs, ys, x)
		if !closeTo(mean[j], m, 1e-9) || !closeTo(vr[j], v, 1e-9) {
			t.Fatalf("PredictBatch(%v) = (%v, %v), dense (%v, %v)", x, mean[j], vr[j], m, v)
		}
		for i := range x {
			const h = 1e-5
			xp := append([]float64(nil), x...)
			xm := append([]float64(nil), x...)
			xp[i] += h
			xm[i] -= h
			mp, vp := s.Predict(xp)
			mm, vm := s.Predict(xm)
			if !closeTo(dm[j][i], (mp-mm)/(2*h), 1e-6) || !closeTo(dv[j][i], (vp-vm)/(2*h), 1e-6) {
				t.Fatalf("gradient at %v coordinate %d = (%v, %v), central differences (%v, %v)", x, i, dm[j][i], dv[j][i], (mp-mm)/(2*h), (vp-vm)/(2*h))
			}
		}
	}
	s.Reset()
	if s.Len() != 0 || s.InfoGain() != 0 || s.Mean()[3] != 0 || !closeTo(s.Var()[3], 1.2, 1e-12) {
		t.Fatalf("Reset: len %d gain %v mean %v var %v", s.Len(), s.InfoGain(), s.Mean()[3], s.Var()[3])
	}
}

// With every observed point among the inducing points the DTC posterior is
// the exact one (Q_ff = K_ff), up to the jitter on K_mm.
func TestSparseEqualsExactWhenInducingCoverData(t *testing.T) {
	k := Matern{Nu: 2.5, Lengthscale: 0.5, Variance: 1}
	rng := rand.New(rand.NewPCG(4, 4))
	pts := randPoints(rng, 20, 2)
	s, err := NewSparse(k, 0.1, pts, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewExact(k, 0.1)
	for i := 0; i < 50; i++ {
		x := pts[rng.IntN(len(pts))]
		y := rng.NormFloat64()
		_ = s.Add(x, y)
		_ = g.Add(x, y)
	}
	for _, x := range randPoints(rng, 5, 2) {
		m1, v1 := s.Predict(x)
		m2, v2 := g.Predict(x)
		if math.Abs(m1-m2) > 1e-4 || math.Abs(v1-v2) > 1e-4 {
			t.Fatalf("at %v: sparse (%v, %v), exact (%v, %v)", x, m1, v1, m2, v2)
		}
	}
	if math.Abs(s.InfoGain()-g.InfoGain()) > 1e-3 {
		t.Fatalf("info gain %v, exact %v", s.InfoGain(), g.InfoGain())
	}
}

func TestSelectInducingAndErrors(t *testing.T) {
	k := SE{Lengthscale: 0.3, Variance: 1}
	pts := [][]float64{{0}, {0}, {1}, {0.5}, {1}}
	z, err := SelectInducing(k, pts, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Duplicates are spanned: three distinct points, the first by lowest index.
	if len(z) != 3 || z[0][0] != 0 {
		t.Fatalf("SelectInducing = %v", z)
	}
	z2, _ := SelectInducing(k, pts, 10)
	for i := range z {
		if z[i][0] != z2[i][0] {
			t.Fatal("SelectInducing is not deterministic")
		}
	}
	if _, err := SelectInducing(k, pts, 0); err == nil {
		t.Fatal("m = 0 accepted")
	}
	if _, err := NewSparse(k, 0.1, [][]float64{{0}, {math.NaN()}}, nil); err == nil {
		t.Fatal("NaN inducing point accepted")
	}
	if _, err := NewSparse(k, 0.1, nil, nil); err == nil {
		t.Fatal("no inducing points accepted")
	}
	if _, err := NewSparse(k, 0, [][]float64{{0}}, nil); err == nil {
		t.Fatal("λ = 0 accepted")
	}
	s, _ := NewSparse(k, 0.1, [][]float64{{0}}, nil)
	if err := s.Add([]float64{math.NaN()}, 1); err == nil {
		t.Fatal("NaN point accepted")
	}
	if err := s.Add([]float64{0}, math.Inf(1)); err == nil {
		t.Fatal("infinite y accepted")
	}
	if err := s.Add([]float64{0, 1}, 1); err == nil {
		t.Fatal("wrong dimension accepted")
	}
}
