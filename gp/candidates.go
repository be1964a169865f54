package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// candBlock is W = L⁻¹K(X_t, xs) for one factor and one candidate set (t×M,
// each row a contiguous M-vector). It depends only on the kernel, λ and the
// points, so the Candidates of outputs sharing a factor share it; by the
// prefix property of L, its first n rows serve an output that has observed
// n points.
type candBlock struct {
	f   *factor
	gen int
	xs  [][]float64
	m   int
	kd  []float64 // k(x_j, x_j)
	w   []float64 // t×M row-major
	t   int
}

// Candidates keeps the posterior of an Exact GP current at M fixed candidate
// points. It uses W = L⁻¹K(X_t, xs) (t×M, each row a contiguous M-vector),
// so that a new observation x_{t+1} appends one row
//
//	w_j = (k(x_{t+1}, x_j) − Σ_s L[t+1,s]·W[s,j]) / L[t+1,t+1]
//
// and updates μ_j += w_j·v_{t+1}, σ_j² −= w_j², in O(t·M). Candidates of
// outputs that share a factor (Exact.Share, ShareCandidates) share W: the
// O(t·M) row is computed once and each output pays O(M).
//
// A Candidates is not safe for concurrent use, and reads its Exact's
// internal state, so it must not be used concurrently with that Exact either.
type Candidates struct {
	g   *Exact
	b   *candBlock
	xs  [][]float64
	m   int
	t   int // number of rows incorporated into mu, vr
	kd  []float64
	mu  []float64
	vr  []float64
	err error // construction error, reported by Sync
	// pending: vr includes pending points; saved and real restore it (Unpend)
	pending bool
	saved   []float64
	real    int
	// prior: the factor of the prior at xs for pathwise draws (Sample),
	// shared with the Candidates of the same kernel and points; path: this
	// output's part of them (pathwise.go)
	prior *pathPrior
	path  *pathState
}

// NewCandidates returns the posterior of g at the points xs (copied),
// computed in O(t²M). Errors (nil g, empty or non-finite points, a kernel
// returning NaN) are reported by the first call to Sync; Mean and Var are then
// NaN.
func NewCandidates(g *Exact, xs [][]float64) *Candidates {
	c := &Candidates{g: g, m: len(xs)}
	c.xs = make([][]float64, len(xs))
	for i, x := range xs {
		c.xs[i] = append([]float64(nil), x...)
	}
	c.mu = make([]float64, c.m)
	c.vr = make([]float64, c.m)
	c.kd = make([]float64, c.m)
	if g == nil {
		c.fail(fmt.Errorf("gp: NewCandidates Exact is nil"))
		return c
	}
	f := g.f
	for i, x := range c.xs {
		if err := checkPoint(fmt.Sprintf("NewCandidates xs[%d]", i), x); err != nil {
			c.fail(err)
			return c
		}
		if len(f.pts) > 0 && len(x) != len(f.pts[0]) {
			c.fail(fmt.Errorf("gp: NewCandidates xs[%d] has dimension %d, the GP's points have %d", i, len(x), len(f.pts[0])))
			return c
		}
		kd := f.k.Eval(x, x)
		if math.IsNaN(kd) || math.IsInf(kd, 0) || kd < 0 {
			c.fail(fmt.Errorf("gp: NewCandidates kernel %v gives k(x,x) = %v at xs[%d]", f.k, kd, i))
			return c
		}
		c.kd[i] = kd
	}
	c.b = c.newBlock()
	c.prior = newPathPrior(f.k, c.xs)
	c.reset()
	if err := c.Sync(); err != nil {
		c.fail(err)
	}
	return c
}

