package gp

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// ARD is a stationary kernel with one lengthscale per input dimension
// (automatic relevance determination; Rasmussen & Williams 2006, §5.1,
// eq. 5.2): with r² = Σ_d (x_d − y_d)²/ℓ_d²,
//
//	Nu = 0 (squared exponential): k = Variance·exp(−r²/2)
//	Nu = 2.5 (Matérn 5/2):        k = Variance·(1 + √5 r + 5r²/3)·exp(−√5 r)
//
// It is the kernel whose hyperparameters FitHyper learns. A slice field
// makes it incomparable, so models built on it never share a factor.
type ARD struct {
	Nu           float64
	Lengthscales []float64
	Variance     float64
}

// NewARD checks and returns an ARD kernel (Nu 0 or 2.5, lengthscales and
// variance finite and > 0).
func NewARD(nu float64, lengthscales []float64, variance float64) (ARD, error) {
	if nu != 0 && nu != 2.5 {
		return ARD{}, fmt.Errorf("gp: ARD nu = %v: must be 0 (SE) or 2.5 (Matérn 5/2)", nu)
	}
	if len(lengthscales) == 0 {
		return ARD{}, fmt.Errorf("gp: ARD lengthscales: empty")
	}
	for i, l := range lengthscales {
		if err := checkPositive(fmt.Sprintf("lengthscale[%d]", i), l); err != nil {
			return ARD{}, err
		}
	}
	if err := checkPositive("variance", variance); err != nil {
		return ARD{}, err
	}
	return ARD{Nu: nu, Lengthscales: append([]float64(nil), lengthscales...), Variance: variance}, nil
}

func (k ARD) r2(x, y []float64) float64 {
	if len(x) != len(y) || len(x) != len(k.Lengthscales) {
		return math.NaN()
	}
	var s float64
	for i, l := range k.Lengthscales {
		d := (x[i] - y[i]) / l
		s += d * d
	}
	return s
}

// Eval implements Kernel (NaN on a dimension mismatch).
func (k ARD) Eval(x, y []float64) float64 { return k.at(k.r2(x, y)) }

// at is k at the scaled squared distance r2.
func (k ARD) at(r2 float64) float64 {
	if k.Nu == 0 {
		return k.Variance * math.Exp(-r2/2)
	}
	a := math.Sqrt(5 * r2)
	return k.Variance * (1 + a + a*a/3) * math.Exp(-a)
}

// evalRow writes k(p, xs[j]) into dst[j]. An ARD kernel is evaluated
// inline, in the arithmetic of Eval (which is symmetric in its arguments to
// the bit): through the interface a value cost 4× its arithmetic.
func evalRow(k Kernel, p []float64, xs [][]float64, dst []float64) {
	a, ok := k.(ARD)
	if !ok || len(p) != len(a.Lengthscales) {
		for j, x := range xs {
			dst[j] = k.Eval(p, x)
		}
		return
	}
	ls := a.Lengthscales
	for j, x := range xs {
		if len(x) != len(ls) {
			dst[j] = math.NaN()
			continue
		}
		var s float64
		for i, l := range ls {
			d := (p[i] - x[i]) / l
			s += d * d
		}
		dst[j] = a.at(s)
	}
}

// evalCol writes k(xs[j], p) into dst[j] (evalRow for ARD).
func evalCol(k Kernel, xs [][]float64, p []float64, dst []float64) {
	if _, ok := k.(ARD); ok {
		evalRow(k, p, xs, dst)
		return
	}
	for j, x := range xs {
		dst[j] = k.Eval(x, p)
	}
}

// shape returns k/Variance and the factor c with ∂k/∂(ℓ_d⁻²(x_d−y_d)²)… in
// the form used by the gradients: ∂k/∂log ℓ_d = c·(x_d−y_d)²/ℓ_d² and
// ∂k/∂y_d = c·(x_d−y_d)/ℓ_d².
func (k ARD) shape(r2 float64) (v, c float64) {
	if k.Nu == 0 {
		v = k.Variance * math.Exp(-r2/2)
		return v, v
	}
	a := math.Sqrt(5 * r2)
	e := math.Exp(-a)
	return k.Variance * (1 + a + a*a/3) * e, k.Variance * 5.0 / 3 * (1 + a) * e
}

// Grad implements GradKernel: ∂k/∂y_d = c·(x_d − y_d)/ℓ_d² with c = k (SE)
// or 5σ²/3·(1+√5 r)e^{−√5 r} (Matérn 5/2).
func (k ARD) Grad(x, y, dst []float64) float64 {
	r2 := k.r2(x, y)
	if math.IsNaN(r2) {
		return r2
	}
	v, c := k.shape(r2)
	for i, l := range k.Lengthscales {
		dst[i] = c * (x[i] - y[i]) / (l * l)
	}
	return v
}

