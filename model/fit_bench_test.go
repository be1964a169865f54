package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// BenchmarkAdaptiveRefit is the observation that triggers a refit with n
// observations in 2-D (the round of a service study whose latency the
// doubling schedule does not bound): standardise + hyper=fit.
func BenchmarkAdaptiveRefit(b *testing.B) {
	for _, n := range []int{128, 512} {
		b.Run(map[int]string{128: "n=128", 512: "n=512"}[n], func(b *testing.B) {
			box, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
			k, _ := gp.NewSE(0.2, 1)
			rng := rand.New(rand.NewPCG(1, 2))
			xs := make([][]float64, n)
			ys := make([]float64, n)
			for i := range xs {
				xs[i] = []float64{rng.Float64(), rng.Float64()}
				ys[i] = math.Sin(6*xs[i][0]) + xs[i][1] + 0.05*rng.NormFloat64()
			}
			for it := 0; it < b.N; it++ {
				b.StopTimer()
				a, err := NewAdaptive(box, k, 0.01, AdaptiveOptions{Standardise: true, Fit: true, Candidates: GridPoints(box, 16)})
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < n-1; i++ {
					a.acts = append(a.acts, bandit.PointAction(xs[i]))
					a.ys = append(a.ys, ys[i])
				}
				a.next = n
				b.StartTimer()
				if err := a.Observe(bandit.PointAction(xs[n-1]), ys[n-1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
