// Building a study's learner from its normalized definition: the domain, the agent of each stage, box candidates.

package service

import (
	"errors"
	"math"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/service/api"
)

// built is what a study definition turns into: the learner's Info and the
// points its arms stand for.
type built struct {
	info   bandit.Info
	points [][]float64 // arm → point
	params bandit.Params
	sign   float64 // +1 maximize, −1 minimize
	thresh []float64
}

// build turns a normalized definition into the learner's view. Box spaces
// are given to the learner as a finite candidate set inside the box (see
// boxCandidates); a safe point, when given, is added to the candidates.
func build(s *api.StudySpec) (*built, *apiError) {
	b := &built{sign: 1}
	if s.Objective.Goal == api.Minimize {
		b.sign = -1
	}
	for _, c := range s.Constraints {
		b.thresh = append(b.thresh, c.Threshold)
	}
	var safe *bandit.Action
	var dom domain.Domain
	var err error
	switch {
	case s.Space.Type == api.SpaceContextual:
		// The learner's fixed domain is the safe point alone: its actions
		// come with each round (Round.Arms).
		x0 := append([]float64(nil), s.Prior.Safe...)
		if dom, err = domain.NewFinite([][]float64{x0}); err != nil {
			return nil, invalid("space", "%v", err)
		}
		safe = &bandit.Action{Arm: -1, X: x0}
	case s.Space.Type == api.SpaceBox && s.Space.Native:
		box, err := domain.NewBox(s.Space.Lo, s.Space.Hi)
		if err != nil {
			return nil, invalid("space", "%v", err)
		}
		if len(s.Parameters) > 0 && !s.Space.Rounded {
			box.Vars = paramVars(s.Parameters)
			if err := box.CheckVars(); err != nil {
				return nil, invalid("parameters", "%v", err)
			}
		}
		dom = box
		if s.Prior.Safe != nil {
			safe = &bandit.Action{Arm: -1, X: append([]float64(nil), s.Prior.Safe...)}
		}
	case s.Space.Type == api.SpaceBox:
		b.points = boxCandidates(s.Space.Lo, s.Space.Hi, s.Space.Candidates)
		if s.Prior.Safe != nil {
			i := pointIndex(b.points, s.Prior.Safe)
			if i < 0 {
				b.points = append(b.points, append([]float64(nil), s.Prior.Safe...))
				i = len(b.points) - 1
			}
			safe = &bandit.Action{Arm: i, X: b.points[i]}
		}
	default:
		b.points = s.Space.Points
		if s.Prior.Safe != nil {
			i := pointIndex(b.points, s.Prior.Safe)
			safe = &bandit.Action{Arm: i, X: b.points[i]}
		}
	}
	if dom == nil {
		if dom, err = domain.NewFinite(b.points); err != nil {
			return nil, invalid("space", "%v", err)
		}
	}
	p := s.Prior
	var k gp.Kernel
	switch p.Kernel {
	case "se":
		k, err = gp.NewSE(*p.Lengthscale, *p.Variance)
	case "matern12":
		k, err = gp.NewMatern(0.5, *p.Lengthscale, *p.Variance)
	case "matern32":
		k, err = gp.NewMatern(1.5, *p.Lengthscale, *p.Variance)
	case "matern52":
		k, err = gp.NewMatern(2.5, *p.Lengthscale, *p.Variance)
	}
	if err != nil {
		return nil, invalid("prior", "%v", err)
	}
	b.info = bandit.Info{
		Domain: dom, M: len(s.Constraints), Kernel: k, NoiseVar: *p.NoiseVar,
		B: *p.B, G: *p.G, R: *p.R, RG: *p.RG, Slater: *p.Slater, Safe: safe,
		Horizon: s.Horizon, FullInfo: s.FullInfo,
	}
	if safe != nil && len(s.Constraints) > 0 {
		b.info.Stage = b.stage(s, safe)
	}
	b.params, _ = params(s.Params)
	return b, nil
}

// stage is what stage-wise algorithms are told (Pacchiano et al. §2): thresholds τ, the
// safe action x₀ and, when given, its values r₀, c₀; bounds S and L;
// function classes. Constraint values reach agents as g = c − τ (the
// Info.Stage convention); r₀ and the reward class carry the goal's sign.
func (b *built) stage(s *api.StudySpec, safe *bandit.Action) *bandit.Stage {
	p := s.Prior
	S, L := DefaultS, 0.0 // studies stored before S and L existed
	if p.S != nil {
		S = *p.S
	}
	if p.L != nil {
		L = *p.L
	} else {
		L = defaultL(s)
	}
	st := &bandit.Stage{Tau: append([]float64(nil), b.thresh...), X0: append([]float64(nil), safe.X...),
		SafeArm: safe.Arm, S: S, L: L, StarConvex: s.Space.StarConvex}
	if s.Space.Type == api.SpaceContextual {
		st.SafeArm = -1
	}
	if p.SafeReward != nil {
		st.Known, st.R0, st.C0 = true, b.sign**p.SafeReward, append([]float64(nil), p.SafeCosts...)
	}
	if p.RewardClass != nil {
		for _, row := range p.RewardClass {
			r := make([]float64, len(row))
			for i, v := range row {
				r[i] = b.sign * v
			}
			st.RewardClass = append(st.RewardClass, r)
		}
	}
	st.CostClass = p.CostClass
	return st
}

// newAgent builds a fresh run of the study's algorithm for horizon rounds.
func (b *built) newAgent(s *api.StudySpec, horizon int, seed uint64) (bandit.Agent, *apiError) {
	info := b.info
	info.Horizon = horizon
	a, err := agent.New(s.Algorithm, agent.Config{Info: info, Horizon: horizon, Params: b.params, Seed: seed})
	if err != nil {
		field := "algorithm"
		if pe := (*bandit.ParamError)(nil); errors.As(err, &pe) {
			field = "params." + pe.Name
		}
		return nil, invalid(field, "%v", err)
	}
	return a, nil
}

// boxCandidates is the deterministic candidate set of a box: a regular grid
// in one and two dimensions (k points per side, k = round(n^(1/d)), one
// point on a side of zero width), a Halton sequence (bases 2, 3, 5, …, from
// index 1) in three and more (domain.GridPoints, domain.HaltonPoints).
func boxCandidates(lo, hi []float64, n int) [][]float64 {
	d := len(lo)
	if d > 2 {
		return domain.HaltonPoints(lo, hi, n, nil)
	}
	k := max(int(math.Round(math.Pow(float64(n), 1/float64(d)))), 1)
	sides := make([]int, d)
	for i := range sides {
		sides[i] = k
		if hi[i] == lo[i] {
			sides[i] = 1
		}
	}
	return domain.GridPoints(lo, hi, sides)
}
