package gp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// drawMoments returns the sample mean and covariance (about the sample
// mean) of `draws` calls of draw.
func drawMoments(t *testing.T, n, draws int, draw func(dst []float64) error) (mean, cov []float64) {
	t.Helper()
	mean = make([]float64, n)
	cov = make([]float64, n*n)
	dst := make([]float64, n)
	for r := 0; r < draws; r++ {
		if err := draw(dst); err != nil {
			t.Fatal(err)
		}
		for i := range dst {
			mean[i] += dst[i]
			for j := 0; j <= i; j++ {
				cov[i*n+j] += dst[i] * dst[j]
			}
		}
	}
	N := float64(draws)
	for i := range mean {
		mean[i] /= N
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			cov[i*n+j] = cov[i*n+j]/N - mean[i]*mean[j]
			cov[j*n+i] = cov[i*n+j]
		}
	}
	return mean, cov
}

// momentMisfits lists the entries of a sample mean and covariance from N
// draws that lie more than 5 standard errors from want (Gaussian: the
// sample mean's variance is Σ_ii/N, the sample covariance's (Σ_ii·Σ_jj +
// Σ_ij²)/N), with a floor of 1e-9·max diagonal for zero variances.
func momentMisfits(gotMean, gotCov, wantMean, wantCov []float64, N int) []string {
	n := len(wantMean)
	floor := 0.0
	for i := 0; i < n; i++ {
		floor = math.Max(floor, 1e-9*wantCov[i*n+i])
	}
	var bad []string
	for i := 0; i < n; i++ {
		se := math.Sqrt(math.Max(wantCov[i*n+i], 0)/float64(N)) + floor
		if math.Abs(gotMean[i]-wantMean[i]) > 5*se {
			bad = append(bad, fmt.Sprintf("mean[%d] = %.6g, want %.6g ± %.2g", i, gotMean[i], wantMean[i], 5*se))
		}
		for j := 0; j <= i; j++ {
			w := wantCov[i*n+j]
			se := math.Sqrt(math.Max(wantCov[i*n+i]*wantCov[j*n+j]+w*w, 0)/float64(N)) + floor
			if math.Abs(gotCov[i*n+j]-w) > 5*se {
				bad = append(bad, fmt.Sprintf("cov[%d,%d] = %.6g, want %.6g ± %.2g", i, j, gotCov[i*n+j], w, 5*se))
			}
		}
	}
	return bad
}

// pathwiseFixture is a 1-D GP with 7 candidates observed at two
// candidates and two points between them (each needing a row of the prior
// factor over candidates ∪ observed points), one of them twice.
func pathwiseFixture(t *testing.T, lam float64) (*Exact, *Candidates, [][]float64) {
	t.Helper()
	return pathwiseFixtureAt(t, lam, armPoints(7, 0, 1))
}

