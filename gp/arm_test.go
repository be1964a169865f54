package gp

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// batchArms is the batch reference for an ArmPosterior: every observation
// listed individually with noise λ.
func batchArms(k Kernel, pts [][]float64, arms []int, ys []float64, lam float64) ([]float64, []float64) {
	xs := make([][]float64, len(arms))
	for i, a := range arms {
		xs[i] = pts[a]
	}
	return BatchPosterior(k, xs, ys, lam, pts)
}

func TestArmPosteriorVsBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lam := range []float64{1, 0.05} {
		n := 30
		pts := make([][]float64, n)
		for i := range pts {
			pts[i] = []float64{rng.Float64() * 3, rng.Float64() * 3}
		}
		k := Matern{Nu: 2.5, Lengthscale: 0.7, Variance: 1.3}
		p, err := NewArmPosterior(Gram(k, pts), n, lam)
		if err != nil {
			t.Fatal(err)
		}
		var arms []int
		var ys []float64
		cov := make([]float64, n*n)
		for step := 1; step <= 240; step++ {
			var a int
			if rng.Float64() < 0.7 {
				a = rng.IntN(4) // a few favourite arms, heavily repeated
			} else {
				a = rng.IntN(n)
			}
			y := math.Sin(3*pts[a][0]) + rng.NormFloat64()
			if err := p.Observe(a, y); err != nil {
				t.Fatal(err)
			}
			arms = append(arms, a)
			ys = append(ys, y)
			if step%40 != 0 && step > 5 {
				continue
			}
			wm, wc := batchArms(k, pts, arms, ys, lam)
			checkVec(t, "mean", p.Mean(), wm, 1e-9)
			checkVec(t, "var", p.Var(), diagOf(wc, n), 1e-9)
			p.Cov(cov)
			checkVec(t, "cov", cov, wc, 1e-9)
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					if cov[i*n+j] != cov[j*n+i] {
						t.Fatalf("Cov not symmetric at %d,%d", i, j)
					}
				}
			}
			xs := make([][]float64, len(arms))
			for i, a := range arms {
				xs[i] = pts[a]
			}
			if g, w := p.InfoGain(), BatchInfoGain(k, xs, lam); !closeTo(g, w, 1e-9) {
				t.Fatalf("InfoGain %v, batch ½logdet(I+K/λ) %v", g, w)
			}
			if p.Count() != step {
				t.Fatalf("Count %d, want %d", p.Count(), step)
			}
		}
	}
}

// TestArmPosteriorManyRepeats: near-duplicate arms (SE, 100 points in [0,1],
// ℓ=0.2) with up to 10⁴ observations of single arms, against the batch
// formula with averaged observations and noise λ/n_j, evaluated in 256-bit
// arithmetic (the float64 batch formula itself loses accuracy here).
func TestArmPosteriorManyRepeats(t *testing.T) {
	n := 100
	pts := armPoints(n, 0, 1)
	k := SE{Lengthscale: 0.2, Variance: 1}
	K := Gram(k, pts)
	for _, lam := range []float64{1, 0.01, 1e-4, 1e-6} {
		rng := rand.New(rand.NewPCG(3, uint64(lam*100)))
		p, err := NewArmPosterior(K, n, lam)
		if err != nil {
			t.Fatal(err)
		}
		sum := make([]float64, n)
		cnt := make([]int, n)
		// Arm → number of observations; interleaved in random order.
		plan := map[int]int{10: 10000, 11: 3000, 50: 1, 51: 500, 90: 7, 99: 10000, 0: 1, 33: 2}
		var seq []int
		for a, c := range plan {
			for i := 0; i < c; i++ {
				seq = append(seq, a)
			}
		}
		rng.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
		cov := make([]float64, n*n)
		for step, a := range seq {
			y := math.Cos(5*pts[a][0]) + rng.NormFloat64()*math.Sqrt(lam)
			if err := p.Observe(a, y); err != nil {
				t.Fatal(err)
			}
			sum[a] += y
			cnt[a]++
			if step != len(seq)-1 && step != 20 && step != 5000 {
				continue
			}
			var xs [][]float64
			var ys, nv []float64
			for j := 0; j < n; j++ {
				if cnt[j] > 0 {
					xs = append(xs, pts[j])
					ys = append(ys, sum[j]/float64(cnt[j]))
					nv = append(nv, lam/float64(cnt[j]))
				}
			}
			final := step == len(seq)-1
			wm, wc := bigPosterior(k, xs, ys, nv, pts, final)
			bm, bc := BatchPosteriorNoise(k, xs, ys, nv, pts)
			t.Logf("λ=%g step %d: max |Δμ| %.2g, max |Δσ²| %.2g (float64 batch formula: %.2g, %.2g)", lam, step,
				maxAbsDiff(p.Mean(), wm), maxAbsDiff(p.Var(), diagOf(wc, n)), maxAbsDiff(bm, wm), maxAbsDiff(diagOf(bc, n), diagOf(wc, n)))
			checkVec(t, "mean", p.Mean(), wm, 1e-9)
			checkVec(t, "var", p.Var(), diagOf(wc, n), 1e-9)
			if final {
				p.Cov(cov)
				checkVec(t, "cov", cov, wc, 1e-9)
			}
		}
		// Information gain of n repeats: ½ Σ_j … equals ½ log det(I + K_t/λ)
		// = ½ log det(I + diag(n_j) K_SS / λ).
		var xs [][]float64
		var sc []float64
		for j := 0; j < n; j++ {
			if cnt[j] > 0 {
				xs = append(xs, pts[j])
				sc = append(sc, float64(cnt[j]))
			}
		}
		want := infoGainCounts(k, xs, sc, lam)
		if g := p.InfoGain(); !closeTo(g, want, 1e-9) {
			t.Fatalf("λ=%g InfoGain %v, want %v", lam, g, want)
		}
	}
}

