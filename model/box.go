package model

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// Predictor is a model over a continuous domain that can evaluate its
// posterior at any point, not only at its candidates (used by the local
// refinement of maximise.Refine).
type Predictor interface {
	Predict(x []float64) (mean, variance float64)
}

// BatchPredictor is a Predictor that evaluates its posterior at many
// points with one pass over its factor, with the gradients of mean and
// variance in closed form (the gradient refinement of maximise.RefineGrad).
type BatchPredictor interface {
	Predictor
	// PredictBatch writes μ and σ² at xs and, when dmean and dvar are not
	// nil, their gradients.
	PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error
	// Gradients reports whether PredictBatch can compute gradients.
	Gradients() bool
}

// AdjointPredictor is a BatchPredictor whose gradients can also come in
// the adjoint form (gp.Exact.PredictBatchAdjoint): the same means and
// variances, the gradients equal to rounding, two triangular solves a point
// instead of d + 1.
type AdjointPredictor interface {
	BatchPredictor
	PredictBatchAdjoint(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error
}

// AsAdjointPredictor returns m as an AdjointPredictor (a Box, possibly in
// an Adaptive), else nil.
func AsAdjointPredictor(m Model) AdjointPredictor {
	if a, ok := m.(*Adaptive); ok {
		if _, ok := a.inner.(AdjointPredictor); !ok {
			return nil
		}
		return a
	}
	if p, ok := m.(AdjointPredictor); ok {
		return p
	}
	return nil
}

// DefaultCandidates is the number of candidate points For places in a box
// (a grid with ⌈1024^{1/d}⌉ points per side; 32 × 32 in 2-D). Our choice:
// Guo et al. do not say how (11) is maximised over [0,6]².
const DefaultCandidates = 1024

// GridPoints returns the regular grid with n points per side (n ≥ 2) over
// the box, first coordinate slowest (domain.GridPoints).
func GridPoints(b *domain.Box, n int) [][]float64 {
	sides := make([]int, b.Dim())
	for i := range sides {
		sides[i] = n
	}
	return domain.GridPoints(b.Lo, b.Hi, sides)
}

// RandomPoints returns n points drawn uniformly from the box with rng.
func RandomPoints(b *domain.Box, n int, rng *rand.Rand) [][]float64 {
	pts := make([][]float64, n)
	for k := range pts {
		x := make([]float64, b.Dim())
		for i := range x {
			x[i] = b.Lo[i] + (b.Hi[i]-b.Lo[i])*rng.Float64()
		}
		pts[k] = x
	}
	return pts
}

// DefaultGrid is the candidate grid For uses: ⌈DefaultCandidates^{1/d}⌉
// points per side (at least 2).
func DefaultGrid(b *domain.Box) [][]float64 {
	n := int(math.Ceil(math.Pow(DefaultCandidates, 1/float64(b.Dim())) - 1e-9))
	if n < 2 {
		n = 2
	}
	return GridPoints(b, n)
}

// Box is the exact GP posterior of a function on a box, kept current at a
// fixed candidate set: gp.Exact holds the incremental Cholesky factor (O(t²)
// per observation) and gp.Candidates the candidates' posterior (O(t·M) per
// observation). Predict evaluates the posterior anywhere in O(t²).
type Box struct {
	idx  map[string]int // candidate point → index, for gp.Candidates.SeedSolve
	dom  *domain.Box
	g    *gp.Exact
	c    *gp.Candidates
	pts  [][]float64
	kern gp.Kernel
	lam  float64
}

// NewBox returns the posterior over dom with kernel k, noise variance
// (regulariser) λ and the given candidate points (DefaultGrid when nil).
func NewBox(dom *domain.Box, k gp.Kernel, noiseVar float64, cands [][]float64) (*Box, error) {
	cands, err := boxCandidates(dom, cands)
	if err != nil {
		return nil, err
	}
	g, err := gp.NewExact(k, noiseVar)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	c := gp.NewCandidates(g, cands)
	if err := c.Sync(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	idx := make(map[string]int, len(cands))
	for i, x := range c.Points() {
		idx[pointKey(x)] = i
	}
	return &Box{idx: idx, dom: dom, g: g, c: c, pts: c.Points(), kern: k, lam: noiseVar}, nil
}

// renew returns an empty model on m's box and candidates with kernel k and
// noise variance λ: NewBox without checking and indexing the candidates
// again (an Adaptive model's refresh).
func (m *Box) renew(k gp.Kernel, noiseVar float64) (*Box, error) {
	g, err := gp.NewExact(k, noiseVar)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	c := gp.NewCandidates(g, m.pts)
	if err := c.Sync(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	c.SharePrior(m.c) // the prior factor of Sample: kept, or computed here after a refit
	return &Box{idx: m.idx, dom: m.dom, g: g, c: c, pts: c.Points(), kern: k, lam: noiseVar}, nil
}

// pointKey is the exact bit pattern of a point, as a map key.
func pointKey(x []float64) string {
	return string(appendKey(make([]byte, 0, 8*len(x)), x))
}

// appendKey appends pointKey's bytes of x to b.
func appendKey(b []byte, x []float64) []byte {
	for _, v := range x {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// candidate is the index of candidate x, as idx[pointKey(x)], without
// allocating the key for points of up to 16 coordinates (every prediction
// of a polish asks it).
func (m *Box) candidate(x []float64) (int, bool) {
	var buf [128]byte
	i, ok := m.idx[string(appendKey(buf[:0], x))]
	return i, ok
}

// Len implements Model.
func (m *Box) Len() int { return len(m.pts) }

// Action implements Model: candidate i as a point action.
func (m *Box) Action(i int) bandit.Action { return bandit.PointAction(m.pts[i]) }

// Observe implements Model; a.X must lie in the box.
func (m *Box) Observe(a bandit.Action, y float64) error {
	if err := m.dom.Contains(a.X); err != nil {
		return fmt.Errorf("model: action: %w", err)
	}
	if err := m.g.Add(a.X, y); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return m.c.Sync()
}

// observeAll observes ys at acts: every point enters the factor first and
// the candidates' posterior is brought up to date once, by blocked
// products (gp.Candidates.Sync), several times faster than one Observe per
// point on a rebuild, equal to it up to rounding.
func (m *Box) observeAll(acts []bandit.Action, ys []float64) error {
	for i, a := range acts {
		if err := m.dom.Contains(a.X); err != nil {
			return fmt.Errorf("model: action: %w", err)
		}
		if err := m.g.Add(a.X, ys[i]); err != nil {
			return fmt.Errorf("model: %w", err)
		}
	}
	return m.c.Sync()
}

// Mean implements Model.
func (m *Box) Mean() []float64 { return m.c.Mean() }

// Var implements Model.
func (m *Box) Var() []float64 { return m.c.Var() }

// Cov implements Model by the dense reference formulas (O(t³ + M²t)).
// Joint Thompson draws use Sample instead.
func (m *Box) Cov(dst []float64) {
	_, cov := gp.BatchPosterior(m.kern, m.g.Points(), m.g.Values(), m.lam, m.pts)
	if cov == nil {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	copy(dst, cov)
}

// Sample implements JointSampler by pathwise conditioning
// (gp.Candidates.Sample; Wilson et al. 2020, ICML): O(M² + t² + t·M) per
// draw after a root of the prior at the candidates is made once per kernel
// (O(M³); on the grid of a 1–2-D box by block Levinson, O(M²·√M) in 2-D);
// pending points (Pend) are conditioned on.
func (m *Box) Sample(rng *rand.Rand, scale float64, dst []float64) error {
	if err := m.c.Sample(rng, scale, dst); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// sharePrior gives to, a GP just built, the prior factor of from's
// Thompson draws (gp.Candidates.SharePrior, gp.ArmPosterior.SharePrior):
// shared when their priors are equal, else computed now if from has drawn.
func sharePrior(from, to Model) {
	switch t := to.(type) {
	case *Box:
		if f, ok := from.(*Box); ok {
			t.c.SharePrior(f.c)
		}
	case *Arms:
		if f, ok := from.(*Arms); ok {
			t.ArmPosterior.SharePrior(f.ArmPosterior)
		}
	}
}

// InfoGain implements Model.
func (m *Box) InfoGain() float64 { return m.g.InfoGain() }

// Count implements Model.
func (m *Box) Count() int { return m.g.Len() }

// Reset implements Model.
func (m *Box) Reset() {
	m.g.Reset()
	_ = m.c.Sync() // rebuilds the prior; cannot fail after a successful NewBox
}

// Predict implements Predictor. It goes through the GP's solve cache, so a
// point that a batch has just evaluated (for this model or one sharing its
// factor) costs O(t) instead of O(t²).
func (m *Box) Predict(x []float64) (float64, float64) {
	var mu, v [1]float64
	if err := m.g.PredictBatch([][]float64{x}, mu[:], v[:], nil, nil); err != nil {
		return math.NaN(), math.NaN()
	}
	return mu[0], v[0]
}

// PredictBatch implements BatchPredictor (gp.Exact.PredictBatch).
func (m *Box) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	for _, x := range xs { // a candidate's solve is a column of W
		if i, ok := m.candidate(x); ok {
			m.c.SeedSolve(i)
		}
	}
	if err := m.g.PredictBatch(xs, mean, variance, dmean, dvar); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// PredictBatchAdjoint implements AdjointPredictor
// (gp.Exact.PredictBatchAdjoint).
func (m *Box) PredictBatchAdjoint(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	for _, x := range xs {
		if i, ok := m.candidate(x); ok {
			m.c.SeedSolve(i)
		}
	}
	if err := m.g.PredictBatchAdjoint(xs, mean, variance, dmean, dvar); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// Gradients implements BatchPredictor: the kernel has a closed-form
// gradient.
func (m *Box) Gradients() bool {
	_, ok := m.kern.(gp.GradKernel)
	return ok
}

// Share returns a new, empty model of the same function class on the same
// box and candidates that shares m's Cholesky factor and candidate matrix
// (gp.Exact.Share, gp.ShareCandidates): f and g_1..g_m observed at the same
// points pay the O(t²) and O(t·M) work once. Results are those of an
// unshared model (a model that observes a different point takes a private
// copy of the common prefix).
func (m *Box) Share() (*Box, error) {
	g := m.g.Share()
	c, err := gp.ShareCandidates(g, m.c)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return &Box{idx: m.idx, dom: m.dom, g: g, c: c, pts: m.pts, kern: m.kern, lam: m.lam}, nil
}

// Shared reports whether m currently shares its factor with another model.
func (m *Box) Shared() bool { return m.g.Shared() }

// Domain returns the box.
func (m *Box) Domain() *domain.Box { return m.dom }

// boxCandidates checks a box's candidate set (DefaultGrid when nil): the
// box is given, the set is not empty and every point lies in the box.
func boxCandidates(dom *domain.Box, cands [][]float64) ([][]float64, error) {
	if dom == nil {
		return nil, fmt.Errorf("model: box is nil")
	}
	if cands == nil {
		cands = DefaultGrid(dom)
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("model: box candidate set is empty")
	}
	for i, x := range cands {
		if err := dom.Contains(x); err != nil {
			return nil, fmt.Errorf("model: candidate %d: %w", i, err)
		}
	}
	if dom.Mixed() {
		cands = validPoints(dom, cands)
	}
	return cands, nil
}

// validPoints are the points of a box with discrete coordinates moved to
// their nearest valid values (domain.Box.Project), without repeats, in
// their order.
func validPoints(dom *domain.Box, pts [][]float64) [][]float64 {
	seen := make(map[string]bool, len(pts))
	out := make([][]float64, 0, len(pts))
	for _, x := range pts {
		y := append([]float64(nil), x...)
		dom.Project(y)
		if k := pointKey(y); !seen[k] {
			seen[k] = true
			out = append(out, y)
		}
	}
	return out
}

// SpaceFilling is the candidate set of the practical defaults (agent
// parameter candidates=halton): DefaultCandidates Halton points in
// three and more dimensions, where the grid has few levels per axis and
// most of its points on the faces (4⁶ points on {0, ⅓, ⅔, 1}⁶ in 6-D); the
// grid in one and two. On the suite's 3–6-D problems it lowers the late
// regret of rpol-ucb and config (pressure-vessel 0.09 → 0.02–0.05,
// hartmann6 0.44 → 0.30–0.38; docs/defaults.md).
func SpaceFilling(b *domain.Box) [][]float64 {
	if b.Dim() >= 3 {
		return HaltonPoints(b, DefaultCandidates)
	}
	return DefaultGrid(b)
}

// HaltonPoints returns the first n points of domain.Halton scaled to the
// box (domain.HaltonPoints).
func HaltonPoints(b *domain.Box, n int) [][]float64 {
	return domain.HaltonPoints(b.Lo, b.Hi, n, nil)
}
