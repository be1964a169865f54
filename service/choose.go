// Choosing a study's algorithm and the kind of domain its learner gets (resolveAlgorithm, requestDomain).

package service

import (
	"fmt"
	"slices"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/service/api"
)

// resolveAlgorithm settles the algorithm and the constraints' kinds of a
// definition before it is normalized: a definition that names no algorithm
// gets one chosen from its constraints (learner.Choose: the default the
// registry declares for the strictest kind, on the study's domain, with or
// without a safe point, for its evaluations, live or offline), recorded with the reason in algorithm_choice; a
// constraint without a kind gets the strictest kind the algorithm keeps
// (stage-wise when the algorithm was chosen); a kind the named algorithm
// does not keep is refused, naming both.
func resolveAlgorithm(s *api.StudySpec) *apiError {
	if s.AlgorithmChoice != "" {
		if s.Algorithm == "" {
			return invalid("algorithm_choice", "is set by the service when it chooses the algorithm, not on creation")
		}
		// A definition read back from the service: it names the algorithm
		// chosen then, and the reason no longer applies.
		s.AlgorithmChoice = ""
	}
	if err := learner.CheckEvaluations(s.Evaluations); err != nil {
		return invalid("evaluations", "= %q: accepted are %q (every evaluation counts; the default) and %q (only the final configuration counts)", s.Evaluations, learner.Live, learner.Offline)
	}
	kinds := make([]learner.Kind, len(s.Constraints))
	for j, c := range s.Constraints {
		if learner.ValidKind(c.Kind) != nil {
			return invalid(fmt.Sprintf("constraints[%d].kind", j), "= %q: accepted are %q, %q, %q", c.Kind, api.KindStageWise, api.KindCumulative, api.KindLongTerm)
		}
		kinds[j] = c.Kind
	}
	if s.Algorithm == "" {
		ch, err := learner.Choose(kinds, s.Prior.Safe != nil, requestDomain(s), s.Evaluations)
		if err != nil {
			return invalid("algorithm", "is absent and none is chosen: %v; name one (cbandit list)", err)
		}
		s.Algorithm, s.AlgorithmChoice = ch.Algorithm, "no algorithm named; "+ch.Reason
		for j := range s.Constraints {
			s.Constraints[j].Kind = ch.Kinds[j]
		}
		return nil
	}
	spec, err := agent.Lookup(s.Algorithm)
	if err != nil {
		return invalid("algorithm", "%v", err)
	}
	for j := range s.Constraints {
		c := &s.Constraints[j]
		if c.Kind == "" {
			c.Kind = learner.DefaultKind(&spec)
			continue
		}
		if err := learner.CheckKeeps(spec, c.Kind); err != nil {
			return invalid(fmt.Sprintf("constraints[%d].kind", j), "= %q: %v", c.Kind, err)
		}
	}
	return nil
}

// requestDomain is the kind of domain (agent.Domain*) a definition gives
// its learner, read before normalization (decodeStudy's rule): a box
// (boxSpace) that is native or nativeByDefault; points; contextual.
func requestDomain(s *api.StudySpec) string {
	switch {
	case s.Space.Type == api.SpaceContextual:
		return agent.DomainContextual
	case boxSpace(s) && (s.Space.Native || nativeByDefault(s)):
		if slices.ContainsFunc(s.Parameters, func(p api.Parameter) bool { return p.Type != ParamFloat || p.Step != nil }) {
			return agent.DomainTyped // searched as a mixed space
		}
		return agent.DomainBox
	}
	return agent.DomainFinite
}

// boxSpace reports whether a definition, before normalization, describes a
// box: a box space, or typed parameters (only floats before
// api.DefaultsMixed).
func boxSpace(s *api.StudySpec) bool {
	if len(s.Parameters) == 0 {
		return s.Space.Type == api.SpaceBox
	}
	for _, p := range s.Parameters {
		if p.Type != ParamFloat && s.Defaults < api.DefaultsMixed {
			return false
		}
	}
	return true
}

// nativeByDefault reports whether a definition's box is searched as a box
// by an algorithm that takes one, space.native unsaid: unless a candidate
// set, full information or a generation before api.DefaultsNativeBox make
// it finite.
func nativeByDefault(s *api.StudySpec) bool {
	return boxSpace(s) && s.Space.Candidates == 0 && !s.FullInfo && s.Defaults >= api.DefaultsNativeBox
}
