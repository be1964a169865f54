package gp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// pair is one output observed through a shared factor and its reference:
// the same output on a private Exact, as before sharing existed.
type pair struct {
	sh, ref   *Exact
	csh, cref *Candidates
}

func (p *pair) add(t *testing.T, x []float64, y float64) {
	t.Helper()
	if err := p.sh.Add(x, y); err != nil {
		t.Fatal(err)
	}
	if err := p.ref.Add(x, y); err != nil {
		t.Fatal(err)
	}
	if err := p.csh.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := p.cref.Sync(); err != nil {
		t.Fatal(err)
	}
}

// check compares the shared output with its reference. Both run the same
// floating-point operations, so they agree exactly; the test allows 1e-12.
func (p *pair) check(t *testing.T, name string, at [][]float64) {
	t.Helper()
	checkVec(t, name+" candidate mean", p.csh.Mean(), p.cref.Mean(), 1e-12)
	checkVec(t, name+" candidate var", p.csh.Var(), p.cref.Var(), 1e-12)
	for _, x := range at {
		m1, v1 := p.sh.Predict(x)
		m2, v2 := p.ref.Predict(x)
		if !closeTo(m1, m2, 1e-12) || !closeTo(v1, v2, 1e-12) {
			t.Fatalf("%s: Predict(%v) = (%v, %v), private (%v, %v)", name, x, m1, v1, m2, v2)
		}
	}
	if !closeTo(p.sh.InfoGain(), p.ref.InfoGain(), 1e-12) || p.sh.Len() != p.ref.Len() {
		t.Fatalf("%s: info gain %v (t=%d), private %v (t=%d)", name, p.sh.InfoGain(), p.sh.Len(), p.ref.InfoGain(), p.ref.Len())
	}
}

// TestSharedFactorMatchesPrivate drives f and two constraints through one
// shared factor — in step, lagging (partial feedback), diverging (a
// different point: private copy of the prefix) and reset — and compares each
// with a private Exact and Candidates.
func TestSharedFactorMatchesPrivate(t *testing.T) {
	k := SE{Lengthscale: 0.7, Variance: 1.3}
	rng := rand.New(rand.NewPCG(17, 1))
	cands := randPoints(rng, 50, 2)
	at := randPoints(rng, 5, 2)
	root, _ := NewExact(k, 0.2)
	ps := make([]*pair, 3)
	var c0 *Candidates
	for j := range ps {
		sh := root
		if j > 0 {
			sh = root.Share()
		}
		ref, _ := NewExact(k, 0.2)
		var csh *Candidates
		if j == 0 {
			csh = NewCandidates(sh, cands)
			c0 = csh
		} else {
			var err error
			if csh, err = ShareCandidates(sh, c0); err != nil {
				t.Fatal(err)
			}
		}
		ps[j] = &pair{sh: sh, ref: ref, csh: csh, cref: NewCandidates(ref, cands)}
	}
	y := func() float64 { return rng.NormFloat64() }
	// In step: 40 rounds, f first then the constraints.
	for r := 0; r < 40; r++ {
		x := randPoints(rng, 1, 2)[0]
		for _, p := range ps {
			p.add(t, x, y())
		}
	}
	if !ps[1].sh.Shared() {
		t.Fatal("constraint should still share the factor")
	}
	for j, p := range ps {
		p.check(t, "in step "+string(rune('0'+j)), at)
	}
	// Constraint 2 lags 5 rounds (costs not yet revealed), then catches up.
	var late [][]float64
	for r := 0; r < 5; r++ {
		x := randPoints(rng, 1, 2)[0]
		late = append(late, x)
		ps[0].add(t, x, y())
		ps[1].add(t, x, y())
	}
	ps[2].check(t, "lagging", at)
	for _, x := range late {
		ps[2].add(t, x, y())
	}
	for j, p := range ps {
		p.check(t, "caught up "+string(rune('0'+j)), at)
	}
	// Constraint 1 observes a point f never saw (it extends the shared
	// factor), then f and constraint 2 observe another: they diverge and
	// take private copies of the common prefix.
	ps[1].add(t, []float64{0.25, 0.5}, y())
	x := randPoints(rng, 1, 2)[0]
	ps[0].add(t, x, y())
	ps[2].add(t, x, y())
	if ps[0].sh.Shared() && ps[1].sh.Shared() {
		t.Fatal("diverged outputs still share the factor")
	}
	ps[1].add(t, x, y())
	for j, p := range ps {
		p.check(t, "diverged "+string(rune('0'+j)), at)
	}
	// f resets (restart algorithms); the others keep their data.
	ps[0].sh.Reset()
	ps[0].ref.Reset()
	_ = ps[0].csh.Sync()
	_ = ps[0].cref.Sync()
	for r := 0; r < 3; r++ {
		x := randPoints(rng, 1, 2)[0]
		for _, p := range ps {
			p.add(t, x, y())
		}
	}
	for j, p := range ps {
		p.check(t, "after reset "+string(rune('0'+j)), at)
	}
}

