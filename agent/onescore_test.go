package agent

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/problem"
)

// TestCandidateScoreIsRefinementScore checks, for every GP agent that
// refines on a box, that the score its candidates get equals its
// acquisition evaluated the way the refinement evaluates it (the models'
// batch posterior at the same points, with the gradients' machinery), so the
// two cannot drift apart: one acquisition per algorithm. It runs each agent
// on gardner (one constraint) and gramacy (two), with a batch of pending
// decisions on some rounds.
func TestCandidateScoreIsRefinementScore(t *testing.T) {
	defer func() { acqHook = nil }()
	seen := map[string]bool{}
	defer func() {
		for _, n := range []string{"rpol-ucb", "rpol-sw-ucb", "config", "ckb-ucb", "ckb-ucb-slack", "ckb-restart-ucb", "cei", "igp-ucb", "penalty-noisy"} {
			if !seen[n] {
				t.Errorf("%s: its candidate and refinement scores were never compared", n)
			}
		}
	}()
	for _, pname := range []string{"suite-gardner", "suite-gramacy"} {
		for _, s := range All() {
			p, err := problem.New(pname, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			info := p.Info()
			if s.Fits(info) != nil || s.Can.Pending != PendingHallucinate {
				continue
			}
			ag, err := New(s.Name, Config{Info: info, Horizon: 40, Seed: 1})
			if err != nil {
				continue // a parameter-level refusal (e.g. noiseless constraints)
			}
			checked := 0
			acqHook = func(ms []model.Model, acq acquisition, score []float64) {
				bps := make([]model.BatchPredictor, len(ms))
				for j, m := range ms {
					if bps[j] = model.AsBatchPredictor(m); bps[j] == nil {
						return
					}
				}
				pts := make([][]float64, 0, 64)
				idx := make([]int, 0, 64)
				for i := 0; i < len(score); i += len(score) / 64 {
					pts = append(pts, ms[0].Action(i).X)
					idx = append(idx, i)
				}
				val := make([]float64, len(pts))
				at := func(_, mv []float64) float64 { return acq(mv) }
				if err := batchScore(bps, at, len(pts[0]))(pts, val, nil); err != nil {
					t.Fatalf("%s: %v", s.Name, err)
				}
				for k, i := range idx {
					a, b := score[i], val[k]
					if math.Abs(a-b) > 1e-7*(1+math.Abs(a)) {
						t.Fatalf("%s on %s: candidate %d scores %v, the refinement's evaluation %v", s.Name, pname, i, a, b)
					}
				}
				checked++
			}
			rng := rand.New(rand.NewPCG(1, 1))
			costs := make([]float64, info.M)
			var held []bandit.Feedback
			for r := 1; r <= 30; r++ {
				rd := p.Round(rng, r)
				d, err := ag.Decide(rd)
				if err != nil {
					t.Fatalf("%s: %v", s.Name, err)
				}
				y, err := p.Observe(rng, rd, d.Action, costs)
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: append([]float64(nil), costs...)})
				if r%3 == 0 || r < 10 { // rounds 10–29: two decisions pending at times
					for _, fb := range held {
						if err := ag.Observe(fb); err != nil {
							t.Fatal(err)
						}
					}
					held = held[:0]
				}
			}
			if checked > 0 {
				seen[s.Name] = true
			} else {
				t.Logf("%s on %s: scores candidates only (no refinement on a box)", s.Name, pname)
			}
		}
	}
}
