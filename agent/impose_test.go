package agent

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

// TestImposeAsIfChosen: an agent told 20 decisions a person made, with their
// feedback, decides next exactly as an agent that chose those points itself
// (the models hold them as if it had chosen them; the rules follow their
// observed costs). CKB is left out on purpose: its dual step follows its own
// choices only (bandit.Imposer).
func TestImposeAsIfChosen(t *testing.T) {
	for _, name := range []string{"rpol-ucb", "config", "cei", "igp-ucb"} {
		for _, pname := range []string{"suite-gardner", "rkhs-synthetic"} {
			p, err := problem.New(pname, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			info := p.Info()
			cfg := Config{Info: info, Horizon: 50, Seed: 7}
			chooser, err := New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			told, err := New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 3))
			costs := make([]float64, info.M)
			for r := 1; r <= 20; r++ {
				rd := p.Round(rng, r)
				d, err := chooser.Decide(rd)
				if err != nil {
					t.Fatal(err)
				}
				y, err := p.Observe(rng, rd, d.Action, costs)
				if err != nil {
					t.Fatal(err)
				}
				fb := bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: costs}
				if err := chooser.Observe(fb); err != nil {
					t.Fatal(err)
				}
				act := d.Action
				if act.Arm >= 0 {
					act.X = nil // a person names the arm
				}
				e, err := told.(bandit.Imposer).Impose(rd, act)
				if err != nil {
					t.Fatalf("%s: impose: %v", name, err)
				}
				if e.ID != d.ID {
					t.Fatalf("%s: imposed decision numbered %d, want %d", name, e.ID, d.ID)
				}
				if err := told.Observe(fb); err != nil {
					t.Fatal(err)
				}
			}
			rd := p.Round(rng, 21)
			a, err := chooser.Decide(rd)
			if err != nil {
				t.Fatal(err)
			}
			b, err := told.Decide(rd)
			if err != nil {
				t.Fatal(err)
			}
			if a.Action.Arm != b.Action.Arm || !slices.Equal(a.Action.X, b.Action.X) {
				t.Errorf("%s on %s: next decision %v after imposing, %v after choosing", name, pname, b.Action, a.Action)
			}
		}
	}
}
