package bandit

import (
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// Info is what a problem discloses to the learner: the domain, the number of
// constraints, the prior (kernels, noise) and the regularity constants the
// papers' default parameters are built from. It never contains f or g.
type Info struct {
	// Domain is where actions live (*domain.Finite or *domain.Box).
	Domain domain.Domain
	// M is the number of constraints g_1..g_m (g_j(x) ≤ 0 is feasible).
	M int
	// Kernel is the GP prior kernel for f; KernelG for the constraints (nil: same as Kernel).
	Kernel  gp.Kernel
	KernelG gp.Kernel
	// NoiseVar is λ, the noise variance of the GP likelihood (Zhou & Ji (CBO) §2).
	NoiseVar float64
	// B bounds the RKHS norm of f and |f| (Zhou & Ji (CBO) Ass. 2); G the same for g (Ass. 3).
	B, G float64
	// R and RG are the sub-Gaussian noise scales of reward and cost observations.
	R, RG float64
	// Slater is δ of Zhou & Ji (CBO) Ass. 1: some policy has E[g] ≤ −δ (0 when unknown).
	Slater float64
	// Safe is a known safe action (g(Safe) ≤ 0), nil when the problem gives none.
	Safe *Action
	// LipG, when > 0, is a constant with |g_j(x) − g_j(x')| ≤ LipG·d(x, x')
	// for every j, d the metric of the constraint kernel
	// (d² = k(x,x) + k(x',x') − 2k(x,x')); an RKHS norm bound gives one.
	// 0 when the problem states none.
	LipG float64
	// SafeCosts are the known values g_1..g_m(Safe) when the problem states
	// them (nil otherwise), as Pacchiano et al. give the safe arm's cost c₀.
	SafeCosts []float64
	// FullInfo marks the stochastic full-information setting (Zhou & Ji (CBO) §4): each
	// Round carries ConstraintSample.
	FullInfo bool
	// Horizon is T when the problem fixes it (0 otherwise); the runner sets it.
	Horizon int
	// Stage carries the facts of stage-wise constrained problems (Pacchiano et al.); nil
	// for every other problem.
	Stage *Stage
}

// ConstraintKernel returns the kernel of the constraint GPs.
func (in Info) ConstraintKernel() gp.Kernel {
	if in.KernelG != nil {
		return in.KernelG
	}
	return in.Kernel
}
