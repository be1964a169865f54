package agent

import (
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/problem"
)

// Every algorithm decides the same with no parameters as with every
// parameter set to its declared default, on a box (gardner) and on arms
// (rkhs-synthetic), for the algorithms that fit them: a default read in
// the code that differs from its declaration fails here. A declared
// default the algorithm refuses fails too. Computed defaults (a value of
// the problem or the horizon) are not set; a parameter that applies with
// one setting only (When "k=v") is set with that setting, and among the
// rest when that setting is k's default.
func TestDeclaredDefaultsAreRead(t *testing.T) {
	const T = 12
	eachFitting(t, T, func(s Spec, prob string, pr problem.Problem, _ bandit.Agent) {
		defaults := map[string]bandit.ParamDoc{}
		for _, p := range s.Params {
			defaults[p.Describe().Name] = p.Describe()
		}
		declared := bandit.Params{}
		for _, p := range s.Params {
			d := p.Describe()
			if d.Computed {
				continue
			}
			one := bandit.Params{d.Name: d.Default}
			always := d.When == (bandit.Cond{})
			if !always {
				k, v := d.When.Param, d.When.Value
				if d.When.Not || defaults[k].Name == "" {
					continue // a condition that is not one setting
				}
				one[k] = v
				always = defaults[k].Default == v
			}
			if _, err := New(s.Name, Config{Info: pr.Info(), Horizon: T, Params: one, Seed: 1}); err != nil {
				t.Errorf("%s on %s: its declared default %v is refused: %v", s.Name, prob, one, err)
				continue
			}
			if always {
				declared[d.Name] = d.Default
			}
		}
		fs0, vs0 := replayTrial(t, prob, s.Name, nil, 1, 0, T)
		fs1, vs1 := replayTrial(t, prob, s.Name, declared, 1, 0, T)
		if !slices.Equal(fs0, fs1) || !slices.Equal(vs0, vs1) {
			t.Errorf("%s on %s: decides differently with its declared defaults %v set than with none", s.Name, prob, declared)
		}
	})
}

// eachFitting calls fn for every algorithm that runs with its defaults on
// a box (gardner) and on arms (rkhs-synthetic) at horizon T, with a fresh
// agent; it fails when fewer than 20 pairs run.
func eachFitting(t *testing.T, T int, fn func(s Spec, prob string, p problem.Problem, ag bandit.Agent)) {
	t.Helper()
	tested := 0
	for _, prob := range []string{"gardner", "rkhs-synthetic"} {
		p, err := problem.New(prob, nil, seed.Derive(1, "problem", 0))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range All() {
			if s.Fits(p.Info()) != nil {
				continue
			}
			ag, err := New(s.Name, Config{Info: p.Info(), Horizon: T, Seed: 1})
			if err != nil {
				continue // needs what this problem does not give (a safe arm's values, classes)
			}
			fn(s, prob, p, ag)
			tested++
		}
	}
	if tested < 20 {
		t.Fatalf("only %d (algorithm, problem) pairs tested", tested)
	}
}

// Every algorithm that declares mixed-moves stands on the decision core
// and reads it: a declaration the core never read would leave its
// typed-space search at one change a step whatever the parameter says.
func TestMixedMovesRead(t *testing.T) {
	p, err := problem.New("gardner", nil, seed.Derive(1, "problem", 0))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range All() {
		if !bandit.Declares(s.Params, mixedMovesDoc.Name) {
			continue
		}
		ag, err := New(s.Name, Config{Info: p.Info(), Horizon: 10, Params: bandit.Params{mixedMovesDoc.Name: "1"}, Seed: 1})
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		c, ok := ag.(interface{ decisionCore() *gpCore })
		if !ok {
			t.Errorf("%s declares %s and does not stand on the decision core", s.Name, mixedMovesDoc.Name)
			continue
		}
		if got := c.decisionCore().moves; got != 1 {
			t.Errorf("%s: mixed-moves = 1 read as %d", s.Name, got)
		}
		n++
	}
	if n < 10 {
		t.Errorf("only %d algorithms read mixed-moves", n)
	}
}
