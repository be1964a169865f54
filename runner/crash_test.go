package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/problem"
)

// crashArms: 4 arms with f(i) = i and no constraint cost above 0; arm 3
// crashes ("OOM"), so its Truth is 0 (no output). The optimum is arm 2.
type crashArms struct{ in bandit.Info }

func (c crashArms) Info() bandit.Info                       { return c.in }
func (c crashArms) Round(_ *rand.Rand, t int) *bandit.Round { return &bandit.Round{T: t} }
func (c crashArms) Optimum(*bandit.Round) float64           { return 2 }
func (c crashArms) Crash(_ *bandit.Round, a bandit.Action) string {
	if a.Arm == 3 {
		return "OOM"
	}
	return ""
}

func (c crashArms) Truth(_ *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	costs[0] = -1
	if a.Arm == 3 {
		costs[0] = 0
		return 0, nil
	}
	return float64(a.Arm), nil
}

func (c crashArms) Observe(rng *rand.Rand, r *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	if a.Arm == 3 {
		return 0, fmt.Errorf("observed a crashed arm")
	}
	f, _ := c.Truth(r, a, costs)
	return f + 0.1*rng.NormFloat64(), nil
}

// roundRobin plays arms 0, 1, 2, 3, 0, … and reports, as diagnostics, the
// feedback it was given: failures (with reason "OOM"), failures for an arm
// other than 3, metric feedback for arm 3, and feedback for an unknown ID.
type roundRobin struct {
	n, next int64
	arm     map[int64]int
	counts  map[string]float64
}

func (g *roundRobin) Decide(r *bandit.Round) (bandit.Decision, error) {
	g.next++
	a := int(g.next-1) % int(g.n)
	g.arm[g.next] = a
	return bandit.Decision{ID: g.next, Round: r.T, Action: bandit.ArmAction(a)}, nil
}

func (g *roundRobin) Observe(fb bandit.Feedback) error {
	if err := fb.Validate(1); err != nil {
		return err
	}
	a, ok := g.arm[fb.ID]
	switch {
	case !ok:
		g.counts["unknown"]++
	case fb.Failed && fb.Reason == "OOM" && a == 3:
		g.counts["failed"]++
	case fb.Failed:
		g.counts["failed_wrong"]++
	case a == 3:
		g.counts["observed_crashed"]++
	default:
		g.counts["observed"]++
	}
	delete(g.arm, fb.ID)
	return nil
}

func (g *roundRobin) Diagnostics() map[string]float64 {
	out := map[string]float64{"failed": 0, "failed_wrong": 0, "observed_crashed": 0, "observed": 0, "unknown": 0, "pending": float64(len(g.arm))}
	for k, v := range g.counts {
		out[k] = v
	}
	return out
}

func init() {
	problem.Register(problem.Spec{Name: "test-crash-arms", Summary: "test only", New: func(bandit.Params, uint64) (problem.Problem, error) {
		d, err := domain.NewFinite([][]float64{{0}, {1}, {2}, {3}})
		if err != nil {
			return nil, err
		}
		return crashArms{bandit.Info{Domain: d, M: 1}}, nil
	}})
	agent.Register(agent.Spec{Name: "test-round-robin", Summary: "test only", New: func(cfg agent.Config) (bandit.Agent, error) {
		return &roundRobin{n: 4, arm: map[int64]int{}, counts: map[string]float64{}}, nil
	}})
}

// A crashing action is told as a failed evaluation with its reason (never
// observed, never given metrics), in every feedback mode, and the
// "failures" metric is the share of evaluations so far that failed: with
// arms played round robin, 1/4 at rounds 4 and 8. The crashed round scores
// the problem's Truth (0): regret 2 + 1 + 0 + 2 per cycle of four.
func TestCrashedEvaluationsAreFailures(t *testing.T) {
	for _, mode := range []struct {
		name         string
		batch, async int
	}{{"sequential", 0, 0}, {"batch", 4, 0}, {"async", 0, 3}} {
		out, err := Run(context.Background(), Spec{Problem: "test-crash-arms", Algos: []Algo{{ID: "test-round-robin"}},
			Trials: 2, Horizon: 8, Seed: 1, CurvePoints: 8, Batch: mode.batch, Async: mode.async})
		if err != nil {
			t.Fatalf("%s: %v", mode.name, err)
		}
		if got := out.Metrics[len(out.Metrics)-1]; got != Failures {
			t.Fatalf("%s: metrics %v, want %s last", mode.name, out.Metrics, Failures)
		}
		per := out.PerTrial["test-round-robin"]
		for tr := range 2 {
			fails := per[Failures][tr]
			want := []float64{0, 0, 0, 0.25, 0.2, 1.0 / 6, 1.0 / 7, 0.25}
			for k := range want {
				if fails[k] != want[k] {
					t.Fatalf("%s trial %d: failures %v, want %v", mode.name, tr, fails, want)
				}
			}
			if reg := per[Regret][tr][7]; reg != 10 {
				t.Fatalf("%s trial %d: regret after 8 rounds %v, want 10", mode.name, tr, reg)
			}
		}
		d := out.Results.Summary.Algorithms["test-round-robin"].Diagnostics
		// Feedback still pending at the end (the runner delivers feedback
		// before a decision, and none after the last): none sequentially,
		// the last batch, the async workers' last q.
		pending := float64(max(mode.batch, mode.async))
		if d["failed_wrong"].Mean != 0 || d["observed_crashed"].Mean != 0 || d["unknown"].Mean != 0 || d["pending"].Mean != pending {
			t.Fatalf("%s: diagnostics %+v", mode.name, d)
		}
		if d["failed"].Mean+d["observed"].Mean+pending != 8 || d["failed"].Mean < 1 {
			t.Fatalf("%s: %v failed and %v observed of 8", mode.name, d["failed"].Mean, d["observed"].Mean)
		}
	}
	// A problem without a crash region records no failures metric.
	out, err := Run(context.Background(), Spec{Problem: "rkhs-synthetic", ProblemParams: bandit.Params{"h": "0.5", "n": "30"},
		Algos: []Algo{{ID: "test-greedy"}}, Trials: 1, Horizon: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range out.Metrics {
		if m == Failures {
			t.Fatalf("metrics %v on a problem that never crashes", out.Metrics)
		}
	}
}
