package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"weak"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// TestDeferredRefitTiming: with refit=deferred the posterior after every
// observation is the same to the bit whether each off-path fit had
// finished long before its swap (waited for right after it started), is
// joined whenever it finishes, or never ran in this process (its job
// dropped, as after a restore from a snapshot: recomputed at the swap).
// The fit started at n is in use from n + RefitLag(n) on, and not before;
// the fits before DeferFrom (8 and 16 in 2-D) are made in the Observe.
func TestDeferredRefitTiming(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0}, []float64{2, 1})
	k, _ := gp.NewSE(0.5, 1)
	newA := func() *Adaptive {
		a, err := NewAdaptive(box, k, 0.05, AdaptiveOptions{Standardise: true, Fit: true, Defer: true, Candidates: GridPoints(box, 8)})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	early, natural, absent := newA(), newA(), newA()
	rng := rand.New(rand.NewPCG(7, 8))
	var theta []float64
	for n := 1; n <= 80; n++ {
		x := []float64{2 * rng.Float64(), rng.Float64()}
		y := math.Sin(3*x[0]) + x[1] + 0.05*rng.NormFloat64()
		for _, a := range []*Adaptive{early, natural, absent} {
			if err := a.Observe(bandit.PointAction(x), y); err != nil {
				t.Fatal(err)
			}
		}
		if v, ok := fitJobs.Load(weak.Make(early)); ok {
			<-v.(*fitJob).done
		}
		fitJobs.LoadAndDelete(weak.Make(absent))
		for _, a := range []*Adaptive{natural, absent} {
			for i, m := range early.Mean() {
				if a.Mean()[i] != m || a.Var()[i] != early.Var()[i] {
					t.Fatalf("n = %d, candidate %d: (%v, %v), want (%v, %v)", n, i, a.Mean()[i], a.Var()[i], m, early.Var()[i])
				}
			}
		}
		// Fits at 8 and 16 in the Observe; from 32 and 64 swapped in at 40, 80.
		if due, ok := map[int]int{8: 0, 16: 0, 32: 40, 64: 80}[n]; ok && early.due != due {
			t.Fatalf("n = %d: due at %d, want %d", n, early.due, due)
		}
		if swapped := !slices.Equal(early.theta, theta); swapped != (n == 8 || n == 16 || n == 40 || n == 80) {
			t.Fatalf("n = %d: new hyperparameters %v", n, swapped)
		}
		theta = early.theta
	}
}

// TestObserveAllEqualsReplay: the rebuild of refit=deferred (Box.observeAll,
// blocked) gives the posterior of one Observe per point up to 1e-10.
func TestObserveAllEqualsReplay(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	k, _ := gp.NewARD(2.5, []float64{0.2, 0.4}, 1.3)
	rng := rand.New(rand.NewPCG(3, 4))
	var acts []bandit.Action
	var ys []float64
	for i := 0; i < 150; i++ {
		x := []float64{rng.Float64(), rng.Float64()}
		acts, ys = append(acts, bandit.PointAction(x)), append(ys, math.Cos(5*x[0])*x[1]+0.1*rng.NormFloat64())
	}
	one, _ := NewBox(box, k, 0.01, nil)
	all, _ := NewBox(box, k, 0.01, nil)
	for i := range acts {
		if err := one.Observe(acts[i], ys[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := all.observeAll(acts, ys); err != nil {
		t.Fatal(err)
	}
	for i := range one.Mean() {
		if d := math.Max(math.Abs(one.Mean()[i]-all.Mean()[i]), math.Abs(one.Var()[i]-all.Var()[i])); d > 1e-10 {
			t.Fatalf("candidate %d: differs by %g", i, d)
		}
	}
}