// pathwiseFixtureAt is pathwiseFixture at the given 7 candidates (equally
// spaced: the block-Toeplitz root; not: the Cholesky factor).
func pathwiseFixtureAt(t *testing.T, lam float64, cands [][]float64) (*Exact, *Candidates, [][]float64) {
	t.Helper()
	k := Matern{Nu: 2.5, Lengthscale: 0.4, Variance: 1.5}
	g, err := NewExact(k, lam)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCandidates(g, cands)
	obs := []struct{ x, y float64 }{{cands[2][0], 0.7}, {0.41, -0.3}, {cands[5][0], 1.1}, {0.41, -0.1}, {0.93, 0.4}}
	for _, o := range obs {
		if err := g.Add([]float64{o.x}, o.y); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	return g, c, cands
}

// Pathwise draws at the candidates have the posterior's mean and
// covariance (BatchPosterior, the dense reference), with the covariance
// scaled by scale².
func TestCandidatesSampleMoments(t *testing.T) {
	uneven := [][]float64{{0}, {0.1}, {0.3}, {0.35}, {0.6}, {0.8}, {1}}
	for _, cs := range [][][]float64{armPoints(7, 0, 1), uneven} {
		g, c, cands := pathwiseFixtureAt(t, 0.05, cs)
		if toeplitz := c.prior.factorise() == nil && c.prior.tr != nil; toeplitz != (len(cs) == 7 && cs[1][0] != 0.1) {
			t.Fatalf("candidates %v: block-Toeplitz root %v", cs, toeplitz)
		}
		sampleMomentsAt(t, g, c, cands)
	}
}

func sampleMomentsAt(t *testing.T, g *Exact, c *Candidates, cands [][]float64) {
	t.Helper()
	wantMean, wantCov := BatchPosterior(g.Kernel(), g.Points(), g.Values(), g.NoiseVar(), cands)
	const draws = 40000
	for _, scale := range []float64{1, 0.6} {
		rng := rand.New(rand.NewPCG(7, uint64(100*scale)))
		mean, cov := drawMoments(t, len(cands), draws, func(dst []float64) error { return c.Sample(rng, scale, dst) })
		sc := slices.Clone(wantCov)
		for i := range sc {
			sc[i] *= scale * scale
		}
		if bad := momentMisfits(mean, cov, wantMean, sc, draws); len(bad) > 0 {
			t.Errorf("scale %v: %d misfits, e.g. %v", scale, len(bad), bad[:min(len(bad), 4)])
		}
	}
}

// The moment test fails on a wrong covariance: draws from a GP with twice
// the noise variance, and draws of the right GP checked against the
// posterior without its last observation, both give misfits.
func TestCandidatesSampleMomentsDetectWrongCov(t *testing.T) {
	g, c, cands := pathwiseFixture(t, 0.05)
	const draws = 40000
	wantMean, wantCov := BatchPosterior(g.Kernel(), g.Points(), g.Values(), g.NoiseVar(), cands)
	_, c2, _ := pathwiseFixture(t, 0.1)
	rng := rand.New(rand.NewPCG(8, 9))
	_, cov := drawMoments(t, len(cands), draws, func(dst []float64) error { return c2.Sample(rng, 1, dst) })
	// compare covariances only: the means differ too
	bad := momentMisfits(wantMean, cov, wantMean, wantCov, draws)
	t.Logf("λ doubled: %d misfits, e.g. %v", len(bad), bad[:min(len(bad), 2)])
	if len(bad) == 0 {
		t.Errorf("draws with λ doubled pass the covariance check against the posterior with λ")
	}
	n := g.Len()
	_, cut := BatchPosterior(g.Kernel(), g.Points()[:n-1], g.Values()[:n-1], g.NoiseVar(), cands)
	mean, cov := drawMoments(t, len(cands), draws, func(dst []float64) error { return c.Sample(rng, 1, dst) })
	bad = momentMisfits(wantMean, cov, wantMean, cut, draws)
	t.Logf("without the last observation: %d misfits, e.g. %v", len(bad), bad[:min(len(bad), 2)])
	if len(bad) == 0 {
		t.Errorf("draws pass the covariance check against the posterior without one observation")
	}
	if bad := momentMisfits(mean, cov, wantMean, wantCov, draws); len(bad) > 0 {
		t.Errorf("right draws: %d misfits, e.g. %v", len(bad), bad[:min(len(bad), 4)])
	}
}

// With pending points (Exact.Pend at the posterior mean) the draws have the
// posterior covariance given them, the mean unchanged; after Unpend, the
// covariance without them.
func TestCandidatesSamplePending(t *testing.T) {
	g, c, cands := pathwiseFixture(t, 0.05)
	n := g.Len()
	for _, x := range [][]float64{{0.2}, cands[6]} {
		if err := g.Pend(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Pend(); err != nil {
		t.Fatal(err)
	}
	wantMean, wantCov := BatchPosterior(g.Kernel(), g.Points(), g.Values(), g.NoiseVar(), cands)
	realMean, realCov := BatchPosterior(g.Kernel(), g.Points()[:n], g.Values()[:n], g.NoiseVar(), cands)
	if d := maxAbsDiff(wantMean, realMean); d > 1e-9 {
		t.Fatalf("pending points moved the mean by %v", d)
	}
	const draws = 40000
	rng := rand.New(rand.NewPCG(3, 4))
	mean, cov := drawMoments(t, len(cands), draws, func(dst []float64) error { return c.Sample(rng, 1, dst) })
	if bad := momentMisfits(mean, cov, wantMean, wantCov, draws); len(bad) > 0 {
		t.Errorf("pending: %d misfits, e.g. %v", len(bad), bad[:min(len(bad), 4)])
	}
	g.Unpend()
	c.Unpend()
	mean, cov = drawMoments(t, len(cands), draws, func(dst []float64) error { return c.Sample(rng, 1, dst) })
	if bad := momentMisfits(mean, cov, realMean, realCov, draws); len(bad) > 0 {
		t.Errorf("after Unpend: %d misfits, e.g. %v", len(bad), bad[:min(len(bad), 4)])
	}
}

// A draw is a function of the rng state and the GP's history: the same
// seed gives the same numbers; an output sharing the factor, candidates and
// prior (Share, ShareCandidates) draws what an unshared one draws; and the
// prior adopted by SharePrior gives the draws of a fresh one.
func TestCandidatesSampleDeterministic(t *testing.T) {
	_, c, cands := pathwiseFixture(t, 0.05)
	_, c2, _ := pathwiseFixture(t, 0.05)
	a, b := make([]float64, len(cands)), make([]float64, len(cands))
	for r := 0; r < 3; r++ {
		if err := c.Sample(rand.New(rand.NewPCG(11, uint64(r))), 1.3, a); err != nil {
			t.Fatal(err)
		}
		if err := c2.Sample(rand.New(rand.NewPCG(11, uint64(r))), 1.3, b); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("round %d: same seed, different draws:\n%v\n%v", r, a, b)
		}
	}
	// shared: g2 observes the same points; it must draw what c2 draws
	g1, c1, _ := pathwiseFixture(t, 0.05)
	g2 := g1.Share()
	cs, err := ShareCandidates(g2, c1)
	if err != nil {
		t.Fatal(err)
	}
	if cs.prior != c1.prior {
		t.Fatal("ShareCandidates did not share the prior factor")
	}
	for i, x := range g1.Points() {
		if err := g2.Add(x, g1.Values()[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.Sample(rand.New(rand.NewPCG(11, 0)), 1.3, a); err != nil {
		t.Fatal(err)
	}
	if err := c2.Sample(rand.New(rand.NewPCG(11, 0)), 1.3, b); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Fatalf("shared output draws differ from an unshared one:\n%v\n%v", a, b)
	}
	// SharePrior with the same kernel adopts the factor; another kernel not
	g3, _ := NewExact(g1.Kernel(), 0.05)
	c3 := NewCandidates(g3, cands)
	c3.SharePrior(c1)
	if c3.prior != c1.prior {
		t.Error("SharePrior with the same kernel and points did not share")
	}
	g4, _ := NewExact(Matern{Nu: 2.5, Lengthscale: 0.3, Variance: 1.5}, 0.05)
	c4 := NewCandidates(g4, cands)
	c4.SharePrior(c1)
	if c4.prior == c1.prior {
		t.Error("SharePrior shared the factor of another kernel")
	}
	// ARD kernels compare by value
	k1, _ := NewARD(2.5, []float64{0.3}, 1)
	k2, _ := NewARD(2.5, []float64{0.3}, 1)
	k3, _ := NewARD(2.5, []float64{0.31}, 1)
	if !sameKernel(k1, k2) || sameKernel(k1, k3) {
		t.Error("sameKernel does not compare ARD kernels by value")
	}
}

func TestCandidatesSampleErrors(t *testing.T) {
	_, c, cands := pathwiseFixture(t, 0.05)
	rng := rand.New(rand.NewPCG(1, 1))
	if err := c.Sample(nil, 1, make([]float64, len(cands))); err == nil {
		t.Error("nil rng accepted")
	}
	if err := c.Sample(rng, 1, make([]float64, 3)); err == nil {
		t.Error("short dst accepted")
	}
	for _, s := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := c.Sample(rng, s, make([]float64, len(cands))); err == nil {
			t.Errorf("scale %v accepted", s)
		}
	}
	// scale 0: the mean, bit for bit
	dst := make([]float64, len(cands))
	if err := c.Sample(rng, 0, dst); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dst, c.Mean()) {
		t.Errorf("scale 0: %v, want the mean %v", dst, c.Mean())
	}
}

// Duplicated candidates make K_CC singular; the jitter escalation copes and
// the draws at the two copies agree to within the jitter.
func TestCandidatesSampleDuplicateCandidates(t *testing.T) {
	k := SE{Lengthscale: 0.3, Variance: 1}
	g, _ := NewExact(k, 0.01)
	cands := [][]float64{{0}, {0.5}, {0.5}, {1}}
	c := NewCandidates(g, cands)
	if err := g.Add([]float64{0.5}, 1); err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 4)
	if err := c.Sample(rand.New(rand.NewPCG(2, 2)), 1, dst); err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(dst[1] - dst[2]); d > 1e-3 {
		t.Errorf("draws at a duplicated candidate differ by %v", d)
	}
}

// gridGram agrees with direct evaluation on a shuffled regular grid (to
// rounding), and declines a non-stationary kernel, an incomplete grid and
// unequal spacing.
func TestGridGram(t *testing.T) {
	var pts [][]float64
	for i := 0; i < 5; i++ {
		for j := 0; j < 4; j++ {
			pts = append(pts, []float64{-1 + 3*float64(i)/4, 0.5 + 2*float64(j)/3})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	ard, _ := NewARD(2.5, []float64{0.7, 1.9}, 1.3)
	m := len(pts)
	for _, k := range []Kernel{ard, SE{Lengthscale: 0.8, Variance: 2}, Matern{Nu: 1.5, Lengthscale: 0.5, Variance: 1}} {
		got := make([]float64, m*m)
		if !gridGram(k, pts, got) {
			t.Fatalf("%v: grid not recognised", k)
		}
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				if want := k.Eval(pts[i], pts[j]); math.Abs(got[i*m+j]-want) > 1e-12 {
					t.Fatalf("%v: K[%d,%d] = %v, want %v", k, i, j, got[i*m+j], want)
				}
			}
		}
	}
	dst := make([]float64, m*m)
	if gridGram(Linear{Variance: 1}, pts, dst) {
		t.Error("linear kernel accepted")
	}
	if gridGram(ard, pts[:m-1], dst[:(m-1)*(m-1)]) {
		t.Error("incomplete grid accepted")
	}
	bent := slices.Clone(pts)
	for i, x := range bent {
		if x[0] == -1 {
			bent[i] = []float64{-1.1, x[1]}
		}
	}
	if gridGram(ard, bent, dst) {
		t.Error("unequal spacing accepted")
	}
}

// ArmPosterior.SharePrior: posteriors with the same kernel at the same arms
// draw with one prior factor, bit for bit as with their own; another kernel
// gets its own factor, computed at once when the source has drawn.
func TestArmSharePrior(t *testing.T) {
	pts := armPoints(12, 0, 1)
	k := Matern{Nu: 2.5, Lengthscale: 0.3, Variance: 1}
	build := func(k Kernel) *ArmPosterior {
		p, err := NewArmPosteriorKernel(k, pts, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range []int{2, 7, 2, 11} {
			if err := p.Observe(a, float64(i)-1); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	a, b, alone := build(k), build(k), build(k)
	b.SharePrior(a)
	da, db, dc := make([]float64, 12), make([]float64, 12), make([]float64, 12)
	for r := 0; r < 2; r++ {
		for _, c := range []struct {
			p   *ArmPosterior
			dst []float64
		}{{b, db}, {a, da}, {alone, dc}} {
			if err := c.p.Sample(rand.New(rand.NewPCG(4, uint64(r))), 1, c.dst); err != nil {
				t.Fatal(err)
			}
		}
		if a.factor != b.factor {
			t.Fatal("same prior: the factor is not shared")
		}
		if !slices.Equal(db, dc) || !slices.Equal(da, dc) {
			t.Fatalf("shared factor changes the draws:\n%v\n%v\n%v", da, db, dc)
		}
	}
	o := build(Matern{Nu: 2.5, Lengthscale: 0.2, Variance: 1})
	o.SharePrior(a)
	if o.factor == nil || o.factor == a.factor {
		t.Fatalf("another kernel after a draw: factor %p (source %p), want its own, computed", o.factor, a.factor)
	}
}

// The block-Toeplitz root at a shuffled 2-D grid: L·Lᵀ is the prior plus
// the jitter (its columns L·e_j, to 1e-9 of the variance, also for long
// lengthscales), and solve inverts mul.
func TestToeplitzRoot(t *testing.T) {
	var pts [][]float64
	for i := 0; i < 9; i++ {
		for j := 0; j < 7; j++ {
			pts = append(pts, []float64{2 * float64(i) / 8, -1 + float64(j)/6})
		}
	}
	rng := rand.New(rand.NewPCG(3, 1))
	rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	var pts3 [][]float64 // a 3-D grid: blocks are themselves 2-level Toeplitz
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			for l := 0; l < 3; l++ {
				pts3 = append(pts3, []float64{float64(i) / 3, float64(j) / 2, 5 + float64(l)})
			}
		}
	}
	for _, ls := range [][]float64{{0.2, 0.1}, {1, 0.5}, {4, 3}, {0.3, 0.6, 2}} {
		pts := pts
		if len(ls) == 3 {
			pts = pts3
		}
		m := len(pts)
		k, _ := NewARD(2.5, ls, 1.7)
		p := newPathPrior(k, pts)
		if err := p.factorise(); err != nil {
			t.Fatal(err)
		}
		if p.tr == nil {
			t.Fatalf("lengthscales %v: no block-Toeplitz root", ls)
		}
		// L in grid order, column by column; then K[i,j] = (L·Lᵀ)[flat i, flat j]
		l := make([]float64, m*m) // l[g*m+j] = L[g, j]
		col := make([]float64, m)
		for j := 0; j < m; j++ {
			clear(col)
			col[j] = 1
			p.tr.mul(col)
			for g, v := range col {
				l[g*m+j] = v
			}
		}
		worst := 0.0
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				gi, gj := p.flat[i], p.flat[j]
				var s float64
				for q := 0; q < m; q++ {
					s += l[gi*m+q] * l[gj*m+q]
				}
				want := k.Eval(pts[i], pts[j])
				if i == j {
					want += p.jit
				}
				worst = math.Max(worst, math.Abs(s-want))
			}
		}
		if worst > 1e-9*1.7 {
			t.Errorf("lengthscales %v: |L·Lᵀ − K| up to %.3g", ls, worst)
		}
		v := make([]float64, m)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		w := slices.Clone(v)
		p.tr.mul(w)
		p.tr.solve(w)
		if d := maxAbsDiff(v, w); d > 1e-6 {
			t.Errorf("lengthscales %v: solve(mul(v)) differs from v by %.3g", ls, d)
		}
		t.Logf("lengthscales %v: jitter %.3g, |L·Lᵀ − K| ≤ %.3g", ls, p.jit, worst)
	}
}

// After a draw, SharePrior with another kernel computes the new factor at
// once (on a grid: the block-Toeplitz root; elsewhere: Cholesky).
func TestSharePriorEager(t *testing.T) {
	for _, cands := range [][][]float64{armPoints(7, 0, 1), {{0}, {0.15}, {0.3}, {0.5}, {0.55}, {0.8}, {1}}} {
		_, c, _ := pathwiseFixtureAt(t, 0.05, cands)
		if err := c.Sample(rand.New(rand.NewPCG(1, 1)), 1, make([]float64, len(cands))); err != nil {
			t.Fatal(err)
		}
		g2, _ := NewExact(Matern{Nu: 2.5, Lengthscale: 0.2, Variance: 1}, 0.05)
		c2 := NewCandidates(g2, cands)
		c2.SharePrior(c)
		if c2.prior == c.prior || (c2.prior.l == nil && c2.prior.tr == nil) {
			t.Errorf("candidates %v: the new kernel's factor was not computed at SharePrior", cands)
		}
	}
}
