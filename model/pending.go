package model

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
)

// Pender is a model that can condition on pending decisions, whose
// observations have not arrived (GP-BUCB, Desautels, Krause & Burdick 2014,
// JMLR §4): each enters as an observation at the current posterior mean, so
// the variance is the exact posterior variance given them and the mean does
// not move. No hyperparameter is refitted and the information gain is not
// changed. Unpend returns the model to its state before Pend.
type Pender interface {
	Pend(acts []bandit.Action) error
	Unpend()
}

// Pend conditions m on the pending actions (a no-op for none); it fails
// for a model that cannot.
func Pend(m Model, acts []bandit.Action) error {
	if len(acts) == 0 {
		return nil
	}
	p, ok := m.(Pender)
	if !ok {
		return fmt.Errorf("model: %T cannot condition on pending decisions", m)
	}
	return p.Pend(acts)
}

// Unpend undoes Pend (a no-op for a model that has nothing pending).
func Unpend(m Model) {
	if p, ok := m.(Pender); ok {
		p.Unpend()
	}
}

// Pend implements Pender in O(q·t·M) for q points: one row of the factor
// (O(t²)) and of the candidates' matrix (O(t·M)) per point.
func (m *Box) Pend(acts []bandit.Action) error {
	for _, a := range acts {
		if err := m.g.Pend(a.X); err != nil {
			m.g.Unpend()
			return fmt.Errorf("model: %w", err)
		}
	}
	if err := m.c.Pend(); err != nil {
		m.Unpend()
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// Unpend implements Pender.
func (m *Box) Unpend() {
	m.g.Unpend()
	m.c.Unpend()
}

// Pend implements Pender.
func (m *SparseBox) Pend(acts []bandit.Action) error {
	for _, a := range acts {
		if err := m.s.Pend(a.X); err != nil {
			m.s.Unpend()
			return fmt.Errorf("model: %w", err)
		}
	}
	return nil
}

// Unpend implements Pender.
func (m *SparseBox) Unpend() { m.s.Unpend() }

// Pend implements Pender: the pending points enter the window's model
// without evicting anything.
func (m *Window) Pend(acts []bandit.Action) error { return Pend(m.Model, acts) }

// Unpend implements Pender.
func (m *Window) Unpend() { Unpend(m.Model) }

// Pend implements Pender on the inner, standardised GP.
func (a *Adaptive) Pend(acts []bandit.Action) error { return Pend(a.inner, acts) }

// Unpend implements Pender.
func (a *Adaptive) Unpend() { Unpend(a.inner) }

// Pend implements Pender over arms by a variance-only update: with the
// posterior covariance columns c_k at the q pending arms, each pending
// observation lowers every arm's variance by c_k[i]²/(c_k[p_k] + λ) and the
// later columns by c_k[i]·c_k[p_l]/(c_k[p_k] + λ) (sequential rank-one
// updates, O(q·N·|S| + q²·N)); the mean is untouched.
func (m *Arms) Pend(acts []bandit.Action) error {
	n := m.dom.N
	for _, a := range acts {
		if a.Arm < 0 || a.Arm >= n {
			return fmt.Errorf("model: pending arm = %d: outside [0, %d)", a.Arm, n)
		}
	}
	if m.pendVar == nil {
		m.pendVar = append([]float64(nil), m.ArmPosterior.Var()...)
	}
	cols := make([][]float64, len(acts))
	for k, a := range acts {
		cols[k] = make([]float64, n)
		m.CovColumn(a.Arm, cols[k])
	}
	lam := m.NoiseVar()
	for k, a := range acts {
		ck := cols[k]
		d := ck[a.Arm] + lam
		if !(d > 0) {
			continue
		}
		for i, c := range ck {
			m.pendVar[i] = math.Max(m.pendVar[i]-c*c/d, 0)
		}
		for l := k + 1; l < len(acts); l++ {
			s := ck[acts[l].Arm] / d
			cl := cols[l]
			for i, c := range ck {
				cl[i] -= c * s
			}
		}
	}
	return nil
}

// Unpend implements Pender.
func (m *Arms) Unpend() { m.pendVar = nil }

// Var is the posterior variance at the arms, given the pending arms while
// there are any (Pend).
func (m *Arms) Var() []float64 {
	if m.pendVar != nil {
		return m.pendVar
	}
	return m.ArmPosterior.Var()
}
