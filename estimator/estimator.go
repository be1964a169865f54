package estimator

import (
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/model"
)

// Estimator writes this round's guess h_t(x) at every candidate into dst,
// from the posterior m and the confidence scale β (signed: β < 0 asks for
// the optimistic-for-costs lower side).
type Estimator interface {
	Estimate(rng *rand.Rand, m model.Model, beta float64, dst []float64) error
	Name() string
}

// UCB is GP-UCB exploration, h_t = μ_{t−1} + β_t σ_{t−1} (001 Def. 1 (i)).
type UCB struct{}

// Name implements Estimator.
func (UCB) Name() string { return "ucb" }

// Estimate implements Estimator.
func (UCB) Estimate(_ *rand.Rand, m model.Model, beta float64, dst []float64) error {
	mu, v := m.Mean(), m.Var()
	for i := range dst {
		dst[i] = mu[i] + beta*math.Sqrt(v[i])
	}
	return nil
}

// Beta is the confidence-width schedule of 001 Thm. 1 (= 003 Cor. 1):
// β_t = B + R √(2(γ_{t−1} + 1 + ln(2/α))), with γ_{t−1} the realized
// information gain of the model so far. Scale multiplies the result (1 = the
// theorem's value).
//
// Fixed replaces the schedule by a constant width, β_t = Scale·Const for
// every t (the practical widths of issue 14; docs/defaults.md).
type Beta struct {
	B, R, Alpha, Scale float64
	Fixed              bool
	Const              float64
}

// At returns β_t given the information gain γ_{t−1}.
func (b Beta) At(gamma float64) float64 {
	if b.Fixed {
		return b.Scale * b.Const
	}
	return b.Scale * (b.B + b.R*math.Sqrt(2*(gamma+1+math.Log(2/b.Alpha))))
}

// Clip projects every entry of x onto [−c, c] (001 Alg. 1 lines 3–4).
func Clip(x []float64, c float64) {
	for i, v := range x {
		if v > c {
			x[i] = c
		} else if v < -c {
			x[i] = -c
		}
	}
}
