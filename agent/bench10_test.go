package agent

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// BenchmarkDecide10D: one decision of the default stage-wise and
// cumulative algorithms on a 10-D box with two constraints after 200
// observations (Ackley with SCBO's constraints), fitted models in place.
func BenchmarkDecide10D(b *testing.B) {
	lo, hi := make([]float64, 10), make([]float64, 10)
	for i := range lo {
		lo[i], hi[i] = -5, 10
	}
	box, _ := domain.NewBox(lo, hi)
	f := func(x []float64) (float64, []float64) {
		var s2, sc, sum float64
		for _, v := range x {
			s2 += v * v
			sc += math.Cos(2 * math.Pi * v)
			sum += v
		}
		n := float64(len(x))
		ack := -20*math.Exp(-0.2*math.Sqrt(s2/n)) - math.Exp(sc/n) + 20 + math.E
		return -ack, []float64{sum, math.Sqrt(s2) - 5}
	}
	for _, name := range []string{"config", "rpol-ucb"} {
		b.Run(name, func(b *testing.B) {
			ag, err := New(name, Config{Info: bandit.Info{Domain: box, M: 2}, Horizon: 400, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for r := 1; r <= 200; r++ {
				d, err := ag.Decide(&bandit.Round{T: r})
				if err != nil {
					b.Fatal(err)
				}
				if rng.Float64() < 0.5 { // half the points random, so the fit sees the box
					for i := range d.Action.X {
						d.Action.X[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
					}
				}
				y, c := f(d.Action.X)
				if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: c}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, err := ag.Decide(&bandit.Round{T: 201})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := ag.(bandit.Abandoner).Abandon(d.ID); err != nil { // the next decision as the first: nothing pending
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
