package agent_test

import (
	"strings"
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
		{agent.KindPerRound, false, agent.DomainTyped, "cei"},
		{agent.KindCumulative, false, agent.DomainTyped, "rpol-ucb"},
	} {
		s, err := agent.Choose(c.kind, c.safe, c.dom)
		if err != nil || s.Name != c.want {
			t.Errorf("Choose(%s, safe=%v, %s) = %q, %v; want %s", c.kind, c.safe, c.dom, s.Name, err, c.want)
		}
	}
}

// TestNeedsConstraints checks the declaration NeedsConstraints where agents
// are built: on every registered problem an algorithm builds on, the same
// problem without constraints (M = 0) is refused by Fits and New with one
// message when it declares the need, and the declaration is printed by
// Caps.String.
func TestNeedsConstraints(t *testing.T) {
	const horizon = 20
	checked := 0
	for _, ps := range problem.All() {
		p, err := problem.New(ps.Name, nil, 1)
		if err != nil {
			continue
		}
		info := p.Info()
		if info.M < 1 {
			continue
		}
		for _, s := range agent.All() {
			if s.Fits(info) != nil {
				continue
			}
			if _, err := agent.New(s.Name, agent.Config{Info: info, Horizon: horizon, Seed: 1}); err != nil {
				continue
			}
			none := info
			none.M = 0
			want := s.Name + ": the problem has no constraints (M = 0)"
			fits := s.Fits(none)
			_, err := agent.New(s.Name, agent.Config{Info: none, Horizon: horizon, Seed: 1})
			if s.Can.NeedsConstraints {
				checked++
				if fits == nil || fits.Error() != want {
					t.Errorf("%s on %s with M = 0: Fits = %v, want %q", s.Name, ps.Name, fits, want)
				}
				if err == nil || err.Error() != want {
					t.Errorf("%s on %s with M = 0: New = %v, want %q", s.Name, ps.Name, err, want)
				}
				if !strings.Contains(s.Can.String(), "needs constraints") {
					t.Errorf("%s: Caps.String() = %q, want it to say it needs constraints", s.Name, s.Can.String())
				}
			} else if err != nil && strings.Contains(err.Error(), "no constraints") {
				t.Errorf("%s on %s with M = 0: refused for want of constraints (%v) without declaring NeedsConstraints", s.Name, ps.Name, err)
			}
		}
	}
	if checked < 20 {
		t.Errorf("%d (algorithm, problem) pairs checked, want at least 20", checked)
	}
}
