package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// SparseJitter is the relative jitter added to the diagonal of K_mm (times
// the largest prior variance of the inducing points) before factorising it:
// GPflow's default_jitter, 1e-6 (gpflow.config).
const SparseJitter = 1e-6

// Sparse is an APPROXIMATE GP posterior with M inducing points Z: the
// projected-process / DTC predictive, which is also the predictive of the
// variational (VFE) sparse GP of Titsias (2009, AISTATS, eq. 6) for fixed
// hyperparameters (Quiñonero-Candela & Rasmussen 2005, JMLR, §5, eq. 20b):
//
//	A = K_mm + λ⁻¹ Σ_s k_m(x_s) k_m(x_s)ᵀ,   α = A⁻¹ λ⁻¹ Σ_s k_m(x_s) y_s,
//	μ(x) = k_m(x)ᵀ α,
//	σ²(x) = k(x,x) − k_m(x)ᵀ K_mm⁻¹ k_m(x) + k_m(x)ᵀ A⁻¹ k_m(x),
//
// with k_m(x) = k(Z, x). The Cholesky factor of A takes a rank-one update per
// observation (O(M²)), and the mean and variance at C fixed candidates are
// kept current in O(M·C) per observation (Sherman–Morrison on the A⁻¹ term,
// recomputed exactly every M observations, amortized O(M·C)). Memory is
// O(M² + M·C), independent of the number of observations t.
//
// It is not safe for concurrent use.
type Sparse struct {
	k    Kernel
	lam  float64
	z    [][]float64
	m    int
	lmm  []float64 // Cholesky factor of K_mm + jitter, row-major m×m lower
	la   []float64 // Cholesky factor of A, row-major m×m lower
	b    []float64 // λ⁻¹ Σ k_m(x_s) y_s
	al   []float64 // A⁻¹ b
	n    int
	gain float64
	// candidates
	xs    [][]float64
	kmc   []float64 // K(Z, xs): m×C row-major
	kd    []float64 // k(x_j, x_j)
	p     []float64 // k_jᵀ K_mm⁻¹ k_j (fixed)
	q     []float64 // k_jᵀ A⁻¹ k_j
	mu    []float64
	vr    []float64
	since int
	// scratch
	km, u, w, c []float64
	// saved is the state before the pending points (Pend), nil without
	saved *sparseSaved
}

