package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/bandit"
)

// TestNoisyFitSettles: lognei with noisy-prior=optuna and noisy-refit=1 on
// the 2-D problem of lockInRun decides once, at FirstFit = 8 observations,
// whether the study is noisy: observed exactly, it is not (its models are
// left to the doubling schedule); observed with noise of std 0.3 on f and
// g (their spreads about 0.4), it is.
func TestNoisyFitSettles(t *testing.T) {
	for _, noise := range []float64{0, 0.3} {
		ag := lognei2D(t, 30, bandit.Params{"noisy-prior": "optuna", "noisy-refit": "1"})
		rng := rand.New(rand.NewPCG(3, 4))
		for r := 1; r <= 12; r++ {
			d, err := ag.Decide(&bandit.Round{T: r})
			if err != nil {
				t.Fatal(err)
			}
			x, y := d.Action.X[0], d.Action.X[1]
			f, g := -((x-0.9)*(x-0.9) + (y-0.9)*(y-0.9)), x+y-1
			f, g = f+noise*rng.NormFloat64(), g+noise*rng.NormFloat64()
			if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: f, HasReward: true, Costs: []float64{g}}); err != nil {
				t.Fatal(err)
			}
			if nf := ag.(*LogNEI).noisyFit; nf.settled != (r >= 9) || nf.noisy != (r >= 9 && noise > 0) {
				t.Fatalf("noise %v, round %d: settled %v, noisy %v", noise, r, nf.settled, nf.noisy)
			}
		}
	}
}
