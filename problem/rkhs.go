package problem

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/internal/seed"
)

// rkhs-synthetic: Zhou & Ji (CBO) App. F.1 (and Zhou & Ji 2022 §5.1 for the independent constraint).
var (
	rkhsH       = bandit.FloatParam{Name: "h", Default: 0.5, Range: bandit.Finite(), Doc: "threshold of g = −f + h·B as a fraction of B", Source: "Zhou & Ji (CBO) App. F.1 uses 1/4 and 1/2"}
	rkhsG       = bandit.ChoiceParam{Name: "g", Default: "neg-f", Choices: []string{"neg-f", "rkhs"}, Doc: "constraint: neg-f (g = −f + h·B) or rkhs (an independent RKHS function)", Source: "Zhou & Ji (CBO) App. F.1; Zhou & Ji 2022 §5.1"}
	rkhsN       = bandit.IntParam{Name: "n", Default: 100, Range: bandit.AtLeast(2), Doc: "number of evenly spaced arms in [0,1]", Source: "Zhou & Ji (CBO) App. F.1: 100"}
	rkhsSupport = bandit.IntParam{Name: "support", Default: 100, Range: bandit.AtLeast(1), Doc: "number p of support points of f", Source: "Zhou & Ji (CBO) App. F.1: p = 100"}
	rkhsLength  = bandit.FloatParam{Name: "lengthscale", Default: 0.2, Range: bandit.Above(0), Doc: "SE kernel lengthscale l", Source: "Zhou & Ji (CBO) App. F.1: 0.2"}
	rkhsNoise   = bandit.FloatParam{Name: "noise", Default: 0.1, Range: bandit.AtLeast(0), Doc: "std R of the Gaussian observation noise", Source: "the paper does not state it: our choice, see report"}
	rkhsNorm    = bandit.ChoiceParam{Name: "normalise", Default: "max", Choices: []string{"max", "none"},
		Doc:    "max: f ← f / max|f| and B = max|f| = 1 (main_synthetic.m: f_test = f/max(abs(f)), B = max(abs(f_test))); none: raw f with B = its RKHS norm √(aᵀK_pa)",
		Source: "Chowdhury & Gopalan's public code, which Zhou & Ji (CBO) App. F.1 cites for B, R, γ_t"}
	rkhsParams = []bandit.Param{rkhsH, rkhsG, rkhsN, rkhsSupport, rkhsLength, rkhsNoise, rkhsNorm}
)

func init() {
	Register(Spec{
		Name:    "rkhs-synthetic",
		Summary: "random RKHS function on 100 points of [0,1], SE kernel, g = −f + h·B",
		Source:  "Zhou & Ji (CBO) App. F.1; Zhou & Ji 2022 §5.1 (g = rkhs)",
		Params:  rkhsParams,
		New:     newRKHS,
	})
}

// randomRKHS draws h = Σ_{i≤p} a_i k(·, x_i), a_i ~ U[−1,1], x_i uniform over
// the arms, and returns its values on the arms and its RKHS norm √(aᵀK_pa).
func randomRKHS(rng interface {
	Float64() float64
	IntN(int) int
}, kv func(a, b int) float64, n, p int) ([]float64, float64) {
	a := make([]float64, p)
	sup := make([]int, p)
	for i := range a {
		a[i] = 2*rng.Float64() - 1
		sup[i] = rng.IntN(n)
	}
	vals := make([]float64, n)
	for x := 0; x < n; x++ {
		var s float64
		for i := range a {
			s += a[i] * kv(x, sup[i])
		}
		vals[x] = s
	}
	var norm2 float64
	for i := range a {
		for j := range a {
			norm2 += a[i] * a[j] * kv(sup[i], sup[j])
		}
	}
	return vals, math.Sqrt(math.Max(norm2, 0))
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// normaliseMax divides v by max|v| in place and returns the new max|v| (1,
// or 0 for a zero function).
func normaliseMax(v []float64) float64 {
	m := maxAbs(v)
	if m == 0 {
		return 0
	}
	for i := range v {
		v[i] /= m
	}
	return 1
}

func newRKHS(ps bandit.Params, s uint64) (Problem, error) {
	const name = "rkhs-synthetic"
	h, err := rkhsH.Read(name, ps)
	if err != nil {
		return nil, err
	}
	gkind, err := rkhsG.Read(name, ps)
	if err != nil {
		return nil, err
	}
	n, err := rkhsN.Read(name, ps)
	if err != nil {
		return nil, err
	}
	p, err := rkhsSupport.Read(name, ps)
	if err != nil {
		return nil, err
	}
	ls, err := rkhsLength.Read(name, ps)
	if err != nil {
		return nil, err
	}
	R, err := rkhsNoise.Read(name, ps)
	if err != nil {
		return nil, err
	}
	norm, err := rkhsNorm.Read(name, ps)
	if err != nil {
		return nil, err
	}
	k, err := gp.NewSE(ls, 1)
	if err != nil {
		return nil, err
	}
	pts := domain.Grid(0, 1, n)
	dom, err := domain.NewFinite(pts)
	if err != nil {
		return nil, err
	}
	// Kernel entries on demand, each as gp.Gram computes it (k(x_i, x_j)
	// with i ≤ j): no N×N matrix, so N = 10⁴ arms cost O(N·p) memory.
	kv := func(a, b int) float64 {
		if b < a {
			a, b = b, a
		}
		return k.Eval(pts[a], pts[b])
	}
	rng := seed.Rand(s)
	// Redraw (deterministically, from the same stream) until the instance
	// satisfies Slater's condition (Zhou & Ji (CBO) Ass. 1): some arm strictly feasible.
	// With h = 1/2 most draws have max f < B/2; the report states this.
	for attempt := 0; attempt < 10000; attempt++ {
		f, B := randomRKHS(rng, kv, n, p)
		// lip: ‖·‖_k of the function g varies with (−f or the drawn g),
		// hence a Lipschitz constant of g in the kernel metric.
		lip := B
		if norm == "max" {
			m := maxAbs(f)
			B = normaliseMax(f)
			lip /= m
		}
		var g []float64
		var G float64
		if gkind == "neg-f" {
			g = make([]float64, n)
			for i := range f {
				g[i] = -f[i] + h*B
			}
			G = B + math.Abs(h)*B
		} else {
			g, G = randomRKHS(rng, kv, n, p)
			lip = G
			if norm == "max" {
				m := maxAbs(g)
				G = normaliseMax(g)
				lip /= m
			}
		}
		minG := math.Inf(1)
		for _, v := range g {
			minG = math.Min(minG, v)
		}
		if !(minG < 0) {
			continue
		}
		safe := SafeSeed([][]float64{g}, n) // median feasible arm (see SafeSeed)
		safeAct := bandit.Action{Arm: safe, X: pts[safe]}
		info := bandit.Info{
			Domain: dom, M: 1, Kernel: k, NoiseVar: R * R,
			B: B, G: G, R: R, RG: R,
			Slater: math.Min(1, -minG),
			Safe:   &safeAct, SafeCosts: []float64{g[safe]}, LipG: lip,
		}
		if info.NoiseVar == 0 {
			info.NoiseVar = 1e-6
		}
		return NewFinite(info, f, [][]float64{g})
	}
	return nil, fmt.Errorf("%s: no instance with a feasible arm in 10000 draws for h = %v", name, h)
}