// NewSparse returns the prior of the sparse GP with kernel k, noise variance
// λ, inducing points z (copied) and candidate points xs (copied; may be
// empty). K_mm + jitter must be positive definite (it is for any finite
// inducing points of a positive-definite kernel; SelectInducing also avoids
// near-duplicates).
func NewSparse(k Kernel, noiseVar float64, z, xs [][]float64) (*Sparse, error) {
	if k == nil {
		return nil, fmt.Errorf("gp: NewSparse kernel is nil")
	}
	if err := checkPositive("Sparse noiseVar", noiseVar); err != nil {
		return nil, err
	}
	if len(z) == 0 {
		return nil, fmt.Errorf("gp: NewSparse has no inducing points")
	}
	m := len(z)
	s := &Sparse{k: k, lam: noiseVar, m: m}
	for i, x := range z {
		if err := checkPoint(fmt.Sprintf("NewSparse z[%d]", i), x); err != nil {
			return nil, err
		}
		s.z = append(s.z, append([]float64(nil), x...))
	}
	kmm := Gram(k, s.z)
	maxd := 0.0
	for i := 0; i < m; i++ {
		maxd = math.Max(maxd, kmm[i*m+i])
	}
	for i, v := range kmm {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("gp: NewSparse kernel %v gives K_mm[%d,%d] = %v", k, i/m, i%m, v)
		}
	}
	for i := 0; i < m; i++ {
		kmm[i*m+i] += SparseJitter * maxd
	}
	if !choleskyLowerTri(kmm, m) {
		return nil, fmt.Errorf("gp: NewSparse K_mm + %g·I is not positive definite (duplicate inducing points?)", SparseJitter*maxd)
	}
	for i := 0; i < m; i++ { // keep the lower triangle only
		for j := i + 1; j < m; j++ {
			kmm[i*m+j] = 0
		}
	}
	s.lmm = kmm
	s.la = append([]float64(nil), kmm...)
	s.b = make([]float64, m)
	s.al = make([]float64, m)
	s.km, s.u, s.w = make([]float64, m), make([]float64, m), make([]float64, m)
	c := len(xs)
	s.kmc = make([]float64, m*c)
	s.kd = make([]float64, c)
	s.p = make([]float64, c)
	s.q = make([]float64, c)
	s.mu = make([]float64, c)
	s.vr = make([]float64, c)
	s.c = make([]float64, c)
	for j, x := range xs {
		if err := checkPoint(fmt.Sprintf("NewSparse xs[%d]", j), x); err != nil {
			return nil, err
		}
		s.xs = append(s.xs, append([]float64(nil), x...))
		s.kd[j] = k.Eval(x, x)
		for i, zi := range s.z {
			v := k.Eval(zi, x)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("gp: NewSparse kernel %v gives k(z_%d, xs[%d]) = %v", k, i, j, v)
			}
			s.kmc[i*c+j] = v
		}
	}
	// p_j = ‖L_mm⁻¹ k_j‖², with the columns solved together.
	v := append([]float64(nil), s.kmc...)
	triSolveRows(s.lmm, m, v, c)
	for i := 0; i < m; i++ {
		row := v[i*c : (i+1)*c]
		for j, x := range row {
			s.p[j] += x * x
		}
	}
	s.Reset()
	return s, nil
}

// triSolveRows overwrites the m×c row-major matrix v with L⁻¹v (L lower m×m).
func triSolveRows(l []float64, m int, v []float64, c int) {
	if c == 0 {
		return
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1,
		blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: m, Data: l},
		blas64.General{Rows: m, Cols: c, Stride: c, Data: v})
}

// solveLower overwrites x with L⁻¹x; solveUpper with L⁻ᵀx.
func solveLower(l []float64, m int, x []float64) {
	for i := 0; i < m; i++ {
		x[i] = (x[i] - floats.Dot(l[i*m:i*m+i], x[:i])) / l[i*m+i]
	}
}

func solveUpper(l []float64, m int, x []float64) {
	for i := m - 1; i >= 0; i-- {
		v := x[i]
		for r := i + 1; r < m; r++ {
			v -= l[r*m+i] * x[r]
		}
		x[i] = v / l[i*m+i]
	}
}

// Reset returns to the prior.
func (s *Sparse) Reset() {
	copy(s.la, s.lmm)
	for i := range s.b {
		s.b[i], s.al[i] = 0, 0
	}
	s.n, s.gain, s.since = 0, 0, 0
	copy(s.q, s.p)
	for j := range s.mu {
		s.mu[j] = 0
		s.vr[j] = s.kd[j]
	}
}

// Kernel returns the prior kernel.
func (s *Sparse) Kernel() Kernel { return s.k }

// Inducing returns the inducing points (read-only).
func (s *Sparse) Inducing() [][]float64 { return s.z }

// Len returns the number of observations.
func (s *Sparse) Len() int { return s.n }

// InfoGain returns ½ Σ_s log(1 + σ²_{s−1}(x_s)/λ) with the sparse
// variances.
func (s *Sparse) InfoGain() float64 { return s.gain }

// Mean and Var are the posterior at the candidates (read-only views).
func (s *Sparse) Mean() []float64 { return s.mu }

// Var returns σ² at the candidates, clamped at 0 (read-only view).
func (s *Sparse) Var() []float64 { return s.vr }

