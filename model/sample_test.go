package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/service/snap"
)

// boxOf returns the inner Box of an Adaptive model.
func boxOf(t *testing.T, m Model) *Box {
	t.Helper()
	a, ok := m.(*Adaptive)
	if !ok {
		t.Fatalf("%T is not Adaptive", m)
	}
	b, ok := a.inner.(*Box)
	if !ok {
		t.Fatalf("inner %T is not a Box", a.inner)
	}
	return b
}

// Thompson draws of an Adaptive model over a box go to the inner Box
// (AsJointSampler) and, with scale 0, give its mean; f and g with equal
// kernels draw from one prior factor (gp tests SharePrior), and after a refit (another kernel)
// the draws keep the moments of the new posterior: a function of the seed,
// the same from a model that never drew before the refit.
func TestAdaptiveBoxSample(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{2, 1})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := gp.NewARD(2.5, []float64{0.4, 0.2}, 1)
	info := bandit.Info{Domain: box, Kernel: k, M: 1}
	build := func() (Model, []Model) {
		f, g, err := ForAllOpts(info, 0.05, Options{Standardise: true, Fit: true})
		if err != nil {
			t.Fatal(err)
		}
		return f, g
	}
	f, g := build()
	boxOf(t, f)
	boxOf(t, g[0])
	js, ok := AsJointSampler(f)
	if !ok {
		t.Fatal("Adaptive over a Box is not a JointSampler")
	}
	n := f.Len()
	dst := make([]float64, n)
	if err := js.Sample(rand.New(rand.NewPCG(1, 1)), 0, dst); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dst, f.Mean()) {
		t.Error("scale 0: not the mean")
	}
	// a fresh pair that draws only after the refit
	f2, _ := build()
	for i, x := range adaptiveXs {
		y := adaptiveY(x)
		for _, m := range []Model{f, g[0], f2} {
			if err := m.Observe(bandit.PointAction(x), y*float64(i%3+1)); err != nil {
				t.Fatal(err)
			}
		}
		if i == 2 {
			js, _ := AsJointSampler(g[0])
			if err := js.Sample(rand.New(rand.NewPCG(2, 2)), 1, dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a := f.(*Adaptive); a.theta == nil {
		t.Fatal("no refit after 11 observations")
	}
	js1, _ := AsJointSampler(f)
	js2, _ := AsJointSampler(f2)
	d2 := make([]float64, n)
	if err := js1.Sample(rand.New(rand.NewPCG(3, 3)), 1.2, dst); err != nil {
		t.Fatal(err)
	}
	if err := js2.Sample(rand.New(rand.NewPCG(3, 3)), 1.2, d2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dst, d2) {
		t.Errorf("draws after a refit depend on the draws before it:\n%v\n%v", dst, d2)
	}
	// moments after the refit against the dense covariance, at ten
	// candidates spread over the 1,024
	cov := make([]float64, n*n)
	f.Cov(cov)
	mu := f.Mean()
	var at []int
	for i := 0; i < n; i += n / 10 {
		at = append(at, i)
	}
	const draws = 4000
	rng := rand.New(rand.NewPCG(4, 4))
	q := len(at)
	sum, sum2 := make([]float64, q), make([]float64, q*q)
	for r := 0; r < draws; r++ {
		if err := js1.Sample(rng, 1, dst); err != nil {
			t.Fatal(err)
		}
		for a, i := range at {
			di := dst[i] - mu[i]
			sum[a] += di
			for b, j := range at[:a+1] {
				sum2[a*q+b] += di * (dst[j] - mu[j])
			}
		}
	}
	bad := 0
	for a, i := range at {
		if math.Abs(sum[a]/draws) > 5*math.Sqrt(cov[i*n+i]/draws)+1e-9 {
			bad++
		}
		for b, j := range at[:a+1] {
			se := math.Sqrt((cov[i*n+i]*cov[j*n+j] + cov[i*n+j]*cov[i*n+j]) / draws)
			if math.Abs(sum2[a*q+b]/draws-cov[i*n+j]) > 5*se+1e-9 {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("after a refit: %d of %d moments more than 5 standard errors off", bad, q+q*(q+1)/2)
	}
}

// A Box that has drawn (prior factor, a row for a point off the
// candidates) survives the service's snapshot codec: the restored model's
// next draws are those of the original.
func TestBoxSampleSnapshot(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := gp.NewARD(2.5, []float64{0.3, 0.3}, 1)
	cands := GridPoints(box, 6)
	build := func() *Box {
		m, err := NewBox(box, k, 0.01, cands)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := build()
	for i, x := range [][]float64{cands[3], {0.37, 0.61}, cands[20], {0.9, 0.05}} {
		if err := m.Observe(bandit.PointAction(x), float64(i)-1); err != nil {
			t.Fatal(err)
		}
	}
	dst := make([]float64, m.Len())
	rng := rand.New(rand.NewPCG(9, 9))
	if err := m.Sample(rng, 1, dst); err != nil {
		t.Fatal(err)
	}
	data, err := snap.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	r := build()
	if err := snap.Decode(data, r); err != nil {
		t.Fatal(err)
	}
	a, b := make([]float64, m.Len()), make([]float64, m.Len())
	for round := 0; round < 3; round++ {
		if err := m.Sample(rand.New(rand.NewPCG(5, uint64(round))), 1, a); err != nil {
			t.Fatal(err)
		}
		if err := r.Sample(rand.New(rand.NewPCG(5, uint64(round))), 1, b); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("round %d: restored draws differ:\n%v\n%v", round, a, b)
		}
		x := []float64{0.1 + 0.2*float64(round), 0.45}
		for _, mm := range []*Box{m, r} {
			if err := mm.Observe(bandit.PointAction(x), 0.5); err != nil {
				t.Fatal(err)
			}
		}
	}
}
