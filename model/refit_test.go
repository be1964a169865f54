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

// TestDeferredRefitTiming: with refit=deferred the posterior after every
// observation is the same to the bit whether each off-path fit had
// finished long before its swap (waited for right after it started), is
// joined whenever it finishes, or never ran in this process (its job
// dropped, as after a restore from a snapshot: recomputed at the swap).
// The fit started at n is in use from n + RefitLag(n) on, and not before;
// the fits before DeferFrom (8 and 16 in 2-D) are made in the Observe.
func TestDeferredRefitTiming(t *testing.T) {
	newA := func() *Adaptive { return deferredModel(t) }
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
		if early.job != nil {
			<-early.job.done
		}
		absent.job = nil
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

// TestDeferredRefitSnapshot: a model saved by the snapshot codec while a
// deferred refit runs (started at 32, due at 40) is restored without it
// (transient) and recomputes it at the swap: from there on its posterior
// is the original's to the bit. The fitted kernel's type is declared
// (SnapshotTypes), so a fresh model and a fitted one have one fingerprint.
func TestDeferredRefitSnapshot(t *testing.T) {
	newA := func() *Adaptive { return deferredModel(t) }
	orig, restored := newA(), (*Adaptive)(nil)
	fresh, _ := snap.Fingerprint(newA())
	rng := rand.New(rand.NewPCG(7, 9))
	for n := 1; n <= 48; n++ {
		x := []float64{2 * rng.Float64(), rng.Float64()}
		y := math.Cos(2*x[0]) - x[1] + 0.05*rng.NormFloat64()
		for _, a := range []*Adaptive{orig, restored} {
			if a == nil {
				continue
			}
			if err := a.Observe(bandit.PointAction(x), y); err != nil {
				t.Fatal(err)
			}
		}
		if n == 35 {
			if orig.job == nil || orig.due != 40 {
				t.Fatalf("n = 35: no refit running (due %d)", orig.due)
			}
			if fp, _ := snap.Fingerprint(orig); fp != fresh {
				t.Fatal("a fitted model's fingerprint differs from a fresh one's")
			}
			data, err := snap.Encode(orig)
			if err != nil {
				t.Fatal(err)
			}
			restored = newA()
			if err := snap.Decode(data, restored); err != nil {
				t.Fatal(err)
			}
			if restored.job != nil || restored.due != 40 {
				t.Fatalf("restored: job %v, due %d", restored.job, restored.due)
			}
		}
		if restored == nil {
			continue
		}
		for i, m := range orig.Mean() {
			if restored.Mean()[i] != m || restored.Var()[i] != orig.Var()[i] {
				t.Fatalf("n = %d, candidate %d: (%v, %v), want (%v, %v)", n, i, restored.Mean()[i], restored.Var()[i], m, orig.Var()[i])
			}
		}
	}
	if !slices.Equal(orig.theta, restored.theta) || orig.due != 0 {
		t.Fatalf("after the swap: θ %v, restored %v (due %d)", orig.theta, restored.theta, orig.due)
	}
}

// deferredModel is a model of the box [0, 2] × [0, 1] that fits its
// hyperparameters, deferred from DeferFrom (32) on: the refit tests' subject.
func deferredModel(t *testing.T) *Adaptive {
	t.Helper()
	box, _ := domain.NewBox([]float64{0, 0}, []float64{2, 1})
	k, _ := gp.NewSE(0.5, 1)
	a, err := NewAdaptive(box, k, 0.05, AdaptiveOptions{Standardise: true, Fit: true, Defer: true, Candidates: GridPoints(box, 8)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDeferredJoinKeepsMeanPrior: a constraint's deferred refit swapped in
// with the mean prior on (SetMeanPrior) replays the observations since its
// count at the prior's offset, as the others: after the swap at 40 the
// posterior is the exact GP posterior of unit(y) − off at every
// observation, plus off.
func TestDeferredJoinKeepsMeanPrior(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0}, []float64{2, 1})
	k, _ := gp.NewSE(0.5, 1)
	cands := GridPoints(box, 8)
	a, err := NewAdaptive(box, k, 0.05, AdaptiveOptions{Standardise: true, Fit: true, Defer: true, Constraint: true, Candidates: cands})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetMeanPrior(true); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var xs [][]float64
	var ys []float64
	for n := 1; n <= 40; n++ {
		x := []float64{2 * rng.Float64(), rng.Float64()}
		y := math.Sin(3*x[0]) + x[1] + 2 + 0.05*rng.NormFloat64() // mostly above the threshold 0
		if err := a.Observe(bandit.PointAction(x), y); err != nil {
			t.Fatal(err)
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	if a.off == 0 || a.due != 0 || a.fits != 3 {
		t.Fatalf("after 40 observations: offset %v, swap due at %d, %d fits; want an offset and the third fit (of 32) swapped in", a.off, a.due, a.fits)
	}
	zs := make([]float64, len(ys))
	for i, y := range ys {
		zs[i] = unit(y, a.m, a.s, a.knee, true) - a.off
	}
	mu, _ := gp.BatchPosterior(a.k, xs, zs, a.lam, cands)
	for i, m := range a.Mean() {
		if d := math.Abs(m - (mu[i] + a.off)); d > 1e-8 {
			t.Fatalf("candidate %d: mean %v, want %v (off by %.3g)", i, m, mu[i]+a.off, d)
		}
	}
}
