package model

import (
	"fmt"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// SparseBox is an APPROXIMATE GP posterior of a function on a box: the
// sparse GP gp.Sparse (DTC/VFE predictive, Titsias 2009) with M inducing
// points chosen from the candidates by greedy conditional variance
// (gp.SelectInducing), kept at the candidates in O(M·C) per observation and
// O(M²) per prediction, whatever the number of observations. Agents use it
// only when asked (parameter inducing = M > 0; docs/scaling.md); its results are
// labelled by that parameter in the agent's name.
type SparseBox struct {
	dom *domain.Box
	s   *gp.Sparse
	pts [][]float64
	k   gp.Kernel
}

// NewSparseBox returns the sparse posterior over dom with kernel k, noise
// variance λ, the candidate points (DefaultGrid when nil) and m inducing
// points selected from them (or the given inducing points z when not nil).
func NewSparseBox(dom *domain.Box, k gp.Kernel, noiseVar float64, cands [][]float64, m int, z [][]float64) (*SparseBox, error) {
	cands, err := boxCandidates(dom, cands)
	if err != nil {
		return nil, err
	}
	if z == nil {
		if m < 1 {
			return nil, fmt.Errorf("model: inducing = %d: must be at least 1", m)
		}
		var err error
		if z, err = gp.SelectInducing(k, cands, m); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
	}
	s, err := gp.NewSparse(k, noiseVar, z, cands)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return &SparseBox{dom: dom, s: s, pts: cands, k: k}, nil
}

// Len implements Model.
func (m *SparseBox) Len() int { return len(m.pts) }

// Action implements Model: candidate i as a point action.
func (m *SparseBox) Action(i int) bandit.Action { return bandit.PointAction(m.pts[i]) }

// Observe implements Model; a.X must lie in the box.
func (m *SparseBox) Observe(a bandit.Action, y float64) error {
	if err := m.dom.Contains(a.X); err != nil {
		return fmt.Errorf("model: action: %w", err)
	}
	if err := m.s.Add(a.X, y); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// Mean implements Model.
func (m *SparseBox) Mean() []float64 { return m.s.Mean() }

// Var implements Model.
func (m *SparseBox) Var() []float64 { return m.s.Var() }

// Cov implements Model (O(C²·M)).
func (m *SparseBox) Cov(dst []float64) { m.s.CandidateCov(dst) }

// InfoGain implements Model, with the sparse variances.
func (m *SparseBox) InfoGain() float64 { return m.s.InfoGain() }

// Count implements Model.
func (m *SparseBox) Count() int { return m.s.Len() }

// Reset implements Model.
func (m *SparseBox) Reset() { m.s.Reset() }

// Predict implements Predictor.
func (m *SparseBox) Predict(x []float64) (float64, float64) { return m.s.Predict(x) }

// PredictBatch implements BatchPredictor.
func (m *SparseBox) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	if err := m.s.PredictBatch(xs, mean, variance, dmean, dvar); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// Gradients implements BatchPredictor.
func (m *SparseBox) Gradients() bool {
	_, ok := m.k.(gp.GradKernel)
	return ok
}

// Inducing returns the inducing points (read-only).
func (m *SparseBox) Inducing() [][]float64 { return m.s.Inducing() }

// Options are the opt-in approximations of ForAllOpts and ForGroupOpts.
type Options struct {
	// Inducing > 0 replaces the exact GP on a box by the sparse GP with that
	// many inducing points (SparseBox, an approximation); 0 = exact.
	Inducing int
	// Standardise centres and scales every model's observations by running
	// estimates (Adaptive; docs/defaults.md). The caller must then use constants in
	// standardised units (StandardInfo).
	Standardise bool
	// Fit learns each model's ARD Matérn-5/2 hyperparameters and noise
	// variance from its data on a doubling schedule (Adaptive).
	Fit bool
	// SpaceFilling gives a box of three or more dimensions the Halton
	// candidate set (SpaceFilling) instead of the grid.
	SpaceFilling bool
	// CentredFit fits a constraint model's hyperparameters to its centred
	// values (AdaptiveOptions.CentredFit; with Fit).
	CentredFit bool
	// DeferFit fits off the caller's path, swapped in after a lag
	// (AdaptiveOptions.Defer; with Fit).
	DeferFit bool
	// DimPrior: the dimension-scaled lengthscale prior
	// (AdaptiveOptions.DimPrior; with Fit).
	DimPrior bool
}

// ForGroupOpts is ForGroup with options: with Inducing > 0 every model is a
// SparseBox (models with equal kernels share the inducing points), and the
// domain must be a box.
//
// With Standardise or Fit every model is an Adaptive around its own model
// (no shared factorisation) and is treated as an objective (centred); use
// ForAllOpts for f and constraints.
func ForGroupOpts(info bandit.Info, ks []gp.Kernel, noiseVar float64, o Options) ([]Model, error) {
	return forGroupOpts(info, ks, noiseVar, o, nil)
}

// forGroupOpts is ForGroupOpts; constraint[i] marks model i as a constraint
// for Adaptive (nil: none).
func forGroupOpts(info bandit.Info, ks []gp.Kernel, noiseVar float64, o Options, constraint []bool) ([]Model, error) {
	if o.Inducing < 0 {
		return nil, fmt.Errorf("model: inducing = %d: must be ≥ 0 (0 = exact GP)", o.Inducing)
	}
	var cands [][]float64
	if box, ok := info.Domain.(*domain.Box); ok && o.SpaceFilling && box.Dim() >= 3 {
		cands = SpaceFilling(box)
	}
	if o.Standardise || o.Fit || cands != nil {
		ms := make([]Model, len(ks))
		for i, k := range ks {
			a, err := NewAdaptive(info.Domain, k, noiseVar, AdaptiveOptions{Standardise: o.Standardise, Fit: o.Fit,
				Constraint: constraint != nil && constraint[i], CentredFit: o.CentredFit, Defer: o.DeferFit, Inducing: o.Inducing, Candidates: cands,
				DimPrior: o.DimPrior})
			if err != nil {
				return nil, err
			}
			ms[i] = a
			for j := 0; j < i; j++ { // equal prior kernels: one factor for Thompson draws
				sharePrior(ms[j].(*Adaptive).inner, a.inner)
			}
		}
		return ms, nil
	}
	if o.Inducing < 0 {
		return nil, fmt.Errorf("model: inducing = %d: must be ≥ 0 (0 = exact GP)", o.Inducing)
	}
	if o.Inducing == 0 {
		return ForGroup(info, ks, noiseVar)
	}
	box, ok := info.Domain.(*domain.Box)
	if !ok {
		return nil, fmt.Errorf("model: inducing = %d: the sparse GP applies to box domains, not %s", o.Inducing, info.Domain)
	}
	ms := make([]Model, len(ks))
	for i, k := range ks {
		var z [][]float64
		for j := 0; j < i; j++ {
			if sb, ok := ms[j].(*SparseBox); ok && sameKernel(ks[j], k) {
				z = sb.Inducing()
				break
			}
		}
		m, err := NewSparseBox(box, k, noiseVar, nil, o.Inducing, z)
		if err != nil {
			return nil, err
		}
		ms[i] = m
	}
	return ms, nil
}

// ForAllOpts is ForAll with options (see ForGroupOpts).
func ForAllOpts(info bandit.Info, noiseVar float64, o Options) (f Model, g []Model, err error) {
	ks := make([]gp.Kernel, 1+info.M)
	ks[0] = info.Kernel
	for j := 1; j < len(ks); j++ {
		ks[j] = info.ConstraintKernel()
	}
	con := make([]bool, len(ks))
	for j := 1; j < len(con); j++ {
		con[j] = true
	}
	ms, err := forGroupOpts(info, ks, noiseVar, o, con)
	if err != nil {
		return nil, nil, err
	}
	return ms[0], ms[1:], nil
}
