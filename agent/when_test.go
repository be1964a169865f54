package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/problem"
)

// A parameter given where its declaration's When does not hold is refused
// by New, naming it and the setting; where it holds (region-pending with
// region=auto as with trust), and an earlier default that migrations pin
// whatever the setting (region-pending=global with region=global), it is
// not.
func TestWhenEnforced(t *testing.T) {
	p, err := problem.New("gardner", nil, seed.Derive(1, "problem", 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		algo string
		ps   bandit.Params
		want string // "" accepted, else the refusal
	}{
		{"ckb-rand", bandit.Params{"z-points": "5"}, "parameter z-points = 5 applies with z=uniform only (z = gaussian)"},
		{"ckb-rand", bandit.Params{"z": "uniform", "z-points": "5"}, ""},
		{"igp-ucb", bandit.Params{"lengthscale": "0.5"}, "parameter lengthscale = 0.5 applies with kernel≠problem only (kernel = problem)"},
		{"cei", bandit.Params{"region-pending": "trust"}, "parameter region-pending = trust applies with region≠global only (region = global)"},
		{"cei", bandit.Params{"region-pending": "global"}, ""},
		{"lognei", bandit.Params{"region-pending": "global"}, ""},
		{"config", bandit.Params{"region": "global", "feasibility": "pessimistic"}, "parameter feasibility = pessimistic applies with region≠global only"},
		{"config", bandit.Params{"region": "auto", "feasibility": "pessimistic"}, ""},
		{"rpol-ucb", bandit.Params{"widths": "theory", "beta-f": "3"}, "parameter beta-f = 3 applies with widths=practical only (widths = theory)"},
	} {
		_, err := New(c.algo, Config{Info: p.Info(), Horizon: 10, Params: c.ps, Seed: 1})
		var pe *bandit.ParamError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v", c.algo, c.ps, err)
		case c.want != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v: %v, want a ParamError %q", c.algo, c.ps, err, c.want)
		}
	}
}
