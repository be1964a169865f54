package gp

import (
	"gonum.org/v1/gonum/floats"
)

// Pending points (GP-BUCB, Desautels, Krause & Burdick 2014, JMLR §4): a
// point whose observation has not arrived enters the posterior as an
// observation at its current posterior mean. The variance given the point
// is exact (it does not depend on y) and the mean does not move: with
// y = μ_t(x) = wᵀv the new entry of v = L⁻¹y is (y − wᵀv)/L_tt = 0 exactly,
// so every mean, here and at the candidates, is left bit for bit as it was.

// Pend appends a hallucinated observation at x (copied): the variance
// everywhere becomes the posterior variance given x, the mean is unchanged.
// The information gain is not changed. Unpend removes every pending point.
func (g *Exact) Pend(x []float64) error {
	t := len(g.ys)
	if err := g.row("Exact.Pend", x, true); err != nil {
		return err
	}
	f := g.f
	if g.pend == 0 {
		g.real = t
	}
	g.pend++
	r := f.row(t)
	g.ys = append(g.ys, floats.Dot(r[:t], g.v)) // y = μ_t(x), so v's new entry is 0
	g.v = append(g.v, 0)
	return nil
}

// Pending is the number of pending points.
func (g *Exact) Pending() int { return g.pend }

// Unpend removes the pending points (and the factor rows Pend added).
func (g *Exact) Unpend() {
	if g.pend == 0 {
		return
	}
	g.ys, g.v = g.ys[:g.real], g.v[:g.real]
	g.pend = 0
	if f := g.f; f.pendFrom >= 0 {
		f.truncateRows(f.pendFrom)
		f.pendFrom = -1
	}
}

// truncateRows drops the rows of L beyond the first t; cached solves keep
// their first t entries, which the prefix property leaves valid.
func (f *factor) truncateRows(t int) {
	if t >= len(f.pts) {
		return
	}
	for i := t; i < len(f.pts); i++ {
		f.pts[i] = nil
	}
	f.pts = f.pts[:t]
	f.sig2 = f.sig2[:t]
	f.l = f.l[:t*(t+1)/2]
	for _, e := range f.sc.e {
		e.n = min(e.n, t)
	}
}

// Pend brings the candidates' variance to the posterior given the pending
// points of their Exact (call after Exact.Pend); the means do not move.
func (c *Candidates) Pend() error {
	if c.err != nil {
		return c.err
	}
	if c.saved == nil {
		c.saved = make([]float64, c.m)
	}
	if !c.pending {
		copy(c.saved, c.vr)
		c.real = c.t
		c.pending = true
	}
	return c.Sync()
}

// Unpend restores the candidates' variance without the pending points (call
// after Exact.Unpend), in O(M).
func (c *Candidates) Unpend() {
	if !c.pending {
		return
	}
	copy(c.vr, c.saved)
	c.t = c.real
	c.pending = false
	if b := c.b; b.t > len(b.f.pts) {
		b.t = len(b.f.pts)
		b.w = b.w[:b.t*b.m]
	}
}

// sparseSaved is what Sparse.Pend changes, kept for Unpend.
type sparseSaved struct {
	la, b, al, q, mu, vr []float64
	n, since             int
}

// Pend adds a hallucinated observation at x at the current predictive mean
// (exact for the DTC model, a GP with the Nyström kernel: its mean does not
// move); the information gain is kept. Unpend restores the state in
// O(M² + M·C).
func (s *Sparse) Pend(x []float64) error {
	if s.saved == nil {
		s.saved = &sparseSaved{la: append([]float64(nil), s.la...), b: append([]float64(nil), s.b...),
			al: append([]float64(nil), s.al...), q: append([]float64(nil), s.q...),
			mu: append([]float64(nil), s.mu...), vr: append([]float64(nil), s.vr...), n: s.n, since: s.since}
	}
	mean, _ := s.Predict(x)
	gain := s.gain
	err := s.Add(x, mean)
	s.gain = gain
	copy(s.mu, s.saved.mu) // unchanged but for rounding: kept bit for bit
	return err
}

// Unpend removes every pending point.
func (s *Sparse) Unpend() {
	v := s.saved
	if v == nil {
		return
	}
	copy(s.la, v.la)
	copy(s.b, v.b)
	copy(s.al, v.al)
	copy(s.q, v.q)
	copy(s.mu, v.mu)
	copy(s.vr, v.vr)
	s.n, s.since = v.n, v.since
	s.saved = nil
}
