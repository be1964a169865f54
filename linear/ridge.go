package linear

import (
	"fmt"
	"math"
)

// Beta is the confidence radius of Pacchiano et al. Thm. 10 (Abbasi-Yadkori et al. 2011,
// Thm. 2) after n observations (n = t − 1 in round t):
//
//	β_t(δ, d) = R √(d log((1 + n L²/λ)/δ)) + √λ S.
func Beta(delta float64, dim, n int, r, l, s, lambda float64) float64 {
	return r*math.Sqrt(float64(dim)*math.Log((1+float64(n)*l*l/lambda)/delta)) + math.Sqrt(lambda)*s
}

// Ridge is regularised least squares θ̂ = Σ⁻¹ Σ_s y_s x_s with Σ = λI + Σ_s x_s x_sᵀ
// (Pacchiano et al. eq. (3)–(4)), kept through Σ⁻¹ and rank-one updates.
//
// A ridge made by [NewRidgePerp] lives in the orthogonal complement of a unit
// vector e₀: inputs are projected, x ↦ x − ⟨x, e₀⟩e₀, and the model is the
// estimator μ̂^{o,⊥} = (Σ^{o,⊥})† Σ_s y_s x_s^{o,⊥} of Pacchiano et al. eq. (4).
type Ridge struct {
	d      int
	lambda float64
	e0     []float64 // nil: the whole space
	ainv   []float64 // d×d row-major inverse of Σ (+ e₀e₀ᵀ)
	b      []float64
	theta  []float64
	dirty  bool
	n      int
	ver    uint64
	px, w  []float64 // scratch
}

// NewRidge returns the ridge model λI in R^d with no observations.
func NewRidge(d int, lambda float64) (*Ridge, error) {
	if d < 1 {
		return nil, fmt.Errorf("linear: dimension d = %d: must be at least 1", d)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("linear: lambda = %v: must be a finite number > 0", lambda)
	}
	r := &Ridge{d: d, lambda: lambda, ainv: make([]float64, d*d), b: make([]float64, d),
		theta: make([]float64, d), px: make([]float64, d), w: make([]float64, d)}
	for i := 0; i < d; i++ {
		r.ainv[i*d+i] = 1 / lambda
	}
	return r, nil
}

// NewRidgePerp returns the ridge model of Pacchiano et al. eq. (3)–(4) restricted to the
// orthogonal complement of e0 (normalised here; it must not be zero).
func NewRidgePerp(d int, lambda float64, e0 []float64) (*Ridge, error) {
	r, err := NewRidge(d, lambda)
	if err != nil {
		return nil, err
	}
	if len(e0) != d {
		return nil, fmt.Errorf("linear: e0 has %d coordinates, want d = %d", len(e0), d)
	}
	nrm := norm(e0)
	if !(nrm > 0) || math.IsInf(nrm, 0) {
		return nil, fmt.Errorf("linear: e0 = %v: must be a finite non-zero vector", e0)
	}
	r.e0 = make([]float64, d)
	for i := range e0 {
		r.e0[i] = e0[i] / nrm
	}
	// M = λ(I − e₀e₀ᵀ) + e₀e₀ᵀ, M⁻¹ = (I − e₀e₀ᵀ)/λ + e₀e₀ᵀ.
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := -r.e0[i] * r.e0[j] / lambda
			if i == j {
				v += 1 / lambda
			}
			r.ainv[i*d+j] = v + r.e0[i]*r.e0[j]
		}
	}
	return r, nil
}

// Dim is the dimension of the space the model lives in: d, or d − 1 for a
// model restricted to V_o^⊥ (the d − 1 of Pacchiano et al. Thm. 10).
func (r *Ridge) Dim() int {
	if r.e0 != nil {
		return r.d - 1
	}
	return r.d
}

// N is the number of observations added.
func (r *Ridge) N() int { return r.n }

// Lambda is the regulariser λ.
func (r *Ridge) Lambda() float64 { return r.lambda }

// Version changes whenever an observation is added (for callers that cache
// products with Σ⁻¹).
func (r *Ridge) Version() uint64 { return r.ver }

// project writes x, or its component orthogonal to e₀, into dst.
func (r *Ridge) project(x, dst []float64) []float64 {
	copy(dst, x)
	if r.e0 != nil {
		p := dot(x, r.e0)
		for i := range dst {
			dst[i] -= p * r.e0[i]
		}
	}
	return dst
}

// Add records the observation y at x. x must have d finite coordinates and y
// must be finite.
func (r *Ridge) Add(x []float64, y float64) error {
	if len(x) != r.d {
		return fmt.Errorf("linear: x has %d coordinates, want d = %d", len(x), r.d)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("linear: observation y = %v: must be finite", y)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("linear: x[%d] = %v: must be finite", i, v)
		}
	}
	px := r.project(x, r.px)
	d := r.d
	// Sherman–Morrison: M⁻¹ ← M⁻¹ − (M⁻¹x)(M⁻¹x)ᵀ / (1 + xᵀM⁻¹x).
	w := r.w
	for i := 0; i < d; i++ {
		row := r.ainv[i*d : i*d+d]
		w[i] = dot(row, px)
	}
	den := 1 + dot(px, w)
	for i := 0; i < d; i++ {
		wi := w[i] / den
		row := r.ainv[i*d : i*d+d]
		for j := 0; j < d; j++ {
			row[j] -= wi * w[j]
		}
	}
	for i := 0; i < d; i++ {
		r.b[i] += y * px[i]
	}
	r.n++
	r.ver++
	r.dirty = true
	return nil
}

// Theta returns the estimate θ̂ (μ̂^{o,⊥} for a restricted model). The slice
// belongs to the model and changes with the next Add.
func (r *Ridge) Theta() []float64 {
	if r.dirty {
		r.InvMul(r.b, r.theta)
		r.dirty = false
	}
	return r.theta
}

// InvMul writes Σ⁻¹x into dst (for a restricted model (Σ^{o,⊥})†x + ⟨x,e₀⟩e₀;
// for x ∈ V_o^⊥ this is (Σ^{o,⊥})†x).
func (r *Ridge) InvMul(x, dst []float64) {
	d := r.d
	for i := 0; i < d; i++ {
		dst[i] = dot(r.ainv[i*d:i*d+d], x)
	}
}

// Quad returns xᵀΣ⁻¹y after projecting both onto the model's space.
func (r *Ridge) Quad(x, y []float64) float64 {
	d := r.d
	var px, py []float64
	if r.e0 != nil {
		px = r.project(x, make([]float64, d))
		py = r.project(y, make([]float64, d))
	} else {
		px, py = x, y
	}
	var s float64
	for i := 0; i < d; i++ {
		s += px[i] * dot(r.ainv[i*d:i*d+d], py)
	}
	return s
}

// NormInv returns ‖x‖_{Σ⁻¹} (for a restricted model ‖x^{o,⊥}‖_{(Σ^{o,⊥})†}).
func (r *Ridge) NormInv(x []float64) float64 {
	px := x
	if r.e0 != nil {
		px = r.project(x, r.px)
	}
	d := r.d
	var s float64
	for i := 0; i < d; i++ {
		s += px[i] * dot(r.ainv[i*d:i*d+d], px)
	}
	if s < 0 {
		s = 0
	}
	return math.Sqrt(s)
}

// Inverse returns a copy of Σ⁻¹ (row-major; for a restricted model
// (Σ^{o,⊥})† + e₀e₀ᵀ).
func (r *Ridge) Inverse() []float64 { return append([]float64(nil), r.ainv...) }

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }
