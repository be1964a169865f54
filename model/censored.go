package model

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// Censored is the GP posterior of censored GP-UCB/LCB (Guo et al. §5): every
// decision x_s enters the kernel matrix when it is made, with the censored
// value r̃_{s,t} = r_s·1{d_s ≤ min(m, t−s)}, which is 0 until the feedback
// arrives and is replaced by r_s when it arrives within m rounds. The mean
// is k_t(x)ᵀ(K_t+λI)⁻¹r̃_{1:t}; the variance is that of (2)–(3).
//
// gp.Exact fixes a value when the point is added, so this model keeps its
// own incremental Cholesky factor L of K_t+λI and W = L⁻¹K(X_t, candidates)
// (as gp.Exact and gp.Candidates do): AddPoint costs O(t² + t·M); SetValue
// of a point s rounds back costs O((t−s)·(t+M)), since v = L⁻¹r̃ changes
// only from row s on. (A SetValue in gp.Exact would let this reuse gp.)
type Censored struct {
	k    gp.Kernel
	lam  float64
	cand [][]float64
	acts []bandit.Action
	pts  [][]float64
	y, v []float64
	l    []float64 // row-packed lower factor
	w    []float64 // t×M, row s = L⁻¹ row s of K(X_t, candidates)
	kd   []float64
	mu   []float64
	vr   []float64
	gain float64
	buf  []float64
	buf2 []float64
}

// NewCensored returns the censored posterior with kernel k and regulariser λ
// over the candidates of a box (DefaultGrid when cands is nil) or over the
// arm coordinates of a finite domain.
func NewCensored(dom domain.Domain, k gp.Kernel, lam float64, cands [][]float64) (*Censored, error) {
	if k == nil {
		return nil, fmt.Errorf("model: censored GP: the problem gives no GP kernel")
	}
	if !(lam > 0) || math.IsInf(lam, 0) {
		return nil, fmt.Errorf("model: censored: lambda = %v: must be a finite number > 0", lam)
	}
	c := &Censored{k: k, lam: lam}
	switch d := dom.(type) {
	case *domain.Box:
		if cands == nil {
			cands = DefaultGrid(d)
		}
		for i, x := range cands {
			if err := d.Contains(x); err != nil {
				return nil, fmt.Errorf("model: candidate %d: %w", i, err)
			}
			c.acts = append(c.acts, bandit.PointAction(x))
		}
	case *domain.Finite:
		if d.Points == nil {
			return nil, fmt.Errorf("model: censored GP needs arm coordinates, the domain has none")
		}
		cands = d.Points
		for i, x := range cands {
			c.acts = append(c.acts, bandit.Action{Arm: i, X: x})
		}
	default:
		return nil, fmt.Errorf("model: domain %s is not supported by the censored GP", dom)
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("model: censored: candidate set is empty")
	}
	c.cand = cands
	c.kd = make([]float64, len(cands))
	c.mu = make([]float64, len(cands))
	c.vr = make([]float64, len(cands))
	for i, x := range cands {
		c.kd[i] = k.Eval(x, x)
	}
	c.Reset()
	return c, nil
}

// Len implements Model.
func (c *Censored) Len() int { return len(c.cand) }

// Action implements Model.
func (c *Censored) Action(i int) bandit.Action { return c.acts[i] }

// Mean implements Model.
func (c *Censored) Mean() []float64 { return c.mu }

// Var implements Model.
func (c *Censored) Var() []float64 { return c.vr }

// Cov implements Model by the dense reference formulas.
func (c *Censored) Cov(dst []float64) {
	_, cov := gp.BatchPosterior(c.k, c.pts, c.y, c.lam, c.cand)
	copy(dst, cov)
}

// InfoGain implements Model: ½ Σ_s log(1 + σ²_{s−1}(x_s)/λ) over every point
// added (censoring does not change variances).
func (c *Censored) InfoGain() float64 { return c.gain }

// Count implements Model: the number of points in the kernel matrix.
func (c *Censored) Count() int { return len(c.pts) }

// Reset implements Model.
func (c *Censored) Reset() {
	c.pts, c.y, c.v, c.l, c.w = c.pts[:0], c.y[:0], c.v[:0], c.l[:0], c.w[:0]
	c.gain = 0
	copy(c.vr, c.kd)
	for i := range c.mu {
		c.mu[i] = 0
	}
}

// Observe implements Model: AddPoint followed by SetValue.
func (c *Censored) Observe(a bandit.Action, y float64) error {
	s, err := c.AddPoint(a.X)
	if err != nil {
		return err
	}
	return c.SetValue(s, y)
}

func (c *Censored) row(s int) []float64 {
	o := s * (s + 1) / 2
	return c.l[o : o+s+1]
}

