package runner

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

// TestPastMeasurements: agents told past measurements (cbandit run --past)
// start from them: the run's T rounds are scored, the numbers change with
// the past and stay deterministic; an agent that takes none is refused,
// named.
func TestPastMeasurements(t *testing.T) {
	p, err := problem.New("suite-gardner", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	info := p.Info()
	rng := rand.New(rand.NewPCG(9, 9))
	var past []Past
	g := make([]float64, info.M)
	for range 15 {
		x := []float64{6 * rng.Float64(), 6 * rng.Float64()}
		r := p.Round(rng, 1)
		y, err := p.Observe(rng, r, bandit.PointAction(x), g)
		if err != nil {
			t.Fatal(err)
		}
		past = append(past, Past{Action: bandit.PointAction(x), Reward: y, G: append([]float64(nil), g...)})
	}
	spec := Spec{Problem: "suite-gardner", Algos: []Algo{{Label: "rpol-ucb", ID: "rpol-ucb"}, {Label: "config", ID: "config"}},
		Trials: 2, Horizon: 25, Seed: 1, Workers: 2}
	plain, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Past = past
	a, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"rpol-ucb", "config"} {
		ra, rb, rp := a.Results.Summary.Algorithms[l].Regret, b.Results.Summary.Algorithms[l].Regret, plain.Results.Summary.Algorithms[l].Regret
		if ra.Mean != rb.Mean {
			t.Errorf("%s: the same run with past measurements gave regret %v and %v", l, ra.Mean, rb.Mean)
		}
		if ra.Mean == rp.Mean {
			t.Errorf("%s: past measurements changed nothing (regret %v)", l, ra.Mean)
		}
	}
	spec.Algos = []Algo{{Label: "oco-bandit", ID: "oco-bandit"}}
	if _, err := Run(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "oco-bandit") {
		t.Errorf("oco-bandit with past measurements: err = %v, want a refusal naming it", err)
	}
}
