package gp

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// boxGrid is the 32 × 32 grid on [0, 6]² (gardner's candidate set).
func boxGrid() [][]float64 {
	var pts [][]float64
	for i := 0; i < 32; i++ {
		for j := 0; j < 32; j++ {
			pts = append(pts, []float64{6 * float64(i) / 31, 6 * float64(j) / 31})
		}
	}
	return pts
}

// boxGP is an Exact GP with an ARD Matérn-5/2 kernel observed at t points
// of the grid (every fifth a point off the grid, as a refinement would
// give), with its candidates.
func boxGP(b *testing.B, t int) *Candidates {
	k, err := NewARD(2.5, []float64{1.2, 0.9}, 1)
	if err != nil {
		b.Fatal(err)
	}
	g, err := NewExact(k, 0.01)
	if err != nil {
		b.Fatal(err)
	}
	pts := boxGrid()
	c := NewCandidates(g, pts)
	rng := rand.New(rand.NewPCG(5, uint64(t)))
	for s := 0; s < t; s++ {
		x := pts[rng.IntN(len(pts))]
		if s%5 == 4 {
			x = []float64{6 * rng.Float64(), 6 * rng.Float64()}
		}
		if err := g.Add(x, rng.NormFloat64()); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Sync(); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkCandidatesSample: one pathwise draw at the 1,024 candidates after
// t observations (the prior factor computed before the timer), against the
// dense path it replaces (the posterior covariance by BatchPosterior and a
// Cholesky factorisation per draw, as estimator.TS did on a box), and the
// prior root made once per kernel.
func BenchmarkCandidatesSample(b *testing.B) {
	for _, t := range []int{100, 1000} {
		b.Run(fmt.Sprintf("pathwise/M=1024/t=%d", t), func(b *testing.B) {
			c := boxGP(b, t)
			dst := make([]float64, len(c.xs))
			rng := rand.New(rand.NewPCG(1, 2))
			if err := c.Sample(rng, 1, dst); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := c.Sample(rng, 1, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("dense/M=1024/t=100", func(b *testing.B) {
		c := boxGP(b, 100)
		g := c.g
		s := NewSampler(len(c.xs))
		dst := make([]float64, len(c.xs))
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < b.N; i++ {
			mean, cov := BatchPosterior(g.Kernel(), g.Points(), g.Values(), g.NoiseVar(), c.xs)
			if err := s.Draw(rng, mean, cov, 1, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
	// the prior root, once per kernel: block Levinson on the grid, Cholesky
	// on the same points moved off the grid by 1e-3
	k, _ := NewARD(2.5, []float64{1.2, 0.9}, 1)
	grid := boxGrid()
	off := boxGrid()
	rng := rand.New(rand.NewPCG(9, 9))
	for _, x := range off {
		x[0] += 1e-3 * rng.Float64()
	}
	for _, c := range []struct {
		name string
		pts  [][]float64
		grid bool
	}{{"levinson", grid, true}, {"cholesky", off, false}} {
		b.Run("factorise/"+c.name+"/M=1024", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p := newPathPrior(k, c.pts)
				if err := p.factorise(); err != nil {
					b.Fatal(err)
				}
				if (p.tr != nil) != c.grid {
					b.Fatalf("%s: block-Toeplitz root %v", c.name, p.tr != nil)
				}
			}
		})
	}
}
