package agent_test

import (
	"fmt"
	"log"
	"math"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// An algorithm on one's own function, one level below package optimize:
// the learner is told the domain and the number of constraints (no kernel:
// rpol-ucb fits its hyperparameters), decides, and observes the reward and
// the constraint values g ≤ 0.
func Example() {
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		log.Fatal(err)
	}
	ag, err := agent.New("rpol-ucb", agent.Config{Info: bandit.Info{Domain: box, M: 1}, Horizon: 40, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	best := math.Inf(-1)
	for t := 1; t <= 40; t++ {
		d, err := ag.Decide(&bandit.Round{T: t})
		if err != nil {
			log.Fatal(err)
		}
		x := d.Action.X
		reward := -(x[0]-0.8)*(x[0]-0.8) - (x[1]-0.5)*(x[1]-0.5) // best at (0.8, 0.5)
		g := x[0] - 0.6                                          // feasible: x[0] ≤ 0.6
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: reward, HasReward: true, Costs: []float64{g}}); err != nil {
			log.Fatal(err)
		}
		if g <= 0 {
			best = math.Max(best, reward)
		}
	}
	fmt.Printf("best feasible reward %.2f (the optimum −0.04 is at (0.6, 0.5))\n", best)
	// Output:
	// best feasible reward -0.04 (the optimum −0.04 is at (0.6, 0.5))
}

// What an algorithm can do is declared where it is registered: the service,
// `cbandit list --fits` and package optimize read it.
func ExampleChoose() {
	for _, kind := range []bandit.ConstraintKind{agent.KindPerRound, agent.KindCumulative, agent.KindLongTerm} {
		s, err := agent.Choose(kind, false, agent.DomainBox)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s keeps %v\n", kind, s.Name, s.Can.Kinds)
	}
	// Output:
	// stage-wise: config keeps [stage-wise cumulative]
	// cumulative: rpol-ucb keeps [cumulative]
	// long-term: ckb-ucb keeps [long-term]
}

// Fits says, from the declaration alone, why an algorithm cannot run on a
// problem.
func ExampleSpec_Fits() {
	box, _ := domain.NewBox([]float64{0}, []float64{1})
	for _, name := range []string{"config", "opb", "safeopt"} {
		s, _ := agent.Lookup(name)
		fmt.Printf("%s: %v\n", name, s.Fits(bandit.Info{Domain: box, M: 1}))
	}
	// Output:
	// config: <nil>
	// opb: opb takes finite domains, the problem's is box
	// safeopt: safeopt takes finite domains, the problem's is box
}
