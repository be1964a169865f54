package gp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// Sample writes into dst (length N) one joint draw from the posterior with
// its covariance scaled by scale², i.e. from N(μ_t, scale²·Σ_t), without
// forming Σ_t. It uses Matheron's rule (pathwise conditioning): with
// f₀ ~ N(0, K) and ε ~ N(0, Λ_S),
//
//	sample = μ + scale·(f₀ − K[:,S]·(K_SS+Λ_S)⁻¹·(f₀[S] + ε)),
//
// whose covariance is K − K[:,S]·(K_SS+Λ_S)⁻¹·K[S,:] = Σ_t. Since
// Σ[:,S] = K[:,S]·(K_SS+Λ_S)⁻¹·Λ_S, the correction is computed as
// Σ[:,S]·Λ_S⁻¹·(f₀[S] + ε) from the stored columns Σ[:,S], in O(N·|S|) with
// no solve (the factor R is not triangular after repeated observations, so a
// solve with it would cost O(|S|³)).
//
// f₀ = L·z, z ~ N(0, I), where L is a Cholesky factor of K + jitter·I
// computed on the first call and cached with the posterior (K never changes;
// Reset keeps it). The jitter escalates as in Sampler.Draw: 1e-10·(mean
// diagonal of K), then ten times more after each failure, up to 1e-4·(mean
// diagonal); if all fail, Sample (and every later call) returns an error. The
// first call costs O(N³) and allocates N² floats; later calls cost
// O(N² + N·|S|) and do not allocate.
//
// rng supplies N standard normals for z, then |S| for ε (in slot order), so a
// draw is determined by the rng state. scale must be finite and ≥ 0. Sample
// does not modify the posterior, but it uses cached scratch space: like
// Observe, it is not safe for concurrent use, even with itself.
func (p *ArmPosterior) Sample(rng *rand.Rand, scale float64, dst []float64) error {
	p.sync()
	n := p.n
	switch {
	case rng == nil:
		return fmt.Errorf("gp: ArmPosterior.Sample rng is nil")
	case len(dst) != n:
		return fmt.Errorf("gp: ArmPosterior.Sample dst must have N = %d entries, got %d", n, len(dst))
	case math.IsNaN(scale) || math.IsInf(scale, 0) || scale < 0:
		return fmt.Errorf("gp: ArmPosterior.Sample scale must be finite and >= 0, got %v", scale)
	}
	f := p.priorFactor()
	if f.err != nil {
		return f.err
	}
	// f₀ = L·z into dst.
	z := f.z[:n]
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	if f.l == nil { // K = 0
		for i := range dst {
			dst[i] = 0
		}
	} else {
		l := f.l
		for i := 0; i < n; i++ {
			dst[i] = floats.Dot(l[i*n:i*n+i+1], z[:i+1])
		}
	}
	// v = f₀[S] + ε, ε_s ~ N(0, λ/n_s).
	m := len(p.arms)
	if m > 0 {
		if cap(f.w) < m {
			f.w = make([]float64, m, max(m, 2*cap(f.w), 8))
		}
		v := f.w[:m]
		for s, a := range p.arms {
			v[s] = dst[a] + math.Sqrt(p.lam/float64(p.cnt[a]))*rng.NormFloat64()
		}
		p.subCorrection(v, dst)
	}
	for i, mi := range p.mu {
		dst[i] = mi + scale*dst[i]
	}
	return nil
}

// subCorrection sets dst −= K[:,S]·(K_SS+Λ_S)⁻¹·v, computed as
// Σ[:,S]·(Λ_S⁻¹·v); v (length |S|, slot order) is overwritten.
func (p *ArmPosterior) subCorrection(v, dst []float64) {
	m := len(p.arms)
	for s, a := range p.arms {
		v[s] *= float64(p.cnt[a]) / p.lam
	}
	blas64.Gemv(blas.Trans, -1, blas64.General{Rows: m, Cols: p.n, Stride: p.n, Data: p.sig[:m*p.n]},
		blas64.Vector{N: m, Inc: 1, Data: v[:m]}, 1, blas64.Vector{N: p.n, Inc: 1, Data: dst})
}

// armFactor is the per-posterior state of Sample: the Cholesky factor of the
// prior and scratch space. K never changes, so Reset keeps it.
type armFactor struct {
	l      []float64 // lower Cholesky factor of K + jitter·I, row-major n×n; nil if K = 0
	jitter float64
	err    error
	z      []float64
	w      []float64
}

// priorFactor returns the cached armFactor of p, computing it on first use
// (or taking the one a posterior with the same prior made: SharePrior).
func (p *ArmPosterior) priorFactor() *armFactor {
	if p.factor == nil && p.hold != nil {
		p.factor = p.hold.f
	}
	if p.factor == nil {
		p.factor = newArmFactor(p.Prior(), p.n)
		if p.hold != nil {
			p.hold.f = p.factor
		}
	}
	return p.factor
}

// armHold carries the prior factor among posteriors with the same prior.
type armHold struct{ f *armFactor }

// SharePrior makes p draw (Sample) with the prior factor of o, computed once
// for both, when they have the same prior: the same kernel at the same arm
// coordinates, or the same precomputed matrix (an Adaptive model's rebuild
// with an unchanged kernel; f and g with equal kernels). With another
// prior, when o has drawn, p's factor is computed now: a model rebuilt by a
// refit, which an agent observes concurrently with its others, then does
// not make the next decision wait for it. Neither posterior may have been
// shared by Share.
func (p *ArmPosterior) SharePrior(o *ArmPosterior) {
	if o == nil || p.armState == o.armState || p.n != o.n || p.factor != nil || p.refs > 1 || o.refs > 1 {
		return
	}
	same := false
	switch {
	case p.kern == nil && o.kern == nil:
		same = len(p.k) > 0 && len(o.k) == len(p.k) && &p.k[0] == &o.k[0]
	case p.kern != nil && o.kern != nil && sameKernel(p.kern, o.kern) && len(p.pts) == len(o.pts):
		same = true
		for i, x := range p.pts {
			if !slices.Equal(x, o.pts[i]) {
				same = false
				break
			}
		}
	}
	if same {
		if o.hold == nil {
			o.hold = &armHold{f: o.factor}
		}
		p.hold = o.hold
		return
	}
	if o.factor != nil {
		p.priorFactor()
	}
}

// newArmFactor factorises the n×n prior k with jitter escalation as in
// Sampler.factor.
func newArmFactor(k []float64, n int) *armFactor {
	f := &armFactor{z: make([]float64, n)}
	tr := 0.0
	for i := 0; i < n; i++ {
		tr += k[i*n+i]
	}
	md := tr / float64(n)
	if !(md > 0) {
		// NewArmPosterior guarantees a non-negative diagonal and
		// |K_ij| ≤ √(K_ii·K_jj), so a zero diagonal means K = 0.
		return f
	}
	l := make([]float64, n*n)
	jit := 1e-10 * md
	maxJit := 1e-4 * md * (1 + 1e-9)
	for ; jit <= maxJit; jit *= 10 {
		for i := 0; i < n; i++ {
			copy(l[i*n:i*n+i+1], k[i*n:i*n+i+1])
			l[i*n+i] += jit
		}
		if choleskyLowerTri(l, n) {
			f.l = l
			f.jitter = jit
			return f
		}
	}
	f.err = fmt.Errorf("gp: ArmPosterior.Sample prior (%d×%d) is not positive semi-definite: Cholesky failed with jitter up to %.3g (1e-4 × mean diagonal %.3g)", n, n, jit/10, md)
	return f
}