// String implements Kernel.
func (k ARD) String() string {
	ls := make([]string, len(k.Lengthscales))
	for i, l := range k.Lengthscales {
		ls[i] = ff(l)
	}
	name := "ARD-SE"
	if k.Nu == 2.5 {
		name = "ARD-Matern52"
	}
	return name + "(lengthscales=[" + strings.Join(ls, ",") + "], variance=" + ff(k.Variance) + ")"
}

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

// FitOptions configure FitHyper. Zero values take the defaults named.
type FitOptions struct {
	// Nu is the ARD kernel's smoothness: 0 (SE) or 2.5 (Matérn 5/2).
	Nu float64
	// Lo and Hi bound every entry of theta (default log 1e-5 and log 1e5,
	// scikit-learn's default hyperparameter bounds).
	Lo, Hi []float64
	// Starts are the starting points of the restarts (theta vectors; the
	// warm start first). FitHyper adds none of its own.
	Starts [][]float64
	// MaxIter bounds the BFGS iterations per start (default 200).
	MaxIter int
	// GTol and FTol stop a BFGS run when the largest free gradient entry is
	// below GTol or an accepted step gains at most FTol·max(1, |LML|)
	// (defaults 1e-7 and 1e-12, tighter than scipy's L-BFGS-B defaults
	// that scikit-learn uses: pgtol 1e-5, factr 1e7, i.e. ftol ≈ 2.2e-9).
	GTol, FTol float64
	// Prior, when set, adds a log prior over theta to the log marginal
	// likelihood (maximum a posteriori instead of type-II maximum
	// likelihood); it returns log p(theta) and adds its gradient to grad
	// when grad is not nil (GammaPrior).
	Prior func(theta, grad []float64) float64
}

// GammaPrior is a Gamma(shape, rate) prior on the value e^θ of one
// hyperparameter, as GPyTorch/BoTorch place their priors: log p = (shape −
// 1)·θ − rate·e^θ + const (no Jacobian: the density is of the value).
type GammaPrior struct{ Shape, Rate float64 }

// LogAt returns log p at θ (up to a constant) and its derivative in θ.
func (g GammaPrior) LogAt(theta float64) (float64, float64) {
	e := math.Exp(theta)
	return (g.Shape-1)*theta - g.Rate*e, (g.Shape - 1) - g.Rate*e
}

// FitHyper maximises LogMarginal over theta in the box [Lo, Hi] (type-II
// maximum likelihood, Rasmussen & Williams 2006, §5.4.1) from every start
// with a projected quasi-Newton method (BFGS on the free coordinates,
// Armijo backtracking, an active bound drops its coordinate from the
// inverse-Hessian approximation), and returns the best theta and its log
// marginal likelihood. Deterministic: the result depends only on the
// arguments. Starts at which K + λI is not positive definite are skipped;
// an error is returned when every start fails.
func FitHyper(xs [][]float64, ys []float64, o FitOptions) ([]float64, float64, error) {
	if len(xs) == 0 {
		return nil, 0, fmt.Errorf("gp: FitHyper: no observations")
	}
	p := len(xs[0]) + 2
	lo, hi := o.Lo, o.Hi
	if lo == nil {
		lo = constVec(p, math.Log(1e-5))
	}
	if hi == nil {
		hi = constVec(p, math.Log(1e5))
	}
	if len(lo) != p || len(hi) != p {
		return nil, 0, fmt.Errorf("gp: FitHyper: bounds have %d and %d entries, want %d", len(lo), len(hi), p)
	}
	if len(o.Starts) == 0 {
		return nil, 0, fmt.Errorf("gp: FitHyper: no starting point")
	}
	iters := o.MaxIter
	if iters <= 0 {
		iters = 200
	}
	tol := bfgsTol{iters: iters, gtol: o.GTol, ftol: o.FTol}
	if tol.gtol <= 0 {
		tol.gtol = 1e-7
	}
	if tol.ftol <= 0 {
		tol.ftol = 1e-12
	}
	var (
		best    []float64
		bestVal = math.Inf(-1)
		lastErr error
	)
	for s, st := range o.Starts {
		if len(st) != p {
			return nil, 0, fmt.Errorf("gp: FitHyper: start %d has %d entries, want %d", s, len(st), p)
		}
		th, v, err := bfgsMax(objective(o.Nu, xs, ys, o.Prior), st, lo, hi, tol)
		if err != nil {
			lastErr = err
			continue
		}
		if v > bestVal {
			best, bestVal = th, v
		}
	}
	if best == nil {
		return nil, 0, fmt.Errorf("gp: FitHyper: every start failed: %w", lastErr)
	}
	return best, bestVal, nil
}

