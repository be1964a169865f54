package gp

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// cacheEntry is a point solved against a factor: w = L_n⁻¹k(X_n, x) and,
// when computed, dw[i] = L_n⁻¹∂k(X_n, x)/∂x_i. By the prefix property of L
// the first n' ≤ n entries are the solve against the first n' points, and
// the entry is extended to more rows in O((t−n)·t).
type cacheEntry struct {
	x    []float64
	n    int
	w    []float64
	dw   [][]float64
	kxx  float64
	dkxx []float64 // ∂k(x, x)/∂x
	bad  bool      // the kernel returned a non-finite value
	// c, for an ARD kernel and a point solved without gradients in a
	// small batch: the factors of ∂k(X, x)/∂x (ARD.shape), so that its
	// gradients later reuse the exponentials (a line search's accepted
	// point); valid while len(c) = n. Not in snapshots: a restored entry
	// computes its gradients by Grad, the same numbers.
	c []float64 `snap:"-"`
	// buf is the allocation x, w and c came from in solve, which the cache
	// recycles once it drops the entry (nil: not solve's, or restored).
	buf []float64 `snap:"-"`
}

// shapeBatch is the largest batch whose points keep their gradient factors
// (cacheEntry.c): a line search's single points, not a trust region's
// thousands of fresh candidates.
const shapeBatch = 8

// solveCache holds the last solved points of a factor, so that outputs
// sharing the factor solve a batch once, and Add reuses the solve of the
// point that refinement picked.
type solveCache struct {
	gen  int
	e    []*cacheEntry
	next int
	// free holds the allocations of entries the cache dropped, for solve's
	// next fresh points (recycle, take): a line search's trials otherwise
	// allocate and clear one each per model.
	free [][]float64 `snap:"-"`
}

// recycle keeps e's allocation for take. solve's callers read its result
// before the factor's next solve, so a dropped entry is no longer read.
func (c *solveCache) recycle(e *cacheEntry) {
	if e.buf != nil && len(c.free) < solveCacheSize {
		c.free = append(c.free, e.buf)
		e.buf = nil
	}
}

// take returns n float64s, not cleared. With room (a line search's
// points): a recycled allocation when the last one kept is large enough,
// else a new one with room for a few more rows (t grows by one an
// observation). Without (a trust region's thousands of candidates, which
// the cache mostly drops in the same call): a new one of n.
func (c *solveCache) take(n int, room bool) []float64 {
	if !room {
		return make([]float64, n)
	}
	for len(c.free) > 0 { // one too small is dropped: t does not shrink but by an undo
		b := c.free[len(c.free)-1]
		c.free[len(c.free)-1] = nil
		c.free = c.free[:len(c.free)-1]
		if cap(b) >= n {
			return b[:n]
		}
	}
	return make([]float64, n, n+32)
}

// solveCacheSize is the number of points kept: a few refinement batches.
const solveCacheSize = 32

func (c *solveCache) clear() {
	for i, e := range c.e {
		c.recycle(e)
		c.e[i] = nil
	}
	c.e = c.e[:0]
	c.next = 0
}

func (c *solveCache) find(x []float64) *cacheEntry {
	for _, e := range c.e {
		if slices.Equal(e.x, x) {
			return e
		}
	}
	return nil
}

func (c *solveCache) put(e *cacheEntry) {
	for i, o := range c.e {
		if slices.Equal(o.x, e.x) {
			if o != e {
				c.recycle(o)
			}
			c.e[i] = e
			return
		}
	}
	if len(c.e) < solveCacheSize {
		c.e = append(c.e, e)
		return
	}
	c.recycle(c.e[c.next])
	c.e[c.next] = e
	c.next = (c.next + 1) % solveCacheSize
}

