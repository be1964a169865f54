package optimize

import (
	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/learner"
)

// Kind says which violation of a constraint metric ≤ limit is to be kept
// small (learner.Kind, bandit.ConstraintKind): "stage-wise", "cumulative",
// "long-term".
type Kind = learner.Kind

// Constraint kinds, strictest first (learner.StageWise, …).
const (
	StageWise  = learner.StageWise
	Cumulative = learner.Cumulative
	LongTerm   = learner.LongTerm
)

// What counts (Options.Evaluations; learner.Live, learner.Offline).
const (
	Live    = learner.Live
	Offline = learner.Offline
)

// ValidKind refuses a kind that is none of StageWise, Cumulative, LongTerm
// ("" is accepted: DefaultKind or Choose decides it).
func ValidKind(k Kind) error { return learner.ValidKind(k) }

// Keeps reports whether the algorithm s keeps a constraint of kind k
// (learner.Keeps).
func Keeps(s agent.Spec, k Kind) bool { return learner.Keeps(s, k) }

// Strictest returns the strictest kind s keeps ("" when it keeps none).
func Strictest(s agent.Spec) Kind { return learner.Strictest(s) }

// DefaultKind is the kind of a constraint that gives none (learner.DefaultKind).
func DefaultKind(s *agent.Spec) Kind { return learner.DefaultKind(s) }

// CheckKeeps refuses a constraint kind the algorithm s does not keep,
// naming both (learner.CheckKeeps).
func CheckKeeps(s agent.Spec, k Kind) error { return learner.CheckKeeps(s, k) }

// Choice is the algorithm chosen for a problem that names none, and why.
type Choice = learner.Choice

// Choose picks the algorithm for live evaluations (learner.Choose, which
// also takes offline ones): the default for the strictest kind on a domain
// of kind dom (agent.Domain*), with a known safe point or not.
func Choose(kinds []Kind, safe bool, dom string) (Choice, error) {
	return learner.Choose(kinds, safe, dom, learner.Live)
}
