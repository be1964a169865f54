package gp

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// factor is the part of an exact GP posterior that depends only on the
// kernel, λ and the observed points x_1..x_t: the Cholesky factor L of
// K_t + λI, stored row-packed so that appending a point appends one row.
//
// Because L is lower triangular and grown row by row, its leading n×n block
// is the Cholesky factor of the first n points alone. Several Exact
// posteriors (outputs: f and g_1..g_m observed at the same points, with the
// same kernel and λ) therefore share one factor: each output uses the prefix
// of the rows it has observed, and the O(t²) row of a new point is computed
// once for all of them.
type factor struct {
	k    Kernel
	lam  float64
	pts  [][]float64
	l    []float64 // row-packed lower factor: row s starts at s(s+1)/2, has s+1 entries
	sig2 []float64 // σ²_{s−1}(x_s) (clamped at 0) when row s was added
	gen  int       // incremented by reset, so that caches can detect it
	refs int       // number of Exact values using this factor
	sc   solveCache
	// scr is solve's scratch, reused across calls (its result is read
	// before the next solve of the factor).
	scr solveScratch `snap:"-"`
	// pendFrom is the first row Pend added (−1: none), which Unpend drops.
	pendFrom int
}

// row returns row s of L (s+1 entries, the last is the diagonal).
func (f *factor) row(s int) []float64 {
	o := s * (s + 1) / 2
	return f.l[o : o+s+1]
}

// solveL overwrites b[:n] with L_n⁻¹b by forward substitution.
func (f *factor) solveL(b []float64) {
	for s := range b {
		r := f.row(s)
		b[s] = (b[s] - floats.Dot(r[:s], b[:s])) / r[s]
	}
}

func (f *factor) reset() {
	for i := range f.pts {
		f.pts[i] = nil
	}
	f.pts = f.pts[:0]
	f.l = f.l[:0]
	f.sig2 = f.sig2[:0]
	f.gen++
	f.sc.clear()
}

// add appends the point x (already validated, copied by the caller) as row
// t of L in O(t²); the forward solve L⁻¹k(X, x) is taken from the solve
// cache when x was solved there (refinement evaluates the chosen point).
func (f *factor) add(x []float64, kxx float64) error {
	t := len(f.pts)
	oldLen := len(f.l)
	if cap(f.l)-oldLen < t+1 {
		nl := make([]float64, oldLen, 2*(oldLen+t+1)+16)
		copy(nl, f.l)
		f.l = nl
	}
	f.l = f.l[:oldLen+t+1]
	r := f.l[oldLen:]
	if !f.sc.lookup(f, x, r[:t]) {
		evalCol(f.k, f.pts, x, r[:t])
		for s, kv := range r[:t] {
			if math.IsNaN(kv) || math.IsInf(kv, 0) {
				f.l = f.l[:oldLen]
				return fmt.Errorf("gp: Exact.Add kernel %v gives k(x_%d, x) = %v", f.k, s, kv)
			}
		}
		f.solveL(r[:t])
	}
	q := floats.Dot(r[:t], r[:t])
	sig2 := kxx - q // σ²_{t}(x) before adding x
	if sig2 < 0 {
		sig2 = 0
	}
	r[t] = math.Sqrt(sig2 + f.lam)
	f.sig2 = append(f.sig2, sig2)
	f.pts = append(f.pts, x)
	return nil
}

// Exact is a GP posterior over arbitrary points, maintained through an
// incrementally grown Cholesky factor L of K_t + λI (stored row-packed, so
// that appending a point appends one row) and v = L⁻¹y. Then
//
//	μ_t(x) = wᵀv,  σ_t²(x) = k(x,x) − wᵀw,  w = L⁻¹k_t(x).
//
// Add and Predict cost O(t²). Outputs that share the kernel, λ and observed
// points share one factor (see Share): each keeps only its values y and v,
// and adding a point the factor already holds costs O(t). An Exact is not
// safe for concurrent use (Predict uses internal scratch space), nor are
// Exact values that share a factor safe for concurrent use with each other.
type Exact struct {
	f    *factor
	ys   []float64
	v    []float64 // L⁻¹y over the first len(ys) rows
	w    []float64 // scratch
	gain float64
	// pend pending points follow the first real observations (Pend).
	pend, real int
	// adj is α = K⁻¹y of PredictBatchAdjoint with the v and factor
	// generation it was solved from; transient, recomputed on demand.
	adj adjoint `snap:"-"`
}

// NewExact returns an empty GP with kernel k and noise variance noiseVar = λ > 0.
func NewExact(k Kernel, noiseVar float64) (*Exact, error) {
	if k == nil {
		return nil, fmt.Errorf("gp: NewExact kernel is nil")
	}
	if err := checkPositive("Exact noiseVar", noiseVar); err != nil {
		return nil, err
	}
	return &Exact{f: &factor{k: k, lam: noiseVar, refs: 1, pendFrom: -1}}, nil
}

// Share returns a new, empty posterior (another output) with g's kernel and
// λ that shares g's Cholesky factor: as long as it observes the points g has
// observed, in the same order, it reuses their rows of L. If it observes a
// different point, it takes a private copy of the common prefix first
// (O(t²) memory copy), so results never depend on sharing. The new output
// starts empty and reuses the rows of the points as it observes them.
func (g *Exact) Share() *Exact {
	g.f.refs++
	return &Exact{f: g.f}
}

