package problem

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cbandit/cbandit/bandit"
)

// rkhs-synthetic-full: the synthetic problem of Zhou & Ji (CBO) App. F.1 in the
// stochastic full-information setting of Zhou & Ji (CBO) §4.
var (
	sampleNoise = bandit.FloatParam{Name: "sample-noise", Computed: "noise", Range: bandit.AtLeast(0),
		Doc:    "std s of the bounded i.i.d. perturbation of each constraint sample, g_t(x) = g(x) + ξ_t(x), ξ_t(x) ~ U[−√3·s, √3·s] independently per arm and round",
		Source: "Zhou & Ji (CBO) Ass. 5–6 ask for i.i.d. bounded samples; the distribution is our choice"}
	rkhsFullParams = append(slices.Clone(rkhsParams), sampleNoise)
)

func init() {
	Register(Spec{
		Name:    "rkhs-synthetic-full",
		Summary: "rkhs-synthetic with a sample g_t(·) of the constraint given before every round (full information)",
		Source:  "Zhou & Ji (CBO) §4 (Ass. 5–6) on the instance of App. F.1",
		Params:  rkhsFullParams,
		New:     newRKHSFull,
	})
}

// FullInfoFinite is a Finite problem whose rounds carry an i.i.d. sample
// g_t(x) = g(x) + ξ_t(x) of the constraints (Zhou & Ji (CBO) §4). The noisy cost of the
// played arm is the sample's value there, so bandit-feedback agents see the
// same randomness.
type FullInfoFinite struct {
	*Finite
	// Half is the half-width √3·s of the uniform perturbation.
	Half  float64
	noise [][]float64 // this round's ξ_t, per constraint and arm
}

func newRKHSFull(ps bandit.Params, s uint64) (Problem, error) {
	const name = "rkhs-synthetic-full"
	base := ps.Clone()
	delete(base, sampleNoise.Name)
	p, err := newRKHS(base, s)
	if err != nil {
		return nil, err
	}
	fin := p.(*Finite)
	std, err := sampleNoise.ReadOr(name, ps, fin.In.RG)
	if err != nil {
		return nil, err
	}
	return NewFullInfoFinite(fin, math.Sqrt(3)*std), nil
}

// NewFullInfoFinite wraps f: rounds carry samples with uniform noise of
// half-width half. The wrapped Info has FullInfo set and G enlarged by half
// (Zhou & Ji (CBO) Ass. 6: |g_t| ≤ G).
func NewFullInfoFinite(f *Finite, half float64) *FullInfoFinite {
	in := f.In
	in.FullInfo = true
	in.G += half
	f2 := *f
	f2.In = in
	p := &FullInfoFinite{Finite: &f2, Half: half}
	p.noise = make([][]float64, len(f.G))
	for j := range p.noise {
		p.noise[j] = make([]float64, len(f.F))
	}
	return p
}

// Round implements Problem: draws ξ_t and hands out g_t(·).
func (p *FullInfoFinite) Round(rng *rand.Rand, t int) *bandit.Round {
	for j := range p.noise {
		for i := range p.noise[j] {
			p.noise[j][i] = p.Half * (2*rng.Float64() - 1)
		}
	}
	return &bandit.Round{T: t, ConstraintSample: func(a bandit.Action, dst []float64) {
		i := a.Arm
		for j := range p.G {
			if i < 0 || i >= len(p.F) {
				dst[j] = math.NaN()
				continue
			}
			dst[j] = p.G[j][i] + p.noise[j][i]
		}
	}}
}

// Observe implements Problem: Gaussian reward noise; the cost is the round's
// sample g_t(x_t).
func (p *FullInfoFinite) Observe(rng *rand.Rand, _ *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	i, err := p.arm(a)
	if err != nil {
		return 0, err
	}
	for j := range p.G {
		costs[j] = p.G[j][i] + p.noise[j][i]
	}
	return p.F[i] + p.In.R*rng.NormFloat64(), nil
}
