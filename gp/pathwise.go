package gp

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Pathwise Thompson draws at a fixed candidate set (Matheron's rule;
// Wilson, Borovitskiy, Terenin, Mostowsky & Deisenroth 2020, "Efficiently
// sampling functions from Gaussian process posteriors", ICML, §3):
//
//	f_post(·) = f₀(·) + k(·,X)(K_XX + λI)⁻¹(y − f₀(X) − ε),  f₀ ~ GP(0, k), ε ~ N(0, λI),
//
// is a draw from the posterior GP. With μ = k(·,X)(K_XX+λI)⁻¹y, the draw at
// the candidates C, its covariance scaled by s², is
//
//	μ_C + s·(f₀(C) − Wᵀ·L⁻¹(f₀(X) + ε)),  W = L⁻¹K_XC,  L·Lᵀ = K_XX + λI,
//
// where L and W are those Exact and Candidates already keep. f₀ is drawn
// jointly at C and at the observed points: an observed point that is a
// candidate takes the candidate's value; one that is not (a refined point,
// an initial design, an imposed action) gets a row appended to the lower
// factor of the prior over C ∪ {such points} (O((M+E)²) once per point). So
// a draw costs O(M² + t² + t·M) after the root of K_CC is made, once per
// kernel and candidate set, shared by the outputs that share the
// candidates (ShareCandidates, SharePrior): by Cholesky in O(M³), or on a
// regular grid by the block Levinson recursion (toeplitz.go).

// pathPrior is the lower-triangular root of K_CC + jitter·I over a
// candidate set, shared by every Candidates with the same kernel and
// points.
type pathPrior struct {
	k   Kernel
	xs  [][]float64
	idx map[string]int // candidate point (bit pattern) → index; built with l
	l   []float64      // M×M row-major lower factor; nil before the first draw
	// on a regular grid with a stationary kernel, the root is tr (grid
	// order, toeplitz.go) instead of l, and flat maps candidates to it
	tr   *toeplitzRoot
	flat []int
	jit  float64
	err  error
}

// pathState is one output's part of the pathwise draws: the factor rows of
// its observed points outside the candidate set (kept per output, so that
// a draw does not depend on what other outputs observed), the map from its
// factor rows to the prior's points, and scratch space.
type pathState struct {
	ex    map[string]int // extra point → index e (row M+e of the prior factor)
	exPts [][]float64    // the extra points in index order
	el    []float64      // packed rows: row e at e·M + e(e+1)/2, M+e+1 entries
	exN   int
	// rowPt[s] is the point slice of the GP factor's row s when rowIdx[s]
	// was looked up (identity check: rows are replaced by Unpend and Reset)
	rowPt  [][]float64
	rowIdx []int // index into C ∪ extras: < M a candidate, else M + e
	z, f0  []float64
	u, gv  []float64
}

func newPathPrior(k Kernel, xs [][]float64) *pathPrior { return &pathPrior{k: k, xs: xs} }

// sameKernel reports whether a and b are the same kernel: equal ARD
// kernels, or equal values of a comparable type (the same *Precomputed).
func sameKernel(a, b Kernel) bool {
	if a == nil || b == nil {
		return false
	}
	if x, ok := a.(ARD); ok {
		y, ok := b.(ARD)
		return ok && x.Nu == y.Nu && x.Variance == y.Variance && slices.Equal(x.Lengthscales, y.Lengthscales)
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// bitKey is the exact bit pattern of a point, as a map key.
func bitKey(x []float64) string {
	b := make([]byte, 8*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return string(b)
}

// factorise computes the prior factor on first use, with the jitter
// escalation of Sampler.Draw (1e-10 of the mean diagonal, ×10 per failure,
// up to 1e-4).
func (p *pathPrior) factorise() error {
	if p.l != nil || p.tr != nil || p.err != nil {
		return p.err
	}
	if p.toeplitz() {
		return nil
	}
	m := len(p.xs)
	k := make([]float64, m*m)
	if !gridGram(p.k, p.xs, k) {
		for i, x := range p.xs {
			evalRow(p.k, x, p.xs[:i+1], k[i*m:i*m+i+1])
		}
	}
	tr := 0.0
	for i := 0; i < m; i++ {
		tr += k[i*m+i]
	}
	for i := 0; i < m; i++ {
		for j, v := range k[i*m : i*m+i+1] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				p.err = fmt.Errorf("gp: Candidates.Sample kernel %v gives k(xs[%d], xs[%d]) = %v", p.k, i, j, v)
				return p.err
			}
		}
	}
	md := tr / float64(m)
	if !(md > 0) {
		p.err = fmt.Errorf("gp: Candidates.Sample prior at the %d candidates has mean variance %v: must be > 0", m, md)
		return p.err
	}
	l := make([]float64, m*m)
	jit := 1e-10 * md
	for maxJit := 1e-4 * md * (1 + 1e-9); jit <= maxJit; jit *= 10 {
		for i := 0; i < m; i++ {
			copy(l[i*m:i*m+i+1], k[i*m:i*m+i+1])
			clear(l[i*m+i+1 : (i+1)*m])
			l[i*m+i] += jit
		}
		if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: m, Stride: m, Data: l}); ok {
			p.l, p.jit = l, jit
			p.index()
			return nil
		}
	}
	p.err = fmt.Errorf("gp: Candidates.Sample prior at the %d candidates is not positive semi-definite: Cholesky failed with jitter up to %.3g (1e-4 × mean variance %.3g)", m, jit/10, md)
	return p.err
}

