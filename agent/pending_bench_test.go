package agent

import (
	"fmt"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/problem"
)

// BenchmarkDecidePending measures one decision of rpol-ucb (practical
// defaults) on a 2-D box (1024 candidates, gardner) after t observed rounds
// with q decisions pending (docs/parallel.md): conditioning on them costs
// O(q·t·M) more and no refit. Each iteration's decision is abandoned
// (untimed), so q stays fixed.
func BenchmarkDecidePending(b *testing.B) {
	for _, t := range []int{200, 1000} {
		for _, q := range []int{0, 4, 16} {
			b.Run(fmt.Sprintf("t=%d/q=%d", t, q), func(b *testing.B) {
				p, err := problem.New("suite-gardner", nil, 1)
				if err != nil {
					b.Fatal(err)
				}
				ag, err := New("rpol-ucb", Config{Info: p.Info(), Horizon: 1 << 20, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				env := seed.Rand(2)
				costs := make([]float64, 1)
				for r := 1; r <= t; r++ {
					rd := &bandit.Round{T: r}
					d, err := ag.Decide(rd)
					if err != nil {
						b.Fatal(err)
					}
					rew, _ := p.Observe(env, rd, d.Action, costs)
					if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: rew, HasReward: true, Costs: costs}); err != nil {
						b.Fatal(err)
					}
				}
				for k := 0; k < q; k++ {
					if _, err := ag.Decide(&bandit.Round{T: t + 1 + k}); err != nil {
						b.Fatal(err)
					}
				}
				ab := ag.(bandit.Abandoner)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					d, err := ag.Decide(&bandit.Round{T: t + q + 1 + i})
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if err := ab.Abandon(d.ID); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			})
		}
	}
}
