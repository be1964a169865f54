package model

import (
	"math"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

func adaptiveFixture(t *testing.T, std, fit, constraint bool) (*Adaptive, *domain.Box, gp.Kernel) {
	t.Helper()
	box, err := domain.NewBox([]float64{0, 0}, []float64{2, 1})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := gp.NewSE(0.5, 1)
	a, err := NewAdaptive(box, k, 0.05, AdaptiveOptions{Standardise: std, Fit: fit, Constraint: constraint, Candidates: GridPoints(box, 5)})
	if err != nil {
		t.Fatal(err)
	}
	return a, box, k
}

var adaptiveXs = [][]float64{{0.1, 0.2}, {1.5, 0.9}, {0.7, 0.4}, {1.9, 0.1}, {0.3, 0.8}, {1.1, 0.6}, {0.5, 0.5}, {1.7, 0.3}, {0.9, 0.9}, {1.3, 0.2}, {0.2, 0.6}}

func adaptiveY(x []float64) float64 { return math.Sin(2*x[0]) + x[1] }

// TestAdaptiveStandardised: the reported posterior is the exact GP posterior
// of (y − m)/s (objective) or y/s with prior mean 0, the threshold
// (constraint), with m,
// s the mean and population std of the observations at the last refresh
// (counts 1, 2, 4, 8: after 11 observations, the first 8), and it is
// unchanged by y → 1000·y + 50 (objective) or y → 1000·y (constraint).
func TestAdaptiveStandardised(t *testing.T) {
	for _, constraint := range []bool{false, true} {
		a, _, k := adaptiveFixture(t, true, false, constraint)
		b, _, _ := adaptiveFixture(t, true, false, constraint)
		off := 50.0
		if constraint {
			off = 0
		}
		for _, x := range adaptiveXs {
			if err := a.Observe(bandit.PointAction(x), adaptiveY(x)); err != nil {
				t.Fatal(err)
			}
			if err := b.Observe(bandit.PointAction(x), 1000*adaptiveY(x)+off); err != nil {
				t.Fatal(err)
			}
		}
		var m, ss float64
		for _, x := range adaptiveXs[:8] {
			m += adaptiveY(x)
		}
		m /= 8
		for _, x := range adaptiveXs[:8] {
			ss += (adaptiveY(x) - m) * (adaptiveY(x) - m)
		}
		s := math.Sqrt(ss / 8)
		if gm, gs := a.Standardisation(); math.Abs(gm-m) > 1e-14 || math.Abs(gs-s) > 1e-14 {
			t.Fatalf("m, s = %v, %v, want %v, %v", gm, gs, m, s)
		}
		ys := make([]float64, len(adaptiveXs))
		for i, x := range adaptiveXs {
			ys[i] = (adaptiveY(x) - m) / s
			if constraint {
				ys[i] = adaptiveY(x) / s
			}
		}
		cands := GridPoints(a.inner.(*Box).Domain(), 5)
		mu, cov := gp.BatchPosterior(k, adaptiveXs, ys, 0.05, cands)
		for i := range cands {
			if d := math.Abs(a.Mean()[i] - mu[i]); d > 1e-10 {
				t.Fatalf("constraint=%v: mean[%d] off by %.3g", constraint, i, d)
			}
			if d := math.Abs(a.Var()[i] - cov[i*len(cands)+i]); d > 1e-10 {
				t.Fatalf("constraint=%v: var[%d] off by %.3g", constraint, i, d)
			}
			if d := math.Abs(a.Mean()[i] - b.Mean()[i]); d > 1e-9 {
				t.Fatalf("constraint=%v: units change the mean at %d by %.3g", constraint, i, d)
			}
		}
		pm, pv := a.Predict([]float64{0.65, 0.35})
		qm, qv := b.Predict([]float64{0.65, 0.35})
		if math.Abs(pm-qm) > 1e-9 || math.Abs(pv-qv) > 1e-12 {
			t.Fatalf("constraint=%v: Predict differs across units: %v %v vs %v %v", constraint, pm, pv, qm, qv)
		}
	}
}

// TestAdaptiveFit: after 8 = 2(d+2) observations the kernel is the ARD
// Matérn 5/2 of gp.FitHyper on the standardised data, with λ fitted; the
// first observation standardises with s = |y| (no spread yet); Reset
// restores the prior kernel; NaN is refused.
func TestAdaptiveFit(t *testing.T) {
	a, _, k := adaptiveFixture(t, true, true, false)
	if err := a.Observe(bandit.PointAction(adaptiveXs[0]), -4); err != nil {
		t.Fatal(err)
	}
	if m, s := a.Standardisation(); m != -4 || s != 4 {
		t.Fatalf("one observation: m, s = %v, %v, want −4, 4", m, s)
	}
	for _, x := range adaptiveXs[1:8] {
		if err := a.Observe(bandit.PointAction(x), adaptiveY(x)); err != nil {
			t.Fatal(err)
		}
	}
	kf, lam := a.Kernel()
	ard, ok := kf.(gp.ARD)
	if !ok || ard.Nu != 2.5 || lam == 0.05 {
		t.Fatalf("after 8 observations: kernel %v, λ %v", kf, lam)
	}
	m, s := a.Standardisation()
	ys := []float64{(-4 - m) / s}
	for _, x := range adaptiveXs[1:8] {
		ys = append(ys, (adaptiveY(x)-m)/s)
	}
	got, err := gp.LogMarginal(2.5, adaptiveXs[:8], ys, gp.Hyper{Lengthscales: ard.Lengthscales, Variance: ard.Variance, NoiseVar: lam}.Theta(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Not worse than one of the fit's starts (gp.DefaultStarts scaled to the box).
	start, _ := gp.LogMarginal(2.5, adaptiveXs[:8], ys, gp.Hyper{Lengthscales: []float64{0.4, 0.2}, Variance: 1, NoiseVar: 0.01}.Theta(), nil)
	if !(got >= start) {
		t.Fatalf("fitted LML %v below a start's %v", got, start)
	}
	if err := a.Observe(bandit.PointAction(adaptiveXs[8]), math.NaN()); err == nil {
		t.Fatal("NaN observation: no error")
	}
	a.Reset()
	if kr, lr := a.Kernel(); kr != k || lr != 0.05 || a.Count() != 0 {
		t.Fatalf("after Reset: %v %v %d", kr, lr, a.Count())
	}
}

// TestStandardInfo: the standardised constants do not depend on the
// problem's units.
func TestStandardInfo(t *testing.T) {
	a := StandardInfo(bandit.Info{B: 7, G: 1.95, R: 0.2, RG: 0.2, NoiseVar: 0.05, Slater: 0.05, LipG: 3, SafeCosts: []float64{-1}})
	b := StandardInfo(bandit.Info{B: 7050, G: 1950, R: 200, RG: 200, NoiseVar: 5e4, Slater: 50, LipG: 3000, SafeCosts: []float64{-1000}})
	if a.B != b.B || a.G != b.G || a.R != b.R || a.RG != b.RG || a.NoiseVar != b.NoiseVar || a.Slater != b.Slater || a.LipG != 0 || b.SafeCosts != nil {
		t.Fatalf("%+v vs %+v", a, b)
	}
}

// TestAdaptiveRefusesOutOfBox: an action outside the box is refused on a
// refresh (the 4th observation) and between refreshes, and the model is as
// before it.
func TestAdaptiveRefusesOutOfBox(t *testing.T) {
	a, _, _ := adaptiveFixture(t, true, false, true)
	for _, x := range adaptiveXs[:3] {
		if err := a.Observe(bandit.PointAction(x), adaptiveY(x)); err != nil {
			t.Fatal(err)
		}
	}
	before := append([]float64(nil), a.Mean()...)
	m0, s0 := a.Standardisation()
	for _, n := range []int{3, 4} { // 4th observation: a refresh; 5th: an update
		if n == 4 {
			if err := a.Observe(bandit.PointAction(adaptiveXs[3]), adaptiveY(adaptiveXs[3])); err != nil {
				t.Fatal(err)
			}
			before = append(before[:0], a.Mean()...)
			m0, s0 = a.Standardisation()
		}
		if err := a.Observe(bandit.PointAction([]float64{5, 0}), 1); err == nil {
			t.Fatalf("after %d observations: out-of-box action accepted", n)
		}
		if a.Count() != n {
			t.Fatalf("count %d after a refused observation, want %d", a.Count(), n)
		}
		if m, s := a.Standardisation(); m != m0 || s != s0 {
			t.Fatalf("m, s moved on a refused observation")
		}
		for i, v := range a.Mean() {
			if v != before[i] {
				t.Fatalf("mean[%d] moved on a refused observation", i)
			}
		}
	}
}

// TestAdaptiveCentredFit: with CentredFit a constraint's hyperparameters
// are those an objective model fits to the same observations (both see
// (y − m)/s: the objective as its data, the constraint as its data g/s less
// their mean m/s), except the signal variance, which gains (m/s)² so the
// prior at the threshold also covers the values' distance from it. Without
// CentredFit the fit sees g/s itself and lands elsewhere.
func TestAdaptiveCentredFit(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{2, 1})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := gp.NewSE(0.5, 1)
	build := func(o AdaptiveOptions) *Adaptive {
		o.Standardise, o.Fit, o.Candidates = true, true, GridPoints(box, 5)
		a, err := NewAdaptive(box, k, 0.05, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range adaptiveXs[:8] { // the first fit: 2(d+2) = 8
			if err := a.Observe(bandit.PointAction(x), adaptiveY(x)+3); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	obj := build(AdaptiveOptions{})
	cen := build(AdaptiveOptions{Constraint: true, CentredFit: true})
	thr := build(AdaptiveOptions{Constraint: true})
	ko, lo := obj.Kernel()
	kc, lc := cen.Kernel()
	kt, _ := thr.Kernel()
	ao, ac, at := ko.(gp.ARD), kc.(gp.ARD), kt.(gp.ARD)
	m, s := cen.Standardisation()
	if math.Abs(lc-lo) > 1e-9*lo {
		t.Errorf("λ: centred constraint %v, objective %v", lc, lo)
	}
	for i := range ao.Lengthscales {
		if math.Abs(ac.Lengthscales[i]-ao.Lengthscales[i]) > 1e-9*ao.Lengthscales[i] {
			t.Errorf("lengthscale %d: centred constraint %v, objective %v", i, ac.Lengthscales[i], ao.Lengthscales[i])
		}
	}
	if want := ao.Variance + (m/s)*(m/s); math.Abs(ac.Variance-want) > 1e-9*want {
		t.Errorf("variance: centred constraint %v, want the objective's %v + (m/s)² = %v", ac.Variance, ao.Variance, want)
	}
	same := true
	for i := range ao.Lengthscales {
		same = same && math.Abs(at.Lengthscales[i]-ao.Lengthscales[i]) <= 1e-6*ao.Lengthscales[i]
	}
	if same {
		t.Errorf("without CentredFit the constraint's lengthscales %v equal the objective's %v: the test cannot tell the modes apart", at.Lengthscales, ao.Lengthscales)
	}
	// The prior mean stays at the threshold: the constraint reports g/s, so
	// its posterior mean at an observed point is near y/s, not (y − m)/s.
	mu, _ := cen.Predict(adaptiveXs[0])
	if y := (adaptiveY(adaptiveXs[0]) + 3) / s; math.Abs(mu-y) > 0.5 {
		t.Errorf("centred constraint's posterior mean %v at an observed point, the value there is %v (g/s)", mu, y)
	}
}

// TestAdaptiveWarp: after Warp(share) a constraint's posterior is the exact
// GP posterior of bilog(y/knee)/s, knee = share times the population std of
// the observations at the last refresh and s the transformed values' std;
// it is unchanged by y → 1000·y; Unwarp maps the inner units back (an
// observation's transformed value to the observation); an objective is
// left as it was.
func TestAdaptiveWarp(t *testing.T) {
	if b := Bilog(math.E - 1); math.Abs(b-1) > 1e-15 || Bilog(-(math.E-1)) != -b || Bilog(0) != 0 {
		t.Fatalf("Bilog(e−1) = %v, Bilog(−(e−1)) = %v, Bilog(0) = %v: want 1, −1, 0", b, Bilog(-(math.E - 1)), Bilog(0))
	}
	a, _, k := adaptiveFixture(t, true, false, true)
	b, _, _ := adaptiveFixture(t, true, false, true)
	for _, x := range adaptiveXs[:8] {
		if err := a.Observe(bandit.PointAction(x), adaptiveY(x)); err != nil {
			t.Fatal(err)
		}
		if err := b.Observe(bandit.PointAction(x), 1000*adaptiveY(x)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Warp(0.5); err != nil {
		t.Fatal(err)
	}
	if err := b.Warp(0.5); err != nil {
		t.Fatal(err)
	}
	raw := make([]float64, 8)
	for i, x := range adaptiveXs[:8] {
		raw[i] = adaptiveY(x)
	}
	_, sd := Standardisation(raw)
	knee := 0.5 * sd
	zs := make([]float64, 8)
	for i, y := range raw {
		zs[i] = Bilog(y / knee)
	}
	_, s := Standardisation(zs)
	for i := range zs {
		zs[i] /= s
	}
	cands := GridPoints(a.inner.(*Box).Domain(), 5)
	mu, cov := gp.BatchPosterior(k, adaptiveXs[:8], zs, 0.05, cands)
	for i := range cands {
		if d := math.Abs(a.Mean()[i] - mu[i]); d > 1e-10 {
			t.Fatalf("mean[%d] off by %.3g", i, d)
		}
		if d := math.Abs(a.Var()[i] - cov[i*len(cands)+i]); d > 1e-10 {
			t.Fatalf("var[%d] off by %.3g", i, d)
		}
		if d := math.Abs(a.Mean()[i] - b.Mean()[i]); d > 1e-9 {
			t.Fatalf("units change the mean at %d by %.3g", i, d)
		}
	}
	for i, y := range raw {
		if got, _ := a.Unwarp(zs[i], 0); math.Abs(got-y) > 1e-12*math.Max(1, math.Abs(y)) {
			t.Fatalf("Unwarp of observation %d's transformed value: %v, want %v", i, got, y)
		}
	}
	if !a.Warped() {
		t.Fatal("Warped is false after Warp")
	}
	o, _, _ := adaptiveFixture(t, true, false, false)
	if err := o.Warp(0.5); err != nil || o.Warped() {
		t.Fatalf("an objective warped (err %v)", err)
	}
}

// TestAdaptiveMeanPrior: with SetMeanPrior(true) a constraint's posterior is
// its observed mean m/s plus the exact GP posterior of y/s − m/s (m, s of
// every observation: the switch refreshes), its predictions off the
// candidates agree (one by one, batched, adjoint and joint), and SetMeanPrior(false) gives back the posterior of
// y/s with prior mean 0, the threshold; an objective is left as it was.
func TestAdaptiveMeanPrior(t *testing.T) {
	a, _, k := adaptiveFixture(t, true, false, true)
	raw := make([]float64, len(adaptiveXs))
	for i, x := range adaptiveXs {
		raw[i] = adaptiveY(x) + 2 // mostly above the threshold 0
		if err := a.Observe(bandit.PointAction(x), raw[i]); err != nil {
			t.Fatal(err)
		}
	}
	_, s := Standardisation(raw)
	off := 0.0
	for _, y := range raw {
		off += y / s
	}
	off /= float64(len(raw))
	cands := GridPoints(a.inner.(*Box).Domain(), 5)
	check := func(on bool) {
		t.Helper()
		if err := a.SetMeanPrior(on); err != nil {
			t.Fatal(err)
		}
		c := 0.0
		if on {
			c = off
		}
		zs := make([]float64, len(raw))
		for i, y := range raw {
			zs[i] = y/s - c
		}
		mu, cov := gp.BatchPosterior(k, adaptiveXs, zs, 0.05, cands)
		for i, x := range cands {
			if d := math.Abs(a.Mean()[i] - (mu[i] + c)); d > 1e-10 {
				t.Fatalf("mean prior %v: mean[%d] off by %.3g", on, i, d)
			}
			if d := math.Abs(a.Var()[i] - cov[i*len(cands)+i]); d > 1e-10 {
				t.Fatalf("mean prior %v: var[%d] off by %.3g", on, i, d)
			}
			if m, _ := a.Predict(x); math.Abs(m-(mu[i]+c)) > 1e-10 {
				t.Fatalf("mean prior %v: Predict at candidate %d = %v, want %v", on, i, m, mu[i]+c)
			}
		}
		mb, vb := make([]float64, len(cands)), make([]float64, len(cands))
		if err := a.PredictBatch(cands, mb, vb, nil, nil); err != nil {
			t.Fatal(err)
		}
		ma := make([]float64, len(cands))
		dm, dv := make([][]float64, len(cands)), make([][]float64, len(cands))
		for i := range cands {
			dm[i], dv[i] = make([]float64, 2), make([]float64, 2)
		}
		if err := a.PredictBatchAdjoint(cands, ma, make([]float64, len(cands)), dm, dv); err != nil {
			t.Fatal(err)
		}
		for i := range cands {
			if math.Abs(ma[i]-(mu[i]+c)) > 1e-10 {
				t.Fatalf("mean prior %v: PredictBatchAdjoint at candidate %d = %v, want %v", on, i, ma[i], mu[i]+c)
			}
		}
		var mj []float64
		if on {
			mj = make([]float64, len(cands))
			if err := a.PredictJoint(cands, mj, make([]float64, len(cands)*len(cands))); err != nil {
				t.Fatal(err)
			}
		}
		for i := range cands {
			if math.Abs(mb[i]-(mu[i]+c)) > 1e-10 || (on && math.Abs(mj[i]-(mu[i]+c)) > 1e-10) {
				t.Fatalf("mean prior %v: PredictBatch / PredictJoint at candidate %d = %v / %v, want %v", on, i, mb[i], mj, mu[i]+c)
			}
		}
	}
	check(true)
	// Far from the data the posterior returns to the prior mean.
	if m, _ := a.Predict([]float64{2, 1}); m < 0.5*off {
		t.Fatalf("far from the data the mean is %v, want near the observed mean %v", m, off)
	}
	check(false)
	o, _, _ := adaptiveFixture(t, true, false, false)
	for _, x := range adaptiveXs {
		if err := o.Observe(bandit.PointAction(x), adaptiveY(x)); err != nil {
			t.Fatal(err)
		}
	}
	before := append([]float64(nil), o.Mean()...)
	if err := o.SetMeanPrior(true); err != nil {
		t.Fatal(err)
	}
	for i, m := range o.Mean() {
		if m != before[i] {
			t.Fatalf("an objective's mean moved at %d: %v → %v", i, before[i], m)
		}
	}
}