// index builds the map from candidate points to their indices.
func (p *pathPrior) index() {
	p.idx = make(map[string]int, len(p.xs))
	for i, x := range p.xs {
		if _, dup := p.idx[bitKey(x)]; !dup {
			p.idx[bitKey(x)] = i
		}
	}
}

// toeplitz makes the block-Toeplitz root when the candidates are a regular
// grid and the kernel stationary (toeplitz.go), with the jitter escalation
// of factorise; false (nothing set) otherwise, or when the recursion fails
// at every jitter (factorise then tries the Cholesky factorisation).
func (p *pathPrior) toeplitz() bool {
	g, ok := gridOf(p.k, p.xs)
	if !ok {
		return false
	}
	tab := g.table(p.k)
	for _, v := range tab {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	md := tab[0] // k(x, x), the same at every node
	if !(md > 0) {
		return false
	}
	jit := 1e-10 * md
	for maxJit := 1e-4 * md * (1 + 1e-9); jit <= maxJit; jit *= 10 {
		if tr, ok := newToeplitzRoot(g, tab, jit); ok {
			p.tr, p.flat, p.jit = tr, g.flat, jit
			p.index()
			return true
		}
	}
	return false
}

// SharePrior makes c use the prior factor of o (computed once for both)
// when they have the same kernel and candidate points: an Adaptive model's
// rebuild with an unchanged kernel keeps its factor. With another kernel,
// when o has drawn (its factor exists), c's factor is computed now: a model
// rebuilt by a refit, which an agent observes concurrently with its other
// models, then does not make the next decision wait for it. An error is
// left for Sample to report.
func (c *Candidates) SharePrior(o *Candidates) {
	if c.err != nil || o == nil || o.err != nil || o.prior == nil || c.prior == o.prior || len(c.xs) != len(o.xs) {
		return
	}
	for i, x := range c.xs {
		if !slices.Equal(x, o.xs[i]) {
			return
		}
	}
	if sameKernel(c.prior.k, o.prior.k) {
		c.prior = o.prior
		return
	}
	if o.prior.l != nil || o.prior.tr != nil {
		_ = c.prior.factorise()
	}
}

// Sample writes into dst (one entry per candidate) a joint draw from the
// posterior at the candidates with its covariance scaled by scale²,
// N(μ, scale²·Σ), by Matheron's rule (see the top of this file), Σ being
// the posterior given every point of the GP, pending ones included. The
// first call makes the prior's root at the candidates (Cholesky, O(M³); on
// a regular grid block Levinson, O(p²b³); shared as described); each call
// then costs O(M² + t² + t·M), plus O((M+E)²) for each observed point
// outside the candidate set seen for the first time.
//
// rng supplies M + E standard normals for f₀ (E the points outside the
// candidate set this output has seen), then t for ε, so the draw is a
// function of the rng state and the GP's history. scale must be finite and
// ≥ 0. Not safe for concurrent use (like Sync).
func (c *Candidates) Sample(rng *rand.Rand, scale float64, dst []float64) error {
	switch {
	case rng == nil:
		return fmt.Errorf("gp: Candidates.Sample rng is nil")
	case len(dst) != c.m:
		return fmt.Errorf("gp: Candidates.Sample dst must have M = %d entries, got %d", c.m, len(dst))
	case math.IsNaN(scale) || math.IsInf(scale, 0) || scale < 0:
		return fmt.Errorf("gp: Candidates.Sample scale must be finite and >= 0, got %v", scale)
	}
	if err := c.Sync(); err != nil {
		return err
	}
	m := c.m
	if m == 0 {
		return nil
	}
	p := c.prior
	if err := p.factorise(); err != nil {
		return err
	}
	if c.path == nil {
		c.path = &pathState{ex: map[string]int{}}
	}
	st := c.path
	f := c.g.f
	n := c.t
	if err := st.mapRows(p, f.pts[:n]); err != nil {
		return err
	}
	// z ~ N(0, I) over C ∪ extras; f₀(C) = R·z[:M], R the prior's root.
	a := m + st.exN
	st.z = grow(st.z, a)
	st.f0 = grow(st.f0, m)
	z, f0 := st.z, st.f0
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	if p.tr != nil {
		st.gv = grow(st.gv, m)
		copy(st.gv, z[:m])
		p.tr.mul(st.gv)
		for i, g := range p.flat {
			f0[i] = st.gv[g]
		}
	} else {
		copy(f0, z[:m])
		blas64.Trmv(blas.NoTrans, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: m, Data: p.l},
			blas64.Vector{N: m, Inc: 1, Data: f0})
	}
	if n > 0 {
		// u = L⁻¹(f₀(X) + ε), ε ~ N(0, λI); f₀ −= Wᵀu.
		st.u = grow(st.u, n)
		u := st.u
		sd := math.Sqrt(f.lam)
		for s, i := range st.rowIdx[:n] {
			var v float64
			if i < m {
				v = f0[i]
			} else {
				e := i - m
				o := e*m + e*(e+1)/2
				v = floats.Dot(st.el[o:o+m+e+1], z[:m+e+1])
			}
			u[s] = v + sd*rng.NormFloat64()
		}
		f.solveL(u)
		blas64.Gemv(blas.Trans, -1, blas64.General{Rows: n, Cols: m, Stride: m, Data: c.b.w[:n*m]},
			blas64.Vector{N: n, Inc: 1, Data: u}, 1, blas64.Vector{N: m, Inc: 1, Data: f0})
	}
	for i, mu := range c.mu {
		dst[i] = mu + scale*f0[i]
	}
	return nil
}

