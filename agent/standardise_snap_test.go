package agent

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/service/snap"
)

// TestStandardiseSnapshot: an agent with standardise=on and hyper=fit
// survives the service's snapshot codec after its first fits (the fitted
// ARD kernel is not the type of the fresh agent's prior kernel), and the
// restored agent decides as the original.
func TestStandardiseSnapshot(t *testing.T) {
	prob, err := problem.New("gardner", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	ps := bandit.Params{"standardise": "on", "hyper": "fit"}
	mk := func() bandit.Agent {
		a, err := New("rpol-ucb", Config{Info: prob.Info(), Horizon: 40, Seed: 3, Params: ps})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := mk()
	costs := make([]float64, 1)
	step := func(ag bandit.Agent, r int) []float64 {
		round := &bandit.Round{T: r}
		d, err := ag.Decide(round)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := prob.Observe(rand.New(rand.NewPCG(11, uint64(r))), round, d.Action, costs)
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: costs}); err != nil {
			t.Fatal(err)
		}
		return d.Action.X
	}
	for r := 1; r <= 20; r++ { // fits at 8 and 16
		step(a, r)
	}
	data, err := snap.Encode(a)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	b := mk()
	if err := snap.Decode(data, b); err != nil {
		t.Fatalf("decode: %v", err)
	}
	for r := 21; r <= 40; r++ { // a refit at 32
		xa, xb := step(a, r), step(b, r)
		for i := range xa {
			if math.Abs(xa[i]-xb[i]) != 0 {
				t.Fatalf("round %d: restored agent plays %v, original %v", r, xb, xa)
			}
		}
	}
}
