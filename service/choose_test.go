package service

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// TestChooseAlgorithmFromConstraints: a study that names no algorithm gets
// one chosen from its constraints' kinds, space and safe point, and the
// answer says which and why; a constraint without a kind gets the
// strictest kind its algorithm keeps; a kind the named algorithm does not
// keep is a 400 naming both.
func TestChooseAlgorithmFromConstraints(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	box := api.Space{Type: api.SpaceBox, Lo: []float64{0, 0}, Hi: []float64{1, 1}}
	pts := api.Space{Type: api.SpacePoints, Points: toyPoints}
	con := func(kinds ...string) []api.Constraint {
		var cs []api.Constraint
		for j, k := range kinds {
			cs = append(cs, api.Constraint{Name: "c" + string(rune('a'+j)), Threshold: 0.5, Kind: bandit.ConstraintKind(k)})
		}
		return cs
	}
	for i, c := range []struct {
		name      string
		space     api.Space
		safe      []float64
		cons      []api.Constraint
		algorithm string
		want      string   // algorithm
		kinds     []string // the stored kinds
		reason    []string // in algorithm_choice ("" for a named algorithm)
	}{
		{"per round, no kind", box, nil, con(""), "", "config", []string{"stage-wise"}, []string{"config", "stage-wise", "every round", "without a kind is stage-wise"}},
		{"stage-wise", box, nil, con("stage-wise"), "", "config", []string{"stage-wise"}, []string{"config"}},
		{"stage-wise, safe point, points", pts, []float64{0, 0}, con("stage-wise"), "", "safeopt", []string{"stage-wise"}, []string{"safeopt", "safe point"}},
		{"stage-wise, safe point, box", box, []float64{0, 0}, con("stage-wise"), "", "config", []string{"stage-wise"}, []string{"config"}},
		{"cumulative", box, nil, con("cumulative"), "", "rpol-ucb", []string{"cumulative"}, []string{"rpol-ucb", "sum of the violations"}},
		{"long-term", pts, nil, con("long-term"), "", "ckb-ucb", []string{"long-term"}, []string{"ckb-ucb", "average"}},
		{"mixed", box, nil, con("long-term", "stage-wise", ""), "", "config", []string{"long-term", "stage-wise", "stage-wise"}, []string{"strictest stage-wise", "keeps the weaker"}},
		{"mixed without per round", box, nil, con("long-term", "cumulative"), "", "rpol-ucb", []string{"long-term", "cumulative"}, []string{"strictest cumulative"}},
		{"no constraints", box, nil, nil, "", "igp-ucb", nil, []string{"no constraints", "igp-ucb"}},
		{"ckb-ucb, no kind", box, nil, con(""), "ckb-ucb", "ckb-ucb", []string{"long-term"}, nil},
		{"rpol-ucb, no kind", box, nil, con(""), "rpol-ucb", "rpol-ucb", []string{"cumulative"}, nil},
		{"config, no kind", box, nil, con(""), "config", "config", []string{"stage-wise"}, nil},
		{"config keeps long-term", box, nil, con("long-term"), "config", "config", []string{"long-term"}, nil},
		{"rpol-ucb keeps long-term", box, nil, con("long-term"), "rpol-ucb", "rpol-ucb", []string{"long-term"}, nil},
		{"igp-ucb measures any", box, nil, con("stage-wise"), "igp-ucb", "igp-ucb", []string{"stage-wise"}, nil},
	} {
		spec := api.StudySpec{Name: "choose-" + string(rune('a'+i)), Space: c.space, Objective: api.Objective{Name: "f"},
			Constraints: c.cons, Algorithm: c.algorithm, Seed: 1, Horizon: 20, Prior: api.Prior{Safe: c.safe}}
		if c.safe != nil && c.want == "safeopt" {
			spec.Prior.G = f64(1)
		}
		var st api.Study
		code, raw := s.do("POST", "/studies", spec, &st)
		if code != 201 {
			t.Errorf("%s: %d %s", c.name, code, raw)
			continue
		}
		if st.Spec.Algorithm != c.want {
			t.Errorf("%s: algorithm %q, want %q (%s)", c.name, st.Spec.Algorithm, c.want, st.Spec.AlgorithmChoice)
		}
		for j, k := range c.kinds {
			if string(st.Spec.Constraints[j].Kind) != k {
				t.Errorf("%s: constraints[%d].kind = %q, want %q", c.name, j, st.Spec.Constraints[j].Kind, k)
			}
		}
		if c.algorithm != "" && st.Spec.AlgorithmChoice != "" {
			t.Errorf("%s: algorithm_choice %q for a named algorithm", c.name, st.Spec.AlgorithmChoice)
		}
		for _, w := range c.reason {
			if !strings.Contains(st.Spec.AlgorithmChoice, w) {
				t.Errorf("%s: algorithm_choice %q does not say %q", c.name, st.Spec.AlgorithmChoice, w)
			}
		}
		// The stored study says the same.
		var got api.Study
		if code, raw := s.do("GET", "/studies/"+st.ID, nil, &got); code != 200 || got.Spec.AlgorithmChoice != st.Spec.AlgorithmChoice {
			t.Errorf("%s: GET: %d %s", c.name, code, raw)
		}
	}
	t.Logf("e.g. %s", func() string {
		var st api.Study
		s.do("POST", "/studies", api.StudySpec{Name: "choose-log", Space: box, Objective: api.Objective{Name: "f"}, Constraints: con(""), Seed: 1}, &st)
		return st.Spec.AlgorithmChoice
	}())

	// Refusals.
	for i, c := range []struct {
		name      string
		cons      []api.Constraint
		algorithm string
		field     string
		says      []string
	}{
		{"ckb-ucb per round", con("stage-wise"), "ckb-ucb", "constraints[0].kind", []string{"ckb-ucb", "stage-wise", "long-term", "config"}},
		{"rpol-ucb per round", con("cumulative", "stage-wise"), "rpol-ucb", "constraints[1].kind", []string{"rpol-ucb", "stage-wise"}},
		{"ckb-ucb cumulative", con("cumulative"), "ckb-ucb", "constraints[0].kind", []string{"ckb-ucb", "cumulative", "rpol-ucb"}},
		{"unknown kind", con("hard"), "", "constraints[0].kind", []string{"hard", "stage-wise"}},
	} {
		spec := api.StudySpec{Name: "refuse-" + string(rune('a'+i)), Space: box, Objective: api.Objective{Name: "f"},
			Constraints: c.cons, Algorithm: c.algorithm, Seed: 1}
		code, raw := s.do("POST", "/studies", spec, nil)
		wantError(t, code, raw, 400, c.field)
		for _, w := range c.says {
			if !strings.Contains(string(raw), w) {
				t.Errorf("%s: %s does not name %q", c.name, raw, w)
			}
		}
	}
	code, raw := s.do("POST", "/studies", `{"name":"x","space":{"type":"box","lo":[0],"hi":[1]},"objective":{"name":"f"},
		"constraints":[{"name":"c","threshold":0}],"algorithm_choice":"mine"}`, nil)
	wantError(t, code, raw, 400, "algorithm_choice")
}

