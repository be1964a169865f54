package agent

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/problem"
)

// runDecisions plays T rounds of the agent on the problem with the noise
// stream of seed (the same for every problem) and returns the points played.
func runDecisions(t *testing.T, algo string, prob problem.Problem, ps bandit.Params, T int) [][]float64 {
	t.Helper()
	a, err := New(algo, Config{Info: prob.Info(), Horizon: T, Seed: 3, Params: ps})
	if err != nil {
		t.Fatal(err)
	}
	var xs [][]float64
	costs := make([]float64, prob.Info().M)
	for r := 1; r <= T; r++ {
		round := &bandit.Round{T: r}
		d, err := a.Decide(round)
		if err != nil {
			t.Fatalf("%s round %d: %v", algo, r, err)
		}
		xs = append(xs, append([]float64(nil), d.Action.X...))
		rng := rand.New(rand.NewPCG(11, uint64(r)))
		y, err := prob.Observe(rng, round, d.Action, costs)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: costs}); err != nil {
			t.Fatalf("%s round %d: %v", algo, r, err)
		}
	}
	return xs
}

// TestStandardiseInvariance: with standardise=on, the same agent
// on gardner and on gardner with its metrics ×1000 + 50 (the constraint's
// threshold moving with the units, so g' = 1000·g) plays the same points,
// up to the rounding of the two unit systems (documented tolerance 1e-6 in
// each coordinate of [0,6]²), with fixed and with fitted hyperparameters.
// Without standardisation it does not (the offset alone moves the posterior
// mean towards the prior mean 0).
func TestStandardiseInvariance(t *testing.T) {
	const T = 40
	base, err := problem.New("gardner", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := problem.New("gardner", bandit.Params{"scale": "1000", "offset": "50"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, algo := range []string{"ckb-ucb", "rpol-ucb", "config"} {
		for _, hyper := range []string{"fixed", "fit"} {
			ps := bandit.Params{"hyper": hyper} // standardise=on, widths=practical: the defaults
			xa := runDecisions(t, algo, base, ps, T)
			xb := runDecisions(t, algo, scaled, ps, T)
			var worst float64
			for r := range xa {
				for i := range xa[r] {
					worst = math.Max(worst, math.Abs(xa[r][i]-xb[r][i]))
				}
			}
			t.Logf("%s hyper=%s: largest coordinate difference over %d rounds %.3g", algo, hyper, T, worst)
			if worst > 1e-6 {
				t.Errorf("%s hyper=%s: decisions differ by %.3g between the unit systems", algo, hyper, worst)
			}
		}
		off := bandit.Params{"standardise": "off", "hyper": "fixed", "widths": "theory"}
		xa := runDecisions(t, algo, base, off, T)
		xb := runDecisions(t, algo, scaled, off, T)
		same := true
		for r := range xa {
			for i := range xa[r] {
				same = same && math.Abs(xa[r][i]-xb[r][i]) <= 1e-6
			}
		}
		if same {
			t.Errorf("%s standardise=off: decisions unchanged by the units; the test cannot tell", algo)
		}
	}
}

// TestStandardiseEveryGPAgent: every algorithm that documents standardise
// (and hyper, where it takes it) runs with them on, on gardner (box) and on a finite problem
// with arm coordinates, and refuses a bad value naming the parameter.
func TestStandardiseEveryGPAgent(t *testing.T) {
	probs := []problem.Problem{}
	for _, name := range []string{"gardner", "rkhs-synthetic"} {
		p, err := problem.New(name, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		probs = append(probs, p)
	}
	n := 0
	for _, s := range All() {
		if !bandit.Declares(s.Params, "standardise") {
			continue
		}
		n++
		ps := bandit.Params{"standardise": "on"}
		if bandit.Declares(s.Params, "hyper") {
			ps["hyper"] = "fit"
		}
		for _, p := range probs {
			if _, err := New(s.Name, Config{Info: p.Info(), Horizon: 20, Seed: 1}); err != nil {
				continue // the algorithm does not fit this problem
			}
			if _, box := p.Info().Domain.(*domain.Box); box && s.Name == "ckb-ts" {
				continue // joint Thompson draws over 1,024 candidates: slow with or without standardise
			}
			runDecisions(t, s.Name, p, ps, 20)
		}
		key := "standardise"
		if bandit.Declares(s.Params, "hyper") {
			key = "hyper"
		}
		if _, err := New(s.Name, Config{Info: probs[0].Info(), Horizon: 20}); err != nil {
			continue // does not fit gardner (e.g. penalty-noiseless: noisy g)
		}
		_, err := New(s.Name, Config{Info: probs[0].Info(), Horizon: 20, Params: bandit.Params{key: "learned"}})
		if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "learned") {
			t.Errorf("%s %s=learned: error %v", s.Name, key, err)
		}
	}
	if n < 14 { // ckb ×5, rpol ×3, config, scgp-ucb, igp-ucb, penalty ×2, admmbo
		t.Errorf("only %d algorithms take standardise", n)
	}
}
