package model

import (
	"fmt"
	"math/rand/v2"
	"reflect"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// Model is a posterior over a finite candidate set.
type Model interface {
	// Len is the number of candidates.
	Len() int
	// Action returns candidate i as an action.
	Action(i int) bandit.Action
	// Observe adds the observation y at action a.
	Observe(a bandit.Action, y float64) error
	// Mean and Var are the posterior mean and variance at every candidate
	// (read-only views, valid until the next Observe or Reset).
	Mean() []float64
	Var() []float64
	// Cov writes the full posterior covariance over the candidates (Len×Len,
	// row-major) into dst.
	Cov(dst []float64)
	// InfoGain is the realized information gain γ_t = ½ Σ_s log(1 + σ²_{s−1}(x_s)/λ).
	InfoGain() float64
	// Count is the number of observations.
	Count() int
	// Reset forgets every observation (restart algorithms).
	Reset()
}

// JointSampler is a model that draws joint posterior samples at its
// candidates itself: Sample writes into dst (one entry per candidate) a
// draw from N(μ, scale²·Σ) using rng, scale ≥ 0. Arms (gp.ArmPosterior)
// and Box (gp.Candidates) draw by pathwise conditioning, without forming Σ.
type JointSampler interface {
	Sample(rng *rand.Rand, scale float64, dst []float64) error
}

// AsJointSampler returns the model that draws m's joint samples: m itself,
// or the GP inside an Adaptive or a sliding Window (their means and
// covariances are the inner GP's); false when there is none (a SparseBox,
// a Censored model: Thompson draws then factorise Cov).
func AsJointSampler(m Model) (JointSampler, bool) {
	for {
		switch w := m.(type) {
		case *Adaptive:
			m = w.inner
		case *Window:
			m = w.Model
		default:
			js, ok := m.(JointSampler)
			return js, ok
		}
	}
}

// Arms is the exact GP posterior over the arms of a finite domain.
type Arms struct {
	*gp.ArmPosterior
	dom *domain.Finite
	// pendVar is the variance given the pending arms (Pend), nil without
	pendVar []float64
}

// NewArms builds the posterior over a finite domain with prior kernel k and
// noise variance λ. A *gp.Precomputed kernel is used as the prior covariance
// matrix directly (not copied); any other kernel is evaluated at the arms'
// coordinates column by column as arms are observed, so no N×N matrix is
// formed (memory O(N·|S|); docs/scaling.md).
func NewArms(dom *domain.Finite, k gp.Kernel, noiseVar float64) (*Arms, error) {
	var (
		p   *gp.ArmPosterior
		err error
	)
	if pk, ok := k.(*gp.Precomputed); ok {
		if pk.N != dom.N {
			return nil, fmt.Errorf("model: precomputed kernel is %d×%d, the domain has %d arms", pk.N, pk.N, dom.N)
		}
		p, err = gp.NewArmPosteriorPrecomputed(pk, noiseVar)
	} else {
		if k == nil {
			return nil, fmt.Errorf("model: the problem gives no GP kernel")
		}
		if dom.Points == nil {
			return nil, fmt.Errorf("model: kernel %s needs arm coordinates, the domain has none", k)
		}
		p, err = gp.NewArmPosteriorKernel(k, dom.Points, noiseVar)
	}
	if err != nil {
		return nil, err
	}
	return &Arms{ArmPosterior: p, dom: dom}, nil
}

// Share returns a model at the prior that shares m's covariance state
// (gp.ArmPosterior.Share); m must not have observed anything yet.
func (m *Arms) Share() (*Arms, error) {
	p, err := m.ArmPosterior.Share()
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return &Arms{ArmPosterior: p, dom: m.dom}, nil
}

// Len implements Model.
func (m *Arms) Len() int { return m.dom.N }

// Action implements Model.
func (m *Arms) Action(i int) bandit.Action {
	a := bandit.Action{Arm: i}
	if m.dom.Points != nil {
		a.X = m.dom.Points[i]
	}
	return a
}

// Observe implements Model.
func (m *Arms) Observe(a bandit.Action, y float64) error {
	if a.Arm < 0 || a.Arm >= m.dom.N {
		return fmt.Errorf("model: arm = %d: outside [0, %d)", a.Arm, m.dom.N)
	}
	return m.ArmPosterior.Observe(a.Arm, y)
}

// For builds the model of a problem's domain: the arm posterior for finite
// domains, the candidate-set posterior (DefaultGrid) for boxes.
func For(info bandit.Info, k gp.Kernel, noiseVar float64) (Model, error) {
	switch d := info.Domain.(type) {
	case *domain.Finite:
		return NewArms(d, k, noiseVar)
	case *domain.Box:
		return NewBox(d, k, noiseVar, nil)
	default:
		return nil, fmt.Errorf("model: domain %s is not supported by this algorithm", info.Domain)
	}
}

// ForAll builds the posterior models of a constrained problem: f with
// info.Kernel and g_1..g_M with info.ConstraintKernel(), all with noise
// variance λ. Models with equal kernels share one factorisation (ForGroup).
func ForAll(info bandit.Info, noiseVar float64) (f Model, g []Model, err error) {
	ks := make([]gp.Kernel, 1+info.M)
	ks[0] = info.Kernel
	for j := 1; j < len(ks); j++ {
		ks[j] = info.ConstraintKernel()
	}
	ms, err := ForGroup(info, ks, noiseVar)
	if err != nil {
		return nil, nil, err
	}
	return ms[0], ms[1:], nil
}

// ForGroup builds one model per kernel (For) with noise variance λ. Models
// whose kernels are equal share their kernel-dependent state: on a box one
// Cholesky factor and one candidate matrix (Box.Share), on finite arms one
// covariance state (Arms.Share): f, g_1..g_m, or the penalty GPs of Shi & Eryilmaz 2022, all
// observed at the played points, then cost one O(t²) factor update and one
// O(t·M) candidate update (boxes), or one O(N·|S|) covariance update
// (arms), per round instead of one each.
func ForGroup(info bandit.Info, ks []gp.Kernel, noiseVar float64) ([]Model, error) {
	ms := make([]Model, len(ks))
	for i, k := range ks {
		for j := 0; j < i && ms[i] == nil; j++ {
			if !sameKernel(ks[j], k) {
				continue
			}
			switch m := ms[j].(type) {
			case *Box:
				s, err := m.Share()
				if err != nil {
					return nil, err
				}
				ms[i] = s
			case *Arms:
				s, err := m.Share()
				if err != nil {
					return nil, err
				}
				ms[i] = s
			}
		}
		if ms[i] != nil {
			continue
		}
		m, err := For(info, k, noiseVar)
		if err != nil {
			return nil, err
		}
		ms[i] = m
	}
	return ms, nil
}

// sameKernel reports whether a and b are the same kernel: equal values of a
// comparable type (SE, Matérn, linear; the same *Precomputed).
func sameKernel(a, b gp.Kernel) bool {
	if a == nil || b == nil {
		return false
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}
