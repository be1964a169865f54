package agent_test

import (
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

// TestCapsMatchFactories checks every declaration against its factory: on
// every registered problem, an algorithm whose Caps fit the problem builds,
// and one whose Caps do not is refused by its factory too (so the service,
// the suite and `list --fits` can trust the declaration).
func TestCapsMatchFactories(t *testing.T) {
	const horizon = 100
	for _, ps := range problem.All() {
		p, err := problem.New(ps.Name, nil, 1)
		if err != nil {
			t.Logf("%s: not built here: %v", ps.Name, err)
			continue
		}
		info := p.Info()
		info.Horizon = horizon
		for _, s := range agent.All() {
			fits := s.Fits(info)
			_, err := agent.New(s.Name, agent.Config{Info: info, Horizon: horizon, Seed: 1})
			if fits != nil && err == nil {
				t.Errorf("%s on %s: declared unfit (%v) but its factory builds it", s.Name, ps.Name, fits)
			}
			if fits == nil && err != nil {
				t.Logf("%s on %s: declared fit, factory refuses: %v", s.Name, ps.Name, err)
			}
		}
	}
}

// TestChooseByKind checks the declared defaults a study without an
// algorithm gets.
func TestChooseByKind(t *testing.T) {
	for _, c := range []struct {
		kind bandit.ConstraintKind
		safe bool
		dom  string
		want string
	}{
		{agent.KindLongTerm, false, agent.DomainBox, "ckb-ucb"},
		{agent.KindCumulative, false, agent.DomainBox, "rpol-ucb"},
		{agent.KindPerRound, false, agent.DomainBox, "config"},
		{agent.KindPerRound, true, agent.DomainFinite, "safeopt"},
		{agent.KindPerRound, true, agent.DomainBox, "config"},
	} {
		s, err := agent.Choose(c.kind, c.safe, c.dom)
		if err != nil || s.Name != c.want {
			t.Errorf("Choose(%s, safe=%v, %s) = %q, %v; want %s", c.kind, c.safe, c.dom, s.Name, err, c.want)
		}
	}
}