func constVec(n int, v float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// bfgsTol stops bfgsMax (FitOptions.MaxIter, GTol, FTol).
type bfgsTol struct {
	iters      int
	gtol, ftol float64
}

// objective is the log marginal likelihood plus the log prior (when set).
// It keeps its last evaluation: the gradient at the point the line search
// has just accepted reuses that point's factor (the same numbers as a
// fresh evaluation, half the work of the accepted step).
func objective(nu float64, xs [][]float64, ys []float64, prior func(theta, grad []float64) float64) func(theta, grad []float64) (float64, error) {
	var last *lml
	return func(theta, grad []float64) (float64, error) {
		var err error
		if last == nil || !slices.Equal(last.theta, theta) {
			if last, err = newLML(nu, xs, ys, theta, last); err != nil {
				last = nil
				return 0, err
			}
		}
		v := last.val
		if grad != nil {
			if err := last.gradient(grad); err != nil {
				return 0, err
			}
		}
		if prior == nil {
			return v, nil
		}
		return v + prior(theta, grad), nil
	}
}

// bfgsMax is projected BFGS ascent of obj (the log marginal likelihood,
// plus a log prior).
func bfgsMax(obj func(theta, grad []float64) (float64, error), start, lo, hi []float64, o bfgsTol) ([]float64, float64, error) {
	p := len(start)
	x := make([]float64, p)
	for i := range x {
		x[i] = math.Min(math.Max(start[i], lo[i]), hi[i])
	}
	g := make([]float64, p)
	f, err := obj(x, g)
	if err != nil {
		return nil, 0, err
	}
	H := identity(p)
	xn, gn, dir := make([]float64, p), make([]float64, p), make([]float64, p)
	free := func(i int, gi float64) bool { // a bound is active when the ascent direction leaves the box
		return !((x[i] <= lo[i] && gi < 0) || (x[i] >= hi[i] && gi > 0))
	}
	for it := 0; it < o.iters; it++ {
		var gnorm float64
		for i := range dir {
			dir[i] = 0
			if !free(i, g[i]) {
				continue
			}
			gnorm = math.Max(gnorm, math.Abs(g[i]))
			for j := range dir {
				if free(j, g[j]) {
					dir[i] += H[i*p+j] * g[j]
				}
			}
		}
		if gnorm < o.gtol {
			break
		}
		var slope float64
		for i := range dir {
			slope += dir[i] * g[i]
		}
		if !(slope > 0) { // not an ascent direction: restart from the gradient
			H = identity(p)
			for i := range dir {
				dir[i] = 0
				if free(i, g[i]) {
					dir[i] = g[i]
				}
			}
		}
		step, ok := 1.0, false
		var fn float64
		for ls := 0; ls < 50; ls++ {
			var ascent float64
			for i := range xn {
				xn[i] = math.Min(math.Max(x[i]+step*dir[i], lo[i]), hi[i])
				ascent += g[i] * (xn[i] - x[i])
			}
			v, err := obj(xn, nil)
			if err == nil && v >= f+1e-4*ascent && ascent >= 0 {
				fn, ok = v, true
				break
			}
			step /= 2
		}
		if !ok {
			break
		}
		if _, err := obj(xn, gn); err != nil {
			break
		}
		// BFGS update of the inverse Hessian of −f: s = Δx, yv = −Δg.
		s, yv := make([]float64, p), make([]float64, p)
		var sy float64
		for i := range s {
			s[i] = xn[i] - x[i]
			yv[i] = g[i] - gn[i]
			sy += s[i] * yv[i]
		}
		df := fn - f
		copy(x, xn)
		copy(g, gn)
		f = fn
		if sy > 1e-12 {
			Hy := make([]float64, p)
			var yHy float64
			for i := 0; i < p; i++ {
				for j := 0; j < p; j++ {
					Hy[i] += H[i*p+j] * yv[j]
				}
				yHy += yv[i] * Hy[i]
			}
			for i := 0; i < p; i++ {
				for j := 0; j < p; j++ {
					H[i*p+j] += (sy+yHy)*s[i]*s[j]/(sy*sy) - (Hy[i]*s[j]+s[i]*Hy[j])/sy
				}
			}
		}
		if df <= o.ftol*math.Max(1, math.Abs(f)) {
			break
		}
	}
	return x, f, nil
}

func identity(p int) []float64 {
	H := make([]float64, p*p)
	for i := 0; i < p; i++ {
		H[i*p+i] = 1
	}
	return H
}

// DefaultStarts are the deterministic starts of FitHyper for d inputs
// scaled to unit side and standardised outputs: the warm start (when not
// nil) first, then (σ², ℓ, λ) ∈ {(1, 0.2, 0.01), (1, 1, 0.1), (1, 0.05,
// 1e-4), (0.3, 3, 0.5), (3, 0.5, 1e-3)} with equal lengthscales. Our
// choice: a spread over short and long lengthscales and low and high noise,
// in place of scikit-learn's random restarts (uniform in the log bounds).
func DefaultStarts(d int, warm []float64) [][]float64 {
	var out [][]float64
	if warm != nil {
		out = append(out, append([]float64(nil), warm...))
	}
	for _, s := range [][3]float64{{1, 0.2, 0.01}, {1, 1, 0.1}, {1, 0.05, 1e-4}, {0.3, 3, 0.5}, {3, 0.5, 1e-3}} {
		ls := constVec(d, s[1])
		out = append(out, Hyper{Lengthscales: ls, Variance: s[0], NoiseVar: s[2]}.Theta())
	}
	return out
}