// TestPredictBatch compares the batched posterior with Predict and its
// gradients with central differences of Predict, for every kernel with a
// closed-form gradient.
func TestPredictBatch(t *testing.T) {
	kernels := []GradKernel{
		SE{Lengthscale: 0.6, Variance: 1.5},
		Matern{Nu: 2.5, Lengthscale: 0.8, Variance: 1},
		Matern{Nu: 1.5, Lengthscale: 0.5, Variance: 2},
		Matern{Nu: 0.5, Lengthscale: 0.9, Variance: 1},
		Linear{Variance: 0.7},
	}
	for _, k := range kernels {
		rng := rand.New(rand.NewPCG(5, 6))
		g, _ := NewExact(k, 0.1)
		for _, x := range randPoints(rng, 60, 3) {
			if err := g.Add(x, math.Sin(3*x[0])+x[1]*x[2]); err != nil {
				t.Fatal(err)
			}
		}
		xs := randPoints(rng, 7, 3)
		mean, vr := make([]float64, 7), make([]float64, 7)
		dm, dv := make([][]float64, 7), make([][]float64, 7)
		for j := range dm {
			dm[j], dv[j] = make([]float64, 3), make([]float64, 3)
		}
		if err := g.PredictBatch(xs, mean, vr, dm, dv); err != nil {
			t.Fatal(err)
		}
		m2, v2 := make([]float64, 7), make([]float64, 7)
		if err := g.PredictBatch(xs, m2, v2, nil, nil); err != nil { // from the cache
			t.Fatal(err)
		}
		for j, x := range xs {
			m, v := g.Predict(x)
			if !closeTo(mean[j], m, 1e-13) || !closeTo(vr[j], v, 1e-13) || m2[j] != mean[j] || v2[j] != vr[j] {
				t.Fatalf("%v: PredictBatch(%v) = (%v, %v), Predict (%v, %v)", k, x, mean[j], vr[j], m, v)
			}
			for i := range x {
				const h = 1e-5
				xp := append([]float64(nil), x...)
				xm := append([]float64(nil), x...)
				xp[i] += h
				xm[i] -= h
				mp, vp := g.Predict(xp)
				mm, vm := g.Predict(xm)
				if !closeTo(dm[j][i], (mp-mm)/(2*h), 1e-6) || !closeTo(dv[j][i], (vp-vm)/(2*h), 1e-6) {
					t.Fatalf("%v: gradient at %v coordinate %d = (%v, %v), central differences (%v, %v)",
						k, x, i, dm[j][i], dv[j][i], (mp-mm)/(2*h), (vp-vm)/(2*h))
				}
			}
		}
		// Add of a point solved by PredictBatch reuses the cached solve:
		// the result equals a private Exact's.
		ref, _ := NewExact(k, 0.1)
		for j, p := range g.Points() {
			_ = ref.Add(p, g.Values()[j])
		}
		if err := g.Add(xs[3], 0.5); err != nil {
			t.Fatal(err)
		}
		_ = ref.Add(xs[3], 0.5)
		for _, x := range xs {
			m1, v1 := g.Predict(x)
			m2, v2 := ref.Predict(x)
			if m1 != m2 || v1 != v2 {
				t.Fatalf("%v: after Add from the cache Predict(%v) = (%v, %v), fresh (%v, %v)", k, x, m1, v1, m2, v2)
			}
		}
	}
}

// TestPredictBatchErrors: no gradient for a precomputed kernel, size and
// point checks.
func TestPredictBatchErrors(t *testing.T) {
	pk, _ := NewPrecomputed([]float64{1, 0.5, 0.5, 1}, 2)
	g, _ := NewExact(pk, 0.1)
	_ = g.Add([]float64{0}, 1)
	m, v := make([]float64, 1), make([]float64, 1)
	d := [][]float64{{0}}
	if err := g.PredictBatch([][]float64{{1}}, m, v, d, d); err == nil {
		t.Fatal("gradient of a precomputed kernel: want an error")
	}
	if err := g.PredictBatch([][]float64{{1}}, m, v, nil, nil); err != nil || !(v[0] < 1) {
		t.Fatalf("value-only batch: %v, var %v", err, v[0])
	}
	if err := g.PredictBatch([][]float64{{1}, {0}}, m, v, nil, nil); err == nil {
		t.Fatal("too little room: want an error")
	}
	if err := g.PredictBatch([][]float64{{math.NaN()}}, m, v, nil, nil); err == nil {
		t.Fatal("NaN point: want an error")
	}
	m2, v2 := make([]float64, 2), make([]float64, 2)
	if err := g.PredictBatch([][]float64{{1}, {math.Inf(1)}}, m2, v2, nil, nil); err == nil || err.Error() != "gp: PredictBatch xs[1] x[0] is not finite: +Inf" {
		t.Fatalf("infinite second point: %v, want it named", err)
	}
}

