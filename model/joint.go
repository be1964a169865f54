package model

import "fmt"

// JointPredictor is a model that gives the joint posterior of its metric
// at points off its candidate set: the mean and the covariance (row-major
// n×n, lower triangle) a joint Thompson draw there needs.
type JointPredictor interface {
	PredictJoint(xs [][]float64, mean, cov []float64) error
}

// PredictJoint implements JointPredictor (gp.Exact.PredictJoint).
func (m *Box) PredictJoint(xs [][]float64, mean, cov []float64) error {
	if err := m.g.PredictJoint(xs, mean, cov); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// PredictJoint implements JointPredictor when the inner model does (check
// with AsJointPredictor), in the model's standardised units.
func (a *Adaptive) PredictJoint(xs [][]float64, mean, cov []float64) error {
	p, ok := a.inner.(JointPredictor)
	if !ok {
		return fmt.Errorf("model: %T has no joint posterior off its candidates", a.inner)
	}
	if err := p.PredictJoint(xs, mean, cov); err != nil {
		return err
	}
	a.shift(mean[:min(len(mean), len(xs))])
	return nil
}

// AsJointPredictor returns m as a JointPredictor, or nil when it has no
// joint posterior off its candidates (sparse and windowed models).
func AsJointPredictor(m Model) JointPredictor {
	if a, ok := m.(*Adaptive); ok {
		if AsJointPredictor(a.inner) == nil {
			return nil
		}
		return a
	}
	if b, ok := m.(*Box); ok {
		return b
	}
	return nil
}