// infoGainCounts returns ½ log det(I + D^{1/2} K D^{1/2}/λ), D = diag(counts),
// which equals ½ log det(I + K_t/λ) for the expanded list of observations.
func infoGainCounts(k Kernel, xs [][]float64, counts []float64, lam float64) float64 {
	m := len(xs)
	a := make([]float64, m*m)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			a[i*m+j] = math.Sqrt(counts[i]*counts[j]) * k.Eval(xs[i], xs[j]) / lam
		}
		a[i*m+i]++
	}
	if !choleskyLower(a, m) {
		return math.NaN()
	}
	s := 0.0
	for i := 0; i < m; i++ {
		s += math.Log(a[i*m+i])
	}
	return s
}

func TestArmPosteriorInterpolation(t *testing.T) {
	n := 12
	pts := armPoints(n, 0, 5)
	k := SE{Lengthscale: 0.5, Variance: 2}
	p, err := NewArmPosterior(Gram(k, pts), n, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	ys := make([]float64, n)
	for _, a := range []int{0, 3, 7, 11, 5} {
		ys[a] = math.Sin(float64(a))
		if err := p.Observe(a, ys[a]); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []int{0, 3, 7, 11, 5} {
		if m := p.Mean()[a]; math.Abs(m-ys[a]) > 1e-6 {
			t.Errorf("arm %d: mean %v, data %v", a, m, ys[a])
		}
		if v := p.Var()[a]; v > 1e-8 || v < 0 {
			t.Errorf("arm %d: variance %v, want ≈ 0", a, v)
		}
	}
	if v := p.Var()[1]; v < 1e-3 {
		t.Errorf("unobserved arm 1 has variance %v, expected clearly positive", v)
	}
}

func TestArmPosteriorResetAndErrors(t *testing.T) {
	n := 8
	pts := armPoints(n, 0, 1)
	K := Gram(SE{Lengthscale: 0.3, Variance: 1}, pts)
	p, err := NewArmPosterior(K, n, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if err := p.Observe(i%3, float64(i)); err != nil {
			t.Fatal(err)
		}
	}
	p.Reset()
	if p.Count() != 0 || p.InfoGain() != 0 || p.Distinct() != 0 {
		t.Fatalf("Reset: count %d gain %v distinct %d", p.Count(), p.InfoGain(), p.Distinct())
	}
	for i := 0; i < n; i++ {
		if p.Mean()[i] != 0 || p.Var()[i] != K[i*n+i] {
			t.Fatalf("Reset: arm %d mean %v var %v", i, p.Mean()[i], p.Var()[i])
		}
	}
	q, _ := NewArmPosterior(K, n, 0.5)
	for _, a := range []int{5, 2, 5, 7} {
		_ = p.Observe(a, float64(a))
		_ = q.Observe(a, float64(a))
	}
	checkVec(t, "mean after Reset", p.Mean(), q.Mean(), 1e-14)
	checkVec(t, "var after Reset", p.Var(), q.Var(), 1e-14)

	for _, tc := range []struct {
		err  error
		want string
	}{
		{p.Observe(-1, 0), "arm -1"},
		{p.Observe(n, 0), "arm 8"},
		{p.Observe(0, math.NaN()), "y is not finite"},
		{p.Observe(0, math.Inf(1)), "y is not finite"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want mention of %q", tc.err, tc.want)
		}
	}
	bad := append([]float64(nil), K...)
	bad[1] += 0.1
	for _, tc := range []struct {
		k    []float64
		n    int
		lam  float64
		want string
	}{
		{K, n, 0, "noiseVar"},
		{K, n, math.NaN(), "noiseVar"},
		{K, 0, 1, "n must be > 0"},
		{K[:10], n, 1, "n*n"},
		{bad, n, 1, "not symmetric"},
		{[]float64{1, 2, 2, 1}, 2, 1, "not positive semi-definite"},
		{[]float64{-1}, 1, 1, "negative variance"},
		{[]float64{math.NaN()}, 1, 1, "not finite"},
	} {
		_, err := NewArmPosterior(tc.k, tc.n, tc.lam)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewArmPosterior error %v, want mention of %q", err, tc.want)
		}
	}
}

func TestArmPosteriorNoAllocs(t *testing.T) {
	n := 100
	p, err := NewArmPosterior(Gram(SE{Lengthscale: 0.2, Variance: 1}, armPoints(n, 0, 1)), n, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		_ = p.Observe((i*7)%20, 0.1*float64(i%5))
	}
	i := 0
	allocs := testing.AllocsPerRun(500, func() {
		_ = p.Observe((i*3)%20, 0.5)
		i++
	})
	if allocs != 0 {
		t.Fatalf("Observe allocates %v times per call in steady state", allocs)
	}
}

// TestPrecomputedArmConsistency: an ArmPosterior on a Precomputed matrix and
// an Exact GP with the Precomputed kernel (points {arm}) agree.
func TestPrecomputedArmConsistency(t *testing.T) {
	n := 25
	rng := rand.New(rand.NewPCG(7, 8))
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	pk, err := NewPrecomputed(Gram(Matern{Nu: 1.5, Lengthscale: 1, Variance: 0.8}, pts), n)
	if err != nil {
		t.Fatal(err)
	}
	lam := 0.2
	p, err := NewArmPosterior(pk.K, n, lam)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewExact(pk, lam)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 60; s++ {
		a := rng.IntN(n)
		if s%2 == 0 {
			a = rng.IntN(3)
		}
		y := rng.NormFloat64()
		if err := p.Observe(a, y); err != nil {
			t.Fatal(err)
		}
		if err := g.Add([]float64{float64(a)}, y); err != nil {
			t.Fatal(err)
		}
	}
	for a := 0; a < n; a++ {
		m, v := g.Predict([]float64{float64(a)})
		if !closeTo(p.Mean()[a], m, 1e-9) || !closeTo(p.Var()[a], v, 1e-9) {
			t.Fatalf("arm %d: ArmPosterior (%v, %v), Exact (%v, %v)", a, p.Mean()[a], p.Var()[a], m, v)
		}
	}
	if !closeTo(p.InfoGain(), g.InfoGain(), 1e-9) {
		t.Fatalf("InfoGain %v vs %v", p.InfoGain(), g.InfoGain())
	}
	if err := g.Add([]float64{float64(n)}, 0); err == nil {
		t.Fatal("Exact.Add with an out-of-range Precomputed arm: no error")
	}
}

// CovColumn agrees with the full covariance, for observed and unobserved arms.
func TestArmPosteriorCovColumn(t *testing.T) {
	pts := make([][]float64, 12)
	for i := range pts {
		pts[i] = []float64{float64(i) / 11}
	}
	k, _ := NewSE(0.3, 1)
	p, err := NewArmPosterior(Gram(k, pts), len(pts), 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []int{3, 7, 3, 0} {
		if err := p.Observe(a, float64(a)/10); err != nil {
			t.Fatal(err)
		}
	}
	n := len(pts)
	full := make([]float64, n*n)
	p.Cov(full)
	col := make([]float64, n)
	for _, i := range []int{0, 3, 5, 11} {
		p.CovColumn(i, col)
		for z := 0; z < n; z++ {
			if math.Abs(col[z]-full[z*n+i]) > 1e-12 {
				t.Fatalf("column %d row %d: %v, Cov %v", i, z, col[z], full[z*n+i])
			}
		}
	}
}

// CovColumn with prior columns on demand (a kernel on coordinates, no N×N
// matrix) and with a state shared by two outputs, against the full covariance.
func TestArmPosteriorCovColumnKernelAndShared(t *testing.T) {
	pts := make([][]float64, 15)
	for i := range pts {
		pts[i] = []float64{float64(i) / 14}
	}
	k, _ := NewSE(0.25, 1)
	p, err := NewArmPosteriorKernel(k, pts, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.Share()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []int{4, 9, 4} {
		p.Observe(a, 0.3)
		q.Observe(a, -0.1)
	}
	n := len(pts)
	full := make([]float64, n*n)
	col := make([]float64, n)
	for _, post := range []*ArmPosterior{p, q} {
		post.Cov(full)
		for _, i := range []int{0, 4, 12} {
			post.CovColumn(i, col)
			for z := 0; z < n; z++ {
				if math.Abs(col[z]-full[z*n+i]) > 1e-12 {
					t.Fatalf("column %d row %d: %v, Cov %v", i, z, col[z], full[z*n+i])
				}
			}
		}
	}
}
