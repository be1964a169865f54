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

// TestSetNoisySchedule: TrialNoise changes nothing; after SetNoisy(…, 2)
// at FirstFit (8 in 2-D) the hyperparameters change at every even count
// below DeferFrom (32), and from there on the doubling schedule's deferred
// refit (started at 32, swapped in at 40) is the only one.
func TestSetNoisySchedule(t *testing.T) {
	a := deferredModel(t)
	rng := rand.New(rand.NewPCG(7, 8))
	observe := func() {
		x := []float64{2 * rng.Float64(), rng.Float64()}
		if err := a.Observe(bandit.PointAction(x), math.Sin(3*x[0])+x[1]+0.3*rng.NormFloat64()); err != nil {
			t.Fatal(err)
		}
	}
	for range 7 {
		observe()
	}
	if _, err := a.TrialNoise(); err == nil {
		t.Fatal("a trial fit on 7 observations in 2-D: no error")
	}
	observe()
	theta, mean := slices.Clone(a.theta), slices.Clone(a.Mean())
	lam, err := a.TrialNoise()
	if err != nil || !(lam > 0) {
		t.Fatalf("TrialNoise: %v, %v", lam, err)
	}
	if !slices.Equal(a.theta, theta) || !slices.Equal(a.Mean(), mean) {
		t.Fatal("TrialNoise changed the model")
	}
	if err := a.SetNoisy(NoisyPriorOptuna, 2); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a.theta, theta) {
		t.Fatal("SetNoisy did not refit")
	}
	theta = a.theta
	for n := 9; n <= 48; n++ {
		if got, want := a.Refreshes(), (n < 32 && n%2 == 0) || n == 32 || n == 40; got != want {
			t.Fatalf("n = %d: Refreshes %v, want %v", n, got, want)
		}
		observe()
		if a.job != nil {
			<-a.job.done
		}
		if swapped := !slices.Equal(a.theta, theta); swapped != ((n < 32 && n%2 == 0) || n == 40) {
			t.Fatalf("n = %d: new hyperparameters %v", n, swapped)
		}
		theta = a.theta
	}
}

// TestOptunaLengthscalePrior: −0.1(ℓ² + 1/ℓ²) at θ = ln ℓ, its largest
// value −0.2 at ℓ = 1, and its derivative in θ against a central
// difference.
func TestOptunaLengthscalePrior(t *testing.T) {
	if l, dl := optunaLengthscalePrior(0); l != -0.2 || dl != 0 {
		t.Fatalf("at ℓ = 1: %v, %v; want -0.2, 0", l, dl)
	}
	for _, th := range []float64{-2, -0.5, 0.3, 1.5} {
		l, dl := optunaLengthscalePrior(th)
		e := math.Exp(th)
		if want := -0.1 * (e*e + 1/(e*e)); math.Abs(l-want) > 1e-12 {
			t.Fatalf("θ = %v: %v, want %v", th, l, want)
		}
		h := 1e-6
		lp, _ := optunaLengthscalePrior(th + h)
		lm, _ := optunaLengthscalePrior(th - h)
		if fd := (lp - lm) / (2 * h); math.Abs(dl-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Fatalf("θ = %v: derivative %v, central difference %v", th, dl, fd)
		}
	}
}

// TestSetNoisySnapshot: a model switched by SetNoisy and restored from a
// snapshot at count 13 keeps the noisy priors and schedule: after every
// later observation its posterior is the original's to the bit.
func TestSetNoisySnapshot(t *testing.T) {
	newA := func() *Adaptive { return deferredModel(t) }
	orig, restored := newA(), (*Adaptive)(nil)
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 30; n++ {
		x := []float64{2 * rng.Float64(), rng.Float64()}
		y := math.Cos(2*x[0]) - x[1] + 0.3*rng.NormFloat64()
		for _, a := range []*Adaptive{orig, restored} {
			if a == nil {
				continue
			}
			if err := a.Observe(bandit.PointAction(x), y); err != nil {
				t.Fatal(err)
			}
		}
		if n == 8 {
			if err := orig.SetNoisy(NoisyPriorOptuna, 3); err != nil {
				t.Fatal(err)
			}
		}
		if n == 13 {
			data, err := snap.Encode(orig)
			if err != nil {
				t.Fatal(err)
			}
			restored = newA()
			if err := snap.Decode(data, restored); err != nil {
				t.Fatal(err)
			}
		}
		if restored != nil && (!slices.Equal(restored.Mean(), orig.Mean()) || !slices.Equal(restored.Var(), orig.Var())) {
			t.Fatalf("n = %d: the restored posterior differs", n)
		}
	}
}

