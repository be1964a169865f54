package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/runner"
)

// PoissonDelay returns independent Poisson delays with the given means for
// reward and costs (Guo et al. §7 uses mean 15 for both).
func PoissonDelay(rewardMean, costMean float64) (runner.Delay, error) {
	if !(rewardMean >= 0) || math.IsInf(rewardMean, 0) {
		return nil, fmt.Errorf("delay.reward_mean = %v: must be a finite number ≥ 0", rewardMean)
	}
	if !(costMean >= 0) || math.IsInf(costMean, 0) {
		return nil, fmt.Errorf("delay.cost_mean = %v: must be a finite number ≥ 0", costMean)
	}
	return func(rng *rand.Rand) (int, int) {
		return poisson(rng, rewardMean), poisson(rng, costMean)
	}, nil
}

// poisson draws from Poisson(mean) by Knuth's product method (means ≤ ~30 here).
func poisson(rng *rand.Rand, mean float64) int {
	if mean == 0 {
		return 0
	}
	l := math.Exp(-mean)
	k, p := 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}