// mapRows brings rowIdx up to date with the GP's rows pts: a row whose point
// slice is the one looked up before keeps its index; any other is looked up
// among the candidates, then this output's extra points, and appended to
// those (addExtra) when new.
func (st *pathState) mapRows(p *pathPrior, pts [][]float64) error {
	n := len(pts)
	if len(st.rowIdx) > n {
		st.rowIdx, st.rowPt = st.rowIdx[:n], st.rowPt[:n]
	}
	for s, x := range pts {
		if s < len(st.rowIdx) && &st.rowPt[s][0] == &x[0] {
			continue
		}
		if s < len(st.rowIdx) { // a row replaced since: forget from here
			st.rowIdx, st.rowPt = st.rowIdx[:s], st.rowPt[:s]
		}
		key := bitKey(x)
		i, ok := p.idx[key]
		if !ok {
			e, seen := st.ex[key]
			if !seen {
				var err error
				if e, err = st.addExtra(p, x); err != nil {
					return err
				}
				st.ex[key] = e
			}
			i = len(p.xs) + e
		}
		st.rowIdx = append(st.rowIdx, i)
		st.rowPt = append(st.rowPt, x)
	}
	return nil
}

// addExtra appends the prior factor's row of a point x outside the
// candidate set: l = L_A⁻¹k(A, x) over the points A so far, diagonal
// √(k(x,x) + jitter − ‖l‖²), 0 when that is not positive (x is then, to
// rounding, determined by A: the semidefinite factor has a zero column
// there, whose entries in later rows are 0).
func (st *pathState) addExtra(p *pathPrior, x []float64) (int, error) {
	m, e := len(p.xs), st.exN
	o := e*m + e*(e+1)/2
	st.el = slices.Grow(st.el, m+e+1)[:o+m+e+1]
	r := st.el[o:]
	evalCol(p.k, p.xs, x, r[:m])
	evalCol(p.k, st.exPts, x, r[m:m+e])
	kxx := p.k.Eval(x, x)
	for j, v := range r[:m+e] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("gp: Candidates.Sample kernel %v gives k(·, x) = %v at prior point %d, x = %v", p.k, v, j, x)
		}
	}
	if math.IsNaN(kxx) || math.IsInf(kxx, 0) {
		return 0, fmt.Errorf("gp: Candidates.Sample kernel %v gives k(x, x) = %v at x = %v", p.k, kxx, x)
	}
	if p.tr != nil { // in grid order, the order of z
		gv := make([]float64, m)
		for i, g := range p.flat {
			gv[g] = r[i]
		}
		p.tr.solve(gv)
		copy(r[:m], gv)
	} else {
		blas64.Trsv(blas.NoTrans, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: m, Data: p.l},
			blas64.Vector{N: m, Inc: 1, Data: r[:m]})
	}
	for j := 0; j < e; j++ {
		oj := j*m + j*(j+1)/2
		rj := st.el[oj : oj+m+j+1]
		if d := rj[m+j]; d > 0 {
			r[m+j] = (r[m+j] - floats.Dot(rj[:m+j], r[:m+j])) / d
		} else {
			r[m+j] = 0
		}
	}
	d2 := kxx + p.jit - floats.Dot(r[:m+e], r[:m+e])
	r[m+e] = math.Sqrt(math.Max(d2, 0))
	st.exPts = append(st.exPts, slices.Clone(x))
	st.exN++
	return e, nil
}
