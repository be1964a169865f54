package rule

import (
	"fmt"
	"math"
)

// VirtualQueue is the constraint rule of SCGP-UCB (Zhou & Ji (CBO) Alg. 2 lines 5–7):
// score z_t(x) = f̄_t(x) − (Q_j(t)/V_t) Σ_j g_{j,t}(x) with the sampled
// constraints g_t of the full-information setting, then the queue update
// Q_j(t+1) = [Q_j(t) + g_{j,t}(x_t) + ε_t]⁺.
//
// The defaults of Zhou & Ji (CBO) Thm. 3 are V_t = δ√t/(8B) and ε_t = 1/√t; VScale and
// EpsScale multiply them (1 = the theorem), so V_t = VScale·δ√t/(8B) and
// ε_t = EpsScale/√t.
type VirtualQueue struct {
	// Delta is Slater's δ (Zhou & Ji (CBO) Ass. 1) and B the bound on |f| (Ass. 2).
	Delta, B float64
	// VScale and EpsScale multiply the Thm. 3 schedules.
	VScale, EpsScale float64
	// Q are the virtual queues Q_j(t), one per constraint; Q(1) = 0.
	Q []float64
}

// NewVirtualQueue validates the constants; every queue starts empty.
func NewVirtualQueue(m int, delta, b, vScale, epsScale float64) (*VirtualQueue, error) {
	switch {
	case !(delta > 0) || math.IsInf(delta, 0):
		return nil, fmt.Errorf("delta = %v: must be a finite number > 0 (Zhou & Ji (CBO) Ass. 1)", delta)
	case !(b > 0) || math.IsInf(b, 0):
		return nil, fmt.Errorf("B = %v: must be a finite number > 0 (Zhou & Ji (CBO) Ass. 2)", b)
	case !(vScale > 0) || math.IsInf(vScale, 0):
		return nil, fmt.Errorf("V-scale = %v: must be a finite number > 0", vScale)
	case !(epsScale >= 0) || math.IsInf(epsScale, 0):
		return nil, fmt.Errorf("eps-scale = %v: must be a finite number ≥ 0", epsScale)
	}
	return &VirtualQueue{Delta: delta, B: b, VScale: vScale, EpsScale: epsScale, Q: make([]float64, m)}, nil
}

// V returns V_t = VScale·δ√t/(8B) (Zhou & Ji (CBO) Thm. 3).
func (q *VirtualQueue) V(t int) float64 {
	return q.VScale * q.Delta * math.Sqrt(float64(t)) / (8 * q.B)
}

// Eps returns ε_t = EpsScale/√t (Zhou & Ji (CBO) Thm. 3).
func (q *VirtualQueue) Eps(t int) float64 { return q.EpsScale / math.Sqrt(float64(t)) }

// Score writes z_t = f̄ − Σ_j (Q_j/V_t)·g_j into dst (Zhou & Ji (CBO) Alg. 2 line 5).
func (q *VirtualQueue) Score(t int, f []float64, g [][]float64, dst []float64) {
	copy(dst, f)
	v := q.V(t)
	for j, gj := range g {
		w := q.Q[j] / v
		if w == 0 {
			continue
		}
		for i, x := range gj {
			dst[i] -= w * x
		}
	}
}

// Update applies Q_j(t+1) = [Q_j(t) + g_{j,t}(x_t) + ε_t]⁺ (Zhou & Ji (CBO) Alg. 2 line 7).
func (q *VirtualQueue) Update(t int, gAtX []float64) {
	eps := q.Eps(t)
	for j, g := range gAtX {
		q.Q[j] = math.Max(0, q.Q[j]+g+eps)
	}
}
