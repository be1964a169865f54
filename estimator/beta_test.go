package estimator

import (
	"math"
	"testing"
)

// β_t with the noise correction: λ ≥ 1 leaves 001's formula unchanged, λ < 1
// divides R by √λ; Lambda = 0 is 001's formula as printed.
func TestBetaNoiseFactor(t *testing.T) {
	base := Beta{B: 1.25, R: 0.1, Alpha: 0.05, Scale: 1}
	root := math.Sqrt(2 * (3 + 1 + math.Log(40)))
	for _, c := range []struct {
		lambda, want float64
	}{
		{0, 1.25 + 0.1*root},
		{1, 1.25 + 0.1*root},
		{1 + 2.0/1000, 1.25 + 0.1*root},
		{0.01, 1.25 + root},
		{0.25, 1.25 + 0.2*root},
	} {
		b := base
		b.Lambda = c.lambda
		if got := b.At(3); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("λ = %v: β = %v, want %v", c.lambda, got, c.want)
		}
	}
}
