package linear

import (
	"fmt"
	"math"
)

// Projector holds the safe action x₀, e₀ = x₀/‖x₀‖ and the projections
// x^o = ⟨x, e₀⟩e₀ and x^{o,⊥} = x − x^o of Pacchiano et al. §2. For x₀ = 0, V_o is the empty
// subspace and V_o^⊥ is all of R^d (Pacchiano et al. §2, footnote 2).
type Projector struct {
	x0  []float64
	e0  []float64 // nil when x₀ = 0
	nx0 float64
}

// NewProjector returns the projections for the safe action x0 in R^d (nil x0
// means x₀ = 0).
func NewProjector(d int, x0 []float64) (Projector, error) {
	p := Projector{x0: make([]float64, d)}
	if x0 == nil {
		return p, nil
	}
	if len(x0) != d {
		return p, fmt.Errorf("linear: x0 has %d coordinates, want d = %d", len(x0), d)
	}
	for i, v := range x0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return p, fmt.Errorf("linear: x0[%d] = %v: must be finite", i, v)
		}
	}
	copy(p.x0, x0)
	p.nx0 = norm(x0)
	if p.nx0 > 0 {
		p.e0 = make([]float64, d)
		for i := range x0 {
			p.e0[i] = x0[i] / p.nx0
		}
	}
	return p, nil
}

// Zero reports whether x₀ = 0.
func (p Projector) Zero() bool { return p.e0 == nil }

// X0 returns x₀ (zeros when x₀ = 0). The slice must not be modified.
func (p Projector) X0() []float64 { return p.x0 }

// E0 returns e₀ = x₀/‖x₀‖, nil when x₀ = 0.
func (p Projector) E0() []float64 { return p.e0 }

// NormX0 returns ‖x₀‖.
func (p Projector) NormX0() float64 { return p.nx0 }

// Along returns ⟨x, e₀⟩ = ⟨x^o, e₀⟩ (0 when x₀ = 0).
func (p Projector) Along(x []float64) float64 {
	if p.e0 == nil {
		return 0
	}
	return dot(x, p.e0)
}

// Par writes x^o = ⟨x, e₀⟩e₀ into dst and returns it.
func (p Projector) Par(x, dst []float64) []float64 {
	a := p.Along(x)
	for i := range dst {
		if p.e0 == nil {
			dst[i] = 0
		} else {
			dst[i] = a * p.e0[i]
		}
	}
	return dst
}

// Perp writes x^{o,⊥} = x − x^o into dst and returns it.
func (p Projector) Perp(x, dst []float64) []float64 {
	a := p.Along(x)
	for i := range dst {
		dst[i] = x[i]
		if p.e0 != nil {
			dst[i] -= a * p.e0[i]
		}
	}
	return dst
}
