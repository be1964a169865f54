package learner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
)

// Kind says which violation of a constraint metric ≤ limit is to be kept
// small: the one constraint kind of the registry (agent.Kind*) and the
// service (api.Kind*), spelled "stage-wise", "cumulative", "long-term".
type Kind = bandit.ConstraintKind

// Constraint kinds, strictest first.
const (
	// StageWise: every round within the limit (a latency SLO): g(x_t) ≤ 0
	// in each round, as far as the algorithm's models can tell (Pacchiano et al., safe
	// BO, CONFIG).
	StageWise = bandit.KindStageWise
	// Cumulative: the sum of the violations Σ_t [g(x_t)]⁺ kept small (Guo et al.).
	Cumulative = bandit.KindCumulative
	// LongTerm: the average within the limit, [Σ_t g(x_t)]⁺ kept small:
	// slack in some rounds may pay for violations in others (Zhou & Ji (CBO), Shi & Eryilmaz 2022, Zhou & Ji 2022).
	LongTerm = bandit.KindLongTerm
)

// strictness orders the kinds: a bound on a stricter violation bounds the
// weaker ones (every round feasible ⇒ Σ_t [g]⁺ = 0; [Σ_t g]⁺ ≤ Σ_t [g]⁺).
func strictness(k Kind) int {
	switch k {
	case StageWise:
		return 3
	case Cumulative:
		return 2
	case LongTerm:
		return 1
	}
	return 0
}

// meaning is one phrase per kind, for the reasons Choose gives.
func meaning(k Kind) string {
	switch k {
	case StageWise:
		return "every round within its limit"
	case Cumulative:
		return "the sum of the violations kept small"
	case LongTerm:
		return "the average within its limit; slack in some rounds may pay for violations in others"
	}
	return ""
}

// ValidKind refuses a kind that is none of StageWise, Cumulative, LongTerm
// (the empty kind is accepted: DefaultKind or Choose decides it).
func ValidKind(k Kind) error {
	if k == "" || strictness(k) > 0 {
		return nil
	}
	return fmt.Errorf("kind %q: accepted are %q, %q, %q", k, StageWise, Cumulative, LongTerm)
}

// Keeps reports whether the algorithm s keeps a constraint of kind k: its
// declaration (agent.Caps.Kinds) lists k or a stricter kind. An algorithm
// that lists no kind keeps none (it ignores its constraints, e.g. igp-ucb).
func Keeps(s agent.Spec, k Kind) bool {
	for _, h := range s.Can.Kinds {
		if strictness(h) >= strictness(k) && strictness(k) > 0 {
			return true
		}
	}
	return false
}

// Strictest returns the strictest kind s keeps ("" when it keeps none).
func Strictest(s agent.Spec) Kind {
	var best Kind
	for _, h := range s.Can.Kinds {
		if strictness(h) > strictness(best) {
			best = h
		}
	}
	return best
}

// DefaultKind is the kind of a constraint that gives none: the strictest
// kind the algorithm keeps (ckb-ucb: long-term, rpol-ucb: cumulative,
// config: per round), and StageWise when no algorithm is named or the named
// one keeps no kind (a limit holds in every round unless said otherwise).
func DefaultKind(s *agent.Spec) Kind {
	if s != nil {
		if k := Strictest(*s); k != "" {
			return k
		}
	}
	return StageWise
}

// CheckKeeps refuses a constraint kind the algorithm s does not keep,
// naming both. An algorithm that keeps no kind (it ignores its constraints
// by design, as its summary says: igp-ucb) accepts any kind, whose
// violation is then only measured.
func CheckKeeps(s agent.Spec, k Kind) error {
	if len(s.Can.Kinds) == 0 || Keeps(s, k) {
		return nil
	}
	return fmt.Errorf("%s does not keep %s constraints (%s): it keeps %s; for %s constraints name %s, or name no algorithm and one is chosen",
		s.Name, k, meaning(k), bandit.JoinKinds(s.Can.Kinds, " and "), k, defaultsFor(k))
}

// defaultsFor names the algorithms declared as the defaults for kind k.
func defaultsFor(k Kind) string {
	var names []string
	for _, s := range agent.All() {
		for _, d := range s.Can.DefaultFor {
			if d == string(k) || d == string(k)+"+safe" {
				names = append(names, s.Name)
				break
			}
		}
	}
	if len(names) == 0 {
		return "an algorithm that keeps them (cbandit list)"
	}
	return strings.Join(names, " or ")
}

// Choice is the algorithm chosen for a problem that names none, and why.
type Choice struct {
	// Algorithm is a registered algorithm ID.
	Algorithm string
	// Kinds are the constraints' kinds, with DefaultKind where none was
	// given (one per constraint).
	Kinds []Kind
	// Reason says why, in one sentence, with the algorithm's summary and
	// source (the service's algorithm_choice).
	Reason string
	// Brief is the reason in a short line: the algorithm and the kind it is
	// the default for (Result.Reason).
	Brief string
}

