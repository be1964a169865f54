package gp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ucbPattern returns a warm-up sequence of arm pulls that looks like a UCB
// run: an initial sweep over a few spread-out arms, then mostly the best few
// arms with occasional exploration.
func ucbPattern(rng *rand.Rand, n, steps int) []int {
	seq := make([]int, 0, steps)
	for i := 0; i < 10 && len(seq) < steps; i++ {
		seq = append(seq, i*n/10)
	}
	best := []int{n / 3, n/3 + 1, n / 2, 2 * n / 3, n - 1}
	for len(seq) < steps {
		if rng.Float64() < 0.85 {
			seq = append(seq, best[rng.IntN(len(best))])
		} else {
			seq = append(seq, rng.IntN(n))
		}
	}
	return seq
}

func BenchmarkArmObserve(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			p, err := NewArmPosterior(Gram(SE{Lengthscale: 0.2, Variance: 1}, armPoints(n, 0, 1)), n, 0.1)
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range ucbPattern(rng, n, 300) {
				_ = p.Observe(a, rng.NormFloat64())
			}
			// Steady state: keep pulling arms already observed, mostly the best.
			var pulls []int
			for _, a := range ucbPattern(rng, n, 4096) {
				if p.ArmCount(a) > 0 {
					pulls = append(pulls, a)
				}
			}
			ys := make([]float64, len(pulls))
			for i := range ys {
				ys[i] = rng.NormFloat64()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := i % len(pulls)
				if err := p.Observe(pulls[j], ys[j]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.Distinct()), "|S|")
		})
	}
}

var (
	exactOnce  sync.Once
	exactBench *Exact
	exactPts   [][]float64
)

// benchExact returns an Exact GP with 1999 points in [0,1]^3 (built once).
func benchExact(b *testing.B) *Exact {
	exactOnce.Do(func() {
		rng := rand.New(rand.NewPCG(5, 6))
		g, err := NewExact(Matern{Nu: 2.5, Lengthscale: 0.3, Variance: 1}, 0.05)
		if err != nil {
			b.Fatal(err)
		}
		exactPts = make([][]float64, 2100)
		for i := range exactPts {
			exactPts[i] = []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		}
		for _, x := range exactPts[:1999] {
			if err := g.Add(x, math.Sin(6*x[0])+0.2*rng.NormFloat64()); err != nil {
				b.Fatal(err)
			}
		}
		exactBench = g
	})
	if exactBench.Len() != 1999 {
		b.Fatalf("shared Exact has %d points", exactBench.Len())
	}
	return exactBench
}

// BenchmarkExactAdd2000 times adding the 2000th point.
func BenchmarkExactAdd2000(b *testing.B) {
	g := benchExact(b)
	gain := g.gain
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := g.Add(exactPts[1999+i%100], 0.3); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		g.truncate(1999)
		g.gain = gain
		b.StartTimer()
	}
}

// BenchmarkCandidatesSync times one Sync with M=4096 candidates at t=2000.
func BenchmarkCandidatesSync(b *testing.B) {
	g := benchExact(b)
	gain := g.gain
	rng := rand.New(rand.NewPCG(9, 9))
	xs := make([][]float64, 4096)
	for i := range xs {
		xs[i] = []float64{rng.Float64(), rng.Float64(), rng.Float64()}
	}
	c := NewCandidates(g, xs)
	if err := c.Sync(); err != nil {
		b.Fatal(err)
	}
	mu := append([]float64(nil), c.Mean()...)
	vr := append([]float64(nil), c.Var()...)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := g.Add(exactPts[1999+i%100], 0.3); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := c.Sync(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		g.truncate(1999)
		g.gain = gain
		c.truncate(1999, mu, vr)
		b.StartTimer()
	}
}

