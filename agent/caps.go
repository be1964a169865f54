package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// Domains an algorithm takes (Caps.Domains).
const (
	DomainFinite     = "finite"     // a fixed set of arms
	DomainBox        = "box"        // a box [lo, hi]^d, optimised as a box
	DomainContextual = "contextual" // per-round action sets (Pacchiano et al. §4)
	// DomainTyped is a box with discrete coordinates (typed parameters,
	// domain.Box.Vars): every algorithm that takes a box takes it.
	DomainTyped = "typed"
)

// Constraint kinds an algorithm honours (Caps.Kinds): the violation its
// rule is built to keep small (bandit.ConstraintKind).
const (
	KindCumulative = bandit.KindCumulative // Σ_t [g(x_t)]⁺ (Guo et al.)
	KindLongTerm   = bandit.KindLongTerm   // [Σ_t g(x_t)]⁺ (Zhou & Ji (CBO), Shi & Eryilmaz 2022, Zhou & Ji 2022)
	KindPerRound   = bandit.KindStageWise  // each round g(x_t) ≤ 0 (w.h.p. or as far as the model can tell; Pacchiano et al., safe BO)
)

// How an algorithm treats decisions that await feedback (Caps.Pending).
const (
	// PendingHallucinate: a GP agent conditions its models on the pending
	// points at their posterior mean (GP-BUCB, Desautels et al. 2014): the
	// variance shrinks there, the mean does not move.
	PendingHallucinate = "hallucinate"
	// PendingDraw: a randomised agent draws afresh for each decision, so
	// pending decisions differ by its randomness alone.
	PendingDraw = "draw"
	// PendingObserved: the decision uses the observed data only; its
	// confidence sets stay valid with feedback outstanding (delayed-feedback
	// linear bandits, Vernade et al. 2020 ICML), and in a contextual study
	// each decision has its own action set.
	PendingObserved = "observed"
	// PendingExclude: the safe set comes from observed data only (the
	// safety guarantee is untouched) and the selection passes over the
	// arms of pending decisions (the safe-BO baselines).
	PendingExclude = "exclude"
	// PendingCensored: a decision enters the GPs at once with the censored
	// value 0 until its feedback arrives (RPOL-CensoredUCB, Guo et al. §5).
	PendingCensored = "censored"
)

// Caps declares what an algorithm can do. The runner, the service, the suite
// and `cbandit list` read it; nothing outside the registry matches names.
type Caps struct {
	// Domains lists the domains the algorithm takes.
	Domains []string
	// Kinds lists the constraint kinds it honours.
	Kinds []bandit.ConstraintKind
	// NeedsConstraints: it needs at least one constraint (Info.M ≥ 1): its
	// rule has nothing to act on without one (Fits and New refuse M = 0).
	NeedsConstraints bool
	// NeedsSafe: it starts from a known safe action (Info.Safe).
	NeedsSafe bool
	// NeedsFullInfo: it needs a constraint sample before each round (Zhou & Ji (CBO) §4).
	NeedsFullInfo bool
	// NeedsStage: it needs the stage-wise facts of Pacchiano et al. (thresholds, the safe
	// arm's values; Info.Stage).
	NeedsStage bool
	// NeedsClass: it needs finite function classes (Pacchiano et al. §5.3).
	NeedsClass bool
	// Randomised: its decisions draw on its own random stream (Thompson,
	// RandGP, randomised policies), so a repeat of the same state can differ.
	Randomised bool
	// Pending is how it treats pending decisions (Pending*).
	Pending string
	// DefaultFor lists the situations in which a study that names no
	// algorithm gets this one (Situation.Keys): a constraint kind, with
	// "+safe" when the study gives a safe point, "+typed" on a typed space;
	// "offline" or "<kind>+offline" when its evaluations are offline.
	DefaultFor []string
	// LearnsFailures: a failed evaluation teaches it where evaluations
	// fail (the GP agents' failure model, failure.go); without it a failure
	// closes its decision and teaches nothing, as an abandon that counts
	// toward the horizon.
	LearnsFailures bool
}

// String is the declaration in one line, for cbandit list --verbose.
func (c Caps) String() string {
	var parts []string
	if len(c.Domains) > 0 {
		parts = append(parts, "domains "+strings.Join(c.Domains, ", "))
	}
	if len(c.Kinds) > 0 {
		parts = append(parts, "keeps "+bandit.JoinKinds(c.Kinds, ", ")+" constraints")
	}
	for _, n := range []struct {
		on   bool
		what string
	}{{c.NeedsConstraints, "constraints"}, {c.NeedsSafe, "a safe action"}, {c.NeedsFullInfo, "full information"}, {c.NeedsStage, "stage-wise facts"}, {c.NeedsClass, "function classes"}} {
		if n.on {
			parts = append(parts, "needs "+n.what)
		}
	}
	if c.Randomised {
		parts = append(parts, "randomised")
	}
	if c.Pending != "" {
		parts = append(parts, "pending decisions: "+c.Pending)
	}
	if len(c.DefaultFor) > 0 {
		parts = append(parts, "the default for "+strings.Join(c.DefaultFor, ", "))
	}
	if c.LearnsFailures {
		parts = append(parts, "failed evaluations: learns where they happen")
	} else {
		parts = append(parts, "failed evaluations: close the decision, teach nothing")
	}
	return strings.Join(parts, "; ")
}