// Choose picks the algorithm for constraints of the given kinds (one per
// constraint; "" is StageWise) on a domain of kind dom (agent.DomainBox,
// agent.DomainTyped, agent.DomainFinite, agent.DomainContextual), with a
// known safe point or not, for live or offline evaluations, from the
// declarations (agent.Caps.DefaultFor): the default for the strictest kind,
// which keeps the weaker ones too (per round → config, or safeopt on a
// finite space with a safe point; cumulative → rpol-ucb; long-term →
// ckb-ucb). Without constraints it is an algorithm declared to keep none
// (GP-UCB on the objective). Offline (only the final configuration counts)
// it is the algorithm declared for the situation with "+offline"
// (offlineKeys), and the live default while none is declared.
func Choose(kinds []Kind, safe bool, dom string, evaluations string) (Choice, error) {
	if err := CheckEvaluations(evaluations); err != nil {
		return Choice{}, err
	}
	c, err := chooseLive(kinds, safe, dom)
	if err != nil || evaluations != Offline {
		return c, err
	}
	strict := Kind("")
	for _, k := range c.Kinds {
		if strictness(k) > strictness(strict) {
			strict = k
		}
	}
	for _, key := range offlineKeys(strict, safe, dom) {
		for _, s := range agent.All() {
			if !slices.Contains(s.Can.DefaultFor, key) || !s.Can.Takes(dom) || s.Can.NeedsSafe && !safe ||
				s.Can.NeedsStage || s.Can.NeedsFullInfo {
				continue
			}
			what := "without constraints"
			if strict != "" {
				what = fmt.Sprintf("for %s limits on the final configuration (evaluations may break them while searching)", strict)
			}
			c.Algorithm = s.Name
			c.Reason = fmt.Sprintf("offline evaluations (only the final configuration counts), %s: %s, the default declared for %s — %s [%s]",
				what, s.Name, key, s.Summary, s.Source)
			c.Brief = s.Name + ", the offline default without constraints"
			if strict != "" {
				c.Brief = fmt.Sprintf("%s, the offline default for %s limits", s.Name, strict)
			}
			return c, nil
		}
	}
	c.Reason = "offline evaluations, but no algorithm is declared for them (" + offlineKeys(strict, safe, dom)[0] + "): the live default; " + c.Reason
	return c, nil
}

// offlineKeys are the situations (agent.Caps.DefaultFor) an offline study
// looks for, most specific first (agent.Situation.Keys); without
// constraints "offline".
func offlineKeys(strict Kind, safe bool, dom string) []string {
	if strict == "" {
		return []string{agent.Offline}
	}
	return agent.Situation{Kind: strict, Safe: safe, Domain: dom, Offline: true}.Keys()
}

// chooseLive is the choice for live evaluations (every evaluation counts).
func chooseLive(kinds []Kind, safe bool, dom string) (Choice, error) {
	c := Choice{Kinds: make([]Kind, len(kinds))}
	defaulted := false
	var strict Kind
	for i, k := range kinds {
		if err := ValidKind(k); err != nil {
			return Choice{}, err
		}
		if k == "" {
			k, defaulted = StageWise, true
		}
		c.Kinds[i] = k
		if strictness(k) > strictness(strict) {
			strict = k
		}
	}
	if len(kinds) == 0 {
		for _, s := range agent.All() {
			if len(s.Can.Kinds) == 0 && s.Can.Takes(dom) && !s.Can.NeedsSafe && !s.Can.NeedsStage && !s.Can.NeedsFullInfo {
				c.Algorithm = s.Name
				c.Reason = fmt.Sprintf("no constraints: %s, %s [%s]", s.Name, s.Summary, s.Source)
				c.Brief = s.Name + ", the default without constraints"
				return c, nil
			}
		}
		return Choice{}, fmt.Errorf("no algorithm without constraints takes a %s domain", dom)
	}
	s, err := agent.Choose(strict, safe, dom)
	if err != nil {
		return Choice{}, err
	}
	c.Algorithm = s.Name
	var b strings.Builder
	distinct := slices.Compact(slices.Sorted(slices.Values(c.Kinds)))
	note := ""
	if defaulted {
		note = fmt.Sprintf("; a constraint without a kind is %s", StageWise)
	}
	if len(distinct) == 1 {
		fmt.Fprintf(&b, "%s constraints (%s%s)", strict, meaning(strict), note)
	} else {
		fmt.Fprintf(&b, "constraints of kinds %s, the strictest %s (%s%s)", bandit.JoinKinds(distinct, " and "), strict, meaning(strict), note)
	}
	fmt.Fprintf(&b, ": %s, the default declared for them", s.Name)
	if safe && slices.Contains(s.Can.DefaultFor, string(strict)+"+safe") {
		fmt.Fprintf(&b, " with a safe point on a %s space", dom)
	}
	if dom == agent.DomainTyped && slices.Contains(s.Can.DefaultFor, string(strict)+"+typed") {
		b.WriteString(" on a typed space")
	}
	if len(distinct) > 1 {
		b.WriteString(", which keeps the weaker kinds too (every round feasible ⇒ no cumulative violation; [Σg]⁺ ≤ Σ[g]⁺)")
	}
	fmt.Fprintf(&b, " — %s [%s]", s.Summary, s.Source)
	c.Reason = b.String()
	c.Brief = fmt.Sprintf("%s, the default for %s constraints (%s)", s.Name, strict, meaning(strict))
	if safe && slices.Contains(s.Can.DefaultFor, string(strict)+"+safe") {
		c.Brief = fmt.Sprintf("%s, the default for %s constraints with a safe point", s.Name, strict)
	}
	if dom == agent.DomainTyped && slices.Contains(s.Can.DefaultFor, string(strict)+"+typed") {
		c.Brief = fmt.Sprintf("%s, the default for %s constraints on a typed space", s.Name, strict)
	}
	if len(distinct) > 1 {
		c.Brief = fmt.Sprintf("%s, the default for %s constraints, the strictest given", s.Name, strict)
	}
	return c, nil
}
