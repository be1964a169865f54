package problem

import (
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// gpu-allocation: Zhou & Ji (CBO) App. A, first example. The paper fixes only the shape
// (two nodes, x = GPU shares, f = energy cost, g_t(x) = ω(t) − Σ h_i(x_i),
// Poisson arrivals ω(t)); every number below is our choice.
var (
	gpuArrival = bandit.FloatParam{Name: "arrival", Default: 2.5, Range: bandit.InHalfOpen(0, 50),
		Doc: "mean λ of the Poisson job arrivals ω(t) per round", Source: "Zhou & Ji (CBO) App. A leaves it open: our choice"}
	gpuGrid   = bandit.IntParam{Name: "grid", Default: 11, Range: bandit.InClosed(2, 41), Doc: "GPU shares x_i ∈ {0, 1/(n−1), …, 1} per node, n² arms", Source: "our choice"}
	gpuNoise  = bandit.FloatParam{Name: "noise", Default: 0.05, Range: bandit.Above(0), Doc: "std R of the Gaussian noise of the energy-cost feedback", Source: "our choice"}
	gpuParams = []bandit.Param{gpuArrival, gpuGrid, gpuNoise}
)

func init() {
	Register(Spec{
		Name:    "gpu-allocation",
		Summary: "GPU shares of two computing nodes: minimise energy s.t. service ≥ Poisson arrivals (full information)",
		Source:  "Zhou & Ji (CBO) App. A (first example); h_i, energy and arrival rate are our choices",
		Params:  gpuParams,
		New:     newGPU,
	})
}

// Service rates h_i(x) = c_i (1 − e^{−k_i x}) jobs per round (known to the
// learner, Zhou & Ji (CBO) App. A): node 1 saturates at 3 jobs, node 2 at 2 jobs but
// ramps up faster.
func gpuService(x1, x2 float64) float64 {
	return 3*(1-math.Exp(-2*x1)) + 2*(1-math.Exp(-3*x2))
}

// gpuEnergy is the energy cost in [0, 1] that the learner sees through noisy
// bandit feedback: node 2 draws 1.5 times the power of node 1 per share.
func gpuEnergy(x1, x2 float64) float64 { return (x1*x1 + 1.5*x2*x2) / 2.5 }

// GPU is the gpu-allocation problem.
type GPU struct {
	*Finite
	Arrival float64
	omega   float64 // ω(t) of the current round
	svc     []float64
}

func newGPU(ps bandit.Params, _ uint64) (Problem, error) {
	const name = "gpu-allocation"
	lam, err := gpuArrival.Read(name, ps)
	if err != nil {
		return nil, err
	}
	n, err := gpuGrid.Read(name, ps)
	if err != nil {
		return nil, err
	}
	R, err := gpuNoise.Read(name, ps)
	if err != nil {
		return nil, err
	}
	var pts [][]float64
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			pts = append(pts, []float64{float64(a) / float64(n-1), float64(b) / float64(n-1)})
		}
	}
	dom, err := domain.NewFinite(pts)
	if err != nil {
		return nil, err
	}
	f := make([]float64, len(pts))
	g := make([]float64, len(pts))
	svc := make([]float64, len(pts))
	minG, safe, maxAbs := math.Inf(1), 0, 0.0
	for i, x := range pts {
		f[i] = -gpuEnergy(x[0], x[1])
		svc[i] = gpuService(x[0], x[1])
		g[i] = lam - svc[i]
		if g[i] < minG {
			minG, safe = g[i], i
		}
		maxAbs = math.Max(maxAbs, math.Abs(g[i]))
	}
	if !(minG < 0) {
		return nil, bandit.ParamErrorf(name, "arrival", "= %v exceeds the largest total service rate %.3g: no allocation is stable", lam, lam-minG)
	}
	k, err := gp.NewSE(0.5, 1)
	if err != nil {
		return nil, err
	}
	safe = SafeSeed([][]float64{g}, len(pts))
	safeAct := bandit.Action{Arm: safe, X: pts[safe]}
	info := bandit.Info{
		Domain: dom, M: 1, Kernel: k, NoiseVar: R * R,
		B: 1, // |f| ≤ 1 by construction; RKHS norm not computed (our choice)
		// |g_t| ≤ max|g| + deviation of ω(t): ω beyond λ + 6√λ has negligible mass.
		G: maxAbs + 6*math.Sqrt(lam), R: R, RG: math.Sqrt(lam),
		Slater: math.Min(1, -minG), Safe: &safeAct, FullInfo: true,
	}
	fin, err := NewFinite(info, f, [][]float64{g})
	if err != nil {
		return nil, err
	}
	return &GPU{Finite: fin, Arrival: lam, svc: svc}, nil
}

// poisson draws from Poisson(mean) by inversion (mean ≤ 50).
func poisson(rng *rand.Rand, mean float64) float64 {
	l := math.Exp(-mean)
	k, p := 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return float64(k)
		}
		k++
	}
}

// Round implements Problem: draws ω(t) and hands out g_t(x) = ω(t) − Σ h_i(x_i).
func (p *GPU) Round(rng *rand.Rand, t int) *bandit.Round {
	p.omega = poisson(rng, p.Arrival)
	omega := p.omega
	return &bandit.Round{T: t, ConstraintSample: func(a bandit.Action, dst []float64) {
		if a.Arm < 0 || a.Arm >= len(p.svc) {
			dst[0] = math.NaN()
			return
		}
		dst[0] = omega - p.svc[a.Arm]
	}}
}

// Observe implements Problem: noisy energy reward; the cost is g_t(x_t).
func (p *GPU) Observe(rng *rand.Rand, _ *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	i, err := p.arm(a)
	if err != nil {
		return 0, err
	}
	costs[0] = p.omega - p.svc[i]
	return p.F[i] + p.In.R*rng.NormFloat64(), nil
}
