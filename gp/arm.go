package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// ArmPosterior is the GP posterior over a finite set of N arms with prior
// covariance K, zero prior mean and Gaussian observation noise of variance λ,
// updated by exact rank-one (Kalman) updates: for an observation y at arm i,
// with c = Σ[:,i] and d = σ_i² + λ,
//
//	μ += c·(y − μ_i)/d,   Σ −= c·cᵀ/d.
//
// The posterior depends only on the set S of distinct arms observed so far
// and their counts n_j. It is stored in square-root form
//
//	Σ = K − U·Uᵀ,   U = K[:,S]·R⁻¹,   RᵀR = K_SS + Λ_S,   Λ_S = diag(λ/n_j),
//
// with U an N×|S| matrix (each column contiguous) and R an |S|×|S| matrix,
// together with μ and diag Σ. The column needed for an observation is
// c = K[:,i] − U·U[i,:]ᵀ; a first observation of arm i appends the column
// c/√d to U, and a repeated observation replaces U by U·(I + β·a·aᵀ) with
// a = R[:,i] − U[i,:]ᵀ (so that U·a = c) and β chosen so that the product
// of the factor with its transpose gains exactly c·cᵀ/d, while R is
// multiplied by the inverse factor. Every entry of U is bounded by √K_ii, so,
// unlike the equivalent expression Σ[:,S]·Λ_S⁻¹ used by simpler schemes,
// nothing is amplified by n_j/λ; the scheme stays accurate for tiny λ and for
// thousands of repeats of one arm.
//
// The columns Σ[:,S] are also kept (updated by the Kalman step, which keeps
// their relative precision as they shrink), so that a repeated arm's column is
// read rather than recomputed. The Kalman mean update commits an error of
// order ε·|y−μ_i|/λ per step that does not decay, so every max(32, |S|)
// observations μ is recomputed as K[:,S]·(K_SS+Λ_S)⁻¹·ȳ_S from the per-arm
// averages ȳ_j (O(|S|³ + N·|S|), amortized O(|S|² + N)). Against the batch
// formula in 256-bit arithmetic, mean and variance stay within ~1e-10 after
// 2·10⁴ observations with n_j up to 10⁴ on near-duplicate arms, for λ from
// 1 down to 1e-6.
//
// Observe costs O(N·|S| + |S|²) and does not allocate once the storage has
// grown to |S| columns. Built from a kernel and the arms' points
// (NewArmPosteriorKernel), it keeps no N×N matrix: prior columns K[:,i] are
// computed when an arm is first observed and when the mean is refreshed, so
// memory is O(N·|S|). An ArmPosterior is not safe for concurrent use.
type ArmPosterior struct {
	*armState           // the part that depends only on the prior, λ and the arms pulled
	mu        []float64 // posterior mean
	sumY      []float64 // arm → sum of observations (Neumaier-compensated)
	sumC      []float64 // arm → compensation term of sumY
	since     int       // observations since the last mean refresh
	gain      float64
	count     int
	hist      []armObs // own observations, kept while sharing (for a private replay)
}

type armObs struct {
	arm int
	y   float64
}

// armState is the covariance part of an ArmPosterior: U, R, Σ[:,S] and the
// variances depend only on the prior, λ and the sequence of arms pulled, so
// outputs observed at the same arms (f and g_1..g_m) share one (Share).
type armState struct {
	n     int
	lam   float64
	k     []float64 // prior covariance, row-major n×n, or nil: columns from kern on demand
	kern  Kernel    // with pts, the prior when k is nil
	pts   [][]float64
	kdiag []float64 // prior variances K_ii
	vr    []float64 // posterior variance (diagonal of Σ), clamped ≥ 0
	slot  []int     // arm → slot in S, −1 if unobserved
	arms  []int     // slot → arm
	cnt   []int     // arm → number of observations
	ut    []float64 // Uᵀ: row s (length n) is column s of U
	sig   []float64 // Σ[:,S]: row s (length n) is Σ[:,arms[s]]
	rt    []float64 // Rᵀ, row-major with stride rc: row s is column s of R
	rc    int       // capacity (stride) of rt
	c     []float64 // scratch: Σ[:,i]
	ui    []float64 // scratch: U[i,:]
	a     []float64 // scratch
	h     []float64 // scratch
	amat  []float64 // scratch for the mean refresh, |S|×|S|
	total int       // observations incorporated
	refs  int       // outputs sharing this state
	// the last update, for outputs that share the state and follow
	lastArm   int
	lastC     []float64
	lastD     float64
	lastVi    float64
	lastTotal int
	// factor is the prior's Cholesky factor for Sample (armsample.go), made on first use.
	factor *armFactor
	// hold, when set, passes factor between posteriors with the same prior
	// (SharePrior)
	hold *armHold
}

