package gp

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The prior at a regular grid under a stationary kernel is block Toeplitz:
// ordering the nodes by their first coordinate's level (p blocks of b =
// M/p nodes), block (i, j) is R(|i − j|), with symmetric blocks R(m) (the
// kernel depends on each |x_d − y_d|). The block Levinson recursion
// (Whittle 1963; Wiggins & Robinson 1965, J. Geophys. Res. 70) computes the
// backward predictors c_k of the leading sections, c_k·T_k = [0 … 0 Pb_k],
// in O(p²b³) instead of the O(M³/3) = O(p³b³/3) of a Cholesky
// factorisation. Stacked as the block rows of a unit lower block-triangular
// W, they give W·T·Wᵀ = diag(Pb_k), so L = W⁻¹·diag(chol Pb_k) is a square
// root of T: L·Lᵀ = T. A draw L·z is a block forward substitution, O(M²/2),
// as with a Cholesky factor.

// grid describes a full regular grid: the levels of each axis, the strides
// of the flat index (first axis slowest) and every point's flat index.
type grid struct {
	levels [][]float64
	stride []int
	flat   []int // point i → flat index Σ_a idx_a·stride_a
	idx    []int // point i's level indices, len(points)·d
}

// gridOf reports whether xs form a full regular grid (every node exactly
// once, equally spaced levels to rounding, in any order) and a kernel
// that is a function of the per-axis distances (SE, Matérn, ARD).
func gridOf(kern Kernel, xs [][]float64) (*grid, bool) {
	switch kern.(type) {
	case SE, Matern, ARD:
	default:
		return nil, false
	}
	m := len(xs)
	if m < 2 {
		return nil, false
	}
	d := len(xs[0])
	g := &grid{levels: make([][]float64, d), stride: make([]int, d)}
	for a := 0; a < d; a++ {
		u := make([]float64, 0, m)
		for _, x := range xs {
			if len(x) != d {
				return nil, false
			}
			u = append(u, x[a])
		}
		slices.Sort(u)
		g.levels[a] = slices.Compact(u)
	}
	total := 1
	for a := d - 1; a >= 0; a-- {
		u := g.levels[a]
		n := len(u)
		g.stride[a] = total
		total *= n
		if total > m {
			return nil, false
		}
		if n > 1 { // equally spaced, to rounding
			h := (u[n-1] - u[0]) / float64(n-1)
			for i, v := range u {
				if math.Abs(v-(u[0]+float64(i)*h)) > 1e-9*math.Abs(h) {
					return nil, false
				}
			}
		}
	}
	if total != m {
		return nil, false
	}
	g.idx = make([]int, m*d)
	g.flat = make([]int, m)
	seen := make([]bool, m)
	for i, x := range xs {
		f := 0
		for a, v := range x {
			j, ok := slices.BinarySearch(g.levels[a], v)
			if !ok {
				return nil, false
			}
			g.idx[i*d+a] = j
			f += j * g.stride[a]
		}
		if seen[f] {
			return nil, false
		}
		seen[f] = true
		g.flat[i] = f
	}
	return g, true
}

// table returns k at every index offset: table[Σ_a Δ_a·stride_a] =
// k(node Δ, node 0), Π n_d kernel evaluations.
func (g *grid) table(kern Kernel) []float64 {
	d := len(g.levels)
	total := len(g.flat)
	t := make([]float64, total)
	x, y := make([]float64, d), make([]float64, d)
	for a := range y {
		y[a] = g.levels[a][0]
	}
	for f := range t {
		r := f
		for a := 0; a < d; a++ {
			x[a] = g.levels[a][r/g.stride[a]]
			r %= g.stride[a]
		}
		t[f] = kern.Eval(x, y)
	}
	return t
}

// offset is the table index of the pair (flat index u, flat index v).
func (g *grid) offset(u, v int) int {
	t := 0
	for _, s := range g.stride {
		du, dv := u/s, v/s
		u, v = u%s, v%s
		if du < dv {
			du, dv = dv, du
		}
		t += (du - dv) * s
	}
	return t
}

// gridGram writes the lower triangle of the Gram matrix of a stationary
// kernel at points forming a full regular grid (gridOf) into k (row-major
// len(xs)²) from the offset table: equal to direct evaluation to rounding,
// with Π n_d kernel evaluations instead of M²/2. It reports false, writing
// nothing, for any other kernel or point set.
func gridGram(kern Kernel, xs [][]float64, k []float64) bool {
	g, ok := gridOf(kern, xs)
	if !ok {
		return false
	}
	tab := g.table(kern)
	m := len(xs)
	for i := 0; i < m; i++ {
		row := k[i*m : i*m+i+1]
		for j := range row {
			row[j] = tab[g.offset(g.flat[i], g.flat[j])]
		}
	}
	return true
}

// toeplitzRoot is L = W⁻¹·diag(C_k) in grid order (see the top of the
// file): w holds W row-major M×M (block row k: c_k in its first (k+1)·b
// columns), c the lower Cholesky factors C_k of Pb_k (p blocks of b×b).
type toeplitzRoot struct {
	p, b int
	w, c []float64
}

