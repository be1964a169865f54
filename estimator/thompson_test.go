package estimator

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// model.Arms draws through gp.ArmPosterior.Sample.
var _ JointSampler = (*model.Arms)(nil)

// covOnly hides the JointSampler method of a model, forcing the Cov+Sampler
// path that box models take.
type covOnly struct{ model.Model }

// Both paths of TS draw from N(μ, β²Σ): compare their sample moments after
// repeated observations.
func TestTSPathsAgree(t *testing.T) {
	const n, draws, beta = 6, 20000, 1.5
	m := testModel(t, n)
	for i, a := range []int{1, 4, 1, 1, 5, 4, 1} {
		_ = m.Observe(m.Action(a), 0.3*float64(i)-1)
	}
	cov := make([]float64, n*n)
	m.Cov(cov)
	mu := append([]float64(nil), m.Mean()...)
	for _, c := range []struct {
		name string
		m    model.Model
	}{{"sample", m}, {"cov", covOnly{m}}} {
		if _, ok := c.m.(JointSampler); ok != (c.name == "sample") {
			t.Fatalf("%s: JointSampler = %v", c.name, ok)
		}
		rng := rand.New(rand.NewPCG(11, 12))
		e := &TS{}
		dst := make([]float64, n)
		sum := make([]float64, n)
		sum2 := make([]float64, n*n)
		for k := 0; k < draws; k++ {
			if err := e.Estimate(rng, c.m, beta, dst); err != nil {
				t.Fatal(err)
			}
			for i := range dst {
				d := dst[i] - mu[i]
				sum[i] += d
				for j := range dst {
					sum2[i*n+j] += d * (dst[j] - mu[j])
				}
			}
		}
		for i := 0; i < n; i++ {
			sd := beta * math.Sqrt(cov[i*n+i])
			if got := sum[i] / draws; math.Abs(got) > 5*sd/math.Sqrt(draws)+1e-12 {
				t.Errorf("%s: mean offset at %d = %v (sd %v)", c.name, i, got, sd)
			}
			for j := 0; j < n; j++ {
				want := beta * beta * cov[i*n+j]
				got := sum2[i*n+j] / draws
				se := beta * beta * math.Sqrt((cov[i*n+i]*cov[j*n+j]+cov[i*n+j]*cov[i*n+j])/draws)
				if math.Abs(got-want) > 5*se+1e-12 {
					t.Errorf("%s: cov[%d,%d] = %v, want %v ± %v", c.name, i, j, got, want, 5*se)
				}
			}
		}
	}
}

// tsMisfits draws `draws` times with TS from m and returns the entries of
// the sample mean and covariance more than 5 standard errors from m's
// posterior (Mean and β²·Cov).
func tsMisfits(t *testing.T, m model.Model, beta float64, draws int, seed uint64) int {
	t.Helper()
	n := m.Len()
	cov := make([]float64, n*n)
	m.Cov(cov)
	mu := append([]float64(nil), m.Mean()...)
	rng := rand.New(rand.NewPCG(seed, 1))
	e := &TS{}
	dst := make([]float64, n)
	sum := make([]float64, n)
	sum2 := make([]float64, n*n)
	for k := 0; k < draws; k++ {
		if err := e.Estimate(rng, m, beta, dst); err != nil {
			t.Fatal(err)
		}
		for i := range dst {
			d := dst[i] - mu[i]
			sum[i] += d
			for j := range dst {
				sum2[i*n+j] += d * (dst[j] - mu[j])
			}
		}
	}
	bad := 0
	N := float64(draws)
	for i := 0; i < n; i++ {
		if got := sum[i] / N; math.Abs(got) > 5*beta*math.Sqrt(cov[i*n+i]/N)+1e-9 {
			bad++
		}
		for j := 0; j < n; j++ {
			want := beta * beta * cov[i*n+j]
			se := beta * beta * math.Sqrt((cov[i*n+i]*cov[j*n+j]+cov[i*n+j]*cov[i*n+j])/N)
			if math.Abs(sum2[i*n+j]/N-want) > 5*se+1e-9 {
				bad++
			}
		}
	}
	return bad
}

// On a box TS draws pathwise (model.Box.Sample, also inside an Adaptive
// model): the draws have the moments of the dense posterior (Cov), with
// observations off the candidates and pending points; the same check fails
// against the covariance of another noise variance.
func TestTSBoxPathwise(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := gp.NewSE(0.4, 1)
	cands := model.GridPoints(box, 4)
	obs := []struct {
		x []float64
		y float64
	}{{cands[5], 0.4}, {[]float64{0.52, 0.1}, -0.2}, {cands[10], 0.9}, {[]float64{0.9, 0.77}, 0.1}}
	build := func(lam float64) *model.Box {
		m, err := model.NewBox(box, k, lam, cands)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range obs {
			if err := m.Observe(bandit.PointAction(o.x), o.y); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	m := build(0.05)
	if _, ok := model.AsJointSampler(m); !ok {
		t.Fatal("Box is not a JointSampler")
	}
	if bad := tsMisfits(t, m, 1.5, 20000, 3); bad > 0 {
		t.Errorf("box: %d misfits", bad)
	}
	if err := m.Pend([]bandit.Action{bandit.PointAction([]float64{0.3, 0.3}), bandit.PointAction(cands[15])}); err != nil {
		t.Fatal(err)
	}
	if bad := tsMisfits(t, m, 1, 20000, 4); bad > 0 {
		t.Errorf("box with pending points: %d misfits", bad)
	}
	m.Unpend()
	// the check is sensitive: draws of a GP with λ = 0.2 against λ = 0.05
	other := build(0.2)
	bad := tsMisfits(t, wrongCov{other, m}, 1, 20000, 5)
	t.Logf("λ = 0.2 against λ = 0.05: %d misfits", bad)
	if bad == 0 {
		t.Error("draws with another λ pass the moment check")
	}
	a, err := model.NewAdaptive(box, k, 0.05, model.AdaptiveOptions{Standardise: true, Candidates: cands})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if err := a.Observe(bandit.PointAction(o.x), o.y); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := model.AsJointSampler(a); !ok {
		t.Fatal("Adaptive over a Box is not a JointSampler")
	}
	if bad := tsMisfits(t, a, 1, 20000, 6); bad > 0 {
		t.Errorf("adaptive box: %d misfits", bad)
	}
}

// wrongCov draws from one model and reports the covariance of another.
type wrongCov struct {
	*model.Box
	ref *model.Box
}

func (w wrongCov) Cov(dst []float64) { w.ref.Cov(dst) }
