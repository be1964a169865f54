package agent

import (
	"math"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/problem"
)

// λ has one meaning in every GP agent: given the same λ and the
// same data, ckb-ucb, config, rpol-ucb and igp-ucb hold the same posterior of
// f; "1+2/T" is 000 §2's value for each of them.
func TestSameLambdaSamePosterior(t *testing.T) {
	p, err := problem.New("gardner", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := p.Info()
	const T = 300
	models := map[string]model.Model{}
	for _, id := range []string{"ckb-ucb", "config", "rpol-ucb"} {
		a, err := New(id, Config{Info: in, Horizon: T, Params: bandit.Params{"lambda": "1+2/T"}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		switch ag := a.(type) {
		case *CKB:
			models[id] = ag.f
		case *ConfigAgent:
			models[id] = ag.f
		case *RPOL:
			models[id] = ag.f
		default:
			t.Fatalf("%s: unexpected agent type %T", id, a)
		}
	}
	for k := 0; k < 12; k++ {
		x := []float64{0.5 * float64(k%6), 0.45 * float64(k%5)}
		act := bandit.Action{Arm: -1, X: x}
		costs := make([]float64, in.M)
		y, err := p.Truth(&bandit.Round{T: k + 1}, act, costs)
		if err != nil {
			t.Fatal(err)
		}
		for id, m := range models {
			if err := m.Observe(act, y); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
		}
	}
	ref := models["rpol-ucb"]
	for id, m := range models {
		if m.Len() != ref.Len() {
			t.Fatalf("%s: %d candidates, rpol-ucb %d", id, m.Len(), ref.Len())
		}
		for i := 0; i < m.Len(); i++ {
			if math.Abs(m.Mean()[i]-ref.Mean()[i]) > 1e-12 || math.Abs(m.Var()[i]-ref.Var()[i]) > 1e-12 {
				t.Fatalf("%s: candidate %d: μ, σ² = %v, %v; rpol-ucb %v, %v", id, i, m.Mean()[i], m.Var()[i], ref.Mean()[i], ref.Var()[i])
			}
		}
	}
	// A different λ gives a different posterior (the test can fail).
	a, _ := New("ckb-ucb", Config{Info: in, Horizon: T, Params: bandit.Params{"lambda": "0.05"}, Seed: 1})
	other := a.(*CKB).f
	other.Observe(bandit.Action{Arm: -1, X: []float64{1, 1}}, 0.3)
	ref2, _ := New("ckb-ucb", Config{Info: in, Horizon: T, Params: bandit.Params{"lambda": "1+2/T"}, Seed: 1})
	rf := ref2.(*CKB).f
	rf.Observe(bandit.Action{Arm: -1, X: []float64{1, 1}}, 0.3)
	same := true
	for i := 0; i < rf.Len(); i++ {
		same = same && rf.Var()[i] == other.Var()[i]
	}
	if same {
		t.Fatal("λ = 0.05 and λ = 1 + 2/T gave the same posterior")
	}
	if _, err := New("config", Config{Info: in, Horizon: T, Params: bandit.Params{"lambda": "-1"}, Seed: 1}); err == nil {
		t.Fatal("lambda = -1 accepted")
	}
}
