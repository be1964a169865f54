package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/problem"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

func smallSpec() Spec {
	return Spec{
		Problem:       "rkhs-synthetic",
		ProblemParams: bandit.Params{"h": "0.5", "n": "30"},
		Algos:         []Algo{{ID: "ckb-ucb"}, {ID: "ckb-ucb-slack"}, {ID: "ckb-ts"}, {ID: "ckb-rand"}},
		Trials:        5,
		Horizon:       150,
		Seed:          7,
		CurvePoints:   20,
	}
}

// The numbers must not depend on the worker count (DESIGN.md, Deterministic).
func TestDeterministicAcrossWorkers(t *testing.T) {
	var outs []*Output
	for _, w := range []int{1, 3, 8} {
		s := smallSpec()
		s.Workers = w
		out, err := Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	for i := 1; i < len(outs); i++ {
		if !reflect.DeepEqual(outs[0].Results.Curves, outs[i].Results.Curves) {
			t.Fatalf("curves differ between worker counts")
		}
		if !reflect.DeepEqual(outs[0].PerTrial, outs[i].PerTrial) {
			t.Fatalf("per-trial values differ between worker counts")
		}
		a, b := outs[0].Results.Summary.Algorithms["ckb-ucb"], outs[i].Results.Summary.Algorithms["ckb-ucb"]
		a.SecondsPerRound, b.SecondsPerRound = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("summaries differ: %+v vs %+v", a, b)
		}
	}
	// A different seed gives different numbers.
	s := smallSpec()
	s.Seed = 8
	other, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(outs[0].Results.Curves, other.Results.Curves) {
		t.Fatal("seed 7 and seed 8 gave identical curves")
	}
}

// Shards of the grid, collected in any order, give exactly the unsharded output.
func TestShardsCollectToTheUnshardedOutput(t *testing.T) {
	full, err := Run(context.Background(), smallSpec())
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	for _, i := range []int{2, 0, 1} {
		s := smallSpec()
		s.Shard, s.Shards = i, 3
		out, err := Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if out.Results.Summary.Algorithms != nil {
			t.Fatal("a shard aggregated a partial run")
		}
		jobs = append(jobs, out.Jobs...)
	}
	s := smallSpec()
	merged, err := Collect(&s, full.Rounds, full.Metrics, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(merged.Results.Curves, full.Results.Curves) || !reflect.DeepEqual(merged.PerTrial, full.PerTrial) {
		t.Fatal("merged shards differ from the unsharded run")
	}
	for label, a := range full.Results.Summary.Algorithms {
		b := merged.Results.Summary.Algorithms[label]
		a.SecondsPerRound, b.SecondsPerRound = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: summary %+v, merged %+v", label, a, b)
		}
	}
	// Missing and overlapping jobs are refused.
	if _, err := Collect(&s, full.Rounds, full.Metrics, jobs[1:]); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing job: err = %v", err)
	}
	if _, err := Collect(&s, full.Rounds, full.Metrics, append(jobs, jobs[0])); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("duplicate job: err = %v", err)
	}
}

// sameAlgo reports whether two outputs hold identical per-trial numbers for label.
func sameAlgo(t *testing.T, a, b *Output, label string) {
	t.Helper()
	if a.PerTrial[label] == nil || b.PerTrial[label] == nil {
		t.Fatalf("%s missing from an output", label)
	}
	if !reflect.DeepEqual(a.PerTrial[label], b.PerTrial[label]) {
		t.Fatalf("%s: per-trial numbers differ between runs", label)
	}
}