// kvec writes k(Z, x) into s.km.
func (s *Sparse) kvec(x []float64) error {
	for i, zi := range s.z {
		v := s.k.Eval(zi, x)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gp: Sparse kernel %v gives k(z_%d, x) = %v at x = %v", s.k, i, v, x)
		}
		s.km[i] = v
	}
	return nil
}

// Add incorporates the observation (x, y) in O(M² + M·C).
func (s *Sparse) Add(x []float64, y float64) error {
	if err := checkPoint("Sparse.Add", x); err != nil {
		return err
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("gp: Sparse.Add y is not finite: %v", y)
	}
	if len(x) != len(s.z[0]) {
		return fmt.Errorf("gp: Sparse.Add x has dimension %d, the inducing points have %d", len(x), len(s.z[0]))
	}
	kxx := s.k.Eval(x, x)
	if math.IsNaN(kxx) || math.IsInf(kxx, 0) {
		return fmt.Errorf("gp: Sparse.Add kernel %v gives k(x,x) = %v", s.k, kxx)
	}
	if err := s.kvec(x); err != nil {
		return err
	}
	m := s.m
	// σ² before the update, for the information gain.
	w := s.w
	copy(w, s.km)
	solveLower(s.lmm, m, w)
	pv := floats.Dot(w, w)
	u := s.u
	copy(u, s.km)
	solveLower(s.la, m, u)
	qv := floats.Dot(u, u)
	sig2 := math.Max(kxx-pv+qv, 0)
	s.gain += 0.5 * math.Log1p(sig2/s.lam)
	// a = k_m/√λ; u = A⁻¹a; the candidates' A⁻¹ term loses (k_jᵀu)²/(1+aᵀu).
	sl := math.Sqrt(s.lam)
	solveUpper(s.la, m, u) // u = A⁻¹k_m
	den := s.lam + floats.Dot(s.km, u)
	c := len(s.xs)
	s.since++
	refresh := s.since >= m
	if c > 0 && !refresh {
		cu := s.c
		blas64.Gemv(blas.Trans, 1, blas64.General{Rows: m, Cols: c, Stride: c, Data: s.kmc},
			blas64.Vector{N: m, Inc: 1, Data: u}, 0, blas64.Vector{N: c, Inc: 1, Data: cu})
		for j, v := range cu {
			s.q[j] -= v * v / den
		}
	}
	// Rank-one update of the Cholesky factor of A by a = k_m/√λ (Golub &
	// Van Loan, Matrix Computations, 4th ed., §6.5.4).
	a := w
	for i, v := range s.km {
		a[i] = v / sl
	}
	cholUpdate(s.la, m, a)
	floats.AddScaled(s.b, y/s.lam, s.km)
	copy(s.al, s.b)
	solveLower(s.la, m, s.al)
	solveUpper(s.la, m, s.al)
	s.n++
	if c > 0 {
		if refresh {
			s.refresh()
		}
		blas64.Gemv(blas.Trans, 1, blas64.General{Rows: m, Cols: c, Stride: c, Data: s.kmc},
			blas64.Vector{N: m, Inc: 1, Data: s.al}, 0, blas64.Vector{N: c, Inc: 1, Data: s.mu})
		for j := range s.vr {
			s.vr[j] = math.Max(s.kd[j]-s.p[j]+s.q[j], 0)
		}
	}
	return nil
}

// refresh recomputes q_j = ‖L_A⁻¹k_j‖² exactly (O(M²·C)), bounding the
// drift of the Sherman–Morrison updates.
func (s *Sparse) refresh() {
	s.since = 0
	m, c := s.m, len(s.xs)
	v := append([]float64(nil), s.kmc...)
	triSolveRows(s.la, m, v, c)
	for j := range s.q {
		s.q[j] = 0
	}
	for i := 0; i < m; i++ {
		for j, x := range v[i*c : (i+1)*c] {
			s.q[j] += x * x
		}
	}
}

