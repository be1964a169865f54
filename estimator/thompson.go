package estimator

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// TS is GP-TS exploration (Zhou & Ji (CBO) Def. 1 (ii), after Chowdhury & Gopalan 2017):
// h_t is one joint draw from GP(μ_{t−1}, β_t² k_{t−1}) over every candidate,
// so the draws at different candidates are correlated through the posterior
// covariance. The draw is symmetric about μ, so the sign of β is ignored
// (Zhou & Ji (CBO) Cor. 2 uses +β̃_t for the constraint).
//
// If the model implements JointSampler (model.Arms does, through
// gp.ArmPosterior.Sample) the draw is taken from it by pathwise conditioning
// in O(N² + N·|S|) per call (N candidates, |S| distinct observed candidates),
// after a one-off O(N³) factorisation of the prior. Otherwise the full
// posterior covariance is formed (O(N²·|S|)) and factorised (O(N³)) on every
// call. A TS keeps its buffers between calls and is not safe for concurrent
// use: give every function of an agent its own TS.
type TS struct {
	cov     []float64
	sampler *gp.Sampler
}

// JointSampler is a model that draws joint posterior samples itself: Sample
// writes into dst (one entry per candidate) a draw from N(μ, scale²·Σ) using
// rng, with scale ≥ 0.
type JointSampler interface {
	Sample(rng *rand.Rand, scale float64, dst []float64) error
}

// Name implements Estimator.
func (*TS) Name() string { return "ts" }

// Estimate implements Estimator.
func (e *TS) Estimate(rng *rand.Rand, m model.Model, beta float64, dst []float64) error {
	n := m.Len()
	if len(dst) != n {
		return fmt.Errorf("estimator ts: dst has %d entries, the model has %d candidates", len(dst), n)
	}
	if math.IsNaN(beta) || math.IsInf(beta, 0) {
		return fmt.Errorf("estimator ts: beta = %v: must be finite", beta)
	}
	if js, ok := m.(JointSampler); ok {
		if err := js.Sample(rng, math.Abs(beta), dst); err != nil {
			return fmt.Errorf("estimator ts: %w", err)
		}
		return nil
	}
	if cap(e.cov) < n*n {
		e.cov = make([]float64, n*n)
		e.sampler = gp.NewSampler(n)
	}
	e.cov = e.cov[:n*n]
	m.Cov(e.cov)
	if err := e.sampler.Draw(rng, m.Mean(), e.cov, math.Abs(beta), dst); err != nil {
		return fmt.Errorf("estimator ts: %w", err)
	}
	return nil
}