// Common random numbers (DESIGN.md, Deterministic and paired): an
// algorithm's numbers do not depend on the other algorithms of the run, nor
// on their order.
func TestAlgorithmNumbersIndependentOfTheList(t *testing.T) {
	run := func(algos ...Algo) *Output {
		s := smallSpec()
		s.Algos = algos
		out, err := Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	ucb, rnd, ts := Algo{ID: "ckb-ucb"}, Algo{ID: "ckb-rand"}, Algo{ID: "ckb-ts"}
	both := run(ucb, rnd)
	reordered := run(rnd, ts, ucb)
	alone := run(rnd)
	sameAlgo(t, both, reordered, "ckb-rand")
	sameAlgo(t, both, alone, "ckb-rand")
	sameAlgo(t, both, reordered, "ckb-ucb")
	// Delayed feedback: the delays are common too.
	delayed := func(algos ...Algo) *Output {
		s := smallSpec()
		s.Algos = algos
		s.Delay = func(rng *rand.Rand) (int, int) { return rng.IntN(4), rng.IntN(7) }
		out, err := Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	sameAlgo(t, delayed(ucb, ts), delayed(ts, rnd, ucb), "ckb-ucb")
}

// greedyAgent draws no random numbers: each arm once, then the arm with the
// best empirical reward among those whose empirical costs are ≤ 0 (lowest
// index on ties). Its path depends on the noise it sees, so two copies of
// it follow the same path exactly when they meet the same noise.
type greedyAgent struct {
	n, m   int
	sum    []float64
	cost   [][]float64
	count  []float64
	ledger *agent.Ledger
}

func (g *greedyAgent) Decide(r *bandit.Round) (bandit.Decision, error) {
	best, arm := math.Inf(-1), 0
	for i := 0; i < g.n; i++ {
		if g.count[i] == 0 {
			arm = i
			break
		}
		ok := true
		for j := 0; j < g.m; j++ {
			ok = ok && g.cost[j][i]/g.count[i] <= 0
		}
		if v := g.sum[i] / g.count[i]; ok && v > best {
			best, arm = v, i
		}
	}
	return g.ledger.Record(r.T, bandit.ArmAction(arm), 0), nil
}

func (g *greedyAgent) Observe(fb bandit.Feedback) error {
	acc, err := g.ledger.Accept(fb)
	if err != nil {
		return err
	}
	i := acc.Action.Arm
	if fb.HasReward {
		g.sum[i] += fb.Reward
		g.count[i]++
	}
	for j, c := range fb.Costs {
		g.cost[j][i] += c
	}
	return nil
}

func init() {
	agent.Register(agent.Spec{Name: "test-greedy", Summary: "test only", New: func(cfg agent.Config) (bandit.Agent, error) {
		n := cfg.Info.Domain.(*domain.Finite).N
		g := &greedyAgent{n: n, m: cfg.Info.M, sum: make([]float64, n), count: make([]float64, n), ledger: agent.NewLedger(cfg.Info.M)}
		for j := 0; j < cfg.Info.M; j++ {
			g.cost = append(g.cost, make([]float64, n))
		}
		return g, nil
	}})
}

// An agent that draws no random numbers, listed twice under two labels,
// meets the same instance and the same noise in every trial, so its two
// trajectories are identical; an agent that does draw (its stream depends on
// the label) gives two different trajectories.
func TestSameAgentTwiceUnderTwoLabels(t *testing.T) {
	s := smallSpec()
	s.Algos = []Algo{{Label: "a", ID: "test-greedy"}, {Label: "b", ID: "test-greedy"},
		{Label: "ts1", ID: "ckb-ts"}, {Label: "ts2", ID: "ckb-ts"}}
	out, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.PerTrial["a"], out.PerTrial["b"]) {
		t.Fatal("deterministic agent under two labels: trajectories differ (environment not common)")
	}
	if reflect.DeepEqual(out.PerTrial["ts1"], out.PerTrial["ts2"]) {
		t.Fatal("ckb-ts under two labels drew the same Thompson samples: agent seeds do not depend on the label")
	}
}

// The noise a problem returns for a round depends on (seed, trial, round)
// only: two different actions in the same round see the same noise value on
// every metric.
func TestSameNoiseForEveryActionOfARound(t *testing.T) {
	p, err := problem.New("rkhs-synthetic", bandit.Params{"h": "0.5", "n": "30"}, ProblemSeed(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	st := seed.NewStream()
	for round := 1; round <= 20; round++ {
		var noise [][]float64
		for _, arm := range []int{0, 7, 29} {
			a := bandit.ArmAction(arm)
			truth := make([]float64, p.Info().M)
			f, _ := p.Truth(nil, a, truth)
			obs := make([]float64, p.Info().M)
			r := p.Round(st.At(RoundSeed(3, 0, round)), round)
			y, err := p.Observe(st.At(NoiseSeed(3, 0, round)), r, a, obs)
			if err != nil {
				t.Fatal(err)
			}
			e := []float64{y - f}
			for j := range obs {
				e = append(e, obs[j]-truth[j])
			}
			noise = append(noise, e)
		}
		for k := 1; k < len(noise); k++ {
			for m := range noise[0] {
				if math.Abs(noise[k][m]-noise[0][m]) > 1e-12 {
					t.Fatalf("round %d metric %d: noise %v for one arm, %v for another", round, m, noise[0][m], noise[k][m])
				}
			}
		}
	}
}

func TestMetricsAreConsistent(t *testing.T) {
	out, err := Run(context.Background(), smallSpec())
	if err != nil {
		t.Fatal(err)
	}
	for label, per := range out.PerTrial {
		for tr := range per[Regret] {
			prevCount, prevHard := 0.0, 0.0
			for k := range out.Rounds {
				c, h, s := per[ViolationCount][tr][k], per[ViolationHard][tr][k], per[ViolationSoft][tr][k]
				if c < prevCount || h < prevHard {
					t.Fatalf("%s trial %d: count or hard violation decreased", label, tr)
				}
				if s > h+1e-9 {
					t.Fatalf("%s trial %d: soft violation %v exceeds hard %v", label, tr, s, h)
				}
				if c > float64(out.Rounds[k]) {
					t.Fatalf("%s: more violating rounds than rounds", label)
				}
				if per[Regret][tr][k] < -1e-9*float64(out.Rounds[k]) && c == 0 {
					t.Fatalf("%s: negative regret without any violation", label)
				}
				prevCount, prevHard = c, h
			}
		}
	}
}

func TestBadSpecs(t *testing.T) {
	cases := []struct {
		mod  func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Horizon = 0 }, "horizon = 0"},
		{func(s *Spec) { s.Horizon = -5 }, "horizon = -5"},
		{func(s *Spec) { s.Trials = 0 }, "trials = 0"},
		{func(s *Spec) { s.Problem = "nope" }, `unknown problem "nope": accepted are`},
		{func(s *Spec) { s.Algos = []Algo{{ID: "nope"}} }, `unknown algorithm "nope": accepted are`},
		{func(s *Spec) { s.Algos = nil }, "no algorithms"},
		{func(s *Spec) { s.ProblemParams = bandit.Params{"hh": "1"} }, `unknown parameter "hh": accepted are h,`},
		{func(s *Spec) { s.ProblemParams = bandit.Params{"h": "x"} }, `parameter h = "x": not a number`},
		{func(s *Spec) { s.Algos = []Algo{{ID: "ckb-ucb", Params: bandit.Params{"alpha": "2"}}} }, "alpha = 2"},
		{func(s *Spec) { s.Algos = []Algo{{ID: "ckb-ucb", Params: bandit.Params{"bogus": "2"}}} }, `unknown parameter "bogus"`},
		{func(s *Spec) { s.Algos = []Algo{{ID: "ckb-ucb"}, {ID: "ckb-ucb"}} }, "appears twice"},
		{func(s *Spec) { s.Shard, s.Shards = 3, 3 }, "shard = 3/3"},
	}
	for _, c := range cases {
		s := smallSpec()
		c.mod(&s)
		_, err := Run(context.Background(), s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error containing %q, got %v", c.want, err)
		}
	}
}

func TestDelayedFeedbackIsDeliveredInOrder(t *testing.T) {
	var q pendingQueue
	q.push(5, bandit.Feedback{ID: 1})
	q.push(3, bandit.Feedback{ID: 2})
	q.push(3, bandit.Feedback{ID: 3})
	if got := q.due(2); len(got) != 0 {
		t.Fatalf("nothing is due at round 2, got %v", got)
	}
	got := q.due(4)
	if len(got) != 2 || got[0].ID != 2 || got[1].ID != 3 {
		t.Fatalf("due(4) = %v, want IDs 2, 3", got)
	}
	if got := q.due(10); len(got) != 1 || got[0].ID != 1 {
		t.Fatalf("due(10) = %v, want ID 1", got)
	}
}

func TestMeanStderr(t *testing.T) {
	m, s := MeanStderr([]float64{1, 2, 3, 4})
	// mean 2.5, sample sd √(5/3), stderr √(5/3)/2
	if m != 2.5 || abs(s-0.6454972243679028) > 1e-15 {
		t.Fatalf("MeanStderr = %v, %v", m, s)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// An agent's diagnostics (bandit.Diagnostics) reach the summary per trial,
// in trial order, for agents that report them and only for those; jobs that
// disagree on the keys are refused.
func TestDiagnosticsCollected(t *testing.T) {
	s := Spec{Problem: "random-mab", ProblemParams: bandit.Params{"k": "5", "tau": "0.5"},
		Algos:  []Algo{{Label: "tight", ID: "oplb", Params: bandit.Params{"nodes": "3"}}, {ID: "oplb"}, {ID: "oplb-lp"}},
		Trials: 3, Horizon: 200, Seed: 6, CurvePoints: 5}
	out, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range out.Jobs {
		if (j.Algorithm == "oplb-lp") != (j.Diagnostics == nil) {
			t.Fatalf("%s trial %d: diagnostics %v", j.Algorithm, j.Trial, j.Diagnostics)
		}
		if j.Diagnostics == nil {
			continue
		}
		d := out.Results.Summary.Algorithms[j.Algorithm].Diagnostics
		for k, v := range j.Diagnostics {
			if got := d[k].PerTrial[j.Trial]; got != v {
				t.Errorf("%s trial %d: summary %s = %v, job %v", j.Algorithm, j.Trial, k, got, v)
			}
		}
	}
	al := out.Results.Summary.Algorithms
	if al["oplb-lp"].Diagnostics != nil {
		t.Errorf("oplb-lp: diagnostics %v", al["oplb-lp"].Diagnostics)
	}
	if tight, def := al["tight"].Diagnostics["uncertified_rounds"], al["oplb"].Diagnostics["uncertified_rounds"]; !(tight.Mean > 0) || def.Mean != 0 {
		t.Errorf("uncertified rounds: %v with 3 simplices, %v with the default budget; want > 0 and 0", tight.Mean, def.Mean)
	}
	if f := al["tight"].Diagnostics["uncertified_fraction"]; !(f.Mean > 0 && f.Mean <= 1) {
		t.Errorf("uncertified fraction %v", f.Mean)
	}
	jobs := append([]Job(nil), out.Jobs...)
	for i := range jobs {
		if jobs[i].Algorithm == "tight" && jobs[i].Trial == 1 {
			jobs[i].Diagnostics = map[string]float64{"other": 1}
		}
	}
	if _, err := Collect(&s, out.Rounds, out.Metrics, jobs); err == nil || !strings.Contains(err.Error(), `"tight": trial 1`) {
		t.Errorf("mismatched diagnostic keys: err = %v", err)
	}
}