// cholUpdate overwrites the lower factor l (m×m row-major) of A with that of
// A + xxᵀ; x is destroyed.
func cholUpdate(l []float64, m int, x []float64) {
	for k := 0; k < m; k++ {
		lkk := l[k*m+k]
		r := math.Hypot(lkk, x[k])
		c, sn := r/lkk, x[k]/lkk
		l[k*m+k] = r
		for i := k + 1; i < m; i++ {
			li := (l[i*m+k] + sn*x[i]) / c
			x[i] = c*x[i] - sn*li
			l[i*m+k] = li
		}
	}
}

// Predict returns the sparse posterior mean and variance at x in O(M²).
func (s *Sparse) Predict(x []float64) (mean, variance float64) {
	var mu, v [1]float64
	if err := s.PredictBatch([][]float64{x}, mu[:], v[:], nil, nil); err != nil {
		return math.NaN(), math.NaN()
	}
	return mu[0], v[0]
}

// PredictBatch writes the sparse posterior mean and variance at xs and,
// when dmean and dvar are not nil, their gradients (the kernel must then be
// a GradKernel), in O(M²) per point:
//
//	∇μ = ∂k_mᵀα,  ∇σ² = ∇k(x,x) − 2∂k_mᵀK_mm⁻¹k_m + 2∂k_mᵀA⁻¹k_m.
func (s *Sparse) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	if len(mean) < len(xs) || len(variance) < len(xs) {
		return fmt.Errorf("gp: Sparse.PredictBatch has %d points but room for %d means and %d variances", len(xs), len(mean), len(variance))
	}
	grad := dmean != nil || dvar != nil
	var gk GradKernel
	if grad {
		var ok bool
		if gk, ok = s.k.(GradKernel); !ok {
			return fmt.Errorf("gp: kernel %v has no closed-form gradient", s.k)
		}
		if len(dmean) < len(xs) || len(dvar) < len(xs) {
			return fmt.Errorf("gp: Sparse.PredictBatch has %d points but room for %d mean and %d variance gradients", len(xs), len(dmean), len(dvar))
		}
	}
	m := s.m
	t1, t2 := make([]float64, m), make([]float64, m)
	var dk [][]float64
	for j, x := range xs {
		if err := checkPointAt("Sparse.PredictBatch xs", j, x); err != nil {
			return err
		}
		if len(x) != len(s.z[0]) {
			return fmt.Errorf("gp: Sparse.PredictBatch xs[%d] has dimension %d, the inducing points have %d", j, len(x), len(s.z[0]))
		}
		d := len(x)
		var kxx float64
		var dkxx []float64
		if grad {
			if dk == nil {
				dk = make([][]float64, m)
				for i := range dk {
					dk[i] = make([]float64, d)
				}
			}
			dkxx = make([]float64, d)
			kxx = gk.Grad(x, x, dkxx)
			for i, zi := range s.z {
				s.km[i] = gk.Grad(zi, x, dk[i])
			}
		} else {
			kxx = s.k.Eval(x, x)
			for i, zi := range s.z {
				s.km[i] = s.k.Eval(zi, x)
			}
		}
		if math.IsNaN(kxx) || math.IsInf(kxx, 0) || floats.HasNaN(s.km) {
			return fmt.Errorf("gp: Sparse.PredictBatch kernel %v is not finite at xs[%d] = %v", s.k, j, x)
		}
		mean[j] = floats.Dot(s.km, s.al)
		copy(t1, s.km)
		solveLower(s.lmm, m, t1)
		copy(t2, s.km)
		solveLower(s.la, m, t2)
		variance[j] = math.Max(kxx-floats.Dot(t1, t1)+floats.Dot(t2, t2), 0)
		if !grad {
			continue
		}
		solveUpper(s.lmm, m, t1) // K_mm⁻¹k_m
		solveUpper(s.la, m, t2)  // A⁻¹k_m
		for c := 0; c < d; c++ {
			var gm, g1, g2 float64
			for i := range dk {
				gm += dk[i][c] * s.al[i]
				g1 += dk[i][c] * t1[i]
				g2 += dk[i][c] * t2[i]
			}
			dmean[j][c] = gm
			dvar[j][c] = 2*dkxx[c] - 2*g1 + 2*g2
		}
	}
	return nil
}