// latencySystem is a made-up system to tune: batch (a log-scaled float in
// [1, 1000]), frac (a float in [0, 1]) and codec (a categorical), giving a
// throughput to maximise and a latency (ms) to keep ≤ 50 in every round.
// Larger batches give more throughput and more latency, so the optimum lies
// on the latency limit.
func latencySystem(batch, frac float64, codec string) (throughput, latency float64) {
	u := math.Log10(batch) / 3
	tf := map[string]float64{"none": 0.85, "lz4": 1, "zstd": 0.92}[codec]
	lf := map[string]float64{"none": 1, "lz4": 0.9, "zstd": 1.25}[codec]
	throughput = 1200 * (0.45 + 0.55*u) * (1 - 0.5*(frac-0.6)*(frac-0.6)) * tf
	latency = 10 + 60*math.Pow(u, 1.5)*lf + 20*(frac-0.3)*(frac-0.3)
	return throughput, latency
}

// latencyOptimum is the best throughput with latency ≤ 50 over a fine grid
// of the whole space (not the study's candidates).
func latencyOptimum() float64 {
	best := math.Inf(-1)
	for _, codec := range []string{"none", "lz4", "zstd"} {
		for i := 0; i <= 3000; i++ {
			b := math.Pow(10, 3*float64(i)/3000)
			for j := 0; j <= 200; j++ {
				if th, la := latencySystem(b, float64(j)/200, codec); la <= 50 && th > best {
					best = th
				}
			}
		}
	}
	return best
}

