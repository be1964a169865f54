package estimator

import (
	"fmt"
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

// UCB is GP-UCB exploration, h_t = μ_{t−1} + β_t σ_{t−1} (Zhou & Ji (CBO) Def. 1 (i)).
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

// Pointwise returns the width w of an estimator whose guess is μ + wσ at
// every point (UCB: w = beta; RandGP-UCB: w = Z_t, drawn here, one per
// round), so that the guess has a value anywhere, and false for one whose
// guess is a joint draw over the candidates (Thompson sampling).
func Pointwise(e Estimator, rng *rand.Rand, beta float64) (float64, bool, error) {
	switch e := e.(type) {
	case UCB:
		return beta, true, nil
	case *RandUCB:
		if math.IsNaN(beta) || math.IsInf(beta, 0) {
			return 0, false, fmt.Errorf("estimator %s: beta = %v: must be finite", e.Name(), beta)
		}
		z, err := e.DrawZ(rng, beta)
		e.LastZ = z
		return z, err == nil, err
	}
	return 0, false, nil
}

// Beta is the confidence-width schedule of Zhou & Ji (CBO) Thm. 1 (= Zhou & Ji 2022 Cor. 1):
// β_t = B + R √(2(γ_{t−1} + 1 + ln(2/α))), with γ_{t−1} the realized
// information gain of the model so far. Scale multiplies the result (1 = the
// theorem's value).
//
// Fixed replaces the schedule by a constant width, β_t = Scale·Const for
// every t (the practical widths; docs/defaults.md).
//
// Lambda, when > 0, is the GP noise variance λ the posterior is computed
// with, and the noise term is corrected for it: R becomes R/√min(1, λ) (see
// [NoiseFactor]). The theorem behind the formula (Chowdhury & Gopalan 2017,
// Thm. 2, which Zhou & Ji (CBO) Lemma 3 cites) is stated for λ = 1 + η ≥ 1; with λ < 1
// (e.g. λ = R², cbandit's default) the uncorrected β_t is narrower than the
// theorem's by the factor √λ on the noise term and the bound no longer holds.
// Zero leaves the formula exactly as Zhou & Ji (CBO) Thm. 1 prints it.
type Beta struct {
	B, R, Alpha, Scale float64
	Fixed              bool
	Const              float64
	Lambda             float64
}

// At returns β_t given the information gain γ_{t−1}.
func (b Beta) At(gamma float64) float64 {
	if b.Fixed {
		return b.Scale * b.Const
	}
	r := b.R
	if b.Lambda > 0 {
		r *= NoiseFactor(b.Lambda)
	}
	return b.Scale * (b.B + r*math.Sqrt(2*(gamma+1+math.Log(2/b.Alpha))))
}

// NoiseFactor is the factor 1/√min(1, λ) on R in β_t that keeps the
// confidence bound |h(x) − μ_{t−1}(x)| ≤ β_t σ_{t−1}(x) of Chowdhury &
// Gopalan 2017 (Thm. 2, stated for a posterior with noise variance
// λ = 1 + η, η > 0) valid for a posterior with any λ > 0. For λ < 1: the
// posterior with kernel k and noise λ equals the posterior with kernel
// k·(1+η)/λ and noise 1 + η, under which ‖h‖ scales by √(λ/(1+η)), σ by
// √((1+η)/λ) and γ is unchanged, so Thm. 2 gives
// |h − μ| ≤ (B + R√((1+η)/λ)·√(2(γ+1+ln(1/α))))σ for every η > 0, hence
// (the events shrink as η ↓ 0) for η = 0. For λ ≥ 1, Thm. 2 applies as
// stated with η = λ − 1 and the factor is 1.
func NoiseFactor(lambda float64) float64 {
	return 1 / math.Sqrt(math.Min(1, lambda))
}

// Clip projects every entry of x onto [−c, c] (Zhou & Ji (CBO) Alg. 1 lines 3–4).
func Clip(x []float64, c float64) {
	for i, v := range x {
		if v > c {
			x[i] = c
		} else if v < -c {
			x[i] = -c
		}
	}
}
