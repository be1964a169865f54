// Building a study's learner from its normalized definition, through package learner (the one place the Go library's optimize uses too).

package service

import (
	"errors"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/service/api"
)

// built is what a study definition turns into: the learner (its Info, the
// points its arms stand for, the goal's sign, the thresholds).
type built struct {
	*learner.Learner
}

// definition is a normalized study definition in the learner's terms. A
// stored typed study gives its parameters with the space derived from
// them: its candidates (points) or the encoded cube (native).
func definition(s *api.StudySpec) learner.Definition {
	ps, _ := params(s.Params)
	def := learner.Definition{
		Minimize: s.Objective.Goal == api.Minimize, Algorithm: s.Algorithm, Params: ps,
		Safe: s.Prior.Safe, Seed: s.Seed, Horizon: s.Horizon, FullInfo: s.FullInfo,
		Evaluations: s.Evaluations, Stored: true,
	}
	sp := &s.Space
	switch {
	case sp.Type == api.SpaceContextual:
		def.Space = learner.Space{Dim: sp.Dim, StarConvex: sp.StarConvex}
	case len(s.Parameters) > 0 && sp.Type == api.SpaceBox:
		def.Space = learner.Space{Parameters: toSpace(s.Parameters), Native: true, Rounded: sp.Rounded}
	case len(s.Parameters) > 0:
		def.Space = learner.Space{Parameters: toSpace(s.Parameters), Points: sp.Points}
	case sp.Type == api.SpaceBox:
		def.Space = learner.Space{Lo: sp.Lo, Hi: sp.Hi, Native: sp.Native, Candidates: sp.Candidates}
	default:
		def.Space = learner.Space{Points: sp.Points, StarConvex: sp.StarConvex}
	}
	for _, c := range s.Constraints {
		def.Constraints = append(def.Constraints, learner.Constraint{Name: c.Name, Threshold: c.Threshold, Kind: c.Kind})
	}
	p := s.Prior
	def.Prior = learner.Prior{Kernel: p.Kernel, SafeReward: p.SafeReward, SafeCosts: p.SafeCosts,
		RewardClass: p.RewardClass, CostClass: p.CostClass}
	for _, f := range []struct {
		dst *float64
		src *float64
	}{{&def.Prior.Lengthscale, p.Lengthscale}, {&def.Prior.Variance, p.Variance}, {&def.Prior.NoiseVar, p.NoiseVar},
		{&def.Prior.B, p.B}, {&def.Prior.G, p.G}, {&def.Prior.R, p.R}, {&def.Prior.RG, p.RG},
		{&def.Prior.Slater, p.Slater}, {&def.Prior.S, p.S}, {&def.Prior.L, p.L}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	def.Prior.RSet, def.Prior.RGSet = p.R != nil, p.RG != nil
	return def
}

// build turns a normalized definition into the learner's view (learner.Build).
func build(s *api.StudySpec) (*built, *apiError) {
	l, err := learner.Build(definition(s))
	if err != nil {
		return nil, learnerError(err)
	}
	return &built{l}, nil
}

// newAgent builds a fresh run of the study's algorithm for horizon rounds.
func (b *built) newAgent(_ *api.StudySpec, horizon int, seed uint64) (bandit.Agent, *apiError) {
	a, err := b.NewAgent(horizon, seed)
	if err != nil {
		return nil, learnerError(err)
	}
	return a, nil
}

// learnerError is the learner's refusal as the service's, naming the field.
func learnerError(err error) *apiError {
	var le *learner.Error
	if errors.As(err, &le) {
		return invalid(le.Field, "%v", le.Err)
	}
	return invalid("space", "%v", err)
}

// boxCandidates is the deterministic candidate set of a box (learner.BoxCandidates).
func boxCandidates(lo, hi []float64, n int) [][]float64 { return learner.BoxCandidates(lo, hi, n) }