// ShareCandidates returns the posterior of g at the candidates of c, sharing
// c's matrix W when g shares c's Exact's factor (Exact.Share): the candidate
// rows are then computed once for both; otherwise g gets its own W. c must
// have been built without error.
func ShareCandidates(g *Exact, c *Candidates) (*Candidates, error) {
	if c.err != nil {
		return nil, c.err
	}
	if g == nil {
		return nil, fmt.Errorf("gp: ShareCandidates Exact is nil")
	}
	n := &Candidates{g: g, m: c.m, xs: c.xs, kd: c.kd,
		mu: make([]float64, c.m), vr: make([]float64, c.m)}
	if g.f == c.b.f {
		n.b = c.b
	} else {
		n.b = n.newBlock()
	}
	if sameKernel(g.f.k, c.prior.k) {
		n.prior = c.prior
	} else {
		n.prior = newPathPrior(g.f.k, c.xs)
	}
	n.reset()
	if err := n.Sync(); err != nil {
		return nil, err
	}
	return n, nil
}

func (c *Candidates) newBlock() *candBlock {
	return &candBlock{f: c.g.f, gen: c.g.f.gen, xs: c.xs, m: c.m, kd: c.kd}
}

func (c *Candidates) fail(err error) {
	c.err = err
	for i := range c.mu {
		c.mu[i] = math.NaN()
		c.vr[i] = math.NaN()
	}
}

func (c *Candidates) reset() {
	c.t = 0
	copy(c.vr, c.kd)
	for i := range c.mu {
		c.mu[i] = 0
	}
}

// Mean returns μ_t at the candidates as of the last Sync (read-only view).
func (c *Candidates) Mean() []float64 { return c.mu }

// Var returns σ_t² (clamped at 0) at the candidates as of the last Sync
// (read-only view).
func (c *Candidates) Var() []float64 { return c.vr }

// Points returns the candidate points (read-only).
func (c *Candidates) Points() [][]float64 { return c.xs }

// Len returns the number of observations of the GP incorporated so far.
func (c *Candidates) Len() int { return c.t }

// Sync incorporates every point added to the GP since the last Sync, in
// O(t·M) per point (O(M) when a sharing output has already computed its row
// of W). If the GP was Reset in between, or moved to a private factor, the
// posterior is rebuilt from scratch.
func (c *Candidates) Sync() error {
	if c.err != nil {
		return c.err
	}
	g := c.g
	b := c.b
	if b.f != g.f || b.gen != g.f.gen {
		if b.f == g.f {
			b.gen, b.t = g.f.gen, 0 // the factor was reset: its rows are gone
			b.w = b.w[:0]
		} else {
			c.b = c.newBlock()
			b = c.b
		}
		c.reset()
	}
	n := len(g.ys)
	if c.t > n {
		c.reset()
	}
	if c.t == n {
		return nil
	}
	if b.t < n {
		if err := b.sync(n); err != nil {
			return err
		}
	}
	m := c.m
	mu, vr := c.mu[:m], c.vr[:m]
	for s := c.t; s < n; s++ {
		row := b.w[s*m : (s+1)*m]
		vs := g.v[s]
		for j, x := range row {
			mu[j] += x * vs
			v := vr[j] - x*x
			if v < 0 {
				v = 0
			}
			vr[j] = v
		}
	}
	c.t = n
	return nil
}

// Reserve makes room in W for the rows of t observations, so that Syncs
// up to t observations copy no rows (a rebuild replays its observations
// one Sync at a time).
func (c *Candidates) Reserve(t int) {
	if b := c.b; c.err == nil && b.f == c.g.f && cap(b.w) < t*b.m {
		b.w = append(make([]float64, 0, t*b.m), b.w...)
	}
}