// extend brings e up to all t rows of f; it reports false if the kernel
// returned a non-finite value.
func (f *factor) extend(e *cacheEntry) bool {
	t := len(f.pts)
	if e.bad {
		return false
	}
	if e.n >= t {
		return true
	}
	e.w = grow(e.w, t)
	for i := range e.dw {
		e.dw[i] = grow(e.dw[i], t)
	}
	var gk GradKernel
	var g []float64
	if e.dw != nil {
		gk = f.k.(GradKernel)
		g = make([]float64, len(e.x))
	}
	for s := e.n; s < t; s++ {
		r := f.row(s)
		var kv float64
		if gk != nil {
			kv = gk.Grad(f.pts[s], e.x, g)
		} else {
			kv = f.k.Eval(f.pts[s], e.x)
		}
		if math.IsNaN(kv) || math.IsInf(kv, 0) {
			e.bad = true
			return false
		}
		e.w[s] = (kv - floats.Dot(r[:s], e.w[:s])) / r[s]
		for i, d := range e.dw {
			d[s] = (g[i] - floats.Dot(r[:s], d[:s])) / r[s]
		}
	}
	e.n = t
	return true
}

func grow(b []float64, n int) []float64 {
	if cap(b) >= n {
		return b[:n]
	}
	nb := make([]float64, n, n+n/2+16)
	copy(nb, b)
	return nb
}

// lookup copies L⁻¹k(X, x) into dst (len(f.pts) entries) from the cache,
// reporting false if x is not there.
func (c *solveCache) lookup(f *factor, x []float64, dst []float64) bool {
	if c.gen != f.gen {
		return false
	}
	e := c.find(x)
	if e == nil || !f.extend(e) {
		return false
	}
	copy(dst, e.w[:len(dst)])
	return true
}

// solveScratch holds solve's slices between calls: its result (out) and
// the fresh entries and right-hand sides of a call.
type solveScratch struct {
	out   []*cacheEntry
	fresh []*cacheEntry
	rhs   [][]float64
}

// solveBlock is how many right-hand sides one pass over L solves: 64 of
// t = 200 entries are 100 kB, within a core's L2 cache, where thousands of
// them (a trust region's fresh candidates) are not; BenchmarkPredictBatchFresh.
const solveBlock = 64

