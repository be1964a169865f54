package agent_test

import (
	"strings"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// crashRun plays a 2-D system whose throughput x₀ + x₁ grows toward a
// crash frontier x₀ + x₁ = 1.2 (evaluations past it fail), with a latency
// constraint that always holds, and returns the failures in the second
// half of T rounds and the best value that ran.
func crashRun(t *testing.T, name string, T int, failed bool) (late int, best float64) {
	t.Helper()
	box, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	ag, err := agent.New(name, agent.Config{Info: bandit.Info{Domain: box, M: 1}, Horizon: T, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= T; r++ {
		d, err := ag.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatalf("%s round %d: %v", name, r, err)
		}
		x := d.Action.X
		fb := bandit.Feedback{ID: d.ID, Reward: x[0] + x[1], HasReward: true, Costs: []float64{x[0] - 2}}
		if x[0]+x[1] > 1.2 {
			if r > T/2 {
				late++
			}
			if !failed { // the old answer: abandon, which teaches nothing
				if err := ag.(bandit.Abandoner).Abandon(d.ID); err != nil {
					t.Fatal(err)
				}
				continue
			}
			fb = bandit.Feedback{ID: d.ID, Failed: true, Reason: "OOM"}
		} else {
			best = max(best, x[0]+x[1])
		}
		if err := ag.Observe(fb); err != nil {
			t.Fatalf("%s round %d: %v", name, r, err)
		}
	}
	return late, best
}

// Every GP agent learns where evaluations fail: told as failures, the
// crashes of the second half of 60 rounds are rare, and the best design
// that ran lies near the frontier; told as abandons (which teach nothing)
// the same agent keeps crashing.
func TestFailuresAreLearned(t *testing.T) {
	const T = 60
	for _, name := range []string{"config", "cei", "rpol-ucb", "ckb-ucb"} {
		late, best := crashRun(t, name, T, true)
		lateAb, _ := crashRun(t, name, T, false)
		t.Logf("%s: failed-told: %d of %d late evaluations crash, best %.3f; abandon-told: %d crash", name, late, T/2, best, lateAb)
		if late > T/10 {
			t.Errorf("%s: %d of the last %d evaluations crashed (told as failures), want ≤ %d", name, late, T/2, T/10)
		}
		if best < 1.0 {
			t.Errorf("%s: best value that ran %.3f, want ≥ 1.0 (frontier 1.2)", name, best)
		}
		if lateAb <= late {
			t.Errorf("%s: abandons gave %d late crashes, failures %d: the failure model taught nothing", name, lateAb, late)
		}
	}
}

// A failure is a whole observation: values after it, a failure after
// values or after an abandon, and a failure with values are refused.
func TestFailureFeedbackRules(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	ag, err := agent.New("config", agent.Config{Info: bandit.Info{Domain: box, M: 1}, Horizon: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for r := 1; r <= 4; r++ {
		d, err := ag.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ag.Observe(bandit.Feedback{ID: ids[0], Failed: true, Reason: "OOM"}))
	must(ag.Observe(bandit.Feedback{ID: ids[1], Reward: 1, HasReward: true}))
	must(ag.(bandit.Abandoner).Abandon(ids[2]))
	for _, c := range []struct {
		fb   bandit.Feedback
		want string
	}{
		{bandit.Feedback{ID: ids[0], Reward: 1, HasReward: true}, "reported failed"},
		{bandit.Feedback{ID: ids[0], Failed: true}, "reported failed"},
		{bandit.Feedback{ID: ids[1], Failed: true}, "already has observed values"},
		{bandit.Feedback{ID: ids[2], Failed: true}, "abandoned"},
		{bandit.Feedback{ID: ids[3], Failed: true, Reward: 1, HasReward: true}, "carries no reward"},
		{bandit.Feedback{ID: ids[3], Failed: true, Reason: strings.Repeat("x", bandit.MaxReasonLen+1)}, "reason has"},
		{bandit.Feedback{ID: ids[3], Reward: 1, HasReward: true, Reason: "OOM"}, "only with failed"},
	} {
		if err := ag.Observe(c.fb); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.fb, err, c.want)
		}
	}
}
