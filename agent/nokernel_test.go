package agent_test

import (
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// TestFittedKernelNeedsNoPrior: one's own function, an Info with a domain
// and M alone (no kernel, no noise variance, no bounds): the GP agents with
// practical defaults fit their hyperparameters (hyper = auto), so they run
// from the fit's first start instead of failing with "kernel is nil".
func TestFittedKernelNeedsNoPrior(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	arms, _ := domain.NewFinite([][]float64{{0, 0}, {0.5, 0.2}, {1, 0.4}, {0.2, 1}})
	for _, dom := range []domain.Domain{box, arms} {
		for _, name := range []string{"rpol-ucb", "ckb-ucb", "config"} {
			ag, err := agent.New(name, agent.Config{Info: bandit.Info{Domain: dom, M: 1}, Horizon: 20, Seed: 1})
			if err != nil {
				t.Errorf("%s on %s: %v", name, dom, err)
				continue
			}
			for r := 1; r <= 20; r++ {
				d, err := ag.Decide(&bandit.Round{T: r})
				if err != nil {
					t.Fatalf("%s on %s, round %d: %v", name, dom, r, err)
				}
				x := d.Action.X
				fb := bandit.Feedback{ID: d.ID, Reward: -x[0]*x[0] - x[1], HasReward: true, Costs: []float64{x[0] - 0.5}}
				if err := ag.Observe(fb); err != nil {
					t.Fatalf("%s on %s, round %d: %v", name, dom, r, err)
				}
			}
		}
	}
	// hyper = fixed still needs the prior, and says so.
	if _, err := agent.New("rpol-ucb", agent.Config{Info: bandit.Info{Domain: box, M: 1}, Horizon: 20, Params: bandit.Params{"hyper": "fixed"}}); err == nil {
		t.Error("rpol-ucb with hyper = fixed and no kernel: built, want an error naming the missing prior")
	}
}