// TestSeedSolve: a candidate's column of W seeds the solve cache; values
// and gradients there, and an Add of that candidate, agree with fresh solves.
func TestSeedSolve(t *testing.T) {
	k := SE{Lengthscale: 0.5, Variance: 1}
	rng := rand.New(rand.NewPCG(21, 2))
	cands := randPoints(rng, 30, 2)
	g, _ := NewExact(k, 0.1)
	ref, _ := NewExact(k, 0.1)
	c := NewCandidates(g, cands)
	for _, x := range randPoints(rng, 40, 2) {
		y := math.Cos(3 * x[0])
		_ = g.Add(x, y)
		_ = ref.Add(x, y)
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	c.SeedSolve(7)
	c.SeedSolve(7) // already there: no-op
	c.SeedSolve(-1)
	xs := [][]float64{cands[7]}
	m1, v1 := make([]float64, 1), make([]float64, 1)
	dm1, dv1 := [][]float64{make([]float64, 2)}, [][]float64{make([]float64, 2)}
	if err := g.PredictBatch(xs, m1, v1, dm1, dv1); err != nil {
		t.Fatal(err)
	}
	m2, v2 := make([]float64, 1), make([]float64, 1)
	dm2, dv2 := [][]float64{make([]float64, 2)}, [][]float64{make([]float64, 2)}
	if err := ref.PredictBatch(xs, m2, v2, dm2, dv2); err != nil {
		t.Fatal(err)
	}
	if !closeTo(m1[0], m2[0], 1e-12) || !closeTo(v1[0], v2[0], 1e-12) || !closeTo(m1[0], c.Mean()[7], 1e-12) || !closeTo(v1[0], c.Var()[7], 1e-12) {
		t.Fatalf("seeded (%v, %v), fresh (%v, %v), candidates (%v, %v)", m1[0], v1[0], m2[0], v2[0], c.Mean()[7], c.Var()[7])
	}
	checkVec(t, "seeded mean gradient", dm1[0], dm2[0], 1e-12)
	checkVec(t, "seeded variance gradient", dv1[0], dv2[0], 1e-12)
	_ = g.Add(cands[7], 0.3)
	_ = ref.Add(cands[7], 0.3)
	for _, x := range randPoints(rng, 4, 2) {
		a, b := g.Predict(x)
		e, f := ref.Predict(x)
		if !closeTo(a, e, 1e-12) || !closeTo(b, f, 1e-12) {
			t.Fatalf("after Add of the seeded candidate: (%v, %v), fresh (%v, %v)", a, b, e, f)
		}
	}
}

// A point first predicted alone and then with gradients (a line search's
// accepted point) takes its gradients from the kernel factors kept at the
// first prediction: the same numbers, to the bit, as a GP that never saw
// it; after an Add the kept factors are stale and Grad serves instead.
func TestPredictBatchKeptFactorsAreGrad(t *testing.T) {
	for _, nu := range []float64{0, 2.5} {
		k, err := NewARD(nu, []float64{0.6, 1.3, 0.4}, 1.7)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, 8))
		g, _ := NewExact(k, 0.01)
		ref, _ := NewExact(k, 0.01)
		for _, x := range randPoints(rng, 40, 3) {
			y := math.Sin(3*x[0]) + x[1]*x[2]
			if err := g.Add(x, y); err != nil {
				t.Fatal(err)
			}
			_ = ref.Add(x, y)
		}
		check := func(x []float64, stage string) {
			m, v := make([]float64, 1), make([]float64, 1)
			if err := g.PredictBatch([][]float64{x}, m, v, nil, nil); err != nil {
				t.Fatal(err)
			}
			e := g.f.sc.find(x)
			if stage == "kept" && (e == nil || len(e.c) != len(g.f.pts)) {
				t.Fatalf("nu %v: the single point's kernel factors were not kept", nu)
			}
			dm, dv := [][]float64{make([]float64, 3)}, [][]float64{make([]float64, 3)}
			rm, rv := [][]float64{make([]float64, 3)}, [][]float64{make([]float64, 3)}
			if err := g.PredictBatch([][]float64{x}, m, v, dm, dv); err != nil {
				t.Fatal(err)
			}
			if err := ref.PredictBatch([][]float64{x}, make([]float64, 1), make([]float64, 1), rm, rv); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if dm[0][i] != rm[0][i] || dv[0][i] != rv[0][i] {
					t.Fatalf("nu %v, %s: gradient %d = (%v, %v), Grad's (%v, %v)", nu, stage, i, dm[0][i], dv[0][i], rm[0][i], rv[0][i])
				}
			}
		}
		x := []float64{0.3, 0.55, 0.7}
		check(x, "kept")
		y := []float64{0.1, 0.2, 0.9}
		if err := g.PredictBatch([][]float64{y}, make([]float64, 1), make([]float64, 1), nil, nil); err != nil {
			t.Fatal(err)
		}
		_ = g.Add([]float64{0.5, 0.5, 0.5}, 0.2)
		_ = ref.Add([]float64{0.5, 0.5, 0.5}, 0.2)
		check(y, "stale") // extended by one row: Grad's arithmetic
	}
}
