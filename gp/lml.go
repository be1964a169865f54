// The log marginal likelihood of a GP and its analytic gradient (R&W §5.4.1) in the log hyperparameters (Hyper, Theta), with its Cholesky helpers.

package gp

import (
	"fmt"
	"math"
)

// Hyper are the hyperparameters of a GP with an ARD kernel and Gaussian
// noise. Theta is their vector in the log space of scikit-learn's kernel
// ConstantKernel·Matern/RBF + WhiteKernel: (log Variance, log ℓ_1..ℓ_d,
// log NoiseVar).
type Hyper struct {
	Lengthscales []float64
	Variance     float64
	NoiseVar     float64
}

// Theta returns (log σ², log ℓ_1..ℓ_d, log λ).
func (h Hyper) Theta() []float64 {
	t := make([]float64, 0, len(h.Lengthscales)+2)
	t = append(t, math.Log(h.Variance))
	for _, l := range h.Lengthscales {
		t = append(t, math.Log(l))
	}
	return append(t, math.Log(h.NoiseVar))
}

// HyperFromTheta is the inverse of Hyper.Theta.
func HyperFromTheta(theta []float64) Hyper {
	d := len(theta) - 2
	h := Hyper{Variance: math.Exp(theta[0]), NoiseVar: math.Exp(theta[d+1]), Lengthscales: make([]float64, d)}
	for i := range h.Lengthscales {
		h.Lengthscales[i] = math.Exp(theta[1+i])
	}
	return h
}

// LogMarginal returns the log marginal likelihood of ys at xs under a
// zero-mean GP with the ARD kernel of smoothness nu and hyperparameters
// theta (Hyper.Theta), and its gradient in theta (Rasmussen & Williams
// 2006, §5.4.1, eqs. 5.8 and 5.9):
//
//	log p(y|X,θ) = −½ yᵀα − Σ_i log L_ii − (n/2) log 2π,   α = (K+λI)⁻¹y
//	∂/∂θ_j       = ½ tr((ααᵀ − (K+λI)⁻¹) ∂(K+λI)/∂θ_j)
//
// grad may be nil. It costs O(n³ + d·n²). An error names the failing
// quantity (dimensions, a non-finite value, a matrix that is not positive
// definite).
func LogMarginal(nu float64, xs [][]float64, ys []float64, theta []float64, grad []float64) (float64, error) {
	e, err := newLML(nu, xs, ys, theta, nil)
	if err != nil || grad == nil {
		return e.val, err
	}
	return e.val, e.gradient(grad)
}

// lml is one evaluation of LogMarginal at theta: its value, and what its
// gradient needs (K + λI, the c of ARD.shape, the factor L and α), so
// that FitHyper's line search, which takes the value alone, pays for the
// gradient only at the point it accepts, and without a second factorisation.
type lml struct {
	xs             [][]float64
	h              Hyper
	theta          []float64
	n, d           int
	K, C, L, alpha []float64
	U, W           []float64 // gradient's scratch (invFromChol), allocated at its first call
	val            float64
}