// solve returns the cache entries of xs solved against all rows of f, with
// gradients when grad is set (the kernel must be a GradKernel). Points not in
// the cache are solved together: one pass over L for every right-hand side.
func (f *factor) solve(xs [][]float64, grad bool) ([]*cacheEntry, error) {
	c := &f.sc
	if c.gen != f.gen {
		c.clear()
		c.gen = f.gen
	}
	var gk GradKernel
	if grad {
		var ok bool
		if gk, ok = f.k.(GradKernel); !ok {
			return nil, fmt.Errorf("gp: kernel %v has no closed-form gradient", f.k)
		}
	}
	t := len(f.pts)
	var out, fresh []*cacheEntry
	var rhs [][]float64
	if len(xs) <= shapeBatch { // a line search's points: the scratch's slices
		sc := &f.scr
		clear(sc.out)
		out, fresh, rhs = slices.Grow(sc.out[:0], len(xs))[:len(xs)], sc.fresh[:0], sc.rhs[:0]
		defer func() {
			clear(fresh)
			clear(rhs)
			sc.out, sc.fresh, sc.rhs = out, fresh[:0], rhs[:0]
		}()
	} else {
		out = make([]*cacheEntry, len(xs))
	}
	for j, x := range xs {
		if err := checkPointAt("PredictBatch xs", j, x); err != nil {
			return nil, err
		}
		if t > 0 && len(x) != len(f.pts[0]) {
			return nil, fmt.Errorf("gp: PredictBatch xs[%d] has dimension %d, the GP's points have %d", j, len(x), len(f.pts[0]))
		}
		if e := c.find(x); e != nil {
			if !f.extend(e) {
				return nil, fmt.Errorf("gp: PredictBatch kernel %v is not finite at xs[%d] = %v", f.k, j, x)
			}
			out[j] = e
			if grad && e.dw == nil { // w known (a candidate's column of W): solve ∂k only
				d := len(x)
				e.dw = gradRows(d, t)
				e.dkxx = make([]float64, d)
				gk.Grad(x, x, e.dkxx)
				floats.Scale(2, e.dkxx)
				if a, ok := f.k.(ARD); ok && len(e.c) == t && len(a.Lengthscales) == d {
					// Grad's arithmetic from the kept factors
					for s, p := range f.pts {
						for i, l := range a.Lengthscales {
							e.dw[i][s] = e.c[s] * (p[i] - x[i]) / (l * l)
						}
					}
					rhs = append(rhs, e.dw...)
					continue
				}
				g := make([]float64, d)
				for s, p := range f.pts {
					kv := gk.Grad(p, x, g)
					if math.IsNaN(kv) || math.IsInf(kv, 0) {
						e.dw = nil
						return nil, fmt.Errorf("gp: PredictBatch kernel %v gives k(x_%d, xs[%d]) = %v", f.k, s, j, kv)
					}
					for i, v := range g {
						e.dw[i][s] = v
					}
				}
				rhs = append(rhs, e.dw...)
			}
			continue
		}
		d := len(x)
		a, isARD := f.k.(ARD)
		shape := isARD && !grad && len(xs) <= shapeBatch && len(a.Lengthscales) == d
		// x and w in one allocation (and c after them, which snapshots
		// skip); each capped, so that extend's grow of w reallocates
		n := d + t
		if shape {
			n += t
		}
		room := len(xs) <= shapeBatch
		buf := c.take(n, room)
		e := &cacheEntry{x: buf[:d:d], n: t, w: buf[d : d+t : d+t]}
		if room { // a large batch's allocations are not kept: too small for a trial's
			e.buf = buf
		}
		copy(e.x, x)
		var g []float64
		if grad {
			g = make([]float64, d)
			e.dw = gradRows(d, t)
			e.dkxx = make([]float64, d)
			e.kxx = gk.Grad(x, x, e.dkxx)
			// d/dx k(x, x) = 2·∂k(x, y)/∂y at y = x for a symmetric kernel.
			floats.Scale(2, e.dkxx)
		} else {
			e.kxx = f.k.Eval(x, x)
		}
		if math.IsNaN(e.kxx) || math.IsInf(e.kxx, 0) {
			return nil, fmt.Errorf("gp: PredictBatch kernel %v gives k(x,x) = %v at xs[%d]", f.k, e.kxx, j)
		}
		if shape {
			e.c = buf[d+t : d+2*t : d+2*t]
			evalColShape(a, f.pts, x, e.w, e.c)
		} else if !grad {
			evalCol(f.k, f.pts, x, e.w)
		}
		for s, p := range f.pts {
			if grad {
				e.w[s] = gk.Grad(p, x, g)
				for i, v := range g {
					e.dw[i][s] = v
				}
			}
			if kv := e.w[s]; math.IsNaN(kv) || math.IsInf(kv, 0) {
				return nil, fmt.Errorf("gp: PredictBatch kernel %v gives k(x_%d, xs[%d]) = %v", f.k, s, j, kv)
			}
		}
		rhs = append(rhs, e.w)
		rhs = append(rhs, e.dw...)
		fresh = append(fresh, e)
		out[j] = e
	}
	// One pass over the rows of L for each block of right-hand sides
	// (forward): a block's right-hand sides stay in cache across the rows
	// (each is computed by the same operations in the same order as alone).
	for lo := 0; lo < len(rhs); lo += solveBlock {
		f.forward(rhs[lo:min(lo+solveBlock, len(rhs))], t)
	}
	for _, e := range fresh {
		c.put(e)
	}
	return out, nil
}