// NewArmPosterior returns the prior over n arms with row-major n×n prior
// covariance K (copied) and noise variance noiseVar = λ > 0.
//
// K must be finite, symmetric (to a relative 1e-10), have a non-negative
// diagonal and satisfy |K_ij| ≤ √(K_ii·K_jj); a full positive
// semi-definiteness test is left to NewPrecomputed, which costs O(n³).
func NewArmPosterior(K []float64, n int, noiseVar float64) (*ArmPosterior, error) {
	if n <= 0 {
		return nil, fmt.Errorf("gp: ArmPosterior n must be > 0, got %d", n)
	}
	if len(K) != n*n {
		return nil, fmt.Errorf("gp: ArmPosterior K must have n*n = %d entries, got %d", n*n, len(K))
	}
	if err := checkPositive("ArmPosterior noiseVar", noiseVar); err != nil {
		return nil, err
	}
	maxAbs := 0.0
	for idx, v := range K {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("gp: ArmPosterior K[%d,%d] is not finite: %v", idx/n, idx%n, v)
		}
		maxAbs = math.Max(maxAbs, math.Abs(v))
	}
	tol := 1e-10 * maxAbs
	for i := 0; i < n; i++ {
		d := K[i*n+i]
		if d < 0 {
			return nil, fmt.Errorf("gp: ArmPosterior K[%d,%d] = %v is a negative variance", i, i, d)
		}
		for j := i + 1; j < n; j++ {
			a, b := K[i*n+j], K[j*n+i]
			if math.Abs(a-b) > tol {
				return nil, fmt.Errorf("gp: ArmPosterior K is not symmetric: K[%d,%d]=%v but K[%d,%d]=%v", i, j, a, j, i, b)
			}
			if math.Abs(a) > math.Sqrt(d*K[j*n+j])*(1+1e-10)+tol {
				return nil, fmt.Errorf("gp: ArmPosterior K is not positive semi-definite: |K[%d,%d]|=%v > sqrt(K[%d,%d]*K[%d,%d])", i, j, math.Abs(a), i, i, j, j)
			}
		}
	}
	p := newArmPosterior(n, noiseVar)
	p.k = make([]float64, n*n)
	for i := 0; i < n; i++ {
		p.k[i*n+i] = K[i*n+i]
		p.kdiag[i] = K[i*n+i]
		for j := i + 1; j < n; j++ {
			v := 0.5 * (K[i*n+j] + K[j*n+i])
			p.k[i*n+j] = v
			p.k[j*n+i] = v
		}
	}
	p.Reset()
	return p, nil
}

func newArmPosterior(n int, noiseVar float64) *ArmPosterior {
	return &ArmPosterior{
		armState: newArmState(n, noiseVar),
		mu:       make([]float64, n),
		sumY:     make([]float64, n),
		sumC:     make([]float64, n),
	}
}

func newArmState(n int, noiseVar float64) *armState {
	return &armState{
		n:     n,
		lam:   noiseVar,
		kdiag: make([]float64, n),
		vr:    make([]float64, n),
		slot:  make([]int, n),
		cnt:   make([]int, n),
		c:     make([]float64, n),
		refs:  1,
	}
}

