package rule

import (
	"fmt"
	"math"
)

// Rectified is the rectified penalty rule of RPOL (Guo et al. §3, eq. 11–12):
//
//	x_t = argmax_x f̂_t(x) − Σ_j Q_{t,j} ǧ⁺_{t,j}(x),
//	Q_{t+1,j} = max(Q_{t,j} + Σ_{l arrived in round t} c⁺_{l,j}, η_t),  η_t = √t.
//
// Guo et al. state the rule for one constraint (footnote 1 of §2: "easily extended"
// to several). With m constraints we keep one penalty factor Q_j per
// constraint and sum the penalties; this is our choice, documented in the
// experiment notes. Q_{1,j} = 1 (Guo et al. §3, "Initialization").
//
// Costs reported by Penalise are accumulated until the next Step, so that the
// delayed-feedback form of App. C (the sum over the set L of costs revealed
// in round t) and the immediate form of §3 are the same code.
type Rectified struct {
	// Q holds the current penalty factors Q_{t,j}.
	Q       []float64
	pending []float64
	t       int // the round whose penalty Q currently is
	eta     func(t int) float64
}

// NewRectified returns the rule for m ≥ 1 constraints with Q_1 = q1 (Guo et al. §3:
// Q_1 = 1) and η_t = √t (Guo et al. §3).
func NewRectified(m int, q1 float64) (*Rectified, error) {
	if m < 1 {
		return nil, fmt.Errorf("rectified rule: constraints m = %d: must be at least 1", m)
	}
	if !(q1 >= 0) || math.IsInf(q1, 0) {
		return nil, fmt.Errorf("rectified rule: Q1 = %v: must be a finite number ≥ 0", q1)
	}
	r := &Rectified{Q: make([]float64, m), pending: make([]float64, m), t: 1,
		eta: func(t int) float64 { return math.Sqrt(float64(t)) }}
	for j := range r.Q {
		r.Q[j] = q1
	}
	return r, nil
}

// Score writes f̂(x) − Σ_j Q_j max(ǧ_j(x), 0) into dst for every candidate.
func (r *Rectified) Score(f []float64, g [][]float64, dst []float64) {
	copy(dst, f)
	for j, gj := range g {
		q := r.Q[j]
		for i, v := range gj {
			if v > 0 {
				dst[i] -= q * v
			}
		}
	}
}

// ScoreAt is Score at one point: f̂ − Σ_j Q_j ǧ_j⁺ with g[j] = ǧ_j(x).
func (r *Rectified) ScoreAt(f float64, g []float64) float64 {
	for j, v := range g {
		if v > 0 {
			f -= r.Q[j] * v
		}
	}
	return f
}

// Penalise records observed noisy costs c_l (one per constraint) of an
// earlier decision; their positive parts enter the next Step.
func (r *Rectified) Penalise(c []float64) {
	for j, v := range c {
		if v > 0 {
			r.pending[j] += v
		}
	}
}

// Step moves the penalty from round t to round t+1 by eq. (12):
// Q_{t+1} = max(Q_t + (accumulated c⁺), η_t). It returns the new round number.
func (r *Rectified) Step() int {
	eta := r.eta(r.t)
	for j := range r.Q {
		r.Q[j] = math.Max(r.Q[j]+r.pending[j], eta)
		r.pending[j] = 0
	}
	r.t++
	return r.t
}

// AdvanceTo applies Step until the penalty is that of round t (no-op when it
// already is).
func (r *Rectified) AdvanceTo(t int) {
	for r.t < t {
		r.Step()
	}
}

// Round is the round whose penalty Q currently holds.
func (r *Rectified) Round() int { return r.t }
