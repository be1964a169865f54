package rule

import "fmt"

// PrimalDual is the primal-dual rule of CKB (Zhou & Ji (CBO) Alg. 1 lines 5–7, Zhou & Ji 2022
// Alg. 1): score f̄ − Σ_j φ_j ḡ_j, then φ_j ← Proj_[0,ρ](φ_j + (ḡ_j(x_t) + ε)/V).
// ε = 0 is Zhou & Ji's (CBO) rule; ε > 0 is the slackness variant of Zhou & Ji 2022 §4.
type PrimalDual struct {
	Rho, V, Eps float64
	Phi         []float64
}

// NewPrimalDual validates the parameters; φ_1 = 0 (Zhou & Ji (CBO) Alg. 1 input).
func NewPrimalDual(m int, rho, v, eps float64) (*PrimalDual, error) {
	if !(rho > 0) {
		return nil, fmt.Errorf("rho = %v: must be > 0", rho)
	}
	if !(v > 0) {
		return nil, fmt.Errorf("V = %v: must be > 0", v)
	}
	if !(eps >= 0) {
		return nil, fmt.Errorf("eps = %v: must be ≥ 0", eps)
	}
	return &PrimalDual{Rho: rho, V: v, Eps: eps, Phi: make([]float64, m)}, nil
}

// Score writes f̄(x) − Σ_j φ_j ḡ_j(x) into dst.
func (p *PrimalDual) Score(f []float64, g [][]float64, dst []float64) {
	copy(dst, f)
	for j, gj := range g {
		phi := p.Phi[j]
		if phi == 0 {
			continue
		}
		for i, v := range gj {
			dst[i] -= phi * v
		}
	}
}

// Update takes the projected dual step with the estimates ḡ_j(x_t) of the
// chosen action.
func (p *PrimalDual) Update(gAtX []float64) {
	for j, v := range gAtX {
		phi := p.Phi[j] + (v+p.Eps)/p.V
		if phi < 0 {
			phi = 0
		} else if phi > p.Rho {
			phi = p.Rho
		}
		p.Phi[j] = phi
	}
}