// Share returns a new output at the prior that shares p's covariance state
// (one U, R, Σ[:,S] and variance vector, O(N·|S|) memory and work per
// observation for all outputs): f and g_1..g_m observed at the same arms.
// The new output follows p's pulls when it observes the same arm at the same
// position (O(N) per observation); at the first difference — or when read
// while it lags behind (partial feedback) — it takes a private state by
// replaying its own observations, so results never depend on sharing.
// Share must be called before p has observed anything.
func (p *ArmPosterior) Share() (*ArmPosterior, error) {
	if p.total > 0 || p.count > 0 {
		return nil, fmt.Errorf("gp: ArmPosterior.Share after %d observations: share before observing", p.total)
	}
	p.refs++
	q := &ArmPosterior{armState: p.armState, mu: make([]float64, p.n),
		sumY: make([]float64, p.n), sumC: make([]float64, p.n)}
	return q, nil
}

// Shared reports whether p currently shares its covariance state.
func (p *ArmPosterior) Shared() bool { return p.refs > 1 }

// sync gives p a private state, rebuilt from its own observations, if it
// lags behind a shared state (reads and observations call it).
func (p *ArmPosterior) sync() {
	if p.refs > 1 && p.count != p.total {
		p.detach()
	}
}

// detach replaces p's shared state by a private one holding only p's own
// observations, replayed in order (the operations of an unshared posterior).
func (p *ArmPosterior) detach() {
	old := p.armState
	old.refs--
	st := newArmState(old.n, old.lam)
	st.k, st.kern, st.pts = old.k, old.kern, old.pts
	copy(st.kdiag, old.kdiag)
	hist := p.hist
	p.armState = st
	p.hist = nil
	p.Reset()
	for _, o := range hist {
		_ = p.Observe(o.arm, o.y) // accepted before: cannot fail
	}
}

// NewArmPosteriorPrecomputed returns the prior over the arms of a
// precomputed kernel, using its matrix (already validated and symmetrised by
// NewPrecomputed) without a copy.
func NewArmPosteriorPrecomputed(pk *Precomputed, noiseVar float64) (*ArmPosterior, error) {
	if pk == nil || pk.N <= 0 || len(pk.K) != pk.N*pk.N {
		return nil, fmt.Errorf("gp: NewArmPosteriorPrecomputed kernel is nil or malformed")
	}
	if err := checkPositive("ArmPosterior noiseVar", noiseVar); err != nil {
		return nil, err
	}
	n := pk.N
	p := newArmPosterior(n, noiseVar)
	p.k = pk.K
	for i := range p.kdiag {
		p.kdiag[i] = pk.K[i*n+i]
	}
	p.Reset()
	return p, nil
}

// NewArmPosteriorKernel returns the prior over the arms at pts (not copied;
// they must not change) with kernel k and noise variance λ. No N×N matrix is
// formed: prior columns are computed on demand (each entry as Gram computes
// it), so the posterior needs O(N·|S|) memory for |S| distinct observed arms.
// Kernel values are checked as the columns are computed; a non-finite value
// is reported by Observe.
func NewArmPosteriorKernel(k Kernel, pts [][]float64, noiseVar float64) (*ArmPosterior, error) {
	if k == nil {
		return nil, fmt.Errorf("gp: NewArmPosteriorKernel kernel is nil")
	}
	n := len(pts)
	if n == 0 {
		return nil, fmt.Errorf("gp: NewArmPosteriorKernel has no arms")
	}
	if err := checkPositive("ArmPosterior noiseVar", noiseVar); err != nil {
		return nil, err
	}
	p := newArmPosterior(n, noiseVar)
	p.kern, p.pts = k, pts
	for i, x := range pts {
		if err := checkPoint(fmt.Sprintf("NewArmPosteriorKernel pts[%d]", i), x); err != nil {
			return nil, err
		}
		d := k.Eval(x, x)
		if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
			return nil, fmt.Errorf("gp: NewArmPosteriorKernel kernel %v gives k(x,x) = %v at pts[%d]", k, d, i)
		}
		p.kdiag[i] = d
	}
	p.Reset()
	return p, nil
}