// AddPoint appends x with censored value 0 and returns its index.
func (c *Censored) AddPoint(x []float64) (int, error) {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("model: censored: x[%d] = %v: must be finite", i, v)
		}
	}
	if len(x) != len(c.cand[0]) {
		return 0, fmt.Errorf("model: censored: point has %d coordinates, candidates have %d", len(x), len(c.cand[0]))
	}
	t := len(c.pts)
	old := len(c.l)
	c.l = append(c.l, make([]float64, t+1)...)
	r := c.l[old:]
	for s, p := range c.pts {
		r[s] = c.k.Eval(p, x)
	}
	for s := 0; s < t; s++ {
		rs := c.row(s)
		r[s] = (r[s] - floats.Dot(rs[:s], r[:s])) / rs[s]
	}
	sig2 := math.Max(c.k.Eval(x, x)-floats.Dot(r[:t], r[:t]), 0)
	r[t] = math.Sqrt(sig2 + c.lam)
	c.gain += 0.5 * math.Log1p(sig2/c.lam)
	c.v = append(c.v, (0-floats.Dot(r[:t], c.v))/r[t])
	c.y = append(c.y, 0)
	c.pts = append(c.pts, append([]float64(nil), x...))
	// New row of W: (k(x, cand) − Wᵀ r[:t]) / r[t].
	m := len(c.cand)
	c.w = append(c.w, make([]float64, m)...)
	out := c.w[t*m:]
	for j, z := range c.cand {
		out[j] = c.k.Eval(x, z)
	}
	if t > 0 {
		blas64.Gemv(blas.Trans, -1, blas64.General{Rows: t, Cols: m, Stride: m, Data: c.w[:t*m]},
			blas64.Vector{N: t, Inc: 1, Data: r[:t]}, 1, blas64.Vector{N: m, Inc: 1, Data: out})
	}
	inv := 1 / r[t]
	vt := c.v[t]
	for j := range out {
		out[j] *= inv
		c.mu[j] += out[j] * vt
		c.vr[j] = math.Max(c.vr[j]-out[j]*out[j], 0)
	}
	return t, nil
}

// SetValue sets the censored value of point s to y (the feedback arrived).
func (c *Censored) SetValue(s int, y float64) error {
	t := len(c.pts)
	if s < 0 || s >= t {
		return fmt.Errorf("model: censored: point %d: outside [0, %d)", s, t)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("model: censored: value = %v: must be finite", y)
	}
	c.y[s] = y
	if cap(c.buf) < t {
		c.buf = make([]float64, t)
	}
	dv := c.buf[:t-s]
	for i := s; i < t; i++ {
		ri := c.row(i)
		nv := (c.y[i] - floats.Dot(ri[:i], c.v[:i])) / ri[i]
		dv[i-s] = nv - c.v[i]
		c.v[i] = nv
	}
	m := len(c.cand)
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: t - s, Cols: m, Stride: m, Data: c.w[s*m : t*m]},
		blas64.Vector{N: t - s, Inc: 1, Data: dv}, 1, blas64.Vector{N: m, Inc: 1, Data: c.mu})
	return nil
}

// SetValues sets the value of every point at once (len(ys) = Count(), a
// censored point's 0 included) and recomputes v = L⁻¹ỹ and the means in
// O(t² + t·M): a standardised agent's change of units (docs/defaults.md), where a
// SetValue per point would cost O(t²·(t + M)).
func (c *Censored) SetValues(ys []float64) error {
	t := len(c.pts)
	if len(ys) != t {
		return fmt.Errorf("model: censored: %d values for %d points", len(ys), t)
	}
	for s, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("model: censored: value %d = %v: must be finite", s, y)
		}
	}
	copy(c.y, ys)
	for i := 0; i < t; i++ {
		ri := c.row(i)
		c.v[i] = (c.y[i] - floats.Dot(ri[:i], c.v[:i])) / ri[i]
	}
	for j := range c.mu {
		c.mu[j] = 0
	}
	if t > 0 {
		m := len(c.cand)
		blas64.Gemv(blas.Trans, 1, blas64.General{Rows: t, Cols: m, Stride: m, Data: c.w[:t*m]},
			blas64.Vector{N: t, Inc: 1, Data: c.v[:t]}, 0, blas64.Vector{N: m, Inc: 1, Data: c.mu})
	}
	return nil
}

// Predict implements Predictor in O(t²).
func (c *Censored) Predict(x []float64) (float64, float64) {
	t := len(c.pts)
	if cap(c.buf2) < t {
		c.buf2 = make([]float64, t, 2*t+16)
	}
	w := c.buf2[:t]
	for s, p := range c.pts {
		w[s] = c.k.Eval(p, x)
	}
	for s := 0; s < t; s++ {
		rs := c.row(s)
		w[s] = (w[s] - floats.Dot(rs[:s], w[:s])) / rs[s]
	}
	return floats.Dot(w, c.v), math.Max(c.k.Eval(x, x)-floats.Dot(w, w), 0)
}
