package bandit

import "strings"

// ConstraintKind says which violation of a constraint g(x) ≤ 0 is to be
// kept small: the kinds an algorithm declares it honours (agent.Caps), the
// kind of a constraint of the optimize façade (optimize.Kind) and of a
// service study (api.Constraint, its JSON "kind"). One type, spelled as the
// service's JSON and the command line spell it.
type ConstraintKind string

// Constraint kinds, strictest first: a bound on a stricter violation bounds
// the weaker ones (every round feasible ⇒ Σ_t [g]⁺ = 0; [Σ_t g]⁺ ≤ Σ_t [g]⁺).
const (
	// KindStageWise: every round within the limit, g(x_t) ≤ 0 (w.h.p. or as
	// far as the model can tell; Pacchiano et al., safe BO, CONFIG).
	KindStageWise ConstraintKind = "stage-wise"
	// KindCumulative: the sum of the violations Σ_t [g(x_t)]⁺ kept small
	// (Guo et al.).
	KindCumulative ConstraintKind = "cumulative"
	// KindLongTerm: the average within the limit, [Σ_t g(x_t)]⁺ kept small
	// (Zhou & Ji (CBO), Shi & Eryilmaz 2022, Zhou & Ji 2022).
	KindLongTerm ConstraintKind = "long-term"
)

// JoinKinds joins the kinds' names with sep, as strings.Join does.
func JoinKinds(kinds []ConstraintKind, sep string) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, sep)
}