// SelectInducing returns min(m, len(xs)) inducing points chosen from xs
// deterministically by greedy conditional variance (pivoted Cholesky:
// Fine & Scheinberg 2001, JMLR; the selection of Burt, Rasmussen & van der
// Wilk 2020, JMLR, §5): each step takes the point with the largest prior
// variance given the points already taken (lowest index on ties), in
// O(m²·len(xs)). It stops early when every remaining conditional variance
// is below 1e-10 of the largest prior variance (the rest are spanned).
func SelectInducing(k Kernel, xs [][]float64, m int) ([][]float64, error) {
	n := len(xs)
	if m <= 0 || n == 0 {
		return nil, fmt.Errorf("gp: SelectInducing m = %d from %d points: need m ≥ 1 and at least one point", m, n)
	}
	m = min(m, n)
	d := make([]float64, n)
	maxd := 0.0
	for j, x := range xs {
		d[j] = k.Eval(x, x)
		if math.IsNaN(d[j]) || math.IsInf(d[j], 0) {
			return nil, fmt.Errorf("gp: SelectInducing kernel %v gives k(x,x) = %v at xs[%d]", k, d[j], j)
		}
		maxd = math.Max(maxd, d[j])
	}
	v := make([][]float64, 0, m)
	var out [][]float64
	for len(out) < m {
		best := -1
		for j, dj := range d {
			if best < 0 || dj > d[best] {
				best = j
			}
		}
		if !(d[best] > 1e-10*maxd) {
			break
		}
		row := make([]float64, n)
		piv := math.Sqrt(d[best])
		for j, x := range xs {
			kv := k.Eval(xs[best], x)
			for _, r := range v {
				kv -= r[best] * r[j]
			}
			row[j] = kv / piv
		}
		for j := range d {
			d[j] -= row[j] * row[j]
		}
		d[best] = math.Inf(-1) // taken
		v = append(v, row)
		out = append(out, xs[best])
	}
	return out, nil
}

// CandidateCov writes the sparse posterior covariance over the candidates
// (C×C row-major) into dst: K_cc − PᵀP + QᵀQ with P = L_mm⁻¹K_mc and
// Q = L_A⁻¹K_mc, in O(C²·M). It writes nothing if dst is too short.
func (s *Sparse) CandidateCov(dst []float64) {
	c, m := len(s.xs), s.m
	if len(dst) < c*c || c == 0 {
		return
	}
	p := append([]float64(nil), s.kmc...)
	triSolveRows(s.lmm, m, p, c)
	q := append([]float64(nil), s.kmc...)
	triSolveRows(s.la, m, q, c)
	out := blas64.General{Rows: c, Cols: c, Stride: c, Data: dst[:c*c]}
	for i := 0; i < c; i++ {
		for j := i; j < c; j++ {
			v := s.k.Eval(s.xs[i], s.xs[j])
			dst[i*c+j], dst[j*c+i] = v, v
		}
	}
	blas64.Gemm(blas.Trans, blas.NoTrans, -1, blas64.General{Rows: m, Cols: c, Stride: c, Data: p},
		blas64.General{Rows: m, Cols: c, Stride: c, Data: p}, 1, out)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: m, Cols: c, Stride: c, Data: q},
		blas64.General{Rows: m, Cols: c, Stride: c, Data: q}, 1, out)
	for i := 0; i < c; i++ {
		for j := i + 1; j < c; j++ {
			v := 0.5 * (dst[i*c+j] + dst[j*c+i])
			dst[i*c+j], dst[j*c+i] = v, v
		}
		dst[i*c+i] = s.vr[i]
	}
}