// detach gives g a private factor holding the first n = Len() rows of its
// current one.
func (g *Exact) detach() {
	old := g.f
	n := len(g.ys)
	nf := &factor{k: old.k, lam: old.lam, refs: 1, pendFrom: -1}
	nf.pts = append(make([][]float64, 0, n+16), old.pts[:n]...)
	nf.l = append(make([]float64, 0, n*(n+1)/2+n+16), old.l[:n*(n+1)/2]...)
	nf.sig2 = append([]float64(nil), old.sig2[:n]...)
	old.refs--
	g.f = nf
}

// Kernel returns the prior kernel.
func (g *Exact) Kernel() Kernel { return g.f.k }

// NoiseVar returns λ.
func (g *Exact) NoiseVar() float64 { return g.f.lam }

// Len returns the number of observations t.
func (g *Exact) Len() int { return len(g.ys) }

// Points returns the observed points (read-only; the slices are the copies
// made by Add).
func (g *Exact) Points() [][]float64 { return g.f.pts[:len(g.ys)] }

// Values returns the observed values (read-only view).
func (g *Exact) Values() []float64 { return g.ys }

// InfoGain returns γ_t = ½ Σ_{s≤t} log(1 + σ²_{s−1}(x_s)/λ).
func (g *Exact) InfoGain() float64 { return g.gain }

// Shared reports whether g currently shares its factor with another output.
func (g *Exact) Shared() bool { return g.f.refs > 1 }

// Reset removes all observations. A shared factor is left to the other
// outputs and g starts a private one.
func (g *Exact) Reset() {
	if g.f.refs > 1 {
		g.f.refs--
		g.f = &factor{k: g.f.k, lam: g.f.lam, refs: 1, pendFrom: -1}
	} else {
		g.f.reset()
	}
	g.ys = g.ys[:0]
	g.v = g.v[:0]
	g.gain = 0
	g.pend = 0
}

func (g *Exact) scratch(t int) []float64 {
	if cap(g.w) < t {
		g.w = make([]float64, t, 2*t+16)
	}
	return g.w[:t]
}

func checkPoint(name string, x []float64) error {
	if len(x) == 0 {
		return fmt.Errorf("gp: %s point is empty", name)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gp: %s x[%d] is not finite: %v", name, i, v)
		}
	}
	return nil
}

// checkPointAt is checkPoint of the point what[j], its name formatted only
// for an error (a batch of thousands checks every point).
func checkPointAt(what string, j int, x []float64) error {
	if checkPoint(what, x) == nil {
		return nil
	}
	return checkPoint(fmt.Sprintf("%s[%d]", what, j), x)
}

// Add appends the observation (x, y), extending L by one row in O(t²)
// (O(t) when a sharing output has already added x at this position). x is
// copied.
func (g *Exact) Add(x []float64, y float64) error {
	if err := checkPoint("Exact.Add", x); err != nil {
		return err
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("gp: Exact.Add y is not finite: %v", y)
	}
	if g.pend > 0 {
		return fmt.Errorf("gp: Exact.Add with %d pending points (Unpend first)", g.pend)
	}
	t := len(g.ys)
	if err := g.row("Exact.Add", x, false); err != nil {
		return err
	}
	f := g.f
	r := f.row(t)
	g.gain += 0.5 * math.Log1p(f.sig2[t]/f.lam)
	g.v = append(g.v, (y-floats.Dot(r[:t], g.v))/r[t])
	g.ys = append(g.ys, y)
	return nil
}

// row makes row t = Len() of the factor hold the point x: a shared factor's
// row when it already holds x there, else a new row (after taking a private
// copy of a shared factor whose row t is another point). pending marks the
// rows Pend adds, which Unpend drops.
func (g *Exact) row(op string, x []float64, pending bool) error {
	if err := checkPoint(op, x); err != nil {
		return err
	}
	f := g.f
	if len(f.pts) > 0 && len(x) != len(f.pts[0]) {
		return fmt.Errorf("gp: %s x has dimension %d, earlier points have %d", op, len(x), len(f.pts[0]))
	}
	t := len(g.ys)
	if t < len(f.pts) && !slices.Equal(f.pts[t], x) {
		g.detach()
		f = g.f
	}
	if t < len(f.pts) {
		return nil
	}
	kxx := f.k.Eval(x, x)
	if math.IsNaN(kxx) || math.IsInf(kxx, 0) || kxx < 0 {
		return fmt.Errorf("gp: %s kernel %v gives k(x,x) = %v at x = %v", op, f.k, kxx, x)
	}
	if pending && f.pendFrom < 0 {
		f.pendFrom = t
	}
	return f.add(append([]float64(nil), x...), kxx)
}

// Predict returns the posterior mean μ_t(x) and variance σ_t²(x) (clamped at
// 0) in O(t²). It returns NaN values if the kernel does at x.
func (g *Exact) Predict(x []float64) (mean, variance float64) {
	t := len(g.ys)
	f := g.f
	w := g.scratch(t)
	evalCol(f.k, f.pts[:t], x, w)
	f.solveL(w)
	mean = floats.Dot(w, g.v)
	variance = f.k.Eval(x, x) - floats.Dot(w, w)
	if variance < 0 {
		variance = 0
	}
	return mean, variance
}

// truncate drops observations beyond the first t (used by benchmarks, only
// on an unshared Exact). The information gain is not adjusted and attached
// Candidates are not notified.
func (g *Exact) truncate(t int) {
	if t >= len(g.ys) {
		return
	}
	f := g.f
	for i := t; i < len(f.pts); i++ {
		f.pts[i] = nil
	}
	f.pts = f.pts[:t]
	f.sig2 = f.sig2[:t]
	f.l = f.l[:t*(t+1)/2]
	f.sc.clear()
	g.ys = g.ys[:t]
	g.v = g.v[:t]
}