// newLML evaluates the log marginal likelihood; reuse (may be nil) lends
// its buffers.
func newLML(nu float64, xs [][]float64, ys []float64, theta []float64, reuse *lml) (*lml, error) {
	n := len(xs)
	if n == 0 || len(ys) != n {
		return &lml{}, fmt.Errorf("gp: LogMarginal: %d points and %d values", n, len(ys))
	}
	d := len(xs[0])
	if len(theta) != d+2 {
		return &lml{}, fmt.Errorf("gp: LogMarginal: theta has %d entries, want %d (log variance, %d log lengthscales, log noise)", len(theta), d+2, d)
	}
	for i, t := range theta {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return &lml{}, fmt.Errorf("gp: LogMarginal: theta[%d] = %v: must be finite", i, t)
		}
	}
	h := HyperFromTheta(theta)
	k := ARD{Nu: nu, Lengthscales: h.Lengthscales, Variance: h.Variance}
	if nu != 0 && nu != 2.5 {
		return &lml{}, fmt.Errorf("gp: LogMarginal nu = %v: must be 0 (SE) or 2.5 (Matérn 5/2)", nu)
	}
	e := reuse
	if e == nil || len(e.K) != n*n {
		e = &lml{K: make([]float64, n*n), C: make([]float64, n*n), L: make([]float64, n*n), alpha: make([]float64, n)}
	}
	e.xs, e.h, e.theta, e.n, e.d = xs, h, append(e.theta[:0], theta...), n, d
	K, C := e.K, e.C // C: c of ARD.shape, for the lengthscale gradients
	for i := 0; i < n; i++ {
		if len(xs[i]) != d {
			return &lml{}, fmt.Errorf("gp: LogMarginal: point %d has dimension %d, want %d", i, len(xs[i]), d)
		}
		for j := 0; j <= i; j++ {
			v, c := k.shape(k.r2(xs[i], xs[j]))
			K[i*n+j], K[j*n+i] = v, v
			C[i*n+j], C[j*n+i] = c, c
		}
		K[i*n+i] += h.NoiseVar
	}
	L := e.L // only its lower triangle is read
	copy(L, K)
	if !choleskyLowerTri(L, n) {
		return &lml{}, fmt.Errorf("gp: LogMarginal: K + λI is not positive definite at theta = %v", theta)
	}
	alpha := e.alpha
	copy(alpha, ys)
	cholSolve(L, n, alpha)
	var val float64
	for i := 0; i < n; i++ {
		val -= 0.5*ys[i]*alpha[i] + math.Log(L[i*n+i])
	}
	e.val = val - 0.5*float64(n)*math.Log(2*math.Pi)
	return e, nil
}