func BenchmarkSamplerDraw(b *testing.B) {
	n := 100
	p, err := NewArmPosterior(Gram(SE{Lengthscale: 0.2, Variance: 1}, armPoints(n, 0, 1)), n, 0.1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for _, a := range ucbPattern(rng, n, 300) {
		_ = p.Observe(a, rng.NormFloat64())
	}
	cov := make([]float64, n*n)
	p.Cov(cov)
	s := NewSampler(n)
	dst := make([]float64, n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Draw(rng, p.Mean(), cov, 1, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkArmObserveSource compares the prior given as a matrix with the
// prior computed column by column from the kernel (no N×N matrix, docs/scaling.md)
// on a run of 600 observations with many first pulls (|S| grows to ~300)
// and the mean refreshes they trigger. One op is the whole run.
func BenchmarkArmObserveSource(b *testing.B) {
	n := 3000
	pts := armPoints(n, 0, 1)
	k := SE{Lengthscale: 0.2, Variance: 1}
	gram := Gram(k, pts)
	rng := rand.New(rand.NewPCG(4, 4))
	seq := make([]int, 600)
	for i := range seq {
		if i%2 == 0 {
			seq[i] = rng.IntN(n)
		} else {
			seq[i] = seq[i/2]
		}
	}
	for _, src := range []string{"matrix", "kernel"} {
		b.Run(src, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var p *ArmPosterior
				var err error
				if src == "matrix" {
					p, err = NewArmPosterior(gram, n, 0.1)
				} else {
					p, err = NewArmPosteriorKernel(k, pts, 0.1)
				}
				if err != nil {
					b.Fatal(err)
				}
				for j, a := range seq {
					_ = p.Observe(a, float64(j%7)/7)
				}
				b.ReportMetric(float64(p.Distinct()), "|S|")
			}
		})
	}
}

// BenchmarkPredict4 evaluates the posterior at four points at t = 1999: one
// Predict each (four passes over L) against one PredictBatch (one pass, four
// right-hand sides), and with gradients (1+d right-hand sides per point).
// The solve cache is cleared before each op.
func BenchmarkPredict4(b *testing.B) {
	g := benchExact(b)
	xs := exactPts[2000:2004]
	mean, vr := make([]float64, 4), make([]float64, 4)
	dm, dv := make([][]float64, 4), make([][]float64, 4)
	for j := range dm {
		dm[j], dv[j] = make([]float64, 3), make([]float64, 3)
	}
	b.Run("Predict", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for j, x := range xs {
				mean[j], vr[j] = g.Predict(x)
			}
		}
	})
	b.Run("PredictBatch", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g.f.sc.clear()
			if err := g.PredictBatch(xs, mean, vr, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("PredictBatchGrad", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g.f.sc.clear()
			if err := g.PredictBatch(xs, mean, vr, dm, dv); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPredictBatchFresh evaluates the posterior of an ARD Matérn-5/2
// GP with t = 200 points in d = 10 at 2,000 new points, as lognei's trust
// region scores its fresh candidates (agent.freshStart).
func BenchmarkPredictBatchFresh(b *testing.B) {
	const t, d, n = 200, 10, 2000
	rng := rand.New(rand.NewPCG(3, 4))
	ls := make([]float64, d)
	for i := range ls {
		ls[i] = 0.5 + rng.Float64()
	}
	k, err := NewARD(2.5, ls, 1)
	if err != nil {
		b.Fatal(err)
	}
	g, err := NewExact(k, 1e-4)
	if err != nil {
		b.Fatal(err)
	}
	point := func() []float64 {
		x := make([]float64, d)
		for i := range x {
			x[i] = rng.Float64()
		}
		return x
	}
	for range t {
		x := point()
		if err := g.Add(x, math.Sin(x[0])); err != nil {
			b.Fatal(err)
		}
	}
	xs := make([][]float64, n)
	for j := range xs {
		xs[j] = point()
	}
	mean, vr := make([]float64, n), make([]float64, n)
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		g.f.sc.clear()
		if err := g.PredictBatch(xs, mean, vr, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system time: on a machine shared with
// other work, a benchmark's CPU time per op is what its wall time is not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBatchPosterior: the joint posterior of 1,000 candidates of a 2-D
// box after 25 observations, a dense Thompson draw's covariance (model.Box):
// ard evaluates K(at, at) once per pair, opaque (the kernel behind the
// interface) every entry — the same covariance to the bit.
func BenchmarkBatchPosterior(b *testing.B) {
	xs, ys, at := uniformCase(rand.New(rand.NewPCG(4, 2)), 2, 25, 1000)
	k := ARD{Variance: 1, Lengthscales: []float64{0.2, 0.3}, Nu: 2.5}
	for _, c := range []struct {
		name string
		k    Kernel
	}{{"ard", k}, {"opaque", opaque{k}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if m, _ := BatchPosterior(c.k, xs, ys, 0.01, at); m == nil {
					b.Fatal("BatchPosterior failed")
				}
			}
		})
	}
}