// LatencyCandidates is the candidate set of the latency studies: with the
// default 256 the best feasible candidate of latencySystem is 3.0 % below
// the optimum (the set's resolution: about 85 points per codec in two
// floats), with 1024 0.9 %.
const latencyCandidates = 1024

// TestLatencyLimitWithoutAlgorithm checks the constraint semantics, in Go against the in-process server (clients/python's
// test_latency_limit.py is the same study through the Python client): a
// study with a per-round latency limit and no algorithm, 60 rounds on the
// made-up system (noise-free); in the last 20 rounds at most one truly
// violating round, and the best truly feasible throughput within 2 % of the
// optimum over the whole space.
func TestLatencyLimitWithoutAlgorithm(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	opt := latencyOptimum()
	for _, seed := range []uint64{1, 2, 3} {
		var st api.Study
		body := map[string]any{"name": "latency-" + string(rune('0'+seed)), "seed": seed, "horizon": 60,
			"parameters": []map[string]any{
				{"name": "batch", "type": "float", "low": 1, "high": 1000, "log": true},
				{"name": "frac", "type": "float", "low": 0, "high": 1},
				{"name": "codec", "type": "categorical", "choices": []string{"none", "lz4", "zstd"}}},
			"space":       map[string]any{"candidates": latencyCandidates},
			"objective":   map[string]any{"name": "throughput", "goal": "maximize"},
			"constraints": []map[string]any{{"name": "latency_ms", "threshold": 50}}}
		raw, _ := json.Marshal(body)
		if code, out := s.do("POST", "/studies", raw, &st); code != 201 {
			t.Fatalf("create: %d %s", code, out)
		}
		if st.Spec.Algorithm != "config" || st.Spec.Constraints[0].Kind != api.KindStageWise {
			t.Fatalf("chosen %q, kind %q: want config, stage-wise (%s)", st.Spec.Algorithm, st.Spec.Constraints[0].Kind, st.Spec.AlgorithmChoice)
		}
		violLate, best, bestRound := 0, math.Inf(-1), 0
		for r := 1; r <= 60; r++ {
			sg := s.ask(st.ID, 1)[0]
			th, la := latencySystem(sg.Params["batch"].(float64), sg.Params["frac"].(float64), sg.Params["codec"].(string))
			if la > 50 && r > 40 {
				violLate++
			}
			if la <= 50 && th > best {
				best, bestRound = th, r
			}
			s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: &th, Costs: []float64{la}})
		}
		gap := (opt - best) / opt
		t.Logf("seed %d: %s; violating rounds in the last 20: %d; best feasible throughput %.1f (round %d), optimum %.1f, gap %.2f %%",
			seed, st.Spec.Algorithm, violLate, best, bestRound, opt, 100*gap)
		if violLate > 1 || gap > 0.02 {
			t.Errorf("seed %d: %d violating rounds in the last 20 (want ≤ 1), best feasible %.1f is %.2f %% below the optimum %.1f (want ≤ 2 %%)",
				seed, violLate, best, 100*gap, opt)
		}
	}
}

// Stage-wise limits on typed parameters with an int or a categorical get
// cei (agent.DomainTyped: ahead of config there, docs/typed.md); floats
// alone make a box and keep config.
func TestChooseOnTypedSpaces(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	lo, hi := 1.0, 16.0
	for _, c := range []struct {
		name   string
		params []api.Parameter
		want   string
	}{
		{"typed", []api.Parameter{{Name: "threads", Type: "int", Low: &lo, High: &hi}, {Name: "mode", Type: "categorical", Choices: []any{"a", "b"}}}, "cei"},
		{"floats", []api.Parameter{{Name: "rate", Type: "float", Low: &lo, High: &hi}}, "config"},
	} {
		st := s.create(api.StudySpec{Name: c.name, Parameters: c.params, Objective: api.Objective{Name: "f"},
			Constraints: []api.Constraint{{Name: "g", Threshold: 1, Kind: "stage-wise"}}, Seed: 1, Horizon: 20})
		if st.Spec.Algorithm != c.want || (c.want == "cei" && !strings.Contains(st.Spec.AlgorithmChoice, "typed space")) {
			t.Errorf("%s: algorithm %q (%s), want %s", c.name, st.Spec.Algorithm, st.Spec.AlgorithmChoice, c.want)
		}
	}
}