// gradient writes the gradient of the log marginal likelihood at e.theta
// into grad.
func (e *lml) gradient(grad []float64) error {
	n, d, h, K, C, alpha, xs := e.n, e.d, e.h, e.K, e.C, e.alpha, e.xs
	if len(grad) != d+2 {
		return fmt.Errorf("gp: LogMarginal: grad has %d entries, want %d", len(grad), d+2)
	}
	// W = ααᵀ − K⁻¹, K⁻¹ = L⁻ᵀL⁻¹ accumulated row by row of L⁻¹ (O(n³),
	// contiguous inner loops).
	if len(e.W) != n*n {
		e.U, e.W = make([]float64, n*n), make([]float64, n*n)
	}
	W := e.W
	invFromChol(e.L, n, e.U, W)
	// One pass per entry of grad, each summed in (i, j) order: the sums stay
	// in registers instead of grad's memory.
	var g0, gn float64
	for i := 0; i < n; i++ {
		gn += 0.5 * (alpha[i]*alpha[i] - W[i*n+i]) * h.NoiseVar
		for j := 0; j < n; j++ {
			w := alpha[i]*alpha[j] - W[i*n+j]
			W[i*n+j] = w
			g0 += 0.5 * w * (K[i*n+j] - boolf(i == j)*h.NoiseVar)
		}
	}
	grad[0], grad[d+1] = g0, gn
	xq := make([]float64, n) // coordinate q of the points
	for q, l := range h.Lengthscales {
		for i, x := range xs {
			xq[i] = x[q]
		}
		var g float64
		for i, xi := range xq {
			wi, ci := W[i*n:(i+1)*n], C[i*n:(i+1)*n]
			for j, xj := range xq {
				if i == j {
					continue
				}
				e := (xi - xj) / l
				g += 0.5 * wi[j] * ci[j] * e * e
			}
		}
		grad[1+q] = g
	}
	return nil
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// invFromChol writes (LLᵀ)⁻¹ (n×n, row-major, full) for the row-major
// lower factor L into inv; u (n×n) is scratch. Every entry is the sum, in
// the same order, of the former rank-one accumulation over the rows of L⁻¹
// (only the loop order changed, to run four independent sums at once).
func invFromChol(L []float64, n int, u, inv []float64) {
	// Row c of u is column c of L⁻¹ (entries c..n−1), by forward
	// substitution; columns j..j+3 together below their top triangle.
	j := 0
	for ; j+4 <= n; j += 4 {
		u0, u1, u2, u3 := u[j*n:(j+1)*n], u[(j+1)*n:(j+2)*n], u[(j+2)*n:(j+3)*n], u[(j+3)*n:(j+4)*n]
		for i := j; i < j+4; i++ {
			for c := j; c <= i; c++ {
				u[c*n+i] = invEntry(L[i*n:i*n+i+1], u[c*n:(c+1)*n], c, i)
			}
		}
		for i := j + 4; i < n; i++ {
			row := L[i*n : i*n+i+1]
			var s0, s1, s2, s3 float64
			s0 -= row[j] * u0[j]
			s0 -= row[j+1] * u0[j+1]
			s1 -= row[j+1] * u1[j+1]
			s0 -= row[j+2] * u0[j+2]
			s1 -= row[j+2] * u1[j+2]
			s2 -= row[j+2] * u2[j+2]
			s0 -= row[j+3] * u0[j+3]
			s1 -= row[j+3] * u1[j+3]
			s2 -= row[j+3] * u2[j+3]
			s3 -= row[j+3] * u3[j+3]
			for k := j + 4; k < i; k++ {
				r := row[k]
				s0 -= r * u0[k]
				s1 -= r * u1[k]
				s2 -= r * u2[k]
				s3 -= r * u3[k]
			}
			d := row[i]
			u0[i], u1[i], u2[i], u3[i] = s0/d, s1/d, s2/d, s3/d
		}
	}
	for ; j < n; j++ {
		for i := j; i < n; i++ {
			u[j*n+i] = invEntry(L[i*n:i*n+i+1], u[j*n:(j+1)*n], j, i)
		}
	}
	// inv[i][j] (j ≤ i) = Σ_{k≥i} L⁻¹[k][i]·L⁻¹[k][j] in increasing k, four
	// j at a time; then the mirror (a·b = b·a exactly).
	for i := 0; i < n; i++ {
		ui := u[i*n+i : (i+1)*n]
		j := 0
		for ; j+4 <= i+1; j += 4 {
			a, b := u[j*n+i:(j+1)*n], u[(j+1)*n+i:(j+2)*n]
			c, d := u[(j+2)*n+i:(j+3)*n], u[(j+3)*n+i:(j+4)*n]
			a, b, c, d = a[:len(ui)], b[:len(ui)], c[:len(ui)], d[:len(ui)]
			var s0, s1, s2, s3 float64
			for k, x := range ui {
				s0 += x * a[k]
				s1 += x * b[k]
				s2 += x * c[k]
				s3 += x * d[k]
			}
			inv[i*n+j], inv[i*n+j+1], inv[i*n+j+2], inv[i*n+j+3] = s0, s1, s2, s3
		}
		for ; j <= i; j++ {
			a := u[j*n+i : (j+1)*n]
			a = a[:len(ui)]
			var s float64
			for k, x := range ui {
				s += x * a[k]
			}
			inv[i*n+j] = s
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			inv[j*n+i] = inv[i*n+j]
		}
	}
}

// invEntry is entry i of column c of L⁻¹ (row the first i+1 entries of row
// i of L; uc the entries c..i−1 of that column).
func invEntry(row, uc []float64, c, i int) float64 {
	s := 0.0
	if i == c {
		s = 1
	}
	for k := c; k < i; k++ {
		s -= row[k] * uc[k]
	}
	return s / row[i]
}

// cholSolve overwrites b with (LLᵀ)⁻¹b for the row-major lower factor L.
func cholSolve(L []float64, n int, b []float64) {
	for i := 0; i < n; i++ {
		s := b[i]
		for j := 0; j < i; j++ {
			s -= L[i*n+j] * b[j]
		}
		b[i] = s / L[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= L[j*n+i] * b[j]
		}
		b[i] = s / L[i*n+i]
	}
}
