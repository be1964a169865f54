package gp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The joint posterior at new points equals the batch reference (R&W eq.
// 2.24), before and after observations.
func TestPredictJointIsBatchPosterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ard, err := NewARD(2.5, []float64{0.3, 0.5, 0.8}, 1.7)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kernel{SE{Lengthscale: 0.4, Variance: 1.2}, ard} {
		xs := randPoints(rng, 30, 3)
		ys := make([]float64, len(xs))
		for i, x := range xs {
			ys[i] = math.Sin(4*x[0]) + x[1]*x[2]
		}
		at := randPoints(rng, 12, 3)
		for _, n := range []int{0, 30} { // the prior, then the posterior
			h, err := NewExact(k, 1e-3)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if err := h.Add(xs[i], ys[i]); err != nil {
					t.Fatal(err)
				}
			}
			mean, cov := make([]float64, len(at)), make([]float64, len(at)*len(at))
			if err := h.PredictJoint(at, mean, cov); err != nil {
				t.Fatal(err)
			}
			wm, wc := BatchPosterior(k, xs[:n], ys[:n], 1e-3, at)
			for i := range at {
				if math.Abs(mean[i]-wm[i]) > 1e-8 {
					t.Fatalf("%v, %d points: mean[%d] = %v, batch %v", k, n, i, mean[i], wm[i])
				}
				for j := 0; j <= i; j++ {
					if c, w := cov[i*len(at)+j], wc[i*len(at)+j]; math.Abs(c-w) > 1e-8 {
						t.Fatalf("%v, %d points: cov[%d,%d] = %v, batch %v", k, n, i, j, c, w)
					}
				}
			}
		}
	}
}

// With pending points, the joint posterior is the batch posterior given the
// observations and the pending points observed at their posterior mean
// (GP-BUCB's hallucination): the draws SCBO makes for a batch.
func TestPredictJointWithPending(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	k := SE{Lengthscale: 0.3, Variance: 1}
	g, err := NewExact(k, 1e-2)
	if err != nil {
		t.Fatal(err)
	}
	xs := randPoints(rng, 20, 2)
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = math.Cos(3*x[0]) - x[1]
		if err := g.Add(x, ys[i]); err != nil {
			t.Fatal(err)
		}
	}
	pend := randPoints(rng, 3, 2)
	allX, allY := append([][]float64(nil), xs...), append([]float64(nil), ys...)
	for _, p := range pend {
		mu, _ := g.Predict(p) // before any pending point: the mean each is hallucinated at
		allX, allY = append(allX, p), append(allY, mu)
	}
	for _, p := range pend {
		if err := g.Pend(p); err != nil {
			t.Fatal(err)
		}
	}
	at := randPoints(rng, 8, 2)
	mean, cov := make([]float64, len(at)), make([]float64, len(at)*len(at))
	if err := g.PredictJoint(at, mean, cov); err != nil {
		t.Fatal(err)
	}
	wm, wc := BatchPosterior(k, allX, allY, 1e-2, at)
	for i := range at {
		if math.Abs(mean[i]-wm[i]) > 1e-8 {
			t.Fatalf("mean[%d] = %v, batch %v", i, mean[i], wm[i])
		}
		for j := 0; j <= i; j++ {
			if c, w := cov[i*len(at)+j], wc[i*len(at)+j]; math.Abs(c-w) > 1e-8 {
				t.Fatalf("cov[%d,%d] = %v, batch %v", i, j, c, w)
			}
		}
	}
	g.Unpend()
	if err := g.PredictJoint(at, mean, cov); err != nil {
		t.Fatal(err)
	}
	wm, wc = BatchPosterior(k, xs, ys, 1e-2, at)
	if math.Abs(mean[0]-wm[0]) > 1e-8 || math.Abs(cov[0]-wc[0]) > 1e-8 {
		t.Fatalf("after Unpend: mean %v cov %v, batch %v %v", mean[0], cov[0], wm[0], wc[0])
	}
}

// opaque hides ARD behind the Kernel interface, so BatchPosterior takes its
// general path (every entry of K(at, at) evaluated).
type opaque struct{ ARD }

// uniformCase is t observations (standard normal values) and m points to
// predict at, uniform in the d-dim unit cube.
func uniformCase(rng *rand.Rand, d, t, m int) (xs [][]float64, ys []float64, at [][]float64) {
	pt := func() []float64 {
		x := make([]float64, d)
		for i := range x {
			x[i] = rng.Float64()
		}
		return x
	}
	for range t {
		xs = append(xs, pt())
		ys = append(ys, rng.NormFloat64())
	}
	for range m {
		at = append(at, pt())
	}
	return xs, ys, at
}

func TestBatchPosteriorARDHalfIsTheFullSweep(t *testing.T) {
	xs, ys, at := uniformCase(rand.New(rand.NewPCG(5, 9)), 3, 12, 40)
	k := ARD{Variance: 1.7, Lengthscales: []float64{0.2, 0.6, 1.1}, Nu: 2.5}
	m, c := BatchPosterior(k, xs, ys, 0.01, at)
	wm, wc := BatchPosterior(opaque{k}, xs, ys, 0.01, at)
	if m == nil || wm == nil {
		t.Fatal("BatchPosterior failed")
	}
	for i := range wc {
		if math.Float64bits(c[i]) != math.Float64bits(wc[i]) {
			t.Fatalf("cov[%d] = %v, the full sweep's %v", i, c[i], wc[i])
		}
	}
	for i := range wm {
		if math.Float64bits(m[i]) != math.Float64bits(wm[i]) {
			t.Fatalf("mean[%d] = %v, the full sweep's %v", i, m[i], wm[i])
		}
	}
}