// newToeplitzRoot runs the block Levinson recursion on the prior plus
// jitter·I at the grid g with offset table tab; false when a prediction
// error covariance is not numerically positive definite.
func newToeplitzRoot(g *grid, tab []float64, jit float64) (*toeplitzRoot, bool) {
	M := len(g.flat)
	p := len(g.levels[0])
	b := M / p
	// R(m) for m = 0..p−1, b×b: entries at within-block offsets
	r := make([]float64, p*b*b)
	for m := 0; m < p; m++ {
		blk := r[m*b*b : (m+1)*b*b]
		for i := 0; i < b; i++ {
			for j := 0; j < b; j++ {
				blk[i*b+j] = tab[m*b+g.offset(i, j)]
			}
		}
	}
	for i := 0; i < b; i++ {
		r[i*b+i] += jit
	}
	gen := func(d []float64, rows, cols, stride int) blas64.General {
		return blas64.General{Rows: rows, Cols: cols, Stride: stride, Data: d}
	}
	// rfwd = [R(1); …; R(p−1)], stacked (p−1)b × b
	rfwd := make([]float64, max(p-1, 0)*b*b)
	copy(rfwd, r[b*b:])
	t := &toeplitzRoot{p: p, b: b, w: make([]float64, M*M), c: make([]float64, p*b*b)}
	// The grid's T is centrosymmetric (reversing all nodes maps every
	// offset to itself), so the forward predictor is the backward one
	// reversed, a_k = J·c_k·J, with Pf_k = J·Pb_k·J and Δ_k = J·∇_k·J:
	// one recursion instead of two.
	a, c, nc := make([]float64, b*M), make([]float64, b*M), make([]float64, b*M) // stride M
	for i := 0; i < b; i++ {
		c[i*M+i] = 1
	}
	pb := slices.Clone(r[:b*b])
	pf, delta, nabla := make([]float64, b*b), make([]float64, b*b), make([]float64, b*b)
	y, cf := make([]float64, b*b), make([]float64, b*b)
	lower := func(d []float64) blas64.Triangular {
		return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: d}
	}
	for k := 0; ; k++ {
		n := (k + 1) * b
		for i := 0; i < b; i++ {
			copy(t.w[(k*b+i)*M:(k*b+i)*M+n], c[i*M:i*M+n])
		}
		cb := t.c[k*b*b : (k+1)*b*b]
		copy(cb, pb)
		if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: b, Stride: b, Data: cb}); !ok {
			return nil, false
		}
		for i := 0; i < b; i++ { // Potrf leaves the strict upper triangle
			clear(cb[i*b+i+1 : (i+1)*b])
		}
		if k == p-1 {
			return t, true
		}
		// a_k = J·c_k·J (row i: row b−1−i of c_k reversed), Pf = J·Pb·J
		for i := 0; i < b; i++ {
			src, dst := c[(b-1-i)*M:(b-1-i)*M+n], a[i*M:i*M+n]
			for j, v := range src {
				dst[n-1-j] = v
			}
			for j := 0; j < b; j++ {
				pf[i*b+j] = pb[(b-1-i)*b+b-1-j]
			}
		}
		copy(cf, pf)
		if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: b, Stride: b, Data: cf}); !ok {
			return nil, false
		}
		// ∇ = c_k·[R(1); …; R(k+1)], Δ = J·∇·J
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(c, b, n, M), gen(rfwd, n, b, b), 0, gen(nabla, b, b, b))
		for i := 0; i < b; i++ {
			for j := 0; j < b; j++ {
				delta[i*b+j] = nabla[(b-1-i)*b+b-1-j]
			}
		}
		// y = ∇·Pf⁻¹ (Pf = C·Cᵀ: right solves with Cᵀ, then C)
		copy(y, nabla)
		blas64.Trsm(blas.Right, blas.Trans, 1, lower(cf), gen(y, b, b, b))
		blas64.Trsm(blas.Right, blas.NoTrans, 1, lower(cf), gen(y, b, b, b))
		// c_{k+1} = [0 c_k] − y·[a_k 0], Pb −= y·Δ
		for i := 0; i < b; i++ {
			clear(nc[i*M : i*M+b])
			copy(nc[i*M+b:i*M+n+b], c[i*M:i*M+n])
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, gen(y, b, b, b), gen(a, b, n, M), 1, gen(nc, b, n, M))
		blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, gen(y, b, b, b), gen(delta, b, b, b), 1, gen(pb, b, b, b))
		c, nc = nc, c
	}
}

// mul overwrites v (grid order) with L·v: y_k = C_k·v_k, then the block
// forward substitution f_k = y_k − Σ_{j<k} W_kj·f_j.
func (t *toeplitzRoot) mul(v []float64) {
	p, b := t.p, t.b
	M := p * b
	for k := 0; k < p; k++ {
		blas64.Trmv(blas.NoTrans, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: t.c[k*b*b : (k+1)*b*b]},
			blas64.Vector{N: b, Inc: 1, Data: v[k*b : (k+1)*b]})
		if k > 0 {
			blas64.Gemv(blas.NoTrans, -1, blas64.General{Rows: b, Cols: k * b, Stride: M, Data: t.w[k*b*M:]},
				blas64.Vector{N: k * b, Inc: 1, Data: v[:k*b]}, 1, blas64.Vector{N: b, Inc: 1, Data: v[k*b : (k+1)*b]})
		}
	}
}

// solve overwrites v (grid order) with L⁻¹·v = diag(C_k)⁻¹·W·v.
func (t *toeplitzRoot) solve(v []float64) {
	p, b := t.p, t.b
	M := p * b
	for k := p - 1; k >= 0; k-- { // W·v from the last block row: rows use earlier entries only
		if k > 0 {
			blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: b, Cols: k * b, Stride: M, Data: t.w[k*b*M:]},
				blas64.Vector{N: k * b, Inc: 1, Data: v[:k*b]}, 1, blas64.Vector{N: b, Inc: 1, Data: v[k*b : (k+1)*b]})
		}
		blas64.Trsv(blas.NoTrans, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: t.c[k*b*b : (k+1)*b*b]},
			blas64.Vector{N: b, Inc: 1, Data: v[k*b : (k+1)*b]})
	}
}
