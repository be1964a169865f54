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
// If the model draws itself (model.AsJointSampler: Arms through
// gp.ArmPosterior.Sample, Box through gp.Candidates.Sample, either inside
// an Adaptive model or a Window) the draw is taken by pathwise conditioning
// (Matheron's rule; Wilson et al. 2020, ICML) in O(N² + N·t) per call (N
// candidates; t distinct observed arms, or observations on a box), after a
// root of the prior is made once per kernel (O(N³); less on a box's grid). Otherwise (a sparse or
// censored model) the full posterior covariance is formed and factorised
// (O(N³)) on every call. A TS keeps its buffers between calls and is not
// safe for concurrent use: give every function of an agent its own TS.
type TS struct {
	// Dense: draw from the full posterior covariance unless the model is a
	// bare model.Arms — the draws before pathwise conditioning reached
	// wrapped models and boxes (defaults generation 7 and before; the
	// agents' parameter draw=dense).
	Dense   bool
	cov     []float64
	sampler *gp.Sampler
}

// JointSampler is a model that draws joint posterior samples itself
// (model.JointSampler).
type JointSampler = model.JointSampler

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
	js, ok := model.AsJointSampler(m)
	if e.Dense {
		js, ok = m.(*model.Arms)
	}
	if ok {
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