// TestBetweenPriorNoise: on the same noisy data, a fit under
// NoisyPriorBetween (GPSampler's priors but the noise's rate 1 for 30)
// puts the noise variance above the fit under NoisyPriorOptuna's: the
// lighter penalty on λ.
func TestBetweenPriorNoise(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0}, []float64{2, 1})
	k, _ := gp.NewSE(0.5, 1)
	lams := make([]float64, 2)
	for i, prior := range []int{NoisyPriorOptuna, NoisyPriorBetween} {
		a, err := NewAdaptive(box, k, 0.05, AdaptiveOptions{Standardise: true, Fit: true, Candidates: GridPoints(box, 8)})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, 8))
		for range 20 {
			x := []float64{2 * rng.Float64(), rng.Float64()}
			if err := a.Observe(bandit.PointAction(x), math.Sin(3*x[0])+x[1]+0.5*rng.NormFloat64()); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.SetNoisy(prior, 0); err != nil {
			t.Fatal(err)
		}
		_, lams[i] = a.Kernel()
	}
	if !(lams[1] > lams[0]) {
		t.Fatalf("noise variance: optuna %v, between %v; want between above", lams[0], lams[1])
	}
}

// TestSetRefitEvery: after SetRefitEvery(3) the model refits, at once and
// then at every third count (and the doubling's 16), past DeferFrom (32 in
// 2-D) too, where the
// doubling schedule alone would wait for its deferred fits; the deferred
// refit the doubling starts at 32 is dropped by the newer refit at 33, and
// a snapshot taken after the switch restores the same schedule.
func TestSetRefitEvery(t *testing.T) {
	newA := func() *Adaptive { return deferredModel(t) }
	a, restored := newA(), (*Adaptive)(nil)
	rng := rand.New(rand.NewPCG(3, 4))
	observe := func(n int) {
		x := []float64{2 * rng.Float64(), rng.Float64()}
		y := math.Sin(3*x[0]) + x[1] + 0.3*rng.NormFloat64()
		for _, m := range []*Adaptive{a, restored} {
			if m == nil {
				continue
			}
			if err := m.Observe(bandit.PointAction(x), y); err != nil {
				t.Fatal(err)
			}
			if m.job != nil {
				<-m.job.done
			}
		}
		if restored != nil && (!slices.Equal(restored.Mean(), a.Mean()) || !slices.Equal(restored.theta, a.theta)) {
			t.Fatalf("n = %d: the restored model differs", n)
		}
	}
	for n := 1; n <= 11; n++ {
		observe(n)
	}
	if err := a.SetRefitEvery(0); err == nil {
		t.Fatal("SetRefitEvery(0): no error")
	}
	theta := slices.Clone(a.theta)
	if err := a.SetRefitEvery(3); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a.theta, theta) {
		t.Fatal("SetRefitEvery did not refit")
	}
	theta = a.theta
	for n := 12; n <= 60; n++ {
		if got, want := a.Refreshes(), n%3 == 0 || n == 16 || n == 32; got != want {
			t.Fatalf("n = %d: Refreshes %v, want %v", n, got, want)
		}
		observe(n)
		if swapped, want := !slices.Equal(a.theta, theta), n%3 == 0 || n == 16; swapped != want {
			t.Fatalf("n = %d: new hyperparameters %v, want %v", n, swapped, want)
		}
		theta = a.theta
		if n == 20 {
			data, err := snap.Encode(a)
			if err != nil {
				t.Fatal(err)
			}
			restored = newA()
			if err := snap.Decode(data, restored); err != nil {
				t.Fatal(err)
			}
		}
	}
}