// priorCol writes the prior column K[:,i] into dst (n entries), reporting
// false if the kernel gives a non-finite value.
func (p *ArmPosterior) priorCol(i int, dst []float64) bool {
	n := p.n
	if p.k != nil {
		copy(dst, p.k[i*n:i*n+n])
		return true
	}
	xi := p.pts[i]
	if _, ok := p.kern.(ARD); ok { // symmetric to the bit: evaluated inline
		evalRow(p.kern, xi, p.pts, dst[:n])
		for _, v := range dst[:n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
		return true
	}
	for j, xj := range p.pts {
		var v float64
		if j < i {
			v = p.kern.Eval(xj, xi)
		} else {
			v = p.kern.Eval(xi, xj)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
		dst[j] = v
	}
	return true
}

// prior returns K[i,j] as Gram computes it.
func (p *ArmPosterior) prior(i, j int) float64 {
	if p.k != nil {
		return p.k[i*p.n+j]
	}
	if j < i {
		i, j = j, i
	}
	return p.kern.Eval(p.pts[i], p.pts[j])
}

// N returns the number of arms.
func (p *ArmPosterior) N() int { return p.n }

// NoiseVar returns λ.
func (p *ArmPosterior) NoiseVar() float64 { return p.lam }

// Count returns the number of observations so far.
func (p *ArmPosterior) Count() int { return p.count }

// ArmCount returns the number of observations of arm (0 if out of range).
func (p *ArmPosterior) ArmCount(arm int) int {
	p.sync()
	if arm < 0 || arm >= p.n {
		return 0
	}
	return p.cnt[arm]
}

// Distinct returns the number of distinct arms observed so far, |S|.
func (p *ArmPosterior) Distinct() int {
	p.sync()
	return len(p.arms)
}

// Mean returns μ_t over the arms. The slice is a read-only view that is
// updated in place by Observe and Reset.
func (p *ArmPosterior) Mean() []float64 { return p.mu }

// Var returns σ_t² over the arms, clamped at 0. The slice is a read-only view
// that is updated in place by Observe and Reset.
func (p *ArmPosterior) Var() []float64 {
	p.sync()
	return p.vr
}

// InfoGain returns the realized information gain
// γ_t = ½ Σ_{s≤t} log(1 + σ²_{s−1}(x_s)/λ), which equals ½ log det(I + λ⁻¹K_t).
func (p *ArmPosterior) InfoGain() float64 { return p.gain }

// Reset returns the posterior to the prior. An output sharing its state
// leaves it to the others and starts a private one.
func (p *ArmPosterior) Reset() {
	if p.refs > 1 {
		old := p.armState
		old.refs--
		st := newArmState(old.n, old.lam)
		st.k, st.kern, st.pts = old.k, old.kern, old.pts
		copy(st.kdiag, old.kdiag)
		p.armState = st
	}
	for i := range p.slot {
		p.slot[i] = -1
		p.cnt[i] = 0
		p.vr[i] = p.kdiag[i]
	}
	for i := range p.mu {
		p.sumY[i] = 0
		p.sumC[i] = 0
		p.mu[i] = 0
	}
	p.arms = p.arms[:0]
	p.ut = p.ut[:0]
	p.sig = p.sig[:0]
	p.gain = 0
	p.count = 0
	p.total = 0
	p.since = 0
	p.hist = p.hist[:0]
}

// Prior returns the prior covariance K (row-major n×n, read-only view). For
// a posterior built from a kernel (NewArmPosteriorKernel) the matrix is
// formed on first call and kept (O(N²) memory: only joint sampling needs it).
func (p *ArmPosterior) Prior() []float64 {
	if p.k == nil {
		p.k = Gram(p.kern, p.pts)
	}
	return p.k
}

// utMat views Uᵀ as a row-major |S|×n matrix.
func (p *ArmPosterior) utMat() blas64.General {
	return blas64.General{Rows: len(p.arms), Cols: p.n, Stride: p.n, Data: p.ut}
}

// CovColumn writes the posterior covariance column Σ_t[:,i] into dst (length
// at least N) in O(N·|S|): the stored column for an observed arm, else
// K[:,i] − U·U[i,:]ᵀ. Entry i is replaced by Var()[i] (see Observe). Used to
// predict the posterior after a hypothetical observation (SafeOpt's
// expanders). It does nothing when i is out of range or dst too short, and
// writes NaN when the kernel gives a non-finite prior column.
func (p *ArmPosterior) CovColumn(i int, dst []float64) {
	n := p.n
	if i < 0 || i >= n || len(dst) < n {
		return
	}
	dst = dst[:n]
	p.sync()
	if s := p.slot[i]; s >= 0 {
		copy(dst, p.sig[s*n:s*n+n])
	} else {
		if !p.priorCol(i, dst) {
			for j := range dst {
				dst[j] = math.NaN()
			}
			return
		}
		if m := len(p.arms); m > 0 {
			ui := make([]float64, m)
			for t := range ui {
				ui[t] = p.ut[t*n+i]
			}
			blas64.Gemv(blas.Trans, -1, p.utMat(), blas64.Vector{N: m, Inc: 1, Data: ui}, 1,
				blas64.Vector{N: n, Inc: 1, Data: dst})
		}
	}
	dst[i] = p.vr[i]
}

// Observe incorporates the observation y at arm.
func (p *ArmPosterior) Observe(arm int, y float64) error {
	if arm < 0 || arm >= p.n {
		return fmt.Errorf("gp: ArmPosterior.Observe arm %d out of range [0, %d)", arm, p.n)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("gp: ArmPosterior.Observe y is not finite: %v", y)
	}
	if p.refs > 1 {
		if p.count == p.total-1 && p.lastTotal == p.total && p.lastArm == arm {
			p.follow(arm, y)
			return nil
		}
		p.sync()
		if p.refs > 1 {
			p.hist = append(p.hist, armObs{arm, y})
		}
	}
	n := p.n
	m := len(p.arms)
	s := p.slot[arm]

	// c = Σ[:,i]: stored for an arm in S, else K[:,i] − U·U[i,:]ᵀ.
	c := p.c[:n]
	ui := p.ui[:m]
	for t := range ui {
		ui[t] = p.ut[t*n+arm]
	}
	if s < 0 {
		if !p.priorCol(arm, c) {
			return fmt.Errorf("gp: ArmPosterior.Observe kernel %v is not finite at some k(x_j, x_%d)", p.kern, arm)
		}
		if m > 0 {
			blas64.Gemv(blas.Trans, -1, p.utMat(), blas64.Vector{N: m, Inc: 1, Data: ui}, 1,
				blas64.Vector{N: n, Inc: 1, Data: c})
		}
	} else {
		copy(c, p.sig[s*n:s*n+n])
	}
	// σ_i²: the running diagonal keeps relative precision when σ_i² ≪ K_ii
	// (c[arm] = K_ii − |U[i,:]|² only has absolute precision ε·K_ii).
	vi := p.vr[arm]
	d := vi + p.lam
	inv := 1 / d

	if s < 0 {
		// New arm: U ← [U, c/√d], R ← [[R, U[i,:]ᵀ], [0, √d]].
		p.grow(m + 1)
		sd := math.Sqrt(d)
		p.ut = p.ut[:(m+1)*n]
		floats.ScaleTo(p.ut[m*n:(m+1)*n], 1/sd, c)
		p.sig = append(p.sig, c...)
		row := p.rt[m*p.rc : m*p.rc+m+1]
		copy(row, ui)
		row[m] = sd
		for t := 0; t < m; t++ {
			p.rt[t*p.rc+m] = 0
		}
		p.slot[arm] = m
		p.arms = append(p.arms, arm)
	} else {
		// Repeat: a = R[:,s] − U[i,:]ᵀ, U·a = c.
		a := p.a[:m]
		rs := p.rt[s*p.rc : s*p.rc+m]
		for t := range a {
			a[t] = rs[t] - ui[t]
		}
		aa := floats.Dot(a, a)
		// (I+βaaᵀ)² = I + aaᵀ/d  and  (I+βaaᵀ)⁻¹ = I − β′aaᵀ.
		beta := inv / (math.Sqrt(1+aa*inv) + 1)
		betaInv := beta / (1 + beta*aa)
		rt := blas64.General{Rows: m, Cols: m, Stride: p.rc, Data: p.rt[:(m-1)*p.rc+m]}
		h := p.h[:m]
		// h = Rᵀa; R −= β′·a·hᵀ  ⇔  Rᵀ −= β′·h·aᵀ.
		blas64.Gemv(blas.NoTrans, 1, rt, blas64.Vector{N: m, Inc: 1, Data: a}, 0, blas64.Vector{N: m, Inc: 1, Data: h})
		blas64.Ger(-betaInv, blas64.Vector{N: m, Inc: 1, Data: h}, blas64.Vector{N: m, Inc: 1, Data: a}, rt)
		// U += β·c·aᵀ  ⇔  Uᵀ += β·a·cᵀ.
		blas64.Ger(beta, blas64.Vector{N: m, Inc: 1, Data: a}, blas64.Vector{N: n, Inc: 1, Data: c}, p.utMat())
	}

	// Σ[:,S] −= c·c[S]ᵀ/d (rows of the |S|×n matrix p.sig).
	m = len(p.arms)
	g := p.h[:m]
	for t, a := range p.arms {
		g[t] = c[a]
	}
	blas64.Ger(-inv, blas64.Vector{N: m, Inc: 1, Data: g}, blas64.Vector{N: n, Inc: 1, Data: c},
		blas64.General{Rows: m, Cols: n, Stride: n, Data: p.sig})

	if p.refs > 1 { // the record a following output applies
		if len(p.lastC) < n {
			p.lastC = make([]float64, n)
		}
		copy(p.lastC, c)
		p.lastArm, p.lastD, p.lastVi, p.lastTotal = arm, d, vi, p.total+1
	}
	p.gain += 0.5 * math.Log1p(vi/p.lam)
	floats.AddScaled(p.mu, (y-p.mu[arm])*inv, c)
	vr := p.vr[:n]
	for j, cj := range c {
		v := vr[j] - cj*cj*inv
		if v < 0 {
			v = 0
		}
		vr[j] = v
	}
	vr[arm] = vi * p.lam * inv // exact form of vi − vi²/d
	p.cnt[arm]++
	p.total++
	p.count++
	p.addSum(arm, y)
	return nil
}

// follow applies the shared state's last update, made by another output at
// the same arm, to p's own mean in O(N) (+ the amortized refresh).
func (p *ArmPosterior) follow(arm int, y float64) {
	p.hist = append(p.hist, armObs{arm, y})
	inv := 1 / p.lastD
	p.gain += 0.5 * math.Log1p(p.lastVi/p.lam)
	floats.AddScaled(p.mu, (y-p.mu[arm])*inv, p.lastC[:p.n])
	p.count++
	p.addSum(arm, y)
}

// addSum adds y to the running sum of arm and refreshes the mean when due.
func (p *ArmPosterior) addSum(arm int, y float64) {
	m := len(p.arms)
	// Neumaier-compensated running sum of the observations at arm.
	sum := p.sumY[arm]
	ns := sum + y
	if math.Abs(sum) >= math.Abs(y) {
		p.sumC[arm] += (sum - ns) + y
	} else {
		p.sumC[arm] += (y - ns) + sum
	}
	p.sumY[arm] = ns
	p.since++
	if p.since >= max(refreshEvery, m) {
		p.refreshMean()
	}
}

// refreshEvery is the minimum number of observations between recomputations
// of the mean from the sufficient statistics.
const refreshEvery = 32

// refreshMean recomputes μ = K[:,S]·(K_SS+Λ_S)⁻¹·ȳ_S from the per-arm averages
// ȳ_j, in O(|S|³ + N·|S|). The Kalman mean update μ += c·(y−μ_i)/d commits an
// error of order ε·|y−μ_i|/d per step that does not decay for repeated arms
// (d ≈ λ); refreshing every max(32, |S|) observations bounds the drift at an
// amortized cost of O(|S|² + N) per observation.
func (p *ArmPosterior) refreshMean() {
	p.since = 0
	n, m := p.n, len(p.arms)
	if m == 0 {
		return
	}
	a := p.amat[:m*m]
	z := p.a[:m]
	for s, as := range p.arms {
		for t, at := range p.arms[:s+1] {
			a[s*m+t] = p.prior(as, at)
		}
		a[s*m+s] += p.lam / float64(p.cnt[as])
		z[s] = (p.sumY[as] + p.sumC[as]) / float64(p.cnt[as])
	}
	if !choleskyLowerTri(a, m) {
		return // keep the Kalman mean
	}
	// z = A⁻¹ȳ: L w = ȳ, Lᵀ z = w.
	for s := 0; s < m; s++ {
		z[s] = (z[s] - floats.Dot(a[s*m:s*m+s], z[:s])) / a[s*m+s]
	}
	for s := m - 1; s >= 0; s-- {
		v := z[s]
		for t := s + 1; t < m; t++ {
			v -= a[t*m+s] * z[t]
		}
		z[s] = v / a[s*m+s]
	}
	mu := p.mu[:n]
	for i := range mu {
		mu[i] = 0
	}
	col := p.c[:n] // free between observations
	for s, as := range p.arms {
		if p.k != nil {
			floats.AddScaled(mu, z[s], p.k[as*n:as*n+n])
			continue
		}
		p.priorCol(as, col) // finite: checked when as was first observed
		floats.AddScaled(mu, z[s], col)
	}
}

// grow ensures storage for m slots.
func (p *ArmPosterior) grow(m int) {
	if m <= p.rc {
		return
	}
	c := max(2*p.rc, 8, m)
	c = min(c, p.n)
	ut := make([]float64, len(p.ut), c*p.n)
	copy(ut, p.ut)
	p.ut = ut
	sig := make([]float64, len(p.sig), c*p.n)
	copy(sig, p.sig)
	p.sig = sig
	rt := make([]float64, c*c)
	for t := 0; t < p.rc; t++ {
		copy(rt[t*c:t*c+p.rc], p.rt[t*p.rc:(t+1)*p.rc])
	}
	p.rt = rt
	p.rc = c
	p.ui = make([]float64, c)
	p.amat = make([]float64, c*c)
	p.a = make([]float64, c)
	p.h = make([]float64, c)
}

// Cov writes the full n×n posterior covariance Σ_t = K − U·Uᵀ (row-major)
// into dst, which must have length at least n², in O(n²·|S|); the diagonal is
// Var(). The result is exactly symmetric. If dst is too short Cov writes
// nothing.
func (p *ArmPosterior) Cov(dst []float64) {
	p.sync()
	n := p.n
	if len(dst) < n*n {
		return
	}
	dst = dst[:n*n]
	if p.k != nil {
		copy(dst, p.k)
	} else {
		for i := 0; i < n; i++ {
			p.priorCol(i, dst[i*n:i*n+n])
		}
	}
	if m := len(p.arms); m > 0 {
		blas64.Syrk(blas.Trans, -1, p.utMat(), 1, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: dst})
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				dst[j*n+i] = dst[i*n+j]
			}
		}
	}
	for i := 0; i < n; i++ {
		dst[i*n+i] = p.vr[i]
	}
}