// forward overwrites each b of blk with L_t⁻¹b (rows 0..t−1), bit for bit
// as row-by-row substitution with floats.Dot. Where gonum's DotUnitary is
// its assembly, four rows at a time: dot4 accumulates their dot products
// over the first s entries (s a multiple of 4) in DotUnitary's four lanes,
// and the rest (row s+k's entries s..s+k−1, DotUnitary's tail, into lane 0)
// and the lanes' sum follow in its order. Four independent sums in flight
// instead of one: one right-hand side's substitution (a line-search trial)
// is bound by the latency of its adds, not by their count.
func (f *factor) forward(blk [][]float64, t int) {
	s := 0
	if haveDot4 {
		var acc [16]float64
		for ; s+4 <= t; s += 4 {
			o := s * (s + 1) / 2 // rows s..s+3 follow each other in f.l
			rows := [4][]float64{f.l[o : o+s+1], f.l[o+s+1 : o+2*s+3], f.l[o+2*s+3 : o+3*s+6], f.l[o+3*s+6 : o+4*s+10]}
			for _, b := range blk {
				b = b[:s+4]
				if s > 0 {
					dot4(&rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], &b[0], s, &acc)
				} else {
					acc = [16]float64{}
				}
				for k, r := range rows {
					a := acc[4*k : 4*k+4]
					a0 := a[0]
					for i := s; i < s+k; i++ {
						a0 += float64(r[i] * b[i]) // rounded apart, as MULSD then ADDSD
					}
					b[s+k] = (b[s+k] - ((a[1] + a[3]) + (a0 + a[2]))) / r[s+k]
				}
			}
		}
	}
	// Row by row: row s is read once for the block while it is hot in
	// cache, its diagonal after the dot products, so that L is read as one
	// sequential stream (reading it first costs a cache miss per row once
	// L outgrows the cache).
	for ; s < t; s++ {
		r := f.row(s)
		rs := r[:s]
		for _, b := range blk {
			b[s] -= floats.Dot(rs, b[:s])
		}
		d := r[s]
		for _, b := range blk {
			b[s] /= d
		}
	}
}

// gradRows returns d rows of t zeros over one allocation, each capped (a
// cache entry's dw).
func gradRows(d, t int) [][]float64 {
	buf := make([]float64, d*t)
	dw := make([][]float64, d)
	for i := range dw {
		dw[i] = buf[i*t : (i+1)*t : (i+1)*t]
	}
	return dw
}

// PredictBatch writes the posterior mean and variance (clamped at 0) at each
// point of xs into mean and variance, and, when dmean and dvar are not nil,
// their gradients (dmean[j], dvar[j] with len(xs[j]) entries each):
//
//	∇μ(x) = (L⁻¹∂k)ᵀv,  ∇σ²(x) = ∇k(x,x) − 2(L⁻¹∂k)ᵀL⁻¹k,
//
// ∂k = ∂k(X, x)/∂x (the kernel must then be a GradKernel). All points are
// solved in one pass over L (several right-hand sides), and the solves are
// cached, so that outputs sharing the factor evaluate the same batch for
// O(t) each, and Add of a point solved here skips its O(t²) solve. The
// values equal those of Predict to rounding (the same operations).
func (g *Exact) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	if len(mean) < len(xs) || len(variance) < len(xs) {
		return fmt.Errorf("gp: PredictBatch has %d points but room for %d means and %d variances", len(xs), len(mean), len(variance))
	}
	grad := dmean != nil || dvar != nil
	if grad && (len(dmean) < len(xs) || len(dvar) < len(xs)) {
		return fmt.Errorf("gp: PredictBatch has %d points but room for %d mean and %d variance gradients", len(xs), len(dmean), len(dvar))
	}
	es, err := g.f.solve(xs, grad)
	if err != nil {
		return err
	}
	n := len(g.ys)
	for j, e := range es {
		w := e.w[:n]
		mean[j], variance[j] = g.moments(w, e.kxx)
		if !grad {
			continue
		}
		for i, d := range e.dw {
			dn := d[:n]
			dmean[j][i] = floats.Dot(dn, g.v)
			dvar[j][i] = e.dkxx[i] - 2*floats.Dot(dn, w)
		}
	}
	return nil
}

// moments are the posterior mean and variance at a point whose solve is
// w = L⁻¹k and prior variance kxx (a variance below 0 by rounding is 0).
func (g *Exact) moments(w []float64, kxx float64) (mean, variance float64) {
	mean, variance = floats.Dot(w, g.v), kxx-floats.Dot(w, w)
	if variance < 0 {
		variance = 0
	}
	return mean, variance
}

// adjoint caches α = L⁻ᵀv = (K + λI)⁻¹y of an Exact, valid while the factor's
// generation and v are the ones it was solved from (the leading rows of L
// are those of the first len(v) points: the prefix property).
type adjoint struct {
	gen      int
	v, alpha []float64
}

