package runner_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cbandit/cbandit/runner"
)

// Trials × algorithms on a registered problem (`cbandit list`), one
// algorithm twice under two labels with different parameters: trial i is
// the same problem instance and noise for every algorithm (common random
// numbers), so the numbers do not depend on the workers or the order of the
// algorithms.
func ExampleRun() {
	out, err := runner.Run(context.Background(), runner.Spec{
		Problem: "rkhs-synthetic",
		Algos:   []runner.Algo{{ID: "rpol-ucb"}, {ID: "ckb-ucb"}, {Label: "rpol-ucb-narrow", ID: "rpol-ucb", Params: map[string]string{"beta-g": "1"}}},
		Trials:  2, Horizon: 200, Seed: 1,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Metrics)
	for _, label := range out.Results.Summary.Order() {
		a := out.Results.Summary.Algorithms[label]
		fmt.Printf("%s: regret %.1f, rounds with violation %.1f (means of %d trials)\n",
			label, a.Regret.Mean, a.ViolationCount.Mean, len(a.Regret.PerTrial))
	}
	// Output:
	// [regret violation_soft violation_hard violation_count]
	// rpol-ucb: regret 4.2, rounds with violation 2.5 (means of 2 trials)
	// ckb-ucb: regret 4.9, rounds with violation 2.5 (means of 2 trials)
	// rpol-ucb-narrow: regret 4.9, rounds with violation 3.5 (means of 2 trials)
}
