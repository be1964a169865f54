package linear

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func BenchmarkSolveLP1K1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	k := 1000
	r, c, pi := make([]float64, k), make([]float64, k), make([]float64, k)
	for a := range r {
		r[a], c[a] = rng.Float64(), rng.Float64()
	}
	c[0] = 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := SolveLP1(r, c, 0.3, pi); err != nil {
			b.Fatal(err)
		}
	}
}

// One solve of (34) on a one-hot K-armed instance (500 observations, τ = 0.5).
func benchmarkPolicySolver(b *testing.B, k int, noBudget bool) {
	rng := rand.New(rand.NewPCG(11, uint64(k)))
	p := oneHotInstance(b, rng, k, 500)
	tau := []float64{0.5}
	pi := make([]float64, k)
	var s PolicySolver
	s.noBudget = noBudget
	s.MaxNodes = 50000
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Solve(p, tau, 0, nil, pi); err != nil && !errors.Is(err, ErrNotCertified) {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Nodes), "nodes")
	b.ReportMetric(s.Gap, "gap")
}

func BenchmarkPolicySolverK5(b *testing.B)         { benchmarkPolicySolver(b, 5, false) }
func BenchmarkPolicySolverK10(b *testing.B)        { benchmarkPolicySolver(b, 10, false) }
func BenchmarkPolicySolverK20(b *testing.B)        { benchmarkPolicySolver(b, 20, false) }
func BenchmarkPolicySolverK5LPBound(b *testing.B)  { benchmarkPolicySolver(b, 5, true) }
func BenchmarkPolicySolverK10LPBound(b *testing.B) { benchmarkPolicySolver(b, 10, true) }
func BenchmarkPolicySolverK20LPBound(b *testing.B) { benchmarkPolicySolver(b, 20, true) }