// solveLT overwrites b[:n] with L_n⁻ᵀb by backward substitution, reading L
// by rows (the column-oriented form: row s updates the entries before s).
func (f *factor) solveLT(b []float64) {
	for s := len(b) - 1; s >= 0; s-- {
		r := f.row(s)
		b[s] /= r[s]
		floats.AddScaled(b[:s], -b[s], r[:s])
	}
}

// alpha returns (K + λI)⁻¹y over the observed rows, solved once per factor
// generation and v.
func (g *Exact) alpha() []float64 {
	a := &g.adj
	if a.alpha != nil && a.gen == g.f.gen && slices.Equal(a.v, g.v) {
		return a.alpha
	}
	a.gen = g.f.gen
	a.v = append(a.v[:0], g.v...)
	a.alpha = append(a.alpha[:0], g.v...)
	g.f.solveLT(a.alpha)
	return a.alpha
}

// PredictBatchAdjoint is PredictBatch with the gradients in the adjoint
// form:
//
//	∇μ(x) = ∂kᵀα,  ∇σ²(x) = ∇k(x,x) − 2∂kᵀ(L⁻ᵀL⁻¹k),  α = (K + λI)⁻¹y,
//
// α solved once per posterior (alpha): two triangular solves per point
// (L⁻¹k and L⁻ᵀ of it) instead of PredictBatch's d + 1, the same means
// and variances to the bit, the gradients equal to rounding (the form
// GPyTorch's posterior differentiates). With an ARD kernel, a point solved
// alone keeps its kernel's gradient factors (cacheEntry.c), so ∂k takes no
// exponential.
func (g *Exact) PredictBatchAdjoint(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	if dmean == nil && dvar == nil {
		return g.PredictBatch(xs, mean, variance, nil, nil)
	}
	if len(mean) < len(xs) || len(variance) < len(xs) || len(dmean) < len(xs) || len(dvar) < len(xs) {
		return fmt.Errorf("gp: PredictBatchAdjoint has %d points but room for %d means, %d variances, %d and %d gradients", len(xs), len(mean), len(variance), len(dmean), len(dvar))
	}
	f := g.f
	gk, ok := f.k.(GradKernel)
	if !ok {
		return fmt.Errorf("gp: kernel %v has no closed-form gradient", f.k)
	}
	es, err := f.solve(xs, false)
	if err != nil {
		return err
	}
	n := len(g.ys)
	al := g.alpha()
	u := make([]float64, n)
	ard, isARD := f.k.(ARD)
	for j, e := range es {
		w := e.w[:n]
		mean[j], variance[j] = g.moments(w, e.kxx)
		x := e.x
		d := len(x)
		dm, dv := dmean[j][:d], dvar[j][:d]
		gk.Grad(x, x, dv) // ∂k(x, y)/∂y at y = x; d/dx k(x, x) is twice it
		copy(u, w)
		f.solveLT(u)
		clear(dm)
		gv := make([]float64, d)
		if isARD && len(ard.Lengthscales) == d && len(e.c) == len(f.pts) {
			for s := 0; s < n; s++ {
				p, cs := f.pts[s], e.c[s]
				for i, l := range ard.Lengthscales {
					dk := cs * (p[i] - x[i]) / (l * l)
					dm[i] += dk * al[s]
					gv[i] += dk * u[s]
				}
			}
		} else {
			dk := make([]float64, d)
			for s := 0; s < n; s++ {
				kv := gk.Grad(f.pts[s], x, dk)
				if math.IsNaN(kv) || math.IsInf(kv, 0) {
					return fmt.Errorf("gp: PredictBatchAdjoint kernel %v gives k(x_%d, xs[%d]) = %v", f.k, s, j, kv)
				}
				for i, v := range dk {
					dm[i] += v * al[s]
					gv[i] += v * u[s]
				}
			}
		}
		for i := range dv {
			dv[i] = 2*dv[i] - 2*gv[i]
		}
	}
	return nil
}
