package model

import (
	"fmt"

	"github.com/cbandit/cbandit/bandit"
)

// Window keeps an inner model conditioned on the last W observations only
// (sliding-window GP-UCB, Guo et al. §6 and App. D: data r_{t0:t} with
// t0 = 1 ∨ (t − W)). When an observation falls out of the window the inner
// model is reset and the W remaining observations are added again: with a
// Box model that is O(W²·M + W³) per round, independent of t. (A Cholesky
// downdate would make it O(W² + W·M); gp has no downdate yet.)
type Window struct {
	Model
	w   int
	buf []windowObs
}

type windowObs struct {
	a bandit.Action
	y float64
}

// NewWindow wraps m with a window of W ≥ 1 observations.
func NewWindow(m Model, W int) (*Window, error) {
	if W < 1 {
		return nil, fmt.Errorf("window W = %d: must be at least 1", W)
	}
	return &Window{Model: m, w: W}, nil
}

// Observe adds (a, y) and drops the oldest observation beyond W.
func (m *Window) Observe(a bandit.Action, y float64) error {
	a.X = append([]float64(nil), a.X...)
	if len(m.buf) < m.w {
		if err := m.Model.Observe(a, y); err != nil {
			return err
		}
		m.buf = append(m.buf, windowObs{a, y})
		return nil
	}
	copy(m.buf, m.buf[1:])
	m.buf[len(m.buf)-1] = windowObs{a, y}
	m.Model.Reset()
	for _, o := range m.buf {
		if err := m.Model.Observe(o.a, o.y); err != nil {
			return err
		}
	}
	return nil
}

// Reset forgets the window.
func (m *Window) Reset() {
	m.buf = m.buf[:0]
	m.Model.Reset()
}

// Size is W.
func (m *Window) Size() int { return m.w }

// Predict implements Predictor when the inner model does (it panics
// otherwise; check with AsPredictor).
func (m *Window) Predict(x []float64) (float64, float64) {
	return m.Model.(Predictor).Predict(x)
}

// AsPredictor returns m as a Predictor when it can evaluate its posterior
// off the candidates (box models, possibly windowed), else nil.
func AsPredictor(m Model) Predictor {
	if w, ok := m.(*Window); ok {
		if AsPredictor(w.Model) == nil {
			return nil
		}
		return w
	}
	if a, ok := m.(*Adaptive); ok {
		if AsPredictor(a.inner) == nil {
			return nil
		}
		return a
	}
	if p, ok := m.(Predictor); ok {
		return p
	}
	return nil
}

// PredictBatch implements BatchPredictor when the inner model does (check
// with AsBatchPredictor).
func (m *Window) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	return m.Model.(BatchPredictor).PredictBatch(xs, mean, variance, dmean, dvar)
}

// Gradients implements BatchPredictor.
func (m *Window) Gradients() bool {
	b, ok := m.Model.(BatchPredictor)
	return ok && b.Gradients()
}

// AsBatchPredictor returns m as a BatchPredictor when it can evaluate its
// posterior at a batch of points off the candidates (box models, possibly
// windowed), else nil.
func AsBatchPredictor(m Model) BatchPredictor {
	if w, ok := m.(*Window); ok {
		if AsBatchPredictor(w.Model) == nil {
			return nil
		}
		return w
	}
	if a, ok := m.(*Adaptive); ok {
		if AsBatchPredictor(a.inner) == nil {
			return nil
		}
		return a
	}
	if p, ok := m.(BatchPredictor); ok {
		return p
	}
	return nil
}