// Takes reports whether c lists the domain dom.
func (c Caps) Takes(dom string) bool {
	if dom == DomainTyped {
		dom = DomainBox
	}
	return slices.Contains(c.Domains, dom)
}

// Honours reports whether c lists the constraint kind k.
func (c Caps) Honours(k bandit.ConstraintKind) bool { return slices.Contains(c.Kinds, k) }

// DomainOf names the kind of an Info's domain (contextual when the stage
// facts say the action sets change per round).
func DomainOf(in bandit.Info) string {
	switch in.Domain.(type) {
	case *domain.Box:
		return DomainBox
	case *domain.Finite:
		if in.Stage != nil && in.Stage.SafeArm < 0 {
			return DomainContextual
		}
		return DomainFinite
	}
	return ""
}

// Fits reports why the algorithm cannot run on a problem that discloses
// in, from its declaration alone (nil when the declaration allows it; the
// factory may still refuse a parameter).
func (s Spec) Fits(in bandit.Info) error {
	c := s.Can
	if d := DomainOf(in); !c.Takes(d) {
		return fmt.Errorf("%s takes %s domains, the problem's is %s", s.Name, strings.Join(c.Domains, " or "), d)
	}
	if err := s.constrained(in); err != nil {
		return err
	}
	switch {
	case c.NeedsSafe && in.Safe == nil:
		return fmt.Errorf("%s needs a known safe action, the problem gives none", s.Name)
	case c.NeedsFullInfo && !in.FullInfo:
		return fmt.Errorf("%s needs a constraint sample before each round (full information, Zhou & Ji (CBO) §4), the problem gives none", s.Name)
	case c.NeedsStage && in.Stage == nil:
		return fmt.Errorf("%s needs a stage-wise problem (Pacchiano et al.: thresholds and the safe arm's values)", s.Name)
	}
	return nil
}

// constrained refuses a problem without constraints for an algorithm that
// declares NeedsConstraints (Fits and New).
func (s Spec) constrained(in bandit.Info) error {
	if s.Can.NeedsConstraints && in.M < 1 {
		return fmt.Errorf("%s: the problem has no constraints (M = %d)", s.Name, in.M)
	}
	return nil
}

// Offline is the situation string of a study whose evaluations are
// offline (DESIGN.md, "Live and offline evaluations"): only the
// configuration deployed at the end counts, so every constraint kind limits
// the recommendation only. A Caps.DefaultFor entry "offline" serves any
// kind, "<kind>+offline" (e.g. "stage-wise+offline") that kind first.
const Offline = "offline"

// Situation is what the chooser reads of a study that names no algorithm:
// its constraint kind, whether it gives a safe point, its domain (Domain*,
// DomainTyped for typed parameters) and whether its evaluations are
// offline. The service and optimize fill it from the study's definition
// (Offline from its "evaluations": "offline").
type Situation struct {
	Kind    bandit.ConstraintKind
	Safe    bool
	Domain  string
	Offline bool
}

// Keys are the DefaultFor entries s matches, most specific first: offline,
// "<kind>+offline" then "offline"; live, "<kind>+typed" on a typed space,
// "<kind>+safe" with a safe point, then "<kind>".
func (s Situation) Keys() []string {
	k := string(s.Kind)
	if s.Offline {
		return []string{k + "+" + Offline, Offline}
	}
	keys := []string{k}
	if s.Safe {
		keys = []string{k + "+safe", k}
	}
	if s.Domain == DomainTyped {
		keys = append([]string{k + "+typed"}, keys...)
	}
	return keys
}

// ChooseFor returns the algorithm registered as the default for the
// situation s (the first of s.Keys that some algorithm taking s.Domain
// declares in Caps.DefaultFor, in registration order).
func ChooseFor(s Situation) (Spec, error) {
	for _, k := range s.Keys() {
		for _, sp := range All() {
			if slices.Contains(sp.Can.DefaultFor, k) && sp.Can.Takes(s.Domain) {
				return sp, nil
			}
		}
	}
	mode := "live"
	if s.Offline {
		mode = Offline
	}
	return Spec{}, fmt.Errorf("no algorithm is registered as the default for %s constraints on a %s domain with %s evaluations", s.Kind, s.Domain, mode)
}

// Choose returns the algorithm registered as the default for a constraint
// kind with live evaluations (with a safe point when safe; on a typed
// space, DomainTyped, the one declared for kind+"+typed" first), among
// those that take the domain dom: ChooseFor with Offline false.
func Choose(kind bandit.ConstraintKind, safe bool, dom string) (Spec, error) {
	sp, err := ChooseFor(Situation{Kind: kind, Safe: safe, Domain: dom})
	if err != nil {
		return Spec{}, fmt.Errorf("no algorithm is registered as the default for %s constraints on a %s domain", kind, dom)
	}
	return sp, nil
}