// sync computes the rows of W up to n ≤ len(f.pts).
func (b *candBlock) sync(n int) error {
	f := b.f
	m := b.m
	from := b.t
	if m == 0 {
		b.t = n
		return nil
	}
	need := n * m
	if cap(b.w) < need {
		nc := 2 * cap(b.w)
		if nc < need {
			nc = need
		}
		nw := make([]float64, len(b.w), nc)
		copy(nw, b.w)
		b.w = nw
	}
	b.w = b.w[:need]
	// Kernel values for the new rows.
	for s := from; s < n; s++ {
		row := b.w[s*m : (s+1)*m]
		evalRow(f.k, f.pts[s], b.xs, row)
		for j, kv := range row {
			if math.IsNaN(kv) || math.IsInf(kv, 0) {
				b.w = b.w[:from*m]
				return fmt.Errorf("gp: Candidates.Sync kernel %v gives k(x_%d, xs[%d]) = %v", f.k, s, j, kv)
			}
		}
	}
	if n-from >= blockRows {
		b.solveBlocked(from, n)
	} else {
		for s := from; s < n; s++ {
			lr := f.row(s)
			out := b.w[s*m : (s+1)*m]
			if s > 0 {
				blas64.Gemv(blas.Trans, -1,
					blas64.General{Rows: s, Cols: m, Stride: m, Data: b.w[:s*m]},
					blas64.Vector{N: s, Inc: 1, Data: lr[:s]}, 1,
					blas64.Vector{N: m, Inc: 1, Data: out})
			}
			floats.Scale(1/lr[s], out)
		}
	}
	b.t = n
	return nil
}

// SeedSolve puts candidate j's column of W = L⁻¹K(X, xs) into the solve
// cache of the GP's factor, so that PredictBatch at that candidate (the start
// of a refinement) needs no O(t²) solve for its value — only for the
// gradient — and Add of that candidate none at all. The column equals a
// fresh solve to rounding (it was computed by matrix–vector products). Call
// after Sync.
func (c *Candidates) SeedSolve(j int) {
	if c.err != nil || j < 0 || j >= c.m {
		return
	}
	b, f := c.b, c.g.f
	if b.f != f || b.gen != f.gen || b.t == 0 {
		return
	}
	sc := &f.sc
	if sc.gen != f.gen {
		sc.clear()
		sc.gen = f.gen
	}
	if sc.find(c.xs[j]) != nil {
		return
	}
	w := make([]float64, b.t, len(f.pts)+1)
	for s := range w {
		w[s] = b.w[s*c.m+j]
	}
	sc.put(&cacheEntry{x: c.xs[j], n: b.t, w: w, kxx: c.kd[j]})
}

// blockRows is the number of pending rows from which Sync switches from one
// matrix–vector product per row to blocked matrix–matrix products.
const blockRows = 16

// solveBlocked performs the forward substitution W[from:T] ← L⁻¹(…) for many
// pending rows at once: for each block of 64 rows, the contribution of all
// earlier rows is subtracted with one matrix–matrix product, and the block
// itself is solved row by row.
func (b *candBlock) solveBlocked(from, T int) {
	const bs = 64
	f, m := b.f, b.m
	lb := make([]float64, bs*T)
	for r0 := from; r0 < T; r0 += bs {
		r1 := min(r0+bs, T)
		nb := r1 - r0
		if r0 > 0 {
			for s := r0; s < r1; s++ {
				copy(lb[(s-r0)*r0:(s-r0+1)*r0], f.row(s)[:r0])
			}
			blas64.Gemm(blas.NoTrans, blas.NoTrans, -1,
				blas64.General{Rows: nb, Cols: r0, Stride: r0, Data: lb[:nb*r0]},
				blas64.General{Rows: r0, Cols: m, Stride: m, Data: b.w[:r0*m]}, 1,
				blas64.General{Rows: nb, Cols: m, Stride: m, Data: b.w[r0*m : r1*m]})
		}
		for s := r0; s < r1; s++ {
			lr := f.row(s)
			out := b.w[s*m : (s+1)*m]
			for r := r0; r < s; r++ {
				floats.AddScaled(out, -lr[r], b.w[r*m:(r+1)*m])
			}
			floats.Scale(1/lr[s], out)
		}
	}
}

// truncate drops incorporated observations beyond the first t (benchmarks
// only; the caller truncates the Exact consistently and must have
// recorded mean and variance to restore).
func (c *Candidates) truncate(t int, mu, vr []float64) {
	if t >= c.t {
		return
	}
	c.t = t
	c.b.t = t
	c.b.w = c.b.w[:t*c.m]
	copy(c.mu, mu)
	copy(c.vr, vr)
}
