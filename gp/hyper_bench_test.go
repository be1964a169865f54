package gp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkLogMarginal is one evaluation of the log marginal likelihood
// (value only, and with its gradient) of an ARD Matérn-5/2 GP at n points
// in 2-D: the unit of a fit's cost (a fit makes 65–85 of them).
func BenchmarkLogMarginal(b *testing.B) {
	for _, n := range []int{32, 128} {
		rng := rand.New(rand.NewPCG(1, 2))
		xs, ys := make([][]float64, n), make([]float64, n)
		for i := range xs {
			xs[i] = []float64{rng.Float64(), rng.Float64()}
			ys[i] = math.Sin(6*xs[i][0]) + xs[i][1] + 0.05*rng.NormFloat64()
		}
		theta := Hyper{Lengthscales: []float64{0.2, 0.3}, Variance: 1, NoiseVar: 0.01}.Theta()
		for _, grad := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/grad=%v", n, grad), func(b *testing.B) {
				var g []float64
				if grad {
					g = make([]float64, len(theta))
				}
				for i := 0; i < b.N; i++ {
					if _, err := LogMarginal(2.5, xs, ys, theta, g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
